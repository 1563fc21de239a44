// ConvTransposeGradient (the gradient of ONNX ConvTranspose-11): from X, W
// and dY, the gradients dW, dB (optional) and dX (optional). float32 runs
// oneDNN's deconvolution_backward_weights and deconvolution_backward_data
// in the layouts oneDNN picks (reorders through per-call scratch), as
// nn_conv_transpose.cc runs the forward: oneDNN computes the part T of the
// full transposed result that Y keeps with non-negative padding, so where
// ONNX's padding is negative (output_padding, a larger output_shape) dY is
// read through a view of T's window inside it, and dB sums all of dY.
// float64 (and shapes with an empty dim) run plain loops (nn_conv_naive.h),
// the reference autodiff_layers_test holds float32 to: ConvTranspose is the
// adjoint of a Conv from Y's shape to X's (ConvGeometry::ForTranspose), so
// dX is that Conv of dY and dW is that Conv's weight gradient with dY as its
// input and X as its output gradient. Attributes: ConvTranspose's (the
// gradient maker copies them).
#include <algorithm>
#include <optional>

#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_conv_backward.h"
#include "plugins/cpu/nn_conv_common.h"
#include "plugins/cpu/nn_conv_naive.h"

namespace loom {
namespace cpu {
namespace {

class ConvTransposeGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("group", &group_));
    if (group_ < 1) return sdk::InvalidArgument(label_ + ": group must be >= 1; found " + std::to_string(group_));
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), dy = ctx.Input(2);
    const std::vector<int64_t> xs = x.shape(), ws = w.shape();
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvTransposeOperands(label_, group_, xs, ws, Tensor()));
    semantics::ConvTransposeGeometry geo;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, xs, ws, &geo));
    const int64_t M = ws[1] * group_;
    const std::vector<int64_t> ys = geo.OutputShape(xs[0], M);
    if (dy.shape() != ys || dy.dtype() != x.dtype() || w.dtype() != x.dtype()) {
      return sdk::InvalidArgument(label_ + ": dY must be " + sdk::DTypeName(x.dtype()) + ShapeStr(ys) +
                                  " (ConvTranspose's Y); found " + sdk::DTypeName(dy.dtype()) + ShapeStr(dy.shape()));
    }
    Tensor dw, db, dx;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ws, &dw));
    if (ctx.OutputRequested(1)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, x.dtype(), {M}, &db));
    if (ctx.OutputRequested(2)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, x.dtype(), xs, &dx));
    if (x.dtype() == LOOM_DTYPE_FLOAT && semantics::Product(xs) > 0 && semantics::Product(ws) > 0 &&
        semantics::Product(ys) > 0) {
      const int threads = ctx.num_threads();
      if (!configured_ || xs != xs_ || ws != ws_ || threads != threads_ || db.present() != want_db_ ||
          dx.present() != want_dx_) {
        LOOM_SDK_RETURN_IF_ERROR(Configure(xs, ws, ys, geo, db.present(), dx.present(), threads));
      }
      if (ready_) return RunDnnl(ctx, x, w, dy, dw, db, dx);
    }
    const ConvGeometry g = ConvGeometry::ForTranspose(xs, ws, group_, geo);
    if (x.dtype() == LOOM_DTYPE_FLOAT) Run<float>(g, x, w, dy, dw, db, dx, ctx.num_threads());
    else Run<double>(g, x, w, dy, dw, db, dx, ctx.num_threads());
    return Status::Ok();
  }

 private:
  // Builds the backward primitives for X `xs`, W `ws` and Y `ys`; leaves
  // ready_ false (the loops run) when the kept part T is empty.
  Status Configure(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, const std::vector<int64_t>& ys,
                   const semantics::ConvTransposeGeometry& geo, bool db, bool dx, int threads) {
    configured_ = true;
    ready_ = false;
    xs_ = xs;
    ws_ = ws;
    threads_ = threads;
    want_db_ = db;
    want_dx_ = dx;
    const size_t n = xs.size() - 2;
    const int64_t N = xs[0], G = group_, M = ws[1] * G;
    // oneDNN computes T[t] = full[t + pl] with pl, pr >= 0; Y[j] =
    // full[j + pb], so T sits in Y at offset pl - pb.
    std::vector<int64_t> pl(n), pr(n), ts = {N, M}, offsets = {0, 0};
    whole_ = true;
    for (size_t i = 0; i < n; ++i) {
      pl[i] = std::max<int64_t>(geo.pads_begin[i], 0);
      pr[i] = std::max<int64_t>(geo.pads_end[i], 0);
      ts.push_back(geo.full[i] - pl[i] - pr[i]);
      offsets.push_back(pl[i] - geo.pads_begin[i]);
      if (ts.back() <= 0) return Status::Ok();
      whole_ = whole_ && ts.back() == ys[2 + i];
    }
    using memory = dnnl::memory;
    LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
      const memory::desc x_md = PlainDesc(xs), b_md = PlainDesc({M}), w_md = ConvTransposeWeightsDesc(ws, G);
      // dY's window T (the whole of dY when the padding is non-negative).
      const memory::desc t_md = PlainDesc(ys).submemory_desc(Dims(ts), Dims(offsets));
      const auto any = [](const memory::desc& md) {
        return memory::desc(md.dims(), memory::data_type::f32, memory::format_tag::any);
      };
      const memory::desc t_any(Dims(ts), memory::data_type::f32, memory::format_tag::any);
      memory::dims dil(n);
      for (size_t i = 0; i < n; ++i) dil[i] = geo.dilations[i] - 1;
      const memory::dims strides = Dims(geo.strides), l = Dims(pl), r = Dims(pr);
      const auto alg = dnnl::algorithm::deconvolution_direct;
      bias_in_primitive_ = db && whole_;
      const auto fwd_d = bias_in_primitive_
                             ? dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_training, alg, any(x_md),
                                                                 any(w_md), b_md, t_any, strides, dil, l, r)
                             : dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_training, alg, any(x_md),
                                                                 any(w_md), t_any, strides, dil, l, r);
      const dnnl::deconvolution_forward::primitive_desc fwd(fwd_d, DnnlEngine());
      const auto bw_d = bias_in_primitive_
                            ? dnnl::deconvolution_backward_weights::desc(alg, any(x_md), any(w_md), b_md, t_any, strides,
                                                                         dil, l, r)
                            : dnnl::deconvolution_backward_weights::desc(alg, any(x_md), any(w_md), t_any, strides,
                                                                         dil, l, r);
      const dnnl::deconvolution_backward_weights::primitive_desc bw(bw_d, UserScratchpad(), DnnlEngine(), fwd);
      std::optional<dnnl::deconvolution_backward_data::primitive_desc> bd;
      if (dx) {
        const dnnl::deconvolution_backward_data::desc bd_d(alg, any(x_md), any(w_md), t_any, strides, dil, l, r);
        bd.emplace(bd_d, UserScratchpad(), DnnlEngine(), fwd);
      }
      backward_.Build(bw, bd ? &*bd : nullptr, x_md, w_md, t_md, b_md, bias_in_primitive_);
    }));
    ready_ = true;
    return Status::Ok();
  }

  Status RunDnnl(KernelContext& ctx, const Tensor& x, const Tensor& w, const Tensor& dy, Tensor& dw, Tensor& db,
                 Tensor& dx) {
    LOOM_SDK_RETURN_IF_ERROR(backward_.Run(ctx, label_, threads_, x, w, dy, dw, db, dx));
    if (db.present() && !bias_in_primitive_) SumOverPlanes<float>(dy, db);  // all of dY, past T too
    return Status::Ok();
  }

  // dB [M] = dY [N, M, ...] summed over N and the spatial dims, in double.
  template <typename T>
  static void SumOverPlanes(const Tensor& dy, Tensor& db) {
    const int64_t N = dy.dim(0), M = dy.dim(1), plane = N * M == 0 ? 0 : dy.num_elements() / (N * M);
    std::vector<double> acc(static_cast<size_t>(M), 0.0);
    for (int64_t i = 0; i < dy.num_elements(); ++i) acc[(i / plane) % M] += dy.data<T>()[i];
    for (int64_t m = 0; m < M; ++m) db.data<T>()[m] = static_cast<T>(acc[m]);
  }

  template <typename T>
  static void Run(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor& dy, Tensor& dw, Tensor& db,
                  Tensor& dx, int threads) {
    // The adjoint Conv maps dY (its input) to X's shape (its output).
    ConvBackwardNaive<T>(g, dy.data<T>(), w.data<T>(), x.data<T>(), nullptr, dw.data<T>(), nullptr);
    if (dx.present()) ConvForwardNaive<T>(g, dy.data<T>(), w.data<T>(), nullptr, dx.data<T>(), threads);
    if (db.present()) SumOverPlanes<T>(dy, db);
  }

  int64_t group_ = 1;
  semantics::ConvTransposeAttrs attrs_;
  // What the primitives were built for (ready_: built; configured_ without
  // ready_: the loops run).
  bool configured_ = false, ready_ = false, want_db_ = false, want_dx_ = false;
  bool whole_ = true;               // T is all of Y (no negative padding)
  bool bias_in_primitive_ = false;  // dB from backward_weights (whole_), else summed over dY
  std::vector<int64_t> xs_, ws_;
  int threads_ = 0;
  DnnlConvBackward backward_;  // dY read through its window T
};

}  // namespace

Status RegisterNnConvTransposeGradientKernels(sdk::Registrar& reg) {
  return reg.Kernel<ConvTransposeGradientKernel>("ConvTransposeGradient", CpuFloatAndDouble());
}

}  // namespace cpu
}  // namespace loom
