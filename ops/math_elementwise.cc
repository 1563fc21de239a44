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
  {
    sdk::SchemaBuilder s = Schema("PRelu", 16, "ONNX PRelu-16: Y = X < 0 ? slope * X : X; slope broadcasts to X (unidirectional).");
    s.Input("X", "T").Input("slope", "T").Output("Y", "T")
        .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16,
                              LOOM_DTYPE_INT32, LOOM_DTYPE_INT64, LOOM_DTYPE_UINT32, LOOM_DTYPE_UINT64})
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s = Schema("Clip", 13,
        "ONNX Clip-13: Y = min(max(X, min), max); min and max are optional scalar inputs (opset 11+) or, "
        "in the opset-6 form, float attributes. Absent bounds are the dtype's limits; when min > max every "
        "element becomes max.");
    s.Input("input", "T").Input("min", "T", LOOM_PARAM_OPTIONAL).Input("max", "T", LOOM_PARAM_OPTIONAL)
        .Output("output", "T")
        .TypeConstraint("T", N)
        .Attr("min", LOOM_ATTR_FLOAT, false, "opset-6 form: lower bound")
        .Attr("max", LOOM_ATTR_FLOAT, false, "opset-6 form: upper bound")
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  LOOM_SDK_RETURN_IF_ERROR(RegisterBinary(reg,
                                          {{"Add", 14, "C = A + B.", N},
                                           {"Sub", 14, "C = A - B.", N},
                                           {"Mul", 14, "C = A * B.", N},
                                           {"Div", 14, "C = A / B (integer division truncates; integer x / 0 gives 0).", N}},
                                          /*bool_out=*/false));
  {
    sdk::SchemaBuilder s = Schema("Pow", 15,
        "ONNX Pow-15: Z = X ^ Y, numpy broadcasting; Y may have another numeric dtype, Z has X's. "
        "Integer X with integer Y is exact (wrapping on overflow); a negative integer exponent truncates.");
    s.Input("X", "T").Input("Y", "T1").Output("Z", "T")
        .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16,
                              LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}, "base and result")
        .TypeConstraint("T1", N, "exponent")
        .Infer(&BroadcastShapes);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  // ONNX Sum allows float types only; int32/int64 are a Loom extension.
  std::vector<LoomDataType> sum_types = F;
  sum_types.insert(sum_types.end(), {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64});
  const std::vector<ElementwiseOp> variadic = {{"Max", 13, "elementwise maximum (NaN propagates).", N},
                                               {"Min", 13, "elementwise minimum (NaN propagates).", N},
                                               {"Sum", 13, "elementwise sum (also int32/int64).", sum_types},
                                               {"Mean", 13, "elementwise mean.", F}};
  for (const ElementwiseOp& v : variadic) {
    sdk::SchemaBuilder s = Schema(v.op, v.since, OnnxDoc(v.op, v.since, v.what) + " 1 to N inputs, numpy-style broadcasting.");
    s.Input("data_0", "T", LOOM_PARAM_VARIADIC, "operands")
        .Output("result", "T", LOOM_PARAM_SINGLE, "result, the broadcast shape")
        .TypeConstraint("T", v.types)
        .Infer(&BroadcastShapes);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    sdk::SchemaBuilder s =
        Schema(op, 13, OnnxDoc(op, 13, "normalizes along the single axis `axis` (negative counts from the end)."));
    s.Input("input", "T").Output("output", "T")
        .TypeConstraint("T", F)
        .AttrInt("axis", -1, "the axis to normalize over")
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
