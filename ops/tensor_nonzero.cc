// Schema of NonZero (ONNX opset 13).
#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {

sdk::Status RegisterTensorNonZeroSchemas(sdk::Registrar& reg) {
  // int64 [rank, nnz]; nnz depends on the values, so the shape stays unknown.
  return RegisterOps(reg, {{"NonZero", 13,
      "ONNX NonZero-13: the coordinates of the non-zero elements of X, as int64 [rank, nnz] in row-major "
      "order (a scalar counts as a 1-element vector).",
      {"X:T|any shape"}, {"Y:tensor(int64)|[max(rank, 1), nnz]"}, {{"T", AllTypes()}}, {},
      Fn<OutputDType<LOOM_DTYPE_INT64>>()}});
}

}  // namespace ops
}  // namespace loom
