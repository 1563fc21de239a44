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
      "ONNX BatchNormalization-15: Y = (X - mean) / sqrt(var + epsilon) * scale + B per "
      "channel of X [N, C, D...], with mean/var = input_mean/input_var (inference) or, with training_mode = 1, the "
      "batch's mean and population variance over N and the spatial dims; training mode may also output "
      "running_mean = input_mean * momentum + mean * (1 - momentum) and running_var likewise.",
      {"X:T|[N, C, D1, ..., Dn]", "scale:T|[C]", "B:T|[C]", "input_mean:T|[C]", "input_var:T|[C]"},
      {"Y:T|X's shape", "running_mean:T?|training mode only", "running_var:T?|training mode only"},
      {{"T", FloatTypes()}},
      {"epsilon:float=1e-5|added to the variance", "momentum:float=0.9|running-statistics factor (training mode)",
       "training_mode:int=0|nonzero: normalize with the batch statistics and output running averages"},
      &SameShapeAsInput0}});
}

}  // namespace ops
}  // namespace loom
