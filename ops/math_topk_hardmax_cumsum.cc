// Schemas of TopK (ONNX opset 11), Hardmax (opset 13) and CumSum (opset 14).
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// TopK: Values like X with `axis` = K when K is constant; Indices int64.
sdk::Status InferTopK(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  ctx.SetOutputDType(1, LOOM_DTYPE_INT64);
  std::vector<int64_t> xs;
  sdk::Tensor k = ctx.InputConstant(1);
  int64_t axis = ctx.info().IntOr("axis", -1);
  // An axis out of range: the kernel reports it.
  if (!ctx.InputShape(0, &xs) || !k.present() || k.num_elements() != 1 || k.dtype() != LOOM_DTYPE_INT64 ||
      !NormAxis(&axis, static_cast<int64_t>(xs.size()))) {
    return sdk::Status::Ok();
  }
  xs[axis] = k.data<int64_t>()[0];
  ctx.SetOutputShape(0, xs);
  ctx.SetOutputShape(1, xs);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterMathTopKHardmaxCumSumSchemas(sdk::Registrar& reg) {
  const std::string k_shape = "|X's shape with `axis` = K";
  return RegisterOps(reg, {
      {"TopK", 11,
       "ONNX TopK-11: the K largest (or smallest) elements of X along `axis` and their int64 indices, "
       "sorted (also for sorted = 0); equal values keep the lower index first; NaN counts as largest. K in "
       "[0, X.shape[axis]].",
       {"X:T|rank >= 1", "K:tensor(int64)|1-element 1-D tensor"},
       {"Values:T" + k_shape, "Indices:tensor(int64)" + k_shape}, {{"T", NumericTypes()}},
       {"axis:int=-1|the axis searched, in [-r, r-1]", "largest:int=1|1: the largest elements; 0: the smallest",
        "sorted:int=1|accepted; the output is always sorted"},
       Fn<InferTopK>()},
      {"Hardmax", 13, "ONNX Hardmax-13: 1 at the first maximum of `input` along `axis`, 0 elsewhere.",
       {"input:T|rank >= 1"}, {"output:T|input's shape"}, {{"T", FloatTypes()}},
       {"axis:int=-1|the axis, in [-r, r-1]"}, Fn<InferLike<0, 0>>()},
      {"CumSum", 14,
       "ONNX CumSum-14: cumulative sum of `x` along the axis given by the scalar input `axis`; `exclusive` "
       "leaves out the element itself, `reverse` sums from the end.",
       {"x:T|rank >= 1", "axis:T2|0-D (or 1-element), in [-r, r-1]"}, {"y:T|x's shape"},
       {{"T", NumericTypes()}, {"T2", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}}},
       {"exclusive:int=0|1: y[i] sums x[0..i-1] (0 for the first)", "reverse:int=0|1: sum from the end of the axis"},
       Fn<InferLike<0, 0>>()},
  });
}

}  // namespace ops
}  // namespace loom
