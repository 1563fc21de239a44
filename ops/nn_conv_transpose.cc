// Schema of ConvTranspose (ONNX opset 11). Shape inference is lenient: what
// it cannot derive (attributes that do not fit) is left unknown and the
// kernel reports the error.
#include <vector>

#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/window.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// ConvTranspose: Y [N, M, D'...] from X [N, C, D...] and W [C, M / group,
// k...]; D' = output_shape if given, else stride * (D - 1) + output_padding +
// (k - 1) * dilation + 1 - pads (SAME_*: D * stride), by the kernels'
// semantics::ConvTransposeAttrs.
sdk::Status ConvTransposeInfer(sdk::InferenceContext& ctx) {
  std::vector<int64_t> x, w, out;
  if (!ctx.InputShape(0, &x) || !ctx.InputShape(1, &w) || x.size() < 3 || w.size() != x.size()) {
    return sdk::Status::Ok();
  }
  const sdk::KernelInfo info = ctx.info();
  semantics::ConvTransposeAttrs attrs;
  if (!attrs.Read(info, "").ok() || !attrs.InferOutputShape(x, w, info.IntOr("group", 1), &out)) {
    return sdk::Status::Ok();
  }
  ctx.SetOutputShape(0, out);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterNnConvTransposeSchemas(sdk::Registrar& reg) {
  OpSpec spec = ConvSpec("ConvTranspose", 11,
      "ONNX ConvTranspose-11: transposed convolution (1-D to 3-D) of X [N, C, D...] with W [C, M / group, k...] "
      "and optional bias B [M]; Y [N, M, D'...] with D' = stride * (D - 1) + output_padding + (k - 1) * dilation "
      "+ 1 - pad_begin - pad_end, or output_shape (pads then derived).",
      "[C, M / group, k1, ..., kn]", "number of groups; C and M divisible by it", Fn<&ConvTransposeInfer>());
  const std::vector<std::string> attrs = ConvTransposeWindowAttrs();
  spec.attrs.insert(spec.attrs.end(), attrs.begin(), attrs.end());
  return RegisterOps(reg, {spec});
}

}  // namespace ops
}  // namespace loom
