// Schemas of the elementwise math family: activations, unary math, binary
// arithmetic with numpy broadcasting, variadic Max/Min/Sum/Mean, Clip,
// Softmax and LogSoftmax. ONNX semantics (opset 13+ forms, noted per op).
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

sdk::Status Unary(sdk::Registrar& reg, const std::string& op, const std::string& doc, std::vector<LoomDataType> types,
                  int since, std::vector<std::pair<std::string, float>> float_attrs = {}) {
  sdk::SchemaBuilder s(op);
  s.Doc(doc + " Elementwise; Y has X's shape and dtype.")
      .SinceVersion(since)
      .Input("X", "T", LOOM_PARAM_SINGLE, "input, any shape")
      .Output("Y", "T", LOOM_PARAM_SINGLE, "output, X's shape")
      .TypeConstraint("T", std::move(types))
      .InPlace(0, 0)
      .Infer(&SameShapeAsInput0);
  for (auto& [name, dflt] : float_attrs) s.AttrFloat(name, dflt);
  return reg.Register(s);
}

sdk::Status Binary(sdk::Registrar& reg, const std::string& op, const std::string& doc, std::vector<LoomDataType> types,
                   int since) {
  sdk::SchemaBuilder s(op);
  s.Doc(doc + " Numpy-style (multidirectional) broadcasting of A and B.")
      .SinceVersion(since)
      .Input("A", "T", LOOM_PARAM_SINGLE, "first operand")
      .Input("B", "T", LOOM_PARAM_SINGLE, "second operand")
      .Output("C", "T", LOOM_PARAM_SINGLE, "result, the broadcast shape")
      .TypeConstraint("T", std::move(types))
      .Infer(&BroadcastShapes);
  return reg.Register(s);
}

sdk::Status Variadic(sdk::Registrar& reg, const std::string& op, const std::string& doc, std::vector<LoomDataType> types,
                     int since) {
  sdk::SchemaBuilder s(op);
  s.Doc(doc + " 1 to N inputs, numpy-style broadcasting.")
      .SinceVersion(since)
      .Input("data_0", "T", LOOM_PARAM_VARIADIC, "operands")
      .Output("result", "T", LOOM_PARAM_SINGLE, "result, the broadcast shape")
      .TypeConstraint("T", std::move(types))
      .Infer(&BroadcastShapes);
  return reg.Register(s);
}

}  // namespace

