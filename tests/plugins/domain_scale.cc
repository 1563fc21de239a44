// Two vendors' plugins that each define an operator `Scale` in their own
// domain (tests/domains_test.cc): built twice, as libdomain_a.so (domain
// com.vendor_a, Y = 2 X) and libdomain_b.so (domain com.vendor_b, Y = 3 X),
// from -DSCALE_DOMAIN, -DSCALE_FACTOR and -DSCALE_PLUGIN. Each also defines
// ScaleGradient in its domain (dX = factor * dY), which its gradient maker
// emits without naming a domain, as plugin gradient makers do.
#include "core/api/loom_sdk.h"

namespace {

using loom::sdk::GradientContext;
using loom::sdk::KernelContext;
using loom::sdk::KernelInfo;
using loom::sdk::Status;
using loom::sdk::Tensor;

// Y = SCALE_FACTOR * X, float32.
class ScaleKernel {
 public:
  Status Init(const KernelInfo&) { return Status::Ok(); }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    for (int64_t i = 0; i < x.num_elements(); ++i) y.data<float>()[i] = SCALE_FACTOR * x.data<float>()[i];
    return Status::Ok();
  }
};

Status ScaleGradient(GradientContext& g) {
  if (g.GI(0).empty()) return Status::Ok();
  return g.AddOp("ScaleGradient", {g.GO(0)}, {g.GI(0)});
}

loom::sdk::SchemaBuilder Unary(const char* op, const char* doc) {
  loom::sdk::SchemaBuilder s(op);
  s.Domain(SCALE_DOMAIN)
      .Doc(doc)
      .Input("X", "T", LOOM_PARAM_SINGLE, "any shape")
      .Output("Y", "T", LOOM_PARAM_SINGLE, "X's shape")
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT}, "float32");
  return s;
}

}  // namespace

LOOM_PLUGIN(SCALE_PLUGIN, "1.0.0", reg) {
  loom::sdk::SchemaBuilder scale = Unary("Scale", "Y = factor * X (the factor is the plugin's).");
  scale.Gradient<&ScaleGradient>();
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(scale));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ScaleKernel>("Scale"));
  loom::sdk::SchemaBuilder grad = Unary("ScaleGradient", "dX = factor * dY: Scale's gradient.");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(grad));
  return reg.Kernel<ScaleKernel>("ScaleGradient");
}
