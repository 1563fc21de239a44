// Schema of Einsum (ONNX opset 12): a general equation, with ellipsis and
// the implicit output form.
#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"

namespace loom {
namespace ops {

sdk::Status RegisterMathEinsumSchemas(sdk::Registrar& reg) {
  return RegisterOps(reg, {{"Einsum", 12,
      "ONNX Einsum-12: sum of products over the labels of `equation` (\"ij,jk->ik\"; letters are labels, "
      "\"...\" stands for broadcast leading dims). Without \"->\" the output has the labels seen once, in "
      "alphabetical order, after the ellipsis dims. Labels repeated in one operand take its diagonal.",
      {"Inputs:T*|one tensor per operand of the equation"}, {"Output:T|the output labels' dims"},
      {{"T", NumericTypes()}}, {"equation:string!|the einsum equation"}}});
}

}  // namespace ops
}  // namespace loom
