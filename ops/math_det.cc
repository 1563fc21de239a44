// Schema of Det (ONNX opset 11).
#include <cstdint>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// X [*, M, M] -> Y [*].
sdk::Status InferDet(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> x;
  if (ctx.InputShape(0, &x) && x.size() >= 2) ctx.SetOutputShape(0, std::vector<int64_t>(x.begin(), x.end() - 2));
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterMathDetSchemas(sdk::Registrar& reg) {
  return RegisterOps(reg, {{"Det", 11,
                            "ONNX Det-11: the determinant of each square matrix of X (its last two dims), by LU "
                            "decomposition with partial pivoting in double.",
                            {"X:T|[*, M, M]"}, {"Y:T|[*]"}, {{"T", FloatTypes()}}, {}, Fn<&InferDet>()}});
}

}  // namespace ops
}  // namespace loom
