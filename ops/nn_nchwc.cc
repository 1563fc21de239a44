// Schemas of the blocked-layout ops (ONNX Runtime's NCHWc transformer and
// its com.microsoft.nchwc ops): ReorderInput, ReorderOutput, NchwcConv,
// NchwcMaxPool and NchwcGlobalAveragePool.
// Not ONNX ops: a graph rewrite makes them (transforms/nchwc_layout.h) so
// that runs of convolutions keep oneDNN's blocked layout nChw<b>c between
// them. A blocked tensor is float32 [N, C / b, H, W, b]: element (n, c, h, w)
// of the plain NCHW tensor is at [n, c / b, h, w, c % b]. C is a multiple of
// b (no padding). b is 8 or 16 (nChw8c, nChw16c), or C itself: one block
// of all channels, [N, 1, H, W, C], which is channels-last NHWC (attribute
// block = 0). Default domain, like FusedConv.
#include <string>
#include <vector>

#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/window.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

int64_t Block(sdk::InferenceContext& ctx) {
  int64_t b = 0;
  return ctx.info().GetInt("block", &b).ok() ? b : 0;
}

// [N, C, H, W] or blocked [N, C / a, H, W, a] -> [N, C / b, H, W, b] (b =
// C for block 0).
sdk::Status ReorderInputInfer(sdk::InferenceContext& ctx) {
  std::vector<int64_t> x;
  if (!ctx.InputShape(0, &x) || (x.size() != 4 && x.size() != 5)) return sdk::Status::Ok();
  if (x.size() == 5) x = {x[0], x[1] * x[4], x[2], x[3]};
  const int64_t b = Block(ctx) > 0 ? Block(ctx) : x[1];
  if (b <= 0 || x[1] % b != 0) return sdk::Status::Ok();
  ctx.SetOutputShape(0, {x[0], x[1] / b, x[2], x[3], b});
  return sdk::Status::Ok();
}

// [N, C / b, H, W, b] -> [N, C, H, W].
sdk::Status ReorderOutputInfer(sdk::InferenceContext& ctx) {
  std::vector<int64_t> x;
  if (!ctx.InputShape(0, &x) || x.size() != 5) return sdk::Status::Ok();
  ctx.SetOutputShape(0, {x[0], x[1] * x[4], x[2], x[3]});
  return sdk::Status::Ok();
}

// Conv's output shape on the plain view, blocked (X's block is its own;
// Y's is `block`, or M for block 0).
sdk::Status NchwcConvInfer(sdk::InferenceContext& ctx) {
  std::vector<int64_t> x, w, out;
  if (!ctx.InputShape(0, &x) || !ctx.InputShape(1, &w) || (x.size() != 4 && x.size() != 5) || w.size() != 4) {
    return sdk::Status::Ok();
  }
  const int64_t b = Block(ctx) > 0 ? Block(ctx) : w[0];
  if (b <= 0 || w[0] % b != 0) return sdk::Status::Ok();
  semantics::WindowAttrs attrs;
  const std::vector<int64_t> plain = x.size() == 4 ? x : std::vector<int64_t>{x[0], x[1] * x[4], x[2], x[3]};
  if (!attrs.Read(ctx.info(), "").ok() || !attrs.InferOutputShape(plain, w[0], {w.begin() + 2, w.end()}, &out)) {
    return sdk::Status::Ok();
  }
  ctx.SetOutputShape(0, {out[0], out[1] / b, out[2], out[3], b});
  return sdk::Status::Ok();
}

// MaxPool's output shape on the plain view, in X's layout.
sdk::Status NchwcMaxPoolInfer(sdk::InferenceContext& ctx) {
  std::vector<int64_t> x, out;
  if (!ctx.InputShape(0, &x) || x.size() != 5 || x[4] <= 0) return sdk::Status::Ok();
  const std::vector<int64_t> plain = {x[0], x[1] * x[4], x[2], x[3]};
  semantics::WindowAttrs attrs;
  if (!attrs.Read(ctx.info(), "").ok() || !attrs.InferOutputShape(plain, plain[1], attrs.kernel, &out)) {
    return sdk::Status::Ok();
  }
  ctx.SetOutputShape(0, {out[0], x[1], out[2], out[3], x[4]});
  return sdk::Status::Ok();
}

