// Schemas of MaxPool (ONNX opset 12), AveragePool (opset 19),
// GlobalAveragePool and GlobalMaxPool (opset 1). Output shapes by the
// window rules (PoolShapes, GlobalPoolShapes in ops/shape_inference.h).
// And Loom's NhwcMaxPool (int8 channels-last; ONNX Runtime's com.microsoft
// op of that name), made by transforms/int8_channels_last.h.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/window.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// MaxPool's shape rule on the channels-last view: [N, H, W, C] -> [N, H',
// W', C].
sdk::Status NhwcPoolInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> x, out;
  if (!ctx.InputShape(0, &x) || x.size() != 4) return sdk::Status::Ok();
  const std::vector<int64_t> plain = {x[0], x[3], x[1], x[2]};
  semantics::WindowAttrs attrs;
  if (attrs.Read(ctx.info(), "").ok() && attrs.InferOutputShape(plain, plain[1], attrs.kernel, &out)) {
    ctx.SetOutputShape(0, {out[0], out[2], out[3], out[1]});
  }
  return sdk::Status::Ok();
}

// NhwcGlobalAveragePool: [N, 1, 1, C] from X [N, H, W, C].
sdk::Status NhwcGlobalPoolInfer(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> x;
  if (ctx.InputShape(0, &x) && x.size() == 4) ctx.SetOutputShape(0, {x[0], 1, 1, x[3]});
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterNnPoolSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> f = FloatTypes();
  std::vector<LoomDataType> max_types = f;
  max_types.insert(max_types.end(), {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8});
  OpSpec max = PoolSpec("MaxPool", 12,
      "ONNX MaxPool-12 over X [N, C, D...]: the maximum of each window (padding never wins). Indices holds the "
      "flat index into X of each maximum.", max_types);
  max.outputs.push_back("Indices:tensor(int64)?|flat index into X of each maximum");
  max.attrs.push_back("storage_order:int=0|Indices over the spatial dims in row-major (0) or column-major (1) order");
  OpSpec avg = PoolSpec("AveragePool", 19,
      "ONNX AveragePool-19 over X [N, C, D...]: the mean of each window, over its taps inside X "
      "(count_include_pad = 0) or inside X and its explicit padding (count_include_pad = 1).", f);
  avg.attrs.push_back("count_include_pad:int=0|nonzero: padding counts in the divisor");
  OpSpec nhwc = PoolSpec("NhwcMaxPool", 1,
      "Not an ONNX op: 2-D MaxPool (ONNX MaxPool-12 attributes, no Indices) on a channels-last int8 tensor, X [N, "
      "H, W, C] to Y [N, H', W', C] (ONNX Runtime's com.microsoft NhwcMaxPool), made by Loom's int8 channels-last "
      "rewrite (transforms/int8_channels_last.h).", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8});
  nhwc.inputs[0] = "X:T|[N, H, W, C]";
  nhwc.outputs[0] = "Y:T|[N, H', W', C]";
  nhwc.infer = Fn<&NhwcPoolInfer>();
  nhwc.domain = LOOM_OPS_DOMAIN;
  OpSpec nhwc_gap = {"NhwcGlobalAveragePool", 1,
                     "Not an ONNX op: GlobalAveragePool-1 on a channels-last float32 tensor, X [N, H, W, C] to Y "
                     "[N, 1, 1, C] (the bytes of GlobalAveragePool's [N, C, 1, 1]), made by Loom's int8 channels-last "
                     "rewrite (transforms/int8_channels_last.h) for the float pools between int8 ops (a "
                     "squeeze-and-excitation block's), so that X is not transposed back first.",
                     {"X:T|[N, H, W, C]"}, {"Y:T|[N, 1, 1, C]"}, {{"T", {LOOM_DTYPE_FLOAT}}}, {},
                     Fn<&NhwcGlobalPoolInfer>()};
  nhwc_gap.domain = LOOM_OPS_DOMAIN;
  std::vector<OpSpec> specs = {max, avg, nhwc, nhwc_gap};
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    const std::string doc =
        std::string("ONNX ") + op + "-1: pools all spatial dims of X [N, C, D...] to Y [N, C, 1, ...].";
    specs.push_back({op, 1, doc, {"X:T"}, {"Y:T"}, {{"T", f}}, {}, &GlobalPoolShapes});
  }
  return RegisterOps(reg, specs);
}

}  // namespace ops
}  // namespace loom
