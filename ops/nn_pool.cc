// Schemas of MaxPool (ONNX opset 12), AveragePool (opset 19),
// GlobalAveragePool and GlobalMaxPool (opset 1). Output shapes by the
// window rules (PoolShapes, GlobalPoolShapes in ops/shape_inference.h).
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {

sdk::Status RegisterNnPoolSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> f = FloatTypes();
  std::vector<LoomDataType> max_types = f;
  max_types.insert(max_types.end(), {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8});
  OpSpec max = PoolSpec("MaxPool", 12,
      "ONNX MaxPool-12 over X [N, C, D...]: the maximum of each window (padding never wins). Indices holds the "
      "flat index into X of each maximum.", max_types);
  max.outputs.push_back("Indices:tensor(int64)?|flat index into X of each maximum");
  max.attrs.push_back("storage_order:int=0|Indices over the spatial dims in row-major (0) or column-major (1) order");
  OpSpec avg = PoolSpec("AveragePool", 19,
      "ONNX AveragePool-19 over X [N, C, D...]: the mean of each window, over its taps inside X "
      "(count_include_pad = 0) or inside X and its explicit padding (count_include_pad = 1).", f);
  avg.attrs.push_back("count_include_pad:int=0|nonzero: padding counts in the divisor");
  std::vector<OpSpec> specs = {max, avg};
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    const std::string doc =
        std::string("ONNX ") + op + "-1: pools all spatial dims of X [N, C, D...] to Y [N, C, 1, ...].";
    specs.push_back({op, 1, doc, {"X:T"}, {"Y:T"}, {{"T", f}}, {}, &GlobalPoolShapes});
  }
  return RegisterOps(reg, specs);
}

}  // namespace ops
}  // namespace loom
