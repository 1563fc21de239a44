// Schemas of the rest of the elementwise math family: comparisons and logical ops
// (bool outputs, numpy broadcasting), Where, trigonometric and other unary
// math, IsNaN/IsInf, more activations, Mod and BitShift. ONNX semantics; the
// doc line of each names the opset its semantics come from.
#include <functional>
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Output 0 is bool with the broadcast shape of the inputs (comparisons).
LoomStatus* InferBroadcastBool(LoomInferenceContext* c) {
  sdk::InferenceContext(c).SetOutputDType(0, LOOM_DTYPE_BOOL);
  return BroadcastShapes(c);
}

// Output 0 is bool with input 0's shape (IsNaN, IsInf).
LoomStatus* InferSameShapeBool(LoomInferenceContext* c) {
  sdk::InferenceContext(c).SetOutputDType(0, LOOM_DTYPE_BOOL);
  return SameShapeAsInput0(c);
}

// Where: output has X's (input 1's) dtype, not the condition's, and the
// broadcast of all three shapes.
LoomStatus* InferWhere(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  ctx.SetOutputDType(0, ctx.InputDType(1));
  return BroadcastShapes(c);
}

// Y = op(X); `attrs` adds the op's attributes.
sdk::Status Unary(sdk::Registrar& reg, const std::string& op, const std::string& doc, std::vector<LoomDataType> types,
                  int since, const std::function<void(sdk::SchemaBuilder&)>& attrs = nullptr) {
  sdk::SchemaBuilder s(op);
  s.Doc(doc + " Elementwise; Y has X's shape and dtype.")
      .SinceVersion(since)
      .Input("X", "T", LOOM_PARAM_SINGLE, "input, any shape")
      .Output("Y", "T", LOOM_PARAM_SINGLE, "output, X's shape")
      .TypeConstraint("T", std::move(types))
      .Infer(&SameShapeAsInput0);
  if (attrs) attrs(s);
  return reg.Register(s);
}

// A, B of type T broadcast to C; `bool_out` makes C bool (comparisons).
sdk::Status Binary(sdk::Registrar& reg, const std::string& op, const std::string& doc, std::vector<LoomDataType> types,
                   int since, bool bool_out) {
  sdk::SchemaBuilder s(op);
  s.Doc(doc + " Numpy-style (multidirectional) broadcasting of A and B.")
      .SinceVersion(since)
      .Input("A", "T", LOOM_PARAM_SINGLE, "first operand")
      .Input("B", "T", LOOM_PARAM_SINGLE, "second operand")
      .TypeConstraint("T", std::move(types));
  if (bool_out) {
    s.Output("C", "T1", LOOM_PARAM_SINGLE, "bool result, the broadcast shape")
        .TypeConstraint("T1", {LOOM_DTYPE_BOOL})
        .Infer(&InferBroadcastBool);
  } else {
    s.Output("C", "T", LOOM_PARAM_SINGLE, "result, the broadcast shape").Infer(&BroadcastShapes);
  }
  return reg.Register(s);
}

}  // namespace

sdk::Status RegisterMathCompareLogicTrigSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> F = FloatTypes();
  const std::vector<LoomDataType> N = NumericTypes();
  const std::vector<LoomDataType> all = AllTypes();
  const std::vector<LoomDataType> B = {LOOM_DTYPE_BOOL};
  // ONNX lists float, double and float16 for the trigonometric ops.
  const std::vector<LoomDataType> F3 = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16};

  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "Equal", "ONNX Equal-13: C = (A == B).", all, 13, true));
  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "Less", "ONNX Less-13: C = (A < B).", N, 13, true));
  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "Greater", "ONNX Greater-13: C = (A > B).", N, 13, true));
  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "LessOrEqual", "ONNX LessOrEqual-16: C = (A <= B).", N, 16, true));
  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "GreaterOrEqual", "ONNX GreaterOrEqual-16: C = (A >= B).", N, 16, true));
  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "And", "ONNX And-7: logical and of bools.", B, 7, false));
  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "Or", "ONNX Or-7: logical or of bools.", B, 7, false));
  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "Xor", "ONNX Xor-7: logical xor of bools.", B, 7, false));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Not", "ONNX Not-1: logical negation of bools.", B, 1));
  {
    sdk::SchemaBuilder s("Where");
    s.Doc("ONNX Where-16: output = condition ? X : Y, numpy broadcasting of all three inputs.")
        .SinceVersion(16)
        .Input("condition", "B", LOOM_PARAM_SINGLE, "bool selector")
        .Input("X", "T", LOOM_PARAM_SINGLE, "values where condition is true")
        .Input("Y", "T", LOOM_PARAM_SINGLE, "values where condition is false")
        .Output("output", "T", LOOM_PARAM_SINGLE, "the broadcast shape, X's dtype")
        .TypeConstraint("B", B)
        .TypeConstraint("T", all)
        .Infer(&InferWhere);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Sign", "ONNX Sign-13: -1, 0 or 1 by the sign of X (float NaN stays NaN).", N, 13));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Sin", "ONNX Sin-7.", F3, 7));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Cos", "ONNX Cos-7.", F3, 7));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Tan", "ONNX Tan-7.", F3, 7));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Asin", "ONNX Asin-7.", F3, 7));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Acos", "ONNX Acos-7.", F3, 7));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Atan", "ONNX Atan-7.", F3, 7));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Sinh", "ONNX Sinh-9.", F3, 9));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Cosh", "ONNX Cosh-9.", F3, 9));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Asinh", "ONNX Asinh-9.", F3, 9));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Acosh", "ONNX Acosh-9.", F3, 9));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Atanh", "ONNX Atanh-9.", F3, 9));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Round", "ONNX Round-11: to nearest, halves to even.", F3, 11));
  for (const char* op : {"IsNaN", "IsInf"}) {
    sdk::SchemaBuilder s(op);
    s.Doc(std::string("ONNX ") + op + "-20: bool mask of X's shape." +
          (std::string(op) == "IsInf" ? " detect_negative / detect_positive select which infinities count." : ""))
        .SinceVersion(20)
        .Input("X", "T1", LOOM_PARAM_SINGLE, "float input")
        .Output("Y", "T2", LOOM_PARAM_SINGLE, "bool, X's shape")
        .TypeConstraint("T1", F)
        .TypeConstraint("T2", B)
        .Infer(&InferSameShapeBool);
    if (std::string(op) == "IsInf") {
      s.AttrInt("detect_negative", 1, "whether -inf counts").AttrInt("detect_positive", 1, "whether +inf counts");
    }
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "HardSwish", "ONNX HardSwish-14: Y = X * max(0, min(1, X / 6 + 0.5)).", F3, 14));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Mish", "ONNX Mish-18: Y = X * tanh(softplus(X)).", F3, 18));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Celu", "ONNX Celu-12: Y = max(0, X) + min(0, alpha * (exp(X / alpha) - 1)).",
                                 {LOOM_DTYPE_FLOAT}, 12,
                                 [](sdk::SchemaBuilder& s) { s.AttrFloat("alpha", 1.0f, "the CELU scale"); }));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "ThresholdedRelu", "ONNX ThresholdedRelu-10: Y = X > alpha ? X : 0.", F3, 10,
                                 [](sdk::SchemaBuilder& s) { s.AttrFloat("alpha", 1.0f, "the threshold"); }));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Gelu",
                                 "ONNX Gelu-20: Y = 0.5 * X * (1 + erf(X / sqrt(2))), or with approximate = \"tanh\" "
                                 "0.5 * X * (1 + tanh(sqrt(2 / pi) * (X + 0.044715 * X^3))).",
                                 F, 20, [](sdk::SchemaBuilder& s) {
                                   s.AttrString("approximate", "none", "\"none\" or \"tanh\"");
                                 }));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Shrink",
                                 "ONNX Shrink-9: Y = X < -lambd ? X + bias : (X > lambd ? X - bias : 0).", N, 9,
                                 [](sdk::SchemaBuilder& s) {
                                   s.AttrFloat("bias", 0.0f, "added/subtracted outside the band")
                                       .AttrFloat("lambd", 0.5f, "half-width of the zero band");
                                 }));
  {
    sdk::SchemaBuilder s("Mod");
    s.Doc("ONNX Mod-13: C = A mod B, numpy broadcasting. fmod = 0 (integers only): the remainder has the sign of "
          "the divisor (Python %); fmod = 1: the sign of the dividend (C fmod); floating types require fmod = 1. "
          "An integer remainder by 0 gives 0.")
        .SinceVersion(13)
        .Input("A", "T", LOOM_PARAM_SINGLE, "dividend")
        .Input("B", "T", LOOM_PARAM_SINGLE, "divisor")
        .Output("C", "T", LOOM_PARAM_SINGLE, "remainder, the broadcast shape")
        .TypeConstraint("T", N)
        .AttrInt("fmod", 0, "0: sign of the divisor (integers); 1: sign of the dividend")
        .Infer(&BroadcastShapes);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("BitShift");
    s.Doc("ONNX BitShift-11: Z = X << Y or X >> Y (direction \"LEFT\" / \"RIGHT\"), unsigned integers, numpy "
          "broadcasting; a shift by the bit width or more gives 0.")
        .SinceVersion(11)
        .Input("X", "T", LOOM_PARAM_SINGLE, "values")
        .Input("Y", "T", LOOM_PARAM_SINGLE, "shift amounts")
        .Output("Z", "T", LOOM_PARAM_SINGLE, "the broadcast shape")
        .TypeConstraint("T", {LOOM_DTYPE_UINT8, LOOM_DTYPE_UINT16, LOOM_DTYPE_UINT32, LOOM_DTYPE_UINT64})
        .Attr("direction", LOOM_ATTR_STRING, true, "\"LEFT\" or \"RIGHT\"")
        .Infer(&BroadcastShapes);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
