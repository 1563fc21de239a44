// Schema of BatchNormalization (ONNX opset 15, inference).
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {

sdk::Status RegisterNnBatchNormSchemas(sdk::Registrar& reg) {
  return RegisterOps(reg, {{"BatchNormalization", 15,
      "ONNX BatchNormalization-15, inference: Y = (X - input_mean) / sqrt(input_var + epsilon) * scale + B per "
      "channel of X [N, C, D...]. training_mode = 1 is not supported.",
      {"X:T|[N, C, D1, ..., Dn]", "scale:T|[C]", "B:T|[C]", "input_mean:T|[C]", "input_var:T|[C]"},
      {"Y:T|X's shape", "running_mean:T?|training mode only", "running_var:T?|training mode only"},
      {{"T", FloatTypes()}},
      {"epsilon:float=1e-5|added to the variance", "momentum:float=0.9|running-statistics factor (training mode)",
       "training_mode:int=0|nonzero: normalize with the batch statistics and output running averages"},
      &SameShapeAsInput0}});
}

}  // namespace ops
}  // namespace loom
