// An example custom-op plugin: the model for plugin authors.
//
// It defines one operator, com.example.Swish (Y = X * sigmoid(beta * X),
// float32 or float64, any shape), with its schema, shape inference (Infer:
// the planner knows Y's shape before the run), a CPU kernel and its
// gradient (ABI 5): a gradient maker that emits the plugin's own
// SwishGradient op, which has a kernel too. It uses only the SDK headers
// (core/api/loom_sdk.h). Build it with the loom_plugin macro (see BUILD),
// test it with loom_plugin_test (swish_test.cc) and load it with
// `loom_run --plugin PATH`, `loom_train --plugin PATH` or LoadPlugin().
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

template <typename T>
T Sigmoid(T v) { return T(1) / (T(1) + std::exp(-v)); }

class SwishKernel {
 public:
  // Reads attributes once, when the net is planned.
  Status Init(const KernelInfo& info) { return info.GetFloat("beta", &beta_); }

  // Sizes the output like the input and computes it.
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0);
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    if (x.dtype() == LOOM_DTYPE_FLOAT) Run<float>(x, y);
    else Run<double>(x, y);
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const Tensor& x, Tensor& y) const {
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (int64_t i = 0; i < x.num_elements(); ++i) out[i] = in[i] * Sigmoid(T(beta_) * in[i]);
  }
  float beta_ = 1.0f;
};

// dX = dY * (s + beta * x * s * (1 - s)), s = sigmoid(beta * x).
class SwishGradientKernel {
 public:
  Status Init(const KernelInfo& info) { return info.GetFloat("beta", &beta_); }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), dy = ctx.Input(1), dx;
    if (dy.shape() != x.shape() || dy.dtype() != x.dtype()) {
      return loom::sdk::InvalidArgument("SwishGradient: dY must have X's dtype and shape");
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &dx));
    if (x.dtype() == LOOM_DTYPE_FLOAT) Run<float>(x, dy, dx);
    else Run<double>(x, dy, dx);
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const Tensor& x, const Tensor& dy, Tensor& dx) const {
    const T *in = x.data<T>(), *g = dy.data<T>();
    T* out = dx.data<T>();
    const T b = T(beta_);
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const T s = Sigmoid(b * in[i]);
      out[i] = g[i] * (s + b * in[i] * s * (T(1) - s));
    }
  }
  float beta_ = 1.0f;
};

// Shape inference (the schema's Infer): output 0 takes input 0's dtype and,
// where the planner knows it, its shape. Without an Infer function outputs
// take their dtype from the type constraint and their shape from the first
// run: the memory planner cannot place them ahead, and the next op's
// Prepare sees an unknown shape.
Status SameAsInput0(InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> dims;
  if (ctx.InputShape(0, &dims)) ctx.SetOutputShape(0, dims);
  return Status::Ok();
}

// The gradient maker (Caffe2's GradientMakerBase): reads X and dY, writes
// dX with SwishGradient, which gets Swish's beta (copy_arguments).
Status SwishGradient(GradientContext& g) {
  if (g.GI(0).empty()) return Status::Ok();  // dX not needed
  return g.AddOp("SwishGradient", {g.I(0), g.GO(0)}, {g.GI(0)}, /*copy_arguments=*/true);
}

}  // namespace

LOOM_PLUGIN("example", "1.1.0", reg) {
  loom::sdk::SchemaBuilder swish("Swish");
  swish.Domain("com.example")
      .Doc("Swish activation (Ramachandran et al. 2017): Y = X * sigmoid(beta * X), elementwise.")
      .Input("X", "T", LOOM_PARAM_SINGLE, "input tensor, any shape")
      .Output("Y", "T", LOOM_PARAM_SINGLE, "output tensor, the shape of X")
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}, "float32 or float64")
      .AttrFloat("beta", 1.0f, "slope inside the sigmoid")
      .Infer<&SameAsInput0>()
      .Gradient<&SwishGradient>();
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(swish));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SwishKernel>("Swish"));
  loom::sdk::SchemaBuilder grad("SwishGradient");
  grad.Domain("com.example")
      .Doc("dX = dY * (s + beta * X * s * (1 - s)), s = sigmoid(beta * X): the gradient of Swish.")
      .Input("X", "T", LOOM_PARAM_SINGLE, "Swish's input")
      .Input("dY", "T", LOOM_PARAM_SINGLE, "the gradient of Swish's output, X's shape")
      .Output("dX", "T", LOOM_PARAM_SINGLE, "the gradient of X")
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}, "float32 or float64")
      .AttrFloat("beta", 1.0f, "Swish's beta")
      .Infer<&SameAsInput0>();
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(grad));
  return reg.Kernel<SwishGradientKernel>("SwishGradient");
}
