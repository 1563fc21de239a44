// Schemas of the losses:
//  - NegativeLogLikelihoodLoss (ONNX opset 13; opset 12 is the same op).
//  - SoftmaxCrossEntropyLoss (ONNX opset 13; same as opset 12), with the
//    optional log_prob output.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

using sdk::InferenceContext;
using sdk::Status;

// The loss output of both losses: the target's shape with reduction "none",
// a scalar otherwise; the dtype is the scores'. SoftmaxCrossEntropyLoss's
// log_prob (output 1) has the scores' dtype and shape.
Status InferLoss(InferenceContext& ctx) {
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
  return Status::Ok();
}

const char* kReductionDoc = "none: one loss per target entry; sum: their sum; mean: their sum divided by the sum "
                            "of the weights of the entries not ignored";
const char* kIgnoreDoc = "a target value whose entries contribute 0 (and no weight to the mean); optional";

Status Nll(sdk::Registrar& reg) {
  sdk::SchemaBuilder s("NegativeLogLikelihoodLoss");
  s.Doc("ONNX NegativeLogLikelihoodLoss-13: loss[n, d...] = -input[n, c, d...] * weight[c] with c = "
        "target[n, d...] (weight 1 when absent), then reduced by `reduction`. Entries whose target equals "
        "ignore_index give 0. Target values outside [0, C) (other than ignore_index) are an error.")
      .SinceVersion(13)
      .Input("input", "T", LOOM_PARAM_SINGLE, "[N, C] or [N, C, d1, ..., dk]: log-probabilities")
      .Input("target", "Tind", LOOM_PARAM_SINGLE, "[N] or [N, d1, ..., dk]: class indices")
      .Input("weight", "T", LOOM_PARAM_OPTIONAL, "[C]: per-class weights")
      .Output("loss", "T", LOOM_PARAM_SINGLE, "target's shape (reduction none) or a scalar")
      .TypeConstraint("T", FloatTypes())
      .TypeConstraint("Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64})
      .AttrString("reduction", "mean", kReductionDoc)
      .Attr("ignore_index", LOOM_ATTR_INT, false, kIgnoreDoc)
      .Infer(Fn<InferLoss>());
  return reg.Register(s);
}

Status Sce(sdk::Registrar& reg) {
  sdk::SchemaBuilder s("SoftmaxCrossEntropyLoss");
  s.Doc("ONNX SoftmaxCrossEntropyLoss-13: log_prob = LogSoftmax(scores) over axis 1, then the "
        "NegativeLogLikelihoodLoss of log_prob with `labels`, `weights`, `reduction` and ignore_index.")
      .SinceVersion(13)
      .Input("scores", "T", LOOM_PARAM_SINGLE, "[N, C] or [N, C, d1, ..., dk]")
      .Input("labels", "Tind", LOOM_PARAM_SINGLE, "[N] or [N, d1, ..., dk]: class indices")
      .Input("weights", "T", LOOM_PARAM_OPTIONAL, "[C]: per-class weights")
      .Output("output", "T", LOOM_PARAM_SINGLE, "labels' shape (reduction none) or a scalar")
      .Output("log_prob", "T", LOOM_PARAM_OPTIONAL, "scores' shape: the log-softmax of scores over axis 1")
      .TypeConstraint("T", FloatTypes())
      .TypeConstraint("Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64})
      .AttrString("reduction", "mean", kReductionDoc)
      .Attr("ignore_index", LOOM_ATTR_INT, false, kIgnoreDoc)
      .Infer(Fn<InferLoss>());
  return reg.Register(s);
}

}  // namespace

sdk::Status RegisterNnLossSchemas(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(Nll(reg));
  return Sce(reg);
}

}  // namespace ops
}  // namespace loom
