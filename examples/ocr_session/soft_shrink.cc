// A differentiable custom op built outside Loom's tree, with its test
// (soft_shrink_test.cc, loom_plugin_test): the whole lifecycle a plugin
// author touches.
//
// com.example.SoftShrink (PyTorch's torch.nn.Softshrink): y = x - lambd for
// x > lambd, x + lambd for x < -lambd, 0 between; float32 and float64, any
// shape. Its gradient maker emits SoftShrinkGradient(X, dY) -> dX = dY
// where |x| > lambd, else 0 (its kernel is in this plugin too).
#include <cmath>
#include <vector>

#include "core/api/loom_sdk.h"

namespace {

using loom::sdk::GradientContext;
using loom::sdk::InferenceContext;
using loom::sdk::KernelContext;
using loom::sdk::KernelInfo;
using loom::sdk::Status;
using loom::sdk::Tensor;

// Init reads the attributes (defaults applied); Compute sizes the output
// and writes it.
class SoftShrinkKernel {
 public:
  Status Init(const KernelInfo& info) { return info.GetFloat("lambd", &lambd_); }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    if (x.dtype() == LOOM_DTYPE_FLOAT) Run<float>(x, y);
    else Run<double>(x, y);
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const Tensor& x, Tensor& y) const {
    const T l = static_cast<T>(lambd_);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (int64_t i = 0; i < x.num_elements(); ++i) out[i] = in[i] > l ? in[i] - l : in[i] < -l ? in[i] + l : T(0);
  }

  float lambd_ = 0.5f;
};

// dX = dY where |X| > lambd, else 0. INVALID_ARGUMENT when dY is not X's
// dtype and shape.
class SoftShrinkGradientKernel {
 public:
  Status Init(const KernelInfo& info) { return info.GetFloat("lambd", &lambd_); }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), dy = ctx.Input(1), dx;
    if (dy.dtype() != x.dtype() || dy.shape() != x.shape()) {
      return loom::sdk::InvalidArgument("SoftShrinkGradient: dY must have X's dtype and shape");
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &dx));
    if (x.dtype() == LOOM_DTYPE_FLOAT) Run<float>(x, dy, dx);
    else Run<double>(x, dy, dx);
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const Tensor& x, const Tensor& dy, Tensor& dx) const {
    const T l = static_cast<T>(lambd_);
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      dx.data<T>()[i] = std::abs(x.data<T>()[i]) > l ? dy.data<T>()[i] : T(0);
    }
  }

  float lambd_ = 0.5f;
};

// Shape inference: Y (and dX) take input 0's dtype and shape. Without it
// the planner would know the dtype only (from the type constraint) and size
// the output at run time; with it, shapes are known at plan time (memory
// planning, the next op's Prepare).
Status SameAsInput0(InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> dims;
  if (ctx.InputShape(0, &dims)) ctx.SetOutputShape(0, dims);
  return Status::Ok();
}

// The gradient maker (Caffe2's GradientMakerBase): reads X and dY, writes
// dX with SoftShrinkGradient, which gets SoftShrink's lambd
// (copy_arguments).
Status SoftShrinkGradient(GradientContext& g) {
  if (g.GI(0).empty()) return Status::Ok();
  return g.AddOp("SoftShrinkGradient", {g.I(0), g.GO(0)}, {g.GI(0)}, /*copy_arguments=*/true);
}

}  // namespace

LOOM_PLUGIN("soft_shrink", "1.0.0", reg) {
  loom::sdk::SchemaBuilder op("SoftShrink");
  op.Domain("com.example")
      .Doc("PyTorch's Softshrink: x - lambd above lambd, x + lambd below -lambd, 0 between.")
      .Input("X", "T")
      .Output("Y", "T", LOOM_PARAM_SINGLE, "X's shape")
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE})
      .AttrFloat("lambd", 0.5f, "the half-width of the zero band (>= 0)")
      .Infer<&SameAsInput0>()
      .Gradient<&SoftShrinkGradient>();
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(op));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SoftShrinkKernel>("SoftShrink"));
  loom::sdk::SchemaBuilder grad("SoftShrinkGradient");
  grad.Domain("com.example")
      .Doc("SoftShrink's gradient: dX = dY where |X| > lambd, else 0.")
      .Input("X", "T")
      .Input("dY", "T")
      .Output("dX", "T", LOOM_PARAM_SINGLE, "X's shape")
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE})
      .AttrFloat("lambd", 0.5f, "SoftShrink's")
      .Infer<&SameAsInput0>();
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(grad));
  return reg.Kernel<SoftShrinkGradientKernel>("SoftShrinkGradient");
}
