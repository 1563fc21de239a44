// Schemas of the reduction family: ReduceSum, ReduceMean, ReduceMax,
// ReduceMin. ONNX semantics with the axes either as the optional int64 input
// (ReduceSum-13, the others from opset 18) or as the `axes` attribute of the
// older opsets; keepdims and noop_with_empty_axes as in ONNX.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {


// Shape inference (InferReduceShape, ops/shape_inference.h).
LoomStatus* InferReduce(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  return InferReduceShape(ctx, "").release();
}

sdk::Status Reduce(sdk::Registrar& reg, const std::string& op, const std::string& what, int since) {
  sdk::SchemaBuilder s(op);
  s.Doc("ONNX " + op + "-" + std::to_string(since) + ": " + what +
        " of `data` over `axes`. The axes are the optional int64 input or, in the older opsets' form, the "
        "`axes` attribute (not both); negative axes count from the end. Empty or absent axes reduce every "
        "dim unless noop_with_empty_axes, which then copies the input. An empty reduction gives the "
        "identity (0 for sums, -inf / +inf or the integer limits for max / min, NaN for a float mean).")
      .SinceVersion(since)
      .Input("data", "T", LOOM_PARAM_SINGLE, "any shape")
      .Input("axes", "tensor(int64)", LOOM_PARAM_OPTIONAL, "1-D, the axes to reduce, in [-r, r-1]")
      .Output("reduced", "T", LOOM_PARAM_SINGLE, "data's shape with the reduced dims 1 (keepdims) or removed")
      .TypeConstraint("T", NumericTypes())
      .AttrInt("keepdims", 1, "1: keep the reduced dims with size 1; 0: remove them")
      .AttrInt("noop_with_empty_axes", 0, "1: empty axes mean no reduction (a copy) instead of reducing all")
      .Attr("axes", LOOM_ATTR_INTS, false, "the axes, in the form of the opsets before the axes input")
      .Infer(&InferReduce);
  return reg.Register(s);
}

}  // namespace

sdk::Status RegisterReductionSumMeanMaxMinSchemas(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceSum", "sum", 13));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceMean", "arithmetic mean (integer types: truncated)", 18));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceMax", "maximum (NaN propagates)", 18));
  return Reduce(reg, "ReduceMin", "minimum (NaN propagates)", 18);
}

}  // namespace ops
}  // namespace loom
