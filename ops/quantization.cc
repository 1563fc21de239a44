// Schemas of ONNX's quantization operators: QuantizeLinear-13,
// DequantizeLinear-13, DynamicQuantizeLinear-11, and the integer ops of
// opset 10, MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv. The
// rounding and saturation rules are ops/semantics/quantization.h's. And
// Loom's QLinearAdd, QLinearGlobalAveragePool, NhwcQLinearConv and
// DynamicQuantizeMatMul (ONNX Runtime's com.microsoft ops of those names), QLinearLookup (a table, as
// ONNX Runtime's QLinearSigmoid computes) and QLinearFloatMul, which the
// QDQ rewrites (transforms/fuse_qdq.h, transforms/int8_channels_last.h)
// make.
#include <string>
#include <vector>

#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/window.h"
#include "ops/semantics/shape_math.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

constexpr LoomDataType kQuantized[] = {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8};

std::vector<LoomDataType> Int8Types() { return {std::begin(kQuantized), std::end(kQuantized)}; }

// QuantizeLinear: X's shape, the zero point's dtype (uint8 without one).
sdk::Status QuantizeInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, HasInput(ctx, 2) ? ctx.InputDType(2) : LOOM_DTYPE_UINT8);
  std::vector<int64_t> x;
  if (ctx.InputShape(0, &x)) ctx.SetOutputShape(0, x);
  return sdk::Status::Ok();
}

// DynamicQuantizeLinear: y uint8 of X's shape, scalar scale and zero point.
sdk::Status DynamicQuantizeInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_UINT8);
  ctx.SetOutputDType(1, LOOM_DTYPE_FLOAT);
  ctx.SetOutputDType(2, LOOM_DTYPE_UINT8);
  std::vector<int64_t> x;
  if (ctx.InputShape(0, &x)) ctx.SetOutputShape(0, x);
  ctx.SetOutputShape(1, {});
  ctx.SetOutputShape(2, {});
  return sdk::Status::Ok();
}

// numpy.matmul's shape of inputs a and b; dtype int32, or input `kDType`'s.
template <size_t kA, size_t kB, int kDType>
sdk::Status QuantMatMulInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, kDType < 0 ? LOOM_DTYPE_INT32 : ctx.InputDType(static_cast<size_t>(kDType)));
  std::vector<int64_t> a, b, y;
  if (ctx.InputShape(kA, &a) && ctx.InputShape(kB, &b) && semantics::MatMulShape(a, b, &y)) ctx.SetOutputShape(0, y);
  return sdk::Status::Ok();
}

// Conv's shape of inputs x and w (semantics::WindowAttrs); dtype as above.
template <size_t kX, size_t kW, int kDType>
sdk::Status QuantConvInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, kDType < 0 ? LOOM_DTYPE_INT32 : ctx.InputDType(static_cast<size_t>(kDType)));
  std::vector<int64_t> x, w, out;
  if (!ctx.InputShape(kX, &x) || !ctx.InputShape(kW, &w) || x.size() < 3 || w.size() != x.size()) {
    return sdk::Status::Ok();
  }
  semantics::WindowAttrs attrs;
  if (attrs.Read(ctx.info(), "").ok() && attrs.InferOutputShape(x, w[0], {w.begin() + 2, w.end()}, &out)) {
    ctx.SetOutputShape(0, out);
  }
  return sdk::Status::Ok();
}

// QLinearAdd: the numpy broadcast of A and B, A's dtype.
sdk::Status QLinearAddInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> a, b, y;
  // Shapes that do not broadcast are the kernel's error, with both shapes.
  if (ctx.InputShape(0, &a) && ctx.InputShape(3, &b) && Broadcast(a, b, &y)) ctx.SetOutputShape(0, y);
  return sdk::Status::Ok();
}

// QLinearLookup: X's shape, the table's dtype.
sdk::Status QLinearLookupInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(1));
  std::vector<int64_t> x;
  if (ctx.InputShape(0, &x)) ctx.SetOutputShape(0, x);
  return sdk::Status::Ok();
}

// QLinearGlobalAveragePool: [N, C, 1, ...] from X [N, C, D...], or with
// channels_last [N, 1, ..., C] from X [N, D..., C]; X's dtype.
sdk::Status QLinearGlobalAveragePoolInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> x;
  if (!ctx.InputShape(0, &x) || x.size() < 3) return sdk::Status::Ok();
  std::vector<int64_t> y(x.size(), 1);
  y[0] = x[0];
  if (ctx.info().IntOr("channels_last", 0) != 0) {
    y.back() = x.back();
  } else {
    y[1] = x[1];
  }
  ctx.SetOutputShape(0, y);
  return sdk::Status::Ok();
}

