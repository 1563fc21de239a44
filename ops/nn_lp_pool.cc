// Schemas of LpPool (ONNX opset 18) and GlobalLpPool (opset 2). Output
// shapes by the window rules (PoolShapes, GlobalPoolShapes in
// ops/shape_inference.h).
#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {

sdk::Status RegisterNnLpPoolSchemas(sdk::Registrar& reg) {
  sdk::SchemaBuilder lp = PoolSchema("LpPool", 18,
      "ONNX LpPool-18 over X [N, C, D...]: Y = (sum over each window of |x| ^ p) ^ (1 / p); padding adds "
      "nothing.", FloatTypes(), /*kernel_shape_required=*/true);
  lp.AttrInt("p", 2, "the norm's order");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(lp));
  sdk::SchemaBuilder global = Schema("GlobalLpPool", 2,
      "ONNX GlobalLpPool-2: Y [N, C, 1, ...] = (sum over all spatial dims of |x| ^ p) ^ (1 / p).");
  global.Input("X", "T").Output("Y", "T")
      .TypeConstraint("T", FloatTypes())
      .AttrInt("p", 2, "the norm's order")
      .Infer(&GlobalPoolShapes);
  return reg.Register(global);
}

}  // namespace ops
}  // namespace loom
