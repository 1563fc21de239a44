// Schemas of the reduction family: ReduceSum, ReduceMean, ReduceMax,
// ReduceMin. ONNX semantics with the axes either as the optional int64 input
// (ReduceSum-13, the others from opset 18) or as the `axes` attribute of the
// older opsets; keepdims and noop_with_empty_axes as in ONNX (RegisterReduce,
// ops/schema_helpers.h).
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"

namespace loom {
namespace ops {

sdk::Status RegisterReductionSumMeanMaxMinSchemas(sdk::Registrar& reg) {
  const char* identity =
      "the identity (0 for sums, -inf / +inf or the integer limits for max / min, NaN for a float mean)";
  return RegisterReduce(reg,
                        {{"ReduceSum", 13, "sum", identity},
                         {"ReduceMean", 18, "arithmetic mean (integer types: truncated)", identity},
                         {"ReduceMax", 18, "maximum (NaN propagates)", identity},
                         {"ReduceMin", 18, "minimum (NaN propagates)", identity}},
                        "");
}

}  // namespace ops
}  // namespace loom