sdk::Status RegisterMathElementwiseSchemas(sdk::Registrar& reg) {
  const auto F = FloatTypes();
  const auto S = SignedNumericTypes();
  const auto N = NumericTypes();
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Relu", "ONNX Relu-14: Y = max(X, 0).", S, 14));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "LeakyRelu", "ONNX LeakyRelu-16: Y = X < 0 ? alpha * X : X.", F, 16, {{"alpha", 0.01f}}));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Sigmoid", "ONNX Sigmoid-13: Y = 1 / (1 + exp(-X)).", F, 13));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "HardSigmoid", "ONNX HardSigmoid-6: Y = max(0, min(1, alpha * X + beta)).", F, 6,
                                 {{"alpha", 0.2f}, {"beta", 0.5f}}));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Tanh", "ONNX Tanh-13.", F, 13));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Elu", "ONNX Elu-6: Y = X < 0 ? alpha * (exp(X) - 1) : X.", F, 6, {{"alpha", 1.0f}}));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Selu", "ONNX Selu-6: Y = gamma * (X <= 0 ? alpha * (exp(X) - 1) : X).", F, 6,
                                 {{"alpha", 1.67326319217681884765625f}, {"gamma", 1.05070102214813232421875f}}));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Softplus", "ONNX Softplus-1: Y = ln(exp(X) + 1).", F, 1));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Softsign", "ONNX Softsign-1: Y = X / (1 + |X|).", F, 1));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Exp", "ONNX Exp-13.", F, 13));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Log", "ONNX Log-13: natural logarithm.", F, 13));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Sqrt", "ONNX Sqrt-13.", F, 13));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Reciprocal", "ONNX Reciprocal-13: Y = 1 / X.", F, 13));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Neg", "ONNX Neg-13: Y = -X.", S, 13));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Abs", "ONNX Abs-13: Y = |X|.", N, 13));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Floor", "ONNX Floor-13.", F, 13));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Ceil", "ONNX Ceil-13.", F, 13));
  LOOM_SDK_RETURN_IF_ERROR(Unary(reg, "Erf", "ONNX Erf-13: the error function.", F, 13));
  {
    sdk::SchemaBuilder s("PRelu");
    s.Doc("ONNX PRelu-16: Y = X < 0 ? slope * X : X; slope broadcasts to X (unidirectional).")
        .SinceVersion(16)
        .Input("X", "T").Input("slope", "T").Output("Y", "T")
        .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16,
                              LOOM_DTYPE_INT32, LOOM_DTYPE_INT64, LOOM_DTYPE_UINT32, LOOM_DTYPE_UINT64})
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("Clip");
    s.Doc("ONNX Clip-13: Y = min(max(X, min), max); min and max are optional scalar inputs (opset 11+) or, "
          "in the opset-6 form, float attributes. Absent bounds are the dtype's limits; when min > max every "
          "element becomes max.")
        .SinceVersion(13)
        .Input("input", "T").Input("min", "T", LOOM_PARAM_OPTIONAL).Input("max", "T", LOOM_PARAM_OPTIONAL)
        .Output("output", "T")
        .TypeConstraint("T", N)
        .Attr("min", LOOM_ATTR_FLOAT, false, "opset-6 form: lower bound")
        .Attr("max", LOOM_ATTR_FLOAT, false, "opset-6 form: upper bound")
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "Add", "ONNX Add-14: C = A + B.", N, 14));
  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "Sub", "ONNX Sub-14: C = A - B.", N, 14));
  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "Mul", "ONNX Mul-14: C = A * B.", N, 14));
  LOOM_SDK_RETURN_IF_ERROR(Binary(reg, "Div", "ONNX Div-14: C = A / B (integer division truncates; integer x / 0 gives 0).", N, 14));
  {
    sdk::SchemaBuilder s("Pow");
    s.Doc("ONNX Pow-15: Z = X ^ Y, numpy broadcasting; Y may have another numeric dtype, Z has X's. "
          "Integer X with integer Y is exact (wrapping on overflow); a negative integer exponent truncates.")
        .SinceVersion(15)
        .Input("X", "T").Input("Y", "T1").Output("Z", "T")
        .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16,
                              LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}, "base and result")
        .TypeConstraint("T1", N, "exponent")
        .Infer(&BroadcastShapes);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  LOOM_SDK_RETURN_IF_ERROR(Variadic(reg, "Max", "ONNX Max-13: elementwise maximum (NaN propagates).", N, 13));
  LOOM_SDK_RETURN_IF_ERROR(Variadic(reg, "Min", "ONNX Min-13: elementwise minimum (NaN propagates).", N, 13));
  // ONNX Sum allows float types only; int32/int64 are a Loom extension.
  std::vector<LoomDataType> sum_types = F;
  sum_types.push_back(LOOM_DTYPE_INT32);
  sum_types.push_back(LOOM_DTYPE_INT64);
  LOOM_SDK_RETURN_IF_ERROR(Variadic(reg, "Sum", "ONNX Sum-13: elementwise sum (also int32/int64).", sum_types, 13));
  LOOM_SDK_RETURN_IF_ERROR(Variadic(reg, "Mean", "ONNX Mean-13: elementwise mean.", F, 13));
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    sdk::SchemaBuilder s(op);
    s.Doc(std::string("ONNX ") + op + "-13: normalizes along the single axis `axis` (negative counts from the end).")
        .SinceVersion(13)
        .Input("input", "T").Output("output", "T")
        .TypeConstraint("T", F)
        .AttrInt("axis", -1, "the axis to normalize over")
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
