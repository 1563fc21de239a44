// Schema of Compress (ONNX opset 11; opset 9 differs only in rejecting
// negative axes).
#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"

namespace loom {
namespace ops {

sdk::Status RegisterTensorCompressSchemas(sdk::Registrar& reg) {
  return RegisterOps(reg, {{"Compress", 11,
      "ONNX Compress-11: the slices of `input` along `axis` whose `condition` entry is true (condition may "
      "be shorter than the axis: the rest count as false). Without axis the flattened input is compressed.",
      {"input:T|rank r >= 1", "condition:T1|1-D bool, at most the axis' (or the flat input's) size"},
      {"output:T|input's shape with the axis' size the true count, or 1-D"},
      {{"T", AllTypes()}, {"T1", {LOOM_DTYPE_BOOL}}}, {"axis:int?|the axis, in [-r, r-1]; absent: flatten first"}}});
}

}  // namespace ops
}  // namespace loom
