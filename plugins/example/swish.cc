// An example custom-op plugin: the model for plugin authors.
//
// It defines one operator, com.example.Swish (Y = X * sigmoid(beta * X),
// float32, any shape), with its schema and a CPU kernel, using only the SDK
// headers (core/api/loom_sdk.h). Build it with the loom_plugin macro (see
// BUILD) and load it with `loom_run --plugin PATH` or LoadPlugin().
#include <cmath>

#include "core/api/loom_sdk.h"

namespace {

using loom::sdk::KernelContext;
using loom::sdk::KernelInfo;
using loom::sdk::Status;
using loom::sdk::Tensor;

class SwishKernel {
 public:
  // Reads attributes once, when the net is planned.
  Status Init(const KernelInfo& info) { return info.GetFloat("beta", &beta_); }

  // Sizes the output like the input and computes it.
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0);
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, x.shape(), &y));
    const float* in = x.data<float>();
    float* out = y.data<float>();
    const int64_t n = x.num_elements();
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] / (1.0f + std::exp(-beta_ * in[i]));
    return Status::Ok();
  }

 private:
  float beta_ = 1.0f;
};

}  // namespace

LOOM_PLUGIN("example", "1.0.0", reg) {
  loom::sdk::SchemaBuilder swish("Swish");
  swish.Domain("com.example")
      .Doc("Swish activation (Ramachandran et al. 2017): Y = X * sigmoid(beta * X), elementwise.")
      .Input("X", "T", LOOM_PARAM_SINGLE, "input tensor, any shape")
      .Output("Y", "T", LOOM_PARAM_SINGLE, "output tensor, the shape of X")
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT}, "float32 only")
      .AttrFloat("beta", 1.0f, "slope inside the sigmoid");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(swish));
  return reg.Kernel<SwishKernel>("Swish");
}