// [N, C / b, H, W, b] -> [N, C / b, 1, 1, b].
sdk::Status NchwcGlobalPoolInfer(sdk::InferenceContext& ctx) {
  std::vector<int64_t> x;
  if (!ctx.InputShape(0, &x) || x.size() != 5) return sdk::Status::Ok();
  ctx.SetOutputShape(0, {x[0], x[1], 1, 1, x[4]});
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterNnNchwcSchemas(sdk::Registrar& reg) {
  const std::string block =
      "block:int!|channels per block b of the output: 8 or 16 (oneDNN's nChw8c, nChw16c), or 0 for channels-last "
      "(b = C, [N, 1, H, W, C], oneDNN's nhwc)";
  OpSpec in = {"ReorderInput", 1,
               "Plain NCHW (or another blocked layout) to the blocked layout: X float32 [N, C, H, W] or [N, C / a, "
               "H, W, a] (C a multiple of `block`) to Y [N, C / b, H, W, b] (ONNX Runtime's "
               "com.microsoft.nchwc.ReorderInput).",
               {"X:T|[N, C, H, W] or [N, C / a, H, W, a]"}, {"Y:T|[N, C / b, H, W, b]"}, {{"T", {LOOM_DTYPE_FLOAT}}}, {block},
               Fn<&ReorderInputInfer>()};
  OpSpec out = {"ReorderOutput", 1,
                "The blocked layout back to plain NCHW: X float32 [N, C / b, H, W, b] to Y [N, C, H, W] (ONNX "
                "Runtime's com.microsoft.nchwc.ReorderOutput).",
                {"X:T|[N, C / b, H, W, b]"}, {"Y:T|[N, C, H, W]"}, {{"T", {LOOM_DTYPE_FLOAT}}}, {},
                Fn<&ReorderOutputInfer>()};
  OpSpec conv = ConvSpec(
      "NchwcConv", 1,
      "2-D Conv (ONNX Conv-11 attributes) on blocked tensors: X [N, C / a, H, W, a] (any block a), or plain X "
      "[N, C, H, W] (an image stem of few channels, read as is: ONNX Runtime's NCHW-input NchwcConv), with the plain "
      "W [M, C / group, kH, kW] and optional B [M] gives Y [N, M / b, H', W', b] (b = `block`, or M for block 0) = "
      "activation(conv(X) + B + Sum), where the "
      "optional Sum is a blocked tensor of Y's shape (a residual Add fused in, oneDNN's sum post-op) and "
      "activation is FusedConv's (none when absent). ONNX Runtime's com.microsoft.nchwc.Conv.",
      "[M, C / group, kH, kW]", "number of groups; C and M divisible by it", Fn<&NchwcConvInfer>());
  conv.inputs[0] = "X:T|[N, C / a, H, W, a] or [N, C, H, W]";
  conv.inputs.push_back("Sum:T?|[N, M / b, H', W', b], added before the activation");
  conv.outputs[0] = "Y:T|[N, M / b, H', W', b]";
  conv.types = {{"T", {LOOM_DTYPE_FLOAT}}};
  const std::vector<std::string> window = WindowAttrs();
  conv.attrs.insert(conv.attrs.end(), window.begin(), window.end());
  conv.attrs.insert(conv.attrs.end(),
                    {block, "activation:string?|FusedConv's activation (Relu, LeakyRelu, Clip, ...); absent: none",
                     "activation_params:floats?|as FusedConv's",
                     "algorithm:string?|\"direct\" (default) or \"winograd\": oneDNN's Winograd kernels (F(2x2, 3x3), "
                     "F(4x4, 3x3); nChw16c, 3x3, stride 1, AVX-512) where oneDNN has one for the conv, direct "
                     "otherwise. Winograd took 1.2 to 2 times less time on ResNet-18's convs and rounds differently: "
                     "its results differed from direct's by up to about 1e-5 on outputs near 4"});
  OpSpec pool = PoolSpec("NchwcMaxPool", 1,
                         "2-D MaxPool (ONNX MaxPool-12 attributes, no Indices) on a blocked tensor: X [N, C / b, H, W, "
                         "b] to Y [N, C / b, H', W', b], the same layout (ONNX Runtime's com.microsoft.nchwc.MaxPool).",
                         {LOOM_DTYPE_FLOAT});
  pool.inputs[0] = "X:T|[N, C / b, H, W, b]";
  pool.outputs[0] = "Y:T|[N, C / b, H', W', b]";
  pool.infer = Fn<&NchwcMaxPoolInfer>();
  OpSpec gap = {"NchwcGlobalAveragePool", 1,
                "ONNX GlobalAveragePool on a blocked tensor: X [N, C / b, H, W, b] to Y [N, C / b, 1, 1, b], the mean "
                "over H and W in X's layout (ONNX Runtime's com.microsoft.nchwc.GlobalAveragePool).",
                {"X:T|[N, C / b, H, W, b]"}, {"Y:T|[N, C / b, 1, 1, b]"}, {{"T", {LOOM_DTYPE_FLOAT}}}, {},
                Fn<&NchwcGlobalPoolInfer>()};
  return RegisterOps(reg, InDomain(LOOM_OPS_DOMAIN, {in, out, conv, pool, gap}));
}

}  // namespace ops
}  // namespace loom
