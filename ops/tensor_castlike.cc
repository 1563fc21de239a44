// Schema of CastLike (ONNX opset 15; Cast is in tensor.cc).
#include <cstdint>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

using sdk::InferenceContext;
using sdk::Status;

// ---- CastLike: target_type's dtype, input's shape --------------------------
Status InferCastLike(InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(1));
  std::vector<int64_t> in;
  if (ctx.InputShape(0, &in)) ctx.SetOutputShape(0, in);
  return Status::Ok();
}

}  // namespace

sdk::Status RegisterTensorCastLikeSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllTypes();
  {
    sdk::SchemaBuilder s("CastLike");
    s.Doc("ONNX CastLike-15: Cast (same conversion rules as Cast-13) of input to the dtype of target_type, "
          "whose values are not read.")
        .SinceVersion(15)
        .Input("input", "T1")
        .Input("target_type", "T2", LOOM_PARAM_SINGLE, "only its dtype matters")
        .Output("output", "T2")
        .TypeConstraint("T1", all)
        .TypeConstraint("T2", all)
        .AttrInt("saturate", 1, "opset 19; applies to float8 types only, which Loom does not have")
        .Infer(Fn<&InferCastLike>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
