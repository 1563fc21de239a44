// LayerNormalizationGradient (the gradient of ONNX LayerNormalization-17):
// dX, dScale, dB from X, Scale, dY (and B for its shape), float32 and
// float64, statistics recomputed in double.
#include <cmath>

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
    if (x.dtype() == LOOM_DTYPE_FLOAT) Run<float>(x, scale, dy, s_off, b_off, outer, inner, out, ctx.num_threads());
    else Run<double>(x, scale, dy, s_off, b_off, outer, inner, out, ctx.num_threads());
    return Status::Ok();
  }

 private:
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
};

}  // namespace

Status RegisterNnNormalizationGradientKernels(sdk::Registrar& reg) {
  return reg.Kernel<LayerNormGradientKernel>("LayerNormalizationGradient",
                                             {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}}}});
}

}  // namespace cpu
}  // namespace loom
