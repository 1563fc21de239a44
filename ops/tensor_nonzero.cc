// Schema of NonZero (ONNX opset 13).
#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

using sdk::InferenceContext;
using sdk::Status;

// NonZero: int64 [rank, nnz]; nnz depends on the values (unknown shape).
Status InferNonZero(InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
  return Status::Ok();
}

Status NonZero(sdk::Registrar& reg) {
  sdk::SchemaBuilder nz("NonZero");
  nz.Doc("ONNX NonZero-13: the coordinates of the non-zero elements of X, as int64 [rank, nnz] in row-major "
         "order (a scalar counts as a 1-element vector).")
      .SinceVersion(13)
      .Input("X", "T", LOOM_PARAM_SINGLE, "any shape")
      .Output("Y", "tensor(int64)", LOOM_PARAM_SINGLE, "[max(rank, 1), nnz]")
      .TypeConstraint("T", AllTypes())
      .Infer(Fn<InferNonZero>());
  return reg.Register(nz);
}

}  // namespace

sdk::Status RegisterTensorNonZeroSchemas(sdk::Registrar& reg) { return NonZero(reg); }

}  // namespace ops
}  // namespace loom
