// Schemas of the optimizers as operators, with ONNX's
// ai.onnx.preview.training semantics (opset 1): Adagrad, Momentum (standard
// and Nesterov), Adam. Each updates n tensors at once: after the scalar
// learning rate R and step count T come the n parameters X, their n
// gradients G and the n (Adam: 2n) optimizer states, and the outputs are
// the new parameters then the new states, in the same order. Written in a
// training net with outputs named like the inputs, they update in place
// (LOOM_INPLACE_SAME_SHAPE).
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/optimizer.h"

namespace loom {
namespace ops {
namespace {

// Each output has the shape of its parameter or old state
// (semantics::OptimizerLayout); unknown when the counts do not fit.
template <int kStates>
LoomStatus* OptimizerInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  const semantics::OptimizerLayout layout(ctx.num_inputs(), ctx.num_outputs(), kStates);
  if (!layout.valid) return nullptr;
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    std::vector<int64_t> s;
    if (ctx.InputShape(layout.SourceOfOutput(k), &s)) ctx.SetOutputShape(k, s);
  }
  return nullptr;
}

}  // namespace

sdk::Status RegisterTrainingSchemas(sdk::Registrar& reg) {
  const std::vector<TypeSet> types = {{"T1", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}, "the learning rate"},
                                      {"T2", {LOOM_DTYPE_INT64}, "the step count"},
                                      {"T3", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}, "parameters, gradients, states"}};
  std::vector<OpSpec> specs = {
      {"Adagrad", 1,
       "ONNX Adagrad (ai.onnx.preview.training-1): r = R / (1 + T * decay_factor); g = norm_coefficient * X + G; "
       "H_new = H + g * g; X_new = X - r * g / (sqrt(H_new) + epsilon). Inputs R, T, X_1..X_n, G_1..G_n, "
       "H_1..H_n; outputs X_new_1..n, H_new_1..n.",
       {"R:T1|scalar learning rate", "T:T2|scalar step count", "inputs:T3*|X..., G..., H..."},
       {"outputs:T3*|X_new..., H_new..."}, types,
       {"decay_factor:float=0|learning-rate decay per step", "epsilon:float=1e-6|added to the root",
        "norm_coefficient:float=0|L2 regularization"},
       &OptimizerInfer<1>},
      {"Momentum", 1,
       "ONNX Momentum (ai.onnx.preview.training-1): g = norm_coefficient * X + G; V_new = alpha * V + b * g with "
       "b = beta, or 1 at T = 0; standard: X_new = X - R * V_new; nesterov: X_new = X - R * (g + alpha * V_new). "
       "Inputs R, T, X..., G..., V...; outputs X_new..., V_new.... Weight decay is norm_coefficient.",
       {"R:T1|scalar learning rate", "T:T2|scalar step count", "inputs:T3*|X..., G..., V..."},
       {"outputs:T3*|X_new..., V_new..."}, types,
       {"alpha:float!|decay of the accumulated momentum", "beta:float!|scale of the gradient",
        "mode:string!|standard or nesterov", "norm_coefficient:float!|L2 regularization (weight decay)"},
       &OptimizerInfer<1>},
      {"Adam", 1,
       "ONNX Adam (ai.onnx.preview.training-1): g = norm_coefficient * X + G; V_new = alpha * V + (1 - alpha) * g; "
       "H_new = beta * H + (1 - beta) * g * g; r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R; "
       "X_new = (1 - norm_coefficient_post) * (X - r * V_new / (sqrt(H_new) + epsilon)). Inputs R, T, X..., G..., "
       "V..., H...; outputs X_new..., V_new..., H_new....",
       {"R:T1|scalar learning rate", "T:T2|scalar step count", "inputs:T3*|X..., G..., V..., H..."},
       {"outputs:T3*|X_new..., V_new..., H_new..."}, types,
       {"alpha:float=0.9|first-moment decay", "beta:float=0.999|second-moment decay", "epsilon:float=1e-6|added to the root",
        "norm_coefficient:float=0|L2 regularization", "norm_coefficient_post:float=0|weight decay after the update"},
       &OptimizerInfer<2>},
  };
  for (const OpSpec& spec : specs) {
    sdk::SchemaBuilder s = Schema(spec.op, spec.since, spec.doc);
    s.Domain("ai.onnx.preview.training").InPlace(LOOM_INPLACE_SAME_SHAPE, LOOM_INPLACE_SAME_SHAPE);
    LOOM_SDK_RETURN_IF_ERROR(Describe(s, spec));
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
