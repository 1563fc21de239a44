// MaxPoolGradient and AveragePoolGradient (the gradients of ONNX MaxPool-12
// and AveragePool-19, Caffe2's names and inputs X, Y, dY): dX in plain loops
// (nn_pool_naive.h), float32 and float64, with the forward op's attributes
// (the gradient maker copies them).
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_pool_naive.h"

namespace loom {
namespace cpu {
namespace {

template <bool kMax>
class PoolGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Read(info, label_));
    if (attrs_.kernel.empty()) return sdk::InvalidArgument(label_ + ": attribute kernel_shape is required");
    include_pad_ = info.IntOr("count_include_pad", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), dy = ctx.Input(2), dx;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 3 || xs.size() > 5) {
      return sdk::InvalidArgument(label_ + ": input X must be [N, C, D...] with 1 to 3 spatial dims; found " + ShapeStr(xs));
    }
    semantics::Window win;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, {xs.begin() + 2, xs.end()}, attrs_.kernel, &win));
    const std::vector<int64_t> ys = win.OutputShape(xs[0], xs[1]);
    if (dy.shape() != ys || dy.dtype() != x.dtype()) {
      return sdk::InvalidArgument(label_ + ": dY must be " + sdk::DTypeName(x.dtype()) + ShapeStr(ys) +
                                  " (the pool's Y); found " + sdk::DTypeName(dy.dtype()) + ShapeStr(dy.shape()));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &dx));
    if (x.num_elements() == 0) return Status::Ok();
    const PoolGeometry p(xs, win);
    if (x.dtype() == LOOM_DTYPE_FLOAT) {
      PoolBackwardNaive<float>(p, kMax, include_pad_, x.data<float>(), dy.data<float>(), dx.data<float>(), ctx.num_threads());
    } else {
      PoolBackwardNaive<double>(p, kMax, include_pad_, x.data<double>(), dy.data<double>(), dx.data<double>(),
                                ctx.num_threads());
    }
    return Status::Ok();
  }

 private:
  semantics::WindowAttrs attrs_;
  bool include_pad_ = false;
};

}  // namespace

Status RegisterNnPoolGradientKernels(sdk::Registrar& reg) {
  const sdk::KernelOptions opts{"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}}}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PoolGradientKernel<true>>("MaxPoolGradient", opts));
  return reg.Kernel<PoolGradientKernel<false>>("AveragePoolGradient", opts);
}

}  // namespace cpu
}  // namespace loom
