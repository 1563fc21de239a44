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
  const std::string p = "p:int=2|the norm's order";
  OpSpec lp = PoolSpec("LpPool", 18,
      "ONNX LpPool-18 over X [N, C, D...]: Y = (sum over each window of |x| ^ p) ^ (1 / p); padding adds "
      "nothing.", FloatTypes(), /*kernel_shape_required=*/true);
  lp.attrs.push_back(p);
  return RegisterOps(reg, {lp, {"GlobalLpPool", 2,
      "ONNX GlobalLpPool-2: Y [N, C, 1, ...] = (sum over all spatial dims of |x| ^ p) ^ (1 / p).",
      {"X:T"}, {"Y:T"}, {{"T", FloatTypes()}}, {p}, &GlobalPoolShapes}});
}

}  // namespace ops
}  // namespace loom
