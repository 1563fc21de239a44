// Schema of BatchNormalization (ONNX opset 15, inference).
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {

sdk::Status RegisterNnBatchNormSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> f = FloatTypes();
  {
    sdk::SchemaBuilder s = Schema("BatchNormalization", 15,
        "ONNX BatchNormalization-15, inference: Y = (X - input_mean) / sqrt(input_var + epsilon) * scale + B per "
        "channel of X [N, C, D...]. training_mode = 1 is not supported.");
    s.Input("X", "T", LOOM_PARAM_SINGLE, "[N, C, D1, ..., Dn]")
        .Input("scale", "T", LOOM_PARAM_SINGLE, "[C]")
        .Input("B", "T", LOOM_PARAM_SINGLE, "[C]")
        .Input("input_mean", "T", LOOM_PARAM_SINGLE, "[C]")
        .Input("input_var", "T", LOOM_PARAM_SINGLE, "[C]")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "X's shape")
        .Output("running_mean", "T", LOOM_PARAM_OPTIONAL, "training mode only")
        .Output("running_var", "T", LOOM_PARAM_OPTIONAL, "training mode only")
        .TypeConstraint("T", f)
        .AttrFloat("epsilon", 1e-5f, "added to the variance")
        .AttrFloat("momentum", 0.9f, "running-statistics factor (training mode)")
        .AttrInt("training_mode", 0, "nonzero: normalize with the batch statistics and output running averages")
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