// QLinearFloatMul: the numpy broadcast of A and B, A's dtype.
sdk::Status QLinearFloatMulInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> a, b, y;
  if (ctx.InputShape(0, &a) && ctx.InputShape(3, &b) && Broadcast(a, b, &y)) ctx.SetOutputShape(0, y);
  return sdk::Status::Ok();
}

// QLinearConvTranspose: ConvTranspose's shape rule (semantics::
// ConvTransposeAttrs), on the channels-last view with channels_last.
sdk::Status QLinearConvTransposeInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(7));
  std::vector<int64_t> x, w, out;
  if (!ctx.InputShape(0, &x) || !ctx.InputShape(3, &w) || x.size() < 3 || w.size() != x.size()) {
    return sdk::Status::Ok();
  }
  const sdk::KernelInfo info = ctx.info();
  const bool channels_last = info.IntOr("channels_last", 0) != 0;
  if (channels_last) {
    if (x.size() != 4) return sdk::Status::Ok();
    x = {x[0], x[3], x[1], x[2]};
  }
  semantics::ConvTransposeAttrs attrs;
  if (!attrs.Read(info, "").ok() || !attrs.InferOutputShape(x, w, info.IntOr("group", 1), &out)) {
    return sdk::Status::Ok();
  }
  ctx.SetOutputShape(0, channels_last ? std::vector<int64_t>{out[0], out[2], out[3], out[1]} : out);
  return sdk::Status::Ok();
}

// NhwcQLinearConv: QLinearConv's shape rule on the channels-last view:
// x [N, H, W, C], w [M, C / group, kH, kW] -> y [N, H', W', M].
sdk::Status NhwcQLinearConvInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(7));
  std::vector<int64_t> x, w, out;
  if (!ctx.InputShape(0, &x) || !ctx.InputShape(3, &w) || x.size() != 4 || w.size() != 4) return sdk::Status::Ok();
  const std::vector<int64_t> plain = {x[0], x[3], x[1], x[2]};
  semantics::WindowAttrs attrs;
  if (attrs.Read(ctx.info(), "").ok() && attrs.InferOutputShape(plain, w[0], {w.begin() + 2, w.end()}, &out)) {
    ctx.SetOutputShape(0, {out[0], out[2], out[3], out[1]});
  }
  return sdk::Status::Ok();
}

std::vector<std::string> ConvTransposeAttrsWithLayout() {
  std::vector<std::string> attrs = ConvTransposeWindowAttrs();
  attrs.push_back("group:int=1|number of groups; C and M divisible by it");
  attrs.push_back("channels_last:int=0|1: x and y channels-last (2-D)");
  return attrs;
}

std::vector<std::string> ConvAttrsWithGroup() {
  std::vector<std::string> attrs = WindowAttrs();
  attrs.push_back("group:int=1|number of groups; C and M divisible by it");
  return attrs;
}

}  // namespace

