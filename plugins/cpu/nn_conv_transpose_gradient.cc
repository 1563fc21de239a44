// ConvTransposeGradient (the gradient of ONNX ConvTranspose-11): from X, W
// and dY, the gradients dW, dB (optional) and dX (optional), float32 and
// float64, in plain loops (nn_conv_naive.h). ConvTranspose is the adjoint of
// a Conv from Y's shape to X's (ConvGeometry::ForTranspose), so dX is that
// Conv of dY and dW is that Conv's weight gradient with dY as its input and
// X as its output gradient. Attributes: ConvTranspose's (the gradient maker
// copies them).
#include "plugins/cpu/kernels.h"
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
    const ConvGeometry g = ConvGeometry::ForTranspose(xs, ws, group_, geo);
    if (x.dtype() == LOOM_DTYPE_FLOAT) Run<float>(g, x, w, dy, dw, db, dx, ctx.num_threads());
    else Run<double>(g, x, w, dy, dw, db, dx, ctx.num_threads());
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Run(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor& dy, Tensor& dw, Tensor& db,
                  Tensor& dx, int threads) {
    // The adjoint Conv maps dY (its input) to X's shape (its output).
    ConvBackwardNaive<T>(g, dy.data<T>(), w.data<T>(), x.data<T>(), nullptr, dw.data<T>(), nullptr);
    if (dx.present()) ConvForwardNaive<T>(g, dy.data<T>(), w.data<T>(), nullptr, dx.data<T>(), threads);
    if (db.present()) {
      const int64_t N = dy.dim(0), M = dy.dim(1), plane = N * M == 0 ? 0 : dy.num_elements() / (N * M);
      std::vector<double> acc(static_cast<size_t>(M), 0.0);
      for (int64_t i = 0; i < dy.num_elements(); ++i) acc[(i / plane) % M] += dy.data<T>()[i];
      for (int64_t m = 0; m < M; ++m) db.data<T>()[m] = static_cast<T>(acc[m]);
    }
  }

  int64_t group_ = 1;
  semantics::ConvTransposeAttrs attrs_;
};

}  // namespace

Status RegisterNnConvTransposeGradientKernels(sdk::Registrar& reg) {
  return reg.Kernel<ConvTransposeGradientKernel>("ConvTransposeGradient",
                                                 {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}}}});
}

}  // namespace cpu
}  // namespace loom
