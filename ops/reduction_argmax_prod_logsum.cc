// Schemas of ArgMax, ArgMin and the reductions beyond ReduceSum/Mean/Max/Min:
//  - ArgMax, ArgMin (ONNX opset 13): index of the max / min along one axis.
//  - ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
//    ReduceSumSquare (ONNX opset 18: axes as the optional int64 input; the
//    older opsets' `axes` attribute is accepted too), keepdims and
//    noop_with_empty_axes as in ONNX.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// ArgMax / ArgMin: int64 output, data's shape with `axis` 1 or removed.
sdk::Status InferArg(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
  std::vector<int64_t> in, out;
  if (!ctx.InputShape(0, &in)) return sdk::Status::Ok();
  sdk::KernelInfo info = ctx.info();
  std::string error;
  if (!ReducedShape(in, {info.IntOr("axis", 0)}, info.IntOr("keepdims", 1) != 0, false, &out, &error)) {
    return sdk::InvalidArgument(info.op_type() + ": " + error);
  }
  ctx.SetOutputShape(0, out);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterReductionArgMaxProdLogSumSchemas(sdk::Registrar& reg) {
  std::vector<OpSpec> arg;
  for (const char* op : {"ArgMax", "ArgMin"}) {
    const std::string what = std::string(op) == "ArgMax" ? "maximum" : "minimum";
    arg.push_back({op, 13, OnnxDoc(op, 13, "the int64 index of the " + what) +
                               " of `data` along `axis`; ties give the first index, or the last with "
                               "select_last_index. A NaN counts as the extreme value (as in numpy). The axis must "
                               "not be empty.",
                   {"data:T|rank >= 1"}, {"reduced:tensor(int64)|data's shape with `axis` 1 (keepdims) or removed"},
                   {{"T", NumericTypes()}},
                   {"axis:int=0|the axis to search, in [-r, r-1]",
                    "keepdims:int=1|1: keep the axis with size 1; 0: remove it",
                    "select_last_index:int=0|1: ties give the last index instead of the first"},
                   Fn<InferArg>()});
  }
  LOOM_SDK_RETURN_IF_ERROR(RegisterOps(reg, arg));
  return RegisterReduce(reg,
                        {{"ReduceProd", 18, "product", "1"},
                         {"ReduceL1", 18, "sum of absolute values", "0"},
                         {"ReduceL2", 18, "square root of the sum of squares", "0"},
                         {"ReduceLogSum", 18, "natural log of the sum", "-inf"},
                         {"ReduceLogSumExp", 18, "log of the sum of exponentials (max-shifted)", "-inf"},
                         {"ReduceSumSquare", 18, "sum of squares", "0"}},
                        " Integer inputs compute in 64-bit integers (Prod, L1, SumSquare; cast back wrapping) or "
                        "double (the others; cast back truncated and clamped to the dtype's range, NaN to 0).");
}

}  // namespace ops
}  // namespace loom