sdk::Status RegisterQuantizationSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> q = Int8Types();
  const char* axis_doc = "the axis of per-axis parameters, in [-r, r-1]; ignored for per-tensor ones";
  std::vector<OpSpec> specs = {
      {"QuantizeLinear", 13,
       "ONNX QuantizeLinear-13: y = saturate(round_half_even(x / y_scale) + y_zero_point), per tensor (scalar "
       "y_scale) or per axis (1-D y_scale of X.dim(axis) elements). y has y_zero_point's dtype, uint8 without one.",
       {"x:T1|any shape", "y_scale:tensor(float)|scalar, or 1-D [X.dim(axis)]",
        "y_zero_point:T2?|y_scale's shape; default 0 (uint8)"},
       {"y:T2|x's shape"}, {{"T1", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_INT32}}, {"T2", q}},
       {std::string("axis:int=1|") + axis_doc}, Fn<&QuantizeInfer>()},
      {"DequantizeLinear", 13,
       "ONNX DequantizeLinear-13: y = (x - x_zero_point) * x_scale, per tensor or per axis as QuantizeLinear; "
       "int32 x takes no zero point (0).",
       {"x:T|any shape", "x_scale:tensor(float)|scalar, or 1-D [X.dim(axis)]",
        "x_zero_point:T?|x_scale's shape; default 0"},
       {"y:tensor(float)|x's shape"}, {{"T", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8, LOOM_DTYPE_INT32}}},
       {std::string("axis:int=1|") + axis_doc}, Fn<&InferLike<1, 0>>()},
      {"DynamicQuantizeLinear", 11,
       "ONNX DynamicQuantizeLinear-11: uint8 quantization with parameters from x's range widened to include 0: "
       "y_scale = (max - min) / 255, y_zero_point = round_half_even(clip(-min / y_scale, 0, 255)), y = "
       "QuantizeLinear(x, y_scale, y_zero_point). An all-zero x gives scale 0, zero point 0 and y 0.",
       {"x:tensor(float)|any shape"},
       {"y:tensor(uint8)|x's shape", "y_scale:tensor(float)|scalar", "y_zero_point:tensor(uint8)|scalar"}, {}, {},
       Fn<&DynamicQuantizeInfer>()},
      {"MatMulInteger", 10,
       "ONNX MatMulInteger-10: numpy.matmul of (A - a_zero_point) and (B - b_zero_point) accumulated in int32. "
       "a_zero_point: scalar, or per row of A (M elements, or A's batch dims with [M, 1]); b_zero_point: scalar, "
       "or per column of B (N elements, or B's batch dims with [1, N]).",
       {"A:T1|[..., M, K]", "B:T2|[..., K, N]", "a_zero_point:T1?|default 0", "b_zero_point:T2?|default 0"},
       {"Y:tensor(int32)|[..., M, N]"}, {{"T1", q}, {"T2", q}}, {}, Fn<&QuantMatMulInfer<0, 1, -1>>()},
      {"QLinearMatMul", 10,
       "ONNX QLinearMatMul-10: y = saturate(round_half_even(acc * a_scale * b_scale / y_scale) + y_zero_point), "
       "acc the int32 numpy.matmul of (a - a_zero_point) and (b - b_zero_point); a's parameters scalar or per row "
       "(M elements), b's scalar or per column (N elements), y's scalar.",
       {"a:T1|[..., M, K]", "a_scale:tensor(float)", "a_zero_point:T1", "b:T2|[..., K, N]",
        "b_scale:tensor(float)", "b_zero_point:T2", "y_scale:tensor(float)|scalar", "y_zero_point:T3|scalar"},
       {"y:T3|[..., M, N]"}, {{"T1", q}, {"T2", q}, {"T3", q}}, {}, Fn<&QuantMatMulInfer<0, 3, 7>>()},
      {"ConvInteger", 10,
       "ONNX ConvInteger-10: Conv-11's geometry over (x - x_zero_point) and (w - w_zero_point), accumulated in "
       "int32. x_zero_point scalar; w_zero_point scalar or per output channel (M elements).",
       {"x:T1|[N, C, D1, ..., Dn]", "w:T2|[M, C / group, k1, ..., kn]", "x_zero_point:T1?|default 0",
        "w_zero_point:T2?|default 0"},
       {"y:tensor(int32)|[N, M, D1', ..., Dn']"}, {{"T1", q}, {"T2", q}}, ConvAttrsWithGroup(),
       Fn<&QuantConvInfer<0, 1, -1>>()},
      {"QLinearConv", 10,
       "ONNX QLinearConv-10: y = saturate(round_half_even((acc + B) * x_scale * w_scale / y_scale) + "
       "y_zero_point), acc ConvInteger's int32 result; w's parameters scalar or per output channel (M "
       "elements), the others scalar; B optional int32 [M], in x_scale * w_scale units.",
       {"x:T1|[N, C, D1, ..., Dn]", "x_scale:tensor(float)|scalar", "x_zero_point:T1|scalar",
        "w:T2|[M, C / group, k1, ..., kn]", "w_scale:tensor(float)|scalar, or [M]", "w_zero_point:T2|scalar, or [M]",
        "y_scale:tensor(float)|scalar", "y_zero_point:T3|scalar", "B:tensor(int32)?|[M]"},
       {"y:T3|[N, M, D1', ..., Dn']"}, {{"T1", q}, {"T2", q}, {"T3", q}}, ConvAttrsWithGroup(),
       Fn<&QuantConvInfer<0, 3, 7>>()},
      {"QLinearAdd", 1,
       "Not an ONNX op: ONNX Runtime's com.microsoft QLinearAdd, made by Loom's QDQ rewrite (transforms/fuse_qdq.h) "
       "from DequantizeLinear(A), DequantizeLinear(B) -> Add -> QuantizeLinear. C = saturate(round_half_even("
       "((A - A_zero_point) * A_scale + (B - B_zero_point) * B_scale) / C_scale) + C_zero_point), computed in "
       "float32 as A * (A_scale / C_scale) + B * (B_scale / C_scale) + (C_zero_point - A_zero_point * A_scale / "
       "C_scale - B_zero_point * B_scale / C_scale), as ONNX Runtime does (its float rounding may move a value on "
       "a .5 boundary by one step). A and B broadcast (numpy rules); every scale and zero point is a scalar.",
       {"A:T|any shape", "A_scale:tensor(float)|scalar", "A_zero_point:T|scalar", "B:T|broadcasts with A",
        "B_scale:tensor(float)|scalar", "B_zero_point:T|scalar", "C_scale:tensor(float)|scalar",
        "C_zero_point:T|scalar"},
       {"C:T|the broadcast shape of A and B"}, {{"T", q}}, {}, Fn<&QLinearAddInfer>(), false, LOOM_OPS_DOMAIN},
      {"QLinearLookup", 1,
       "Not an ONNX op: Y[i] = table[X[i] - lowest(T1)] (X[i] + 128 for int8, X[i] for uint8), made by Loom's QDQ "
       "rewrite (transforms/fuse_qdq.h) from DequantizeLinear -> element-wise float ops -> QuantizeLinear, the "
       "table holding the Q's output for each of the 256 input values (as ONNX Runtime computes its "
       "com.microsoft QLinearSigmoid and QLinearLeakyRelu); or, without the Q (float ops read the result), a "
       "float32 table of the float ops' results: Y float32. Any layout: each element maps alone.",
       {"X:T1|any shape", "table:T2|[256]"}, {"Y:T2|X's shape"},
       {{"T1", q}, {"T2", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8, LOOM_DTYPE_FLOAT}}}, {},
       Fn<&QLinearLookupInfer>(), false, LOOM_OPS_DOMAIN},
      {"QLinearGlobalAveragePool", 1,
       "Not an ONNX op: ONNX Runtime's com.microsoft QLinearGlobalAveragePool, made by Loom's QDQ rewrite "
       "(transforms/fuse_qdq.h) from DequantizeLinear -> GlobalAveragePool -> QuantizeLinear. Y = saturate("
       "round_half_even(mean(X - x_zero_point) * x_scale / y_scale) + y_zero_point), the sum exact in integers. "
       "channels_last 1: X [N, D..., C] and Y [N, 1, ..., C] (the int8 channels-last rewrite sets it).",
       {"X:T|[N, C, D1, ..., Dn], or [N, D1, ..., Dn, C]", "x_scale:tensor(float)|scalar", "x_zero_point:T|scalar",
        "y_scale:tensor(float)|scalar", "y_zero_point:T|scalar"},
       {"Y:T|[N, C, 1, ..., 1], or [N, 1, ..., 1, C]"}, {{"T", q}},
       {"channels_last:int=0|1: X and Y channels-last"}, Fn<&QLinearGlobalAveragePoolInfer>(), false,
       LOOM_OPS_DOMAIN},
      {"QLinearFloatMul", 1,
       "Not an ONNX op: C = QuantizeLinear(DequantizeLinear(A) * B) with B float32, made by Loom's QDQ rewrite "
       "(transforms/fuse_qdq.h) from DequantizeLinear(A) -> Mul (B a float tensor: a squeeze-and-excitation "
       "block's per-channel gate) -> QuantizeLinear. C = saturate(round_half_even((A - A_zero_point) * B * "
       "(A_scale / C_scale)) + C_zero_point) in float32 (the QDQ graph's rounding may differ by one step). A and "
       "B broadcast (numpy rules); every scale and zero point is a scalar.",
       {"A:T|any shape", "A_scale:tensor(float)|scalar", "A_zero_point:T|scalar", "B:tensor(float)|broadcasts with A",
        "C_scale:tensor(float)|scalar", "C_zero_point:T|scalar"},
       {"C:T|the broadcast shape of A and B"}, {{"T", q}}, {}, Fn<&QLinearFloatMulInfer>(), false, LOOM_OPS_DOMAIN},
      {"DynamicQuantizeMatMul", 1,
       "Not an ONNX op: ONNX Runtime's com.microsoft DynamicQuantizeMatMul, made by Loom's rewrite "
       "(transforms/fuse_dynamic_quant.h) from the graph ONNX Runtime's quantize_dynamic (and loom_quantize "
       "--dynamic) writes for a MatMul: DynamicQuantizeLinear(A) -> MatMulInteger(A_q, B, a_zero_point, "
       "b_zero_point) -> Cast(float) -> Mul(Mul(a_scale, b_scale)) [-> Add(bias)]. Y = float(acc) * (a_scale * "
       "b_scale) + bias in float32, acc the int32 numpy.matmul of (A_q - a_zero_point) and (B - b_zero_point), "
       "A_q, a_scale and a_zero_point DynamicQuantizeLinear-11's uint8 quantization of A (per tensor, each run): "
       "the pattern's values exactly. b_scale and b_zero_point scalar or per column (N elements).",
       {"A:tensor(float)|[..., M, K]", "B:T|[K, N]", "b_scale:tensor(float)|scalar, or [N]",
        "b_zero_point:T?|b_scale's shape; default 0", "bias:tensor(float)?|[N]"},
       {"Y:tensor(float)|[..., M, N]"}, {{"T", q}}, {}, Fn<&QuantMatMulInfer<0, 1, 0>>(), false, LOOM_OPS_DOMAIN},
      {"QLinearConvTranspose", 1,
       "Not an ONNX op: ConvTranspose-11's geometry (attributes and output size as ConvTranspose) over (x - "
       "x_zero_point) and (w - w_zero_point), accumulated in int32, plus B, requantized as QLinearConv: y = "
       "saturate(round_half_even((acc + B) * x_scale * w_scale[m] / y_scale) + y_zero_point). Made by Loom's QDQ "
       "rewrite (transforms/fuse_qdq.h) from DequantizeLinear -> ConvTranspose -> QuantizeLinear, as ONNX "
       "Runtime's QDQ format quantizes ConvTranspose (W per tensor, or per output channel: W's axis 1, one "
       "group). channels_last 1: x [N, H, W, C] and y [N, H', W', M] (2-D; the int8 channels-last rewrite sets "
       "it).",
       {"x:T1|[N, C, D1, ..., Dn]", "x_scale:tensor(float)|scalar", "x_zero_point:T1|scalar",
        "w:T2|[C, M / group, k1, ..., kn]", "w_scale:tensor(float)|scalar, or [M]",
        "w_zero_point:T2|scalar, or [M]", "y_scale:tensor(float)|scalar", "y_zero_point:T3|scalar",
        "B:tensor(int32)?|[M]"},
       {"y:T3|[N, M, D1', ..., Dn']"}, {{"T1", q}, {"T2", q}, {"T3", q}}, ConvTransposeAttrsWithLayout(),
       Fn<&QLinearConvTransposeInfer>(), false, LOOM_OPS_DOMAIN},
      {"NhwcQLinearConv", 1,
       "Not an ONNX op: ONNX Runtime's com.microsoft NhwcQLinearConv, made by Loom's int8 channels-last rewrite "
       "(transforms/int8_channels_last.h) so that runs of int8 ops keep oneDNN's int8 layout between them. "
       "QLinearConv-10 (same inputs, attributes and rounding) on channels-last tensors: x [N, H, W, C] to y [N, "
       "H', W', M]; 2-D only; W int8 with zero points 0 (the pass converts no other). With output_table, y maps "
       "through it after the requantization, as a QLinearLookup reading y would (the pass fuses that op).",
       {"x:T1|[N, H, W, C]", "x_scale:tensor(float)|scalar", "x_zero_point:T1|scalar",
        "w:T2|[M, C / group, kH, kW]", "w_scale:tensor(float)|scalar, or [M]", "w_zero_point:T2|scalar, or [M]",
        "y_scale:tensor(float)|scalar", "y_zero_point:T3|scalar", "B:tensor(int32)?|[M]",
        "output_table:T3?|[256]; y[i] = output_table[y[i] - lowest(T3)]"},
       {"y:T3|[N, H', W', M]"}, {{"T1", q}, {"T2", q}, {"T3", q}}, ConvAttrsWithGroup(),
       Fn<&NhwcQLinearConvInfer>(), false, LOOM_OPS_DOMAIN},
  };
  // A DequantizeLinear of a constant (the weights of an op the QDQ rewrite
  // did not fuse) runs once at plan time, as ONNX Runtime's constant
  // folding does: the op then reads, and may prepack, float32 constants.
  LOOM_SDK_RETURN_IF_ERROR(SetFold(LOOM_FOLD_CONSTANT_INPUTS, {"DequantizeLinear"}, &specs));
  return RegisterOps(reg, specs);
}

}  // namespace ops
}  // namespace loom
