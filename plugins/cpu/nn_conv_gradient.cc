// ConvGradient (the gradient of ONNX Conv, Caffe2's op name and output
// order): from X, W and dY, the gradients dW, dB (optional) and dX
// (optional), float32 and float64, in plain loops (nn_conv_naive.h); the
// window attributes and group are Conv's (the gradient maker copies them).
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_conv_naive.h"

namespace loom {
namespace cpu {
namespace {

class ConvGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("group", &group_));
    if (group_ < 1) return sdk::InvalidArgument(label_ + ": group must be >= 1; found " + std::to_string(group_));
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), dy = ctx.Input(2);
    std::vector<int64_t> k;
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvOperands(label_, group_, x.shape(), w.shape(), Tensor(), attrs_.kernel, &k));
    const std::vector<int64_t> xs = x.shape();
    semantics::Window win;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, {xs.begin() + 2, xs.end()}, k, &win));
    const std::vector<int64_t> ys = win.OutputShape(xs[0], w.dim(0));
    if (dy.shape() != ys || dy.dtype() != x.dtype() || w.dtype() != x.dtype()) {
      return sdk::InvalidArgument(label_ + ": dY must be " + sdk::DTypeName(x.dtype()) + ShapeStr(ys) + " (Conv's Y); found " +
                                  sdk::DTypeName(dy.dtype()) + ShapeStr(dy.shape()));
    }
    Tensor dw, db, dx;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), w.shape(), &dw));
    if (ctx.OutputRequested(1)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, x.dtype(), {w.dim(0)}, &db));
    if (ctx.OutputRequested(2)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, x.dtype(), xs, &dx));
    const ConvGeometry g(xs, w.shape(), group_, win);
    if (x.dtype() == LOOM_DTYPE_FLOAT) Run<float>(g, x, w, dy, &dw, &db, &dx);
    else Run<double>(g, x, w, dy, &dw, &db, &dx);
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Run(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor& dy, Tensor* dw, Tensor* db,
                  Tensor* dx) {
    ConvBackwardNaive<T>(g, x.data<T>(), w.data<T>(), dy.data<T>(), dx->present() ? dx->data<T>() : nullptr,
                         dw->data<T>(), db->present() ? db->data<T>() : nullptr);
  }

  int64_t group_ = 1;
  semantics::WindowAttrs attrs_;
};

}  // namespace

Status RegisterNnConvGradientKernels(sdk::Registrar& reg) {
  return reg.Kernel<ConvGradientKernel>("ConvGradient", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}}}});
}

}  // namespace cpu
}  // namespace loom
