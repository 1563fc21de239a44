// Schemas of the losses:
//  - NegativeLogLikelihoodLoss (ONNX opset 13; opset 12 is the same op).
//  - SoftmaxCrossEntropyLoss (ONNX opset 13; same as opset 12), with the
//    optional log_prob output.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// The loss output of both losses: the target's shape with reduction "none",
// a scalar otherwise; the dtype is the scores'. SoftmaxCrossEntropyLoss's
// log_prob (output 1) has the scores' dtype and shape.
sdk::Status InferLoss(sdk::InferenceContext& ctx) {
  const LoomDataType t = ctx.InputDType(0);
  ctx.SetOutputDType(0, t);
  const std::string reduction = ctx.info().StringOr("reduction", "mean");
  if (reduction != "none") {
    ctx.SetOutputShape(0, {});
  } else {
    std::vector<int64_t> target;
    if (ctx.InputShape(1, &target)) ctx.SetOutputShape(0, target);
  }
  if (ctx.num_outputs() > 1) {
    ctx.SetOutputDType(1, t);
    std::vector<int64_t> scores;
    if (ctx.InputShape(0, &scores)) ctx.SetOutputShape(1, scores);
  }
  return sdk::Status::Ok();
}

// The signature both losses share: scores (`input_doc`), class-index
// targets, optional per-class weights and the loss output.
sdk::SchemaBuilder LossSchema(const std::string& op, const std::string& doc, const std::vector<std::string>& names,
                              const std::string& input_doc, const std::string& loss_doc) {
  sdk::SchemaBuilder s = Schema(op, 13, doc);
  s.Input(names[0], "T", LOOM_PARAM_SINGLE, input_doc)
      .Input(names[1], "Tind", LOOM_PARAM_SINGLE, "[N] or [N, d1, ..., dk]: class indices")
      .Input(names[2], "T", LOOM_PARAM_OPTIONAL, "[C]: per-class weights")
      .Output(names[3], "T", LOOM_PARAM_SINGLE, loss_doc)
      .TypeConstraint("T", FloatTypes())
      .TypeConstraint("Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64})
      .AttrString("reduction", "mean",
                  "none: one loss per target entry; sum: their sum; mean: their sum divided by the sum of the "
                  "weights of the entries not ignored")
      .Attr("ignore_index", LOOM_ATTR_INT, false,
            "a target value whose entries contribute 0 (and no weight to the mean); optional")
      .Infer(Fn<InferLoss>());
  return s;
}

}  // namespace

sdk::Status RegisterNnLossSchemas(sdk::Registrar& reg) {
  sdk::SchemaBuilder nll = LossSchema("NegativeLogLikelihoodLoss",
      "ONNX NegativeLogLikelihoodLoss-13: loss[n, d...] = -input[n, c, d...] * weight[c] with c = "
      "target[n, d...] (weight 1 when absent), then reduced by `reduction`. Entries whose target equals "
      "ignore_index give 0. Target values outside [0, C) (other than ignore_index) are an error.",
      {"input", "target", "weight", "loss"}, "[N, C] or [N, C, d1, ..., dk]: log-probabilities",
      "target's shape (reduction none) or a scalar");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(nll));
  sdk::SchemaBuilder sce = LossSchema("SoftmaxCrossEntropyLoss",
      "ONNX SoftmaxCrossEntropyLoss-13: log_prob = LogSoftmax(scores) over axis 1, then the "
      "NegativeLogLikelihoodLoss of log_prob with `labels`, `weights`, `reduction` and ignore_index.",
      {"scores", "labels", "weights", "output"}, "[N, C] or [N, C, d1, ..., dk]",
      "labels' shape (reduction none) or a scalar");
  sce.Output("log_prob", "T", LOOM_PARAM_OPTIONAL, "scores' shape: the log-softmax of scores over axis 1");
  return reg.Register(sce);
}

}  // namespace ops
}  // namespace loom
