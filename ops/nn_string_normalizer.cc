// Schema of StringNormalizer (ONNX opset 10): stopword removal and case
// change on a string tensor.
#include <cstdint>
#include <string>
#include <vector>

#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Y is a string tensor of X's rank; its length depends on the values.
sdk::Status InferStringNormalizer(sdk::InferenceContext& ctx) {
  const std::string action = ctx.info().StringOr("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER") {
    return sdk::InvalidArgument("attribute 'case_change_action' must be NONE, LOWER or UPPER; found '" + action + "'");
  }
  ctx.SetOutputDType(0, LOOM_DTYPE_STRING);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterNnStringNormalizerSchemas(sdk::Registrar& reg) {
  return RegisterOps(
      reg, {{"StringNormalizer", 10,
             "ONNX StringNormalizer-10: X without its stopwords (compared exactly with is_case_sensitive 1, "
             "ignoring case otherwise), then changed to case_change_action's case. Case is Unicode's simple "
             "(one code point to one) mapping of UTF-8 text, as ONNX Runtime's towupper/towlower give it, the same "
             "for every locale (the locale attribute is accepted, not used); text that is not UTF-8 is an error. "
             "X [C] or [1, C] gives Y [C'] or [1, C']; when every string is a stopword, Y is [1] or [1, 1] holding "
             "\"\".",
             {"X:tensor(string)|[C] or [1, C]"}, {"Y:tensor(string)|[C'] or [1, C']"}, {},
             {"case_change_action:string=NONE|NONE, LOWER or UPPER",
              "is_case_sensitive:int=0|1: stopwords match exactly; 0: ignoring case",
              "locale:string?|accepted, not used (Unicode case rules for every locale)", "stopwords:strings?|strings to remove"},
             Fn<&InferStringNormalizer>()}});
}

}  // namespace ops
}  // namespace loom
