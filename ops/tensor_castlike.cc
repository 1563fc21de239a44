// Schema of CastLike (ONNX opset 15; Cast is in tensor.cc): target_type's
// dtype, input's shape.
#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {

sdk::Status RegisterTensorCastLikeSchemas(sdk::Registrar& reg) {
  return RegisterOps(reg, {{"CastLike", 15,
      "ONNX CastLike-15: Cast (same conversion rules as Cast-13) of input to the dtype of target_type, "
      "whose values are not read.",
      {"input:T1", "target_type:T2|only its dtype matters"}, {"output:T2"}, {{"T1", AllTypes()}, {"T2", AllTypes()}},
      {std::string("saturate:int=1|") + kSaturateDoc}, Fn<InferLike<1, 0>>()}});
}

}  // namespace ops
}  // namespace loom
