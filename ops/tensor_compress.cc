// Schema of Compress (ONNX opset 11; opset 9 differs only in rejecting
// negative axes).
#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"

namespace loom {
namespace ops {

sdk::Status RegisterTensorCompressSchemas(sdk::Registrar& reg) {
  sdk::SchemaBuilder s = Schema("Compress", 11,
      "ONNX Compress-11: the slices of `input` along `axis` whose `condition` entry is true (condition may "
      "be shorter than the axis: the rest count as false). Without axis the flattened input is compressed.");
  s.Input("input", "T", LOOM_PARAM_SINGLE, "rank r >= 1")
      .Input("condition", "T1", LOOM_PARAM_SINGLE, "1-D bool, at most the axis' (or the flat input's) size")
      .Output("output", "T", LOOM_PARAM_SINGLE, "input's shape with the axis' size the true count, or 1-D")
      .TypeConstraint("T", AllTypes())
      .TypeConstraint("T1", {LOOM_DTYPE_BOOL})
      .Attr("axis", LOOM_ATTR_INT, false, "the axis, in [-r, r-1]; absent: flatten first");
  return reg.Register(s);
}

}  // namespace ops
}  // namespace loom
