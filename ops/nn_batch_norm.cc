// Schema of BatchNormalization (ONNX opset 15; opset 9-13's saved_mean and
// saved_var outputs).
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Y like X; the statistics outputs like scale ([C]).
LoomStatus* BatchNormInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> s;
  if (ctx.InputShape(0, &s)) ctx.SetOutputShape(0, s);
  for (size_t k = 1; k < ctx.num_outputs(); ++k) {
    if (ctx.InputShape(1, &s)) ctx.SetOutputShape(k, s);
  }
  return nullptr;
}

}  // namespace

sdk::Status RegisterNnBatchNormSchemas(sdk::Registrar& reg) {
  return RegisterOps(reg, {{"BatchNormalization", 15,
      "ONNX BatchNormalization-15: Y = (X - mean) / sqrt(var + epsilon) * scale + B per "
      "channel of X [N, C, D...], with mean/var = input_mean/input_var (inference) or, with training_mode = 1, the "
      "batch's mean and population variance over N and the spatial dims. Training mode may also output "
      "running_mean = input_mean * momentum + mean * (1 - momentum) and running_var = input_var * momentum + var * "
      "(1 - momentum), var the batch's population variance (ONNX's rule) or, with the Loom attribute "
      "running_var_unbiased = 1, its unbiased estimate (times m / (m - 1), m = N * D1 * ... * Dn: PyTorch's, "
      "cuDNN's and Caffe2's rule, which the ONNX importer sets for models PyTorch exported), and the batch "
      "statistics themselves as saved_mean and saved_var (the opset 9-13 outputs PyTorch exports; the importer sets "
      "training_mode = 1 for those opsets' training-mode ops).",
      {"X:T|[N, C, D1, ..., Dn]", "scale:T|[C]", "B:T|[C]", "input_mean:T|[C]", "input_var:T|[C]"},
      {"Y:T|X's shape", "running_mean:T?|[C], training mode only", "running_var:T?|[C], training mode only",
       "saved_mean:T?|[C], the batch mean, training mode only",
       "saved_var:T?|[C], the batch's population variance, training mode only"},
      {{"T", FloatTypes()}},
      {"epsilon:float=1e-5|added to the variance", "momentum:float=0.9|running-statistics factor (training mode)",
       "training_mode:int=0|nonzero: normalize with the batch statistics and output running averages",
       "running_var_unbiased:int=0|Loom's: nonzero, running_var blends in the unbiased batch variance (PyTorch)"},
      &BatchNormInfer}});
}

}  // namespace ops
}  // namespace loom
