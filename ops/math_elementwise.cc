// Schemas of the elementwise math family: activations, unary math, binary
// arithmetic with numpy broadcasting, variadic Max/Min/Sum/Mean, Clip,
// Softmax and LogSoftmax. ONNX semantics (opset 13+ forms, noted per op).
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {

sdk::Status RegisterMathElementwiseSchemas(sdk::Registrar& reg) {
  const auto F = FloatTypes();
  const auto S = SignedNumericTypes();
  const auto N = NumericTypes();
  LOOM_SDK_RETURN_IF_ERROR(RegisterUnary(
      reg,
      {{"Relu", 14, "Y = max(X, 0).", S},
       {"LeakyRelu", 16, "Y = X < 0 ? alpha * X : X.", F, FloatAttrs({{"alpha", 0.01f, ""}})},
       {"Sigmoid", 13, "Y = 1 / (1 + exp(-X)).", F},
       {"HardSigmoid", 6, "Y = max(0, min(1, alpha * X + beta)).", F, FloatAttrs({{"alpha", 0.2f, ""}, {"beta", 0.5f, ""}})},
       {"Tanh", 13, "", F},
       {"Elu", 6, "Y = X < 0 ? alpha * (exp(X) - 1) : X.", F, FloatAttrs({{"alpha", 1.0f, ""}})},
       {"Selu", 6, "Y = gamma * (X <= 0 ? alpha * (exp(X) - 1) : X).", F,
        FloatAttrs({{"alpha", 1.67326319217681884765625f, ""}, {"gamma", 1.05070102214813232421875f, ""}})},
       {"Softplus", 1, "Y = ln(exp(X) + 1).", F},
       {"Softsign", 1, "Y = X / (1 + |X|).", F},
       {"Exp", 13, "", F},
       {"Log", 13, "natural logarithm.", F},
       {"Sqrt", 13, "", F},
       {"Reciprocal", 13, "Y = 1 / X.", F},
       {"Neg", 13, "Y = -X.", S},
       {"Abs", 13, "Y = |X|.", N},
       {"Floor", 13, "", F},
       {"Ceil", 13, "", F},
       {"Erf", 13, "the error function.", F}},
      /*inplace=*/true));
  const std::vector<OpSpec> prelu_clip = {
      {"PRelu", 16, "ONNX PRelu-16: Y = X < 0 ? slope * X : X (integers wrap on overflow); slope broadcasts to X "
       "(unidirectional).",
       {"X:T", "slope:T"}, {"Y:T"},
       {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_INT32,
               LOOM_DTYPE_INT64, LOOM_DTYPE_UINT32, LOOM_DTYPE_UINT64}}},
       {}, &SameShapeAsInput0},
      {"Clip", 13,
       "ONNX Clip-13: Y = min(max(X, min), max); min and max are optional scalar inputs (opset 11+) or, "
       "in the opset-6 form, float attributes (truncated and clamped to an integer input's range). Absent "
       "bounds are the dtype's limits; when min > max every element becomes max.",
       {"input:T", "min:T?", "max:T?"}, {"output:T"}, {{"T", N}},
       {"min:float?|opset-6 form: lower bound", "max:float?|opset-6 form: upper bound"}, &SameShapeAsInput0}};
  LOOM_SDK_RETURN_IF_ERROR(RegisterOps(reg, prelu_clip));
  LOOM_SDK_RETURN_IF_ERROR(RegisterBinary(reg,
                                          {{"Add", 14, "C = A + B.", N},
                                           {"Sub", 14, "C = A - B.", N},
                                           {"Mul", 14, "C = A * B.", N},
                                           {"Div", 14, "C = A / B (integer division truncates; integer x / 0 gives 0).", N}},
                                          /*bool_out=*/false));
  // ONNX Sum allows float types only; int32/int64 are a Loom extension.
  std::vector<LoomDataType> sum_types = F;
  sum_types.insert(sum_types.end(), {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64});
  std::vector<OpSpec> specs = {
      {"Pow", 15,
       "ONNX Pow-15: Z = X ^ Y, numpy broadcasting; Y may have another numeric dtype, Z has X's. "
       "Integer X with integer Y is exact (wrapping on overflow); a negative integer exponent truncates. Integer "
       "X with a float Y: the double result truncated and clamped to X's range (NaN gives 0).",
       {"X:T", "Y:T1"}, {"Z:T"},
       {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_INT32,
               LOOM_DTYPE_INT64}, "base and result"},
        {"T1", N, "exponent"}},
       {}, &BroadcastShapes}};
  const std::vector<ElementwiseOp> variadic = {{"Max", 13, "elementwise maximum (NaN propagates).", N},
                                               {"Min", 13, "elementwise minimum (NaN propagates).", N},
                                               {"Sum", 13, "elementwise sum (also int32/int64).", sum_types},
                                               {"Mean", 13, "elementwise mean.", F}};
  for (const ElementwiseOp& v : variadic) {
    specs.push_back({v.op, v.since, OnnxDoc(v.op, v.since, v.what) + " 1 to N inputs, numpy-style broadcasting.",
                     {"data_0:T*|operands"}, {"result:T|result, the broadcast shape"}, {{"T", v.types}}, {},
                     &BroadcastShapes});
  }
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    specs.push_back({op, 13, OnnxDoc(op, 13, "normalizes along the single axis `axis` (negative counts from the end)."),
                     {"input:T"}, {"output:T"}, {{"T", F}}, {"axis:int=-1|the axis to normalize over"},
                     &SameShapeAsInput0});
  }
  return RegisterOps(reg, specs);
}

}  // namespace ops
}  // namespace loom
