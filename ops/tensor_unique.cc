// Schema of Unique (ONNX opset 11).
#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Y: X's dtype; indices, inverse_indices, counts: int64. Sizes depend on
// the values.
sdk::Status InferUnique(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.SetOutputDType(i, LOOM_DTYPE_INT64);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterTensorUniqueSchemas(sdk::Registrar& reg) {
  return RegisterOps(
      reg, {{"Unique", 11,
             "ONNX Unique-11: the distinct elements of X (flattened) or, with `axis`, the distinct "
             "slices along it; sorted 1 in ascending order (slices compared element by element; strings by their "
             "UTF-8 bytes, i.e. by code point, as numpy sorts them), 0 in order of "
             "first occurrence. indices: each one's first index in X (along axis); inverse_indices: for each "
             "element (slice) of X the index of its value in Y; counts: how often each occurs.",
             {"X:T|any shape"},
             {"Y:T|1-D, or X's shape with the unique count on axis", "indices:tensor(int64)?|[num_unique]",
              "inverse_indices:tensor(int64)?|[X's element count, or X.dim(axis)]", "counts:tensor(int64)?|[num_unique]"},
             {{"T", TensorTypes()}},
             {"axis:int=0|the axis whose slices are compared, in [-r, r-1]; absent: X is flattened",
              "sorted:int=1|1: Y ascending; 0: in order of first occurrence"},
             Fn<&InferUnique>()}});
}

}  // namespace ops
}  // namespace loom
