// Schemas of Conv (ONNX opset 11) and FusedConv (Conv + activation, made by
// transforms/fuse_conv_activation.h). Shape inference is lenient: shapes it cannot derive, or
// that are inconsistent, are left unknown and the kernel reports the error
// with the shapes it gets.
#include <string>
#include <vector>

#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/window.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Conv: Y [N, M, D'...] from X [N, C, D...] and W [M, C / group, k...], by
// the kernels' semantics::WindowAttrs; unknown when the shapes or the
// attributes do not fit.
sdk::Status ConvInfer(sdk::InferenceContext& ctx) {
  std::vector<int64_t> x, w, out;
  if (!ctx.InputShape(0, &x) || !ctx.InputShape(1, &w) || x.size() < 3 || w.size() != x.size()) {
    return sdk::Status::Ok();
  }
  semantics::WindowAttrs attrs;
  if (!attrs.Read(ctx.info(), "").ok() || !attrs.InferOutputShape(x, w[0], {w.begin() + 2, w.end()}, &out)) {
    return sdk::Status::Ok();
  }
  ctx.SetOutputShape(0, out);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterNnConvSchemas(sdk::Registrar& reg) {
  const char* w_doc = "[M, C / group, k1, ..., kn]";
  const char* group_doc = "number of groups; C and M divisible by it (group = C: depthwise)";
  OpSpec conv = ConvSpec("Conv", 11,
      "ONNX Conv-11: convolution (1-D to 3-D) of X [N, C, D...] with W [M, C / group, k...] and optional bias "
      "B [M]; Y [N, M, D'...].", w_doc, group_doc, Fn<&ConvInfer>());
  // Not an ONNX op: a graph rewrite (transforms/fuse_conv_activation.h)
  // makes it from a Conv whose output only feeds an activation, as ONNX
  // Runtime's com.microsoft FusedConv. Domain loom.
  OpSpec fused = ConvSpec("FusedConv", 1,
      "Conv (ONNX Conv-11, same inputs, outputs and attributes) followed by the elementwise `activation`; made "
      "by Loom's graph rewrites (transforms/) so the activation runs inside the convolution (ONNX Runtime's FusedConv).",
      w_doc, group_doc, Fn<&ConvInfer>());
  fused.attrs.insert(fused.attrs.end(),
      {"activation:string!|Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid or HardSwish (ONNX semantics)",
       "activation_params:floats?|alpha for LeakyRelu (default 0.01); min, max for Clip (default unbounded); alpha, "
       "beta for HardSigmoid (default 0.2, 0.5); none for the others"});
  for (OpSpec* spec : {&conv, &fused}) {
    const std::vector<std::string> window = WindowAttrs();
    spec->attrs.insert(spec->attrs.end(), window.begin(), window.end());
  }
  fused.domain = LOOM_OPS_DOMAIN;
  return RegisterOps(reg, {conv, fused});
}

}  // namespace ops
}  // namespace loom
