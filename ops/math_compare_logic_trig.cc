// Schemas of the rest of the elementwise math family: comparisons and logical ops
// (bool outputs, numpy broadcasting), Where, trigonometric and other unary
// math, IsNaN/IsInf, more activations, Mod and BitShift. ONNX semantics; the
// doc line of each names the opset its semantics come from.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Where: output has X's (input 1's) dtype, not the condition's, and the
// broadcast of all three shapes.
LoomStatus* InferWhere(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  ctx.SetOutputDType(0, ctx.InputDType(1));
  return BroadcastShapes(c);
}

}  // namespace

sdk::Status RegisterMathCompareLogicTrigSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> F = FloatTypes();
  const std::vector<LoomDataType> N = NumericTypes();
  const std::vector<LoomDataType> all = AllTypes();
  const std::vector<LoomDataType> B = {LOOM_DTYPE_BOOL};
  // ONNX lists float, double and float16 for the trigonometric ops.
  const std::vector<LoomDataType> F3 = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16};

  LOOM_SDK_RETURN_IF_ERROR(RegisterBinary(reg,
                                          {{"Equal", 13, "C = (A == B).", all},
                                           {"Less", 13, "C = (A < B).", N},
                                           {"Greater", 13, "C = (A > B).", N},
                                           {"LessOrEqual", 16, "C = (A <= B).", N},
                                           {"GreaterOrEqual", 16, "C = (A >= B).", N}},
                                          /*bool_out=*/true));
  LOOM_SDK_RETURN_IF_ERROR(RegisterBinary(reg,
                                          {{"And", 7, "logical and of bools.", B},
                                           {"Or", 7, "logical or of bools.", B},
                                           {"Xor", 7, "logical xor of bools.", B}},
                                          /*bool_out=*/false));
  const std::vector<LoomDataType> with_string = TensorTypes();  // whole elements moved: strings too
  std::vector<OpSpec> specs = {
      {"Where", 16, "ONNX Where-16: output = condition ? X : Y, numpy broadcasting of all three inputs.",
       {"condition:B|bool selector", "X:T|values where condition is true", "Y:T|values where condition is false"},
       {"output:T|the broadcast shape, X's dtype"}, {{"B", B}, {"T", with_string}}, {}, &InferWhere}};
  for (const char* op : {"IsNaN", "IsInf"}) {
    const bool inf = std::string(op) == "IsInf";
    specs.push_back({op, 20, OnnxDoc(op, 20, "bool mask of X's shape.") +
                                 (inf ? " detect_negative / detect_positive select which infinities count." : ""),
                     {"X:T1|float input"}, {"Y:T2|bool, X's shape"}, {{"T1", F}, {"T2", B}}, {},
                     &SameShapeAs<LOOM_DTYPE_BOOL>});
    if (inf) {
      specs.back().attrs = {"detect_negative:int=1|whether -inf counts",
                            "detect_positive:int=1|whether +inf counts"};
    }
  }
  specs.push_back({"Mod", 13,
                   "ONNX Mod-13: C = A mod B, numpy broadcasting. fmod = 0 (integers only): the remainder has the sign "
                   "of the divisor (Python %); fmod = 1: the sign of the dividend (C fmod); floating types require "
                   "fmod = 1. An integer remainder by 0 gives 0.",
                   {"A:T|dividend", "B:T|divisor"}, {"C:T|remainder, the broadcast shape"}, {{"T", N}},
                   {"fmod:int=0|0: sign of the divisor (integers); 1: sign of the dividend"}, &BroadcastShapes});
  specs.push_back({"BitShift", 11,
                   "ONNX BitShift-11: Z = X << Y or X >> Y (direction \"LEFT\" / \"RIGHT\"), unsigned integers, numpy "
                   "broadcasting; a shift by the bit width or more gives 0.",
                   {"X:T|values", "Y:T|shift amounts"}, {"Z:T|the broadcast shape"},
                   {{"T", {LOOM_DTYPE_UINT8, LOOM_DTYPE_UINT16, LOOM_DTYPE_UINT32, LOOM_DTYPE_UINT64}}},
                   {"direction:string!|\"LEFT\" or \"RIGHT\""}, &BroadcastShapes});
  LOOM_SDK_RETURN_IF_ERROR(RegisterOps(reg, specs));
  return RegisterUnary(
      reg,
      {{"Not", 1, "logical negation of bools.", B},
       {"Sign", 13, "-1, 0 or 1 by the sign of X (float NaN stays NaN).", N},
       {"Sin", 7, "", F3},
       {"Cos", 7, "", F3},
       {"Tan", 7, "", F3},
       {"Asin", 7, "", F3},
       {"Acos", 7, "", F3},
       {"Atan", 7, "", F3},
       {"Sinh", 9, "", F3},
       {"Cosh", 9, "", F3},
       {"Asinh", 9, "", F3},
       {"Acosh", 9, "", F3},
       {"Atanh", 9, "", F3},
       {"Round", 11, "to nearest, halves to even.", F3},
       {"HardSwish", 14, "Y = X * max(0, min(1, X / 6 + 0.5)).", F3},
       {"Mish", 18, "Y = X * tanh(softplus(X)).", F3},
       {"Celu", 12, "Y = max(0, X) + min(0, alpha * (exp(X / alpha) - 1)).", {LOOM_DTYPE_FLOAT},
        FloatAttrs({{"alpha", 1.0f, "the CELU scale"}})},
       {"ThresholdedRelu", 10, "Y = X > alpha ? X : 0.", F3, FloatAttrs({{"alpha", 1.0f, "the threshold"}})},
       {"Gelu", 20,
        "Y = 0.5 * X * (1 + erf(X / sqrt(2))), or with approximate = \"tanh\" "
        "0.5 * X * (1 + tanh(sqrt(2 / pi) * (X + 0.044715 * X^3))).",
        F, [](sdk::SchemaBuilder& s) { s.AttrString("approximate", "none", "\"none\" or \"tanh\""); }},
       {"Shrink", 9, "Y = X < -lambd ? X + bias : (X > lambd ? X - bias : 0).", N,
        FloatAttrs({{"bias", 0.0f, "added/subtracted outside the band"}, {"lambd", 0.5f, "half-width of the zero band"}})}},
      /*inplace=*/false);
}

}  // namespace ops
}  // namespace loom
