// LayerNormalizationGradient (the gradient of ONNX LayerNormalization-17):
// dX, dScale, dB from X, Scale, dY (and B for its shape), float32 and
// float64, statistics recomputed in double. float32 with Scale and B of the
// normalized dims' full shape runs oneDNN's layer_normalization_backward;
// the loops are the reference nn_normalization_gradient_test.cc holds it
// to, and serve float64 and broadcast parameters.
#include <cmath>
#include <unordered_map>

#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_norm_common.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

// Per normalized row of n = prod(X.shape[axis:]) elements, xhat = (x -
// mean) * inv_std and g = dY * Scale (broadcast):
//   dX = inv_std * (g - mean(g) - xhat * mean(g * xhat));
// dScale = sum over rows of dY * xhat and dB = sum of dY, each summed into
// the parameter's (broadcast) shape. Errors (INVALID_ARGUMENT): axis out
// of range, dY not X's shape, Scale / B not broadcasting to X.shape[axis:],
// dB asked for without B.
class LayerNormGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("axis", &axis_));
    return info.GetFloat("epsilon", &epsilon_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), scale = ctx.Input(1), dy = ctx.Input(2), b = ctx.Input(3);
    const std::vector<int64_t> xs = x.shape();
    int64_t axis = 0;
    LOOM_SDK_RETURN_IF_ERROR(LayerNormAxis(label_, axis_, xs, &axis));
    if (dy.shape() != xs || dy.dtype() != x.dtype() || scale.dtype() != x.dtype()) {
      return sdk::InvalidArgument(label_ + ": dY and Scale must be " + sdk::DTypeName(x.dtype()) + ", dY " + ShapeStr(xs) +
                                  " (X's); found dY " + sdk::DTypeName(dy.dtype()) + ShapeStr(dy.shape()) + ", Scale " +
                                  sdk::DTypeName(scale.dtype()));
    }
    std::vector<int64_t> s_off, b_off;
    LOOM_SDK_RETURN_IF_ERROR(NormParamOffsets(scale.shape(), xs, static_cast<size_t>(axis), "Scale", label_, &s_off));
    Tensor out[3];
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &out[0]));
    if (ctx.OutputRequested(1)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, x.dtype(), scale.shape(), &out[1]));
    if (ctx.OutputRequested(2)) {
      if (!b.present()) return sdk::InvalidArgument(label_ + ": output dB needs input B (for its shape); found none");
      LOOM_SDK_RETURN_IF_ERROR(NormParamOffsets(b.shape(), xs, static_cast<size_t>(axis), "B", label_, &b_off));
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, x.dtype(), b.shape(), &out[2]));
    }
    const size_t ax = static_cast<size_t>(axis);
    const int64_t inner = semantics::Product(xs, ax, xs.size()), outer = semantics::Product(xs, 0, ax);
    const bool full = scale.num_elements() == inner && (!b.present() || b.num_elements() == inner);
    if (x.dtype() == LOOM_DTYPE_FLOAT && full && outer > 0 && inner > 0) {
      return RunDnnl(ctx, x, scale, dy, b, outer, inner, out);
    }
    if (x.dtype() == LOOM_DTYPE_FLOAT) Run<float>(x, scale, dy, s_off, b_off, outer, inner, out, ctx.num_threads());
    else Run<double>(x, scale, dy, s_off, b_off, outer, inner, out, ctx.num_threads());
    return Status::Ok();
  }

 private:
  // oneDNN over X as [outer, inner] (the normalized dims flattened), the
  // row statistics from RowStats (double) as oneDNN's mean and variance.
  // Always prop_kind::backward: oneDNN 2.6 has no backward_data with a
  // scale, so dScale goes to scratch when it is not asked for.
  Status RunDnnl(KernelContext& ctx, const Tensor& x, const Tensor& scale, const Tensor& dy, const Tensor& b,
                 int64_t outer, int64_t inner, Tensor* out) {
    const int threads = DnnlThreadsFor(x.num_elements(), ctx.num_threads());
    const bool with_b = out[2].present();
    const std::vector<int64_t> dims = {outer, inner};
    if (dims != dims_ || threads != threads_ || with_b != with_b_) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
        using F = dnnl::normalization_flags;
        const F flags = with_b ? F::use_scale | F::use_shift : F::use_scale;
        const dnnl::memory::desc md = PlainDesc(dims), stat = PlainDesc({outer}), param = PlainDesc({inner});
        const dnnl::layer_normalization_forward::primitive_desc hint(
            dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_training, md, stat, epsilon_, flags),
            DnnlEngine());
        const dnnl::layer_normalization_backward::primitive_desc pd(
            dnnl::layer_normalization_backward::desc(dnnl::prop_kind::backward, md, md, stat, epsilon_, flags),
            UserScratchpad(), DnnlEngine(), hint);
        prim_ = dnnl::layer_normalization_backward(pd);
        scratchpad_.Reset(pd.scratchpad_desc());
        x_ = UnboundMemory(md), dy_ = UnboundMemory(md), dx_ = UnboundMemory(md);
        mean_ = UnboundMemory(stat), var_ = UnboundMemory(stat);
        scale_ = UnboundMemory(param), shift_ = UnboundMemory(param);
        dscale_ = UnboundMemory(param), dshift_ = UnboundMemory(param);
      }));
      dims_ = dims, threads_ = threads, with_b_ = with_b;
    }
    LOOM_SDK_RETURN_IF_ERROR(BindScratch(ctx, &mean_));
    LOOM_SDK_RETURN_IF_ERROR(BindScratch(ctx, &var_));
    float* mean = static_cast<float*>(mean_.get_data_handle());
    float* var = static_cast<float*>(var_.get_data_handle());
    const float* xp = x.data<float>();
    const double eps = epsilon_;
    ParallelFor(outer, threads, [&](int64_t r) {
      double m, inv;
      RowStats(xp + r * inner, inner, 1, eps, &m, &inv);
      mean[r] = static_cast<float>(m);
      var[r] = static_cast<float>(1.0 / (inv * inv) - eps);
    }, inner);
    x_.set_data_handle(const_cast<float*>(xp));
    dy_.set_data_handle(const_cast<float*>(dy.data<float>()));
    dx_.set_data_handle(out[0].data<float>());
    scale_.set_data_handle(const_cast<float*>(scale.data<float>()));
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, x_},     {DNNL_ARG_DIFF_DST, dy_},
                                                  {DNNL_ARG_MEAN, mean_}, {DNNL_ARG_VARIANCE, var_},
                                                  {DNNL_ARG_SCALE, scale_}, {DNNL_ARG_DIFF_SRC, dx_}};
    if (out[1].present()) dscale_.set_data_handle(out[1].data<float>());
    else LOOM_SDK_RETURN_IF_ERROR(BindScratch(ctx, &dscale_));
    args[DNNL_ARG_DIFF_SCALE] = dscale_;
    if (with_b) {  // oneDNN reads the shift too, though dB does not depend on it
      shift_.set_data_handle(const_cast<float*>(b.data<float>()));
      dshift_.set_data_handle(out[2].data<float>());
      args[DNNL_ARG_SHIFT] = shift_;
      args[DNNL_ARG_DIFF_SHIFT] = dshift_;
    }
    LOOM_SDK_RETURN_IF_ERROR(scratchpad_.Bind(ctx, &args));
    return DnnlExecute(label_, prim_, args, threads);
  }

  template <typename T>
  void Run(const Tensor& x, const Tensor& scale, const Tensor& dy, const std::vector<int64_t>& s_off,
           const std::vector<int64_t>& b_off, int64_t outer, int64_t inner, Tensor* out, int threads) const {
    const T *xp = x.data<T>(), *sp = scale.data<T>(), *gp = dy.data<T>();
    T* dx = out[0].data<T>();
    // Per row: dX, and dY * xhat (xhat_g) for dScale.
    std::vector<double> xhat_g(out[1].present() ? static_cast<size_t>(outer * inner) : 0);
    const double eps = epsilon_;
    ParallelFor(outer, threads, [&](int64_t r) {
      const T *xr = xp + r * inner, *gr = gp + r * inner;
      double mean, inv;
      RowStats(xr, inner, 1, eps, &mean, &inv);
      double sum_g = 0, sum_gx = 0;
      for (int64_t i = 0; i < inner; ++i) {
        const double g = static_cast<double>(gr[i]) * sp[s_off[i]], xh = (xr[i] - mean) * inv;
        sum_g += g;
        sum_gx += g * xh;
        if (!xhat_g.empty()) xhat_g[r * inner + i] = gr[i] * xh;
      }
      const double mg = sum_g / static_cast<double>(inner), mgx = sum_gx / static_cast<double>(inner);
      for (int64_t i = 0; i < inner; ++i) {
        const double g = static_cast<double>(gr[i]) * sp[s_off[i]], xh = (xr[i] - mean) * inv;
        dx[r * inner + i] = static_cast<T>(inv * (g - mg - xh * mgx));
      }
    }, inner);
    // dScale and dB: sums over the rows and the broadcast positions.
    for (int k = 1; k < 3; ++k) {
      if (!out[k].present()) continue;
      const std::vector<int64_t>& off = k == 1 ? s_off : b_off;
      std::vector<double> acc(static_cast<size_t>(out[k].num_elements()), 0.0);
      for (int64_t r = 0; r < outer; ++r) {
        for (int64_t i = 0; i < inner; ++i) acc[off[i]] += k == 1 ? xhat_g[r * inner + i] : gp[r * inner + i];
      }
      for (size_t j = 0; j < acc.size(); ++j) out[k].data<T>()[j] = static_cast<T>(acc[j]);
    }
  }

  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
  // The oneDNN primitive and what it was made for.
  std::vector<int64_t> dims_;
  int threads_ = 0;
  bool with_b_ = false;
  dnnl::layer_normalization_backward prim_;
  dnnl::memory x_, dy_, dx_, mean_, var_, scale_, shift_, dscale_, dshift_;
  DnnlScratchpad scratchpad_;
};

}  // namespace

Status RegisterNnNormalizationGradientKernels(sdk::Registrar& reg) {
  return reg.Kernel<LayerNormGradientKernel>("LayerNormalizationGradient", CpuFloatAndDouble());
}

}  // namespace cpu
}  // namespace loom
