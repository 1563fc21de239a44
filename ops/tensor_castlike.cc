// Schema of CastLike (ONNX opset 15; Cast is in tensor.cc): target_type's
// dtype, input's shape.
#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {

sdk::Status RegisterTensorCastLikeSchemas(sdk::Registrar& reg) {
  sdk::SchemaBuilder s = Schema("CastLike", 15,
      "ONNX CastLike-15: Cast (same conversion rules as Cast-13) of input to the dtype of target_type, "
      "whose values are not read.");
  s.Input("input", "T1")
      .Input("target_type", "T2", LOOM_PARAM_SINGLE, "only its dtype matters")
      .Output("output", "T2")
      .TypeConstraint("T1", AllTypes())
      .TypeConstraint("T2", AllTypes())
      .AttrInt("saturate", 1, kSaturateDoc)
      .Infer(Fn<InferLike<1, 0>>());
  return reg.Register(s);
}

}  // namespace ops
}  // namespace loom
