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
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

using sdk::InferenceContext;
using sdk::Status;

// Shape of a ReduceX output (InferReduceShape, ops/shape_inference.h).
Status InferReduce(InferenceContext& ctx) { return InferReduceShape(ctx, ctx.info().op_type() + ": "); }

Status Reduce(sdk::Registrar& reg, const std::string& op, const std::string& what, const std::string& empty) {
  sdk::SchemaBuilder s(op);
  s.Doc("ONNX " + op + "-18: " + what +
        " of `data` over `axes`. The axes are the optional int64 input or, in the older opsets' form, the "
        "`axes` attribute (not both); negative axes count from the end. Empty or absent axes reduce every "
        "dim unless noop_with_empty_axes, which then copies the input. An empty reduction gives " +
        empty + ". Integer inputs compute in 64-bit integers (Prod, L1, SumSquare) or double (the others) and "
        "cast back.")
      .SinceVersion(18)
      .Input("data", "T", LOOM_PARAM_SINGLE, "any shape")
      .Input("axes", "tensor(int64)", LOOM_PARAM_OPTIONAL, "1-D, the axes to reduce, in [-r, r-1]")
      .Output("reduced", "T", LOOM_PARAM_SINGLE, "data's shape with the reduced dims 1 (keepdims) or removed")
      .TypeConstraint("T", NumericTypes())
      .AttrInt("keepdims", 1, "1: keep the reduced dims with size 1; 0: remove them")
      .AttrInt("noop_with_empty_axes", 0, "1: empty axes mean no reduction (a copy) instead of reducing all")
      .Attr("axes", LOOM_ATTR_INTS, false, "the axes, in the form of the opsets before the axes input")
      .Infer(Fn<InferReduce>());
  return reg.Register(s);
}

// ArgMax / ArgMin: int64 output, data's shape with `axis` 1 or removed.
Status InferArg(InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
  std::vector<int64_t> in, out;
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  sdk::KernelInfo info = ctx.info();
  std::string error;
  if (!ReducedShape(in, {info.IntOr("axis", 0)}, info.IntOr("keepdims", 1) != 0, false, &out, &error)) {
    return sdk::InvalidArgument(info.op_type() + ": " + error);
  }
  ctx.SetOutputShape(0, out);
  return Status::Ok();
}

Status Arg(sdk::Registrar& reg, const std::string& op, const std::string& what) {
  sdk::SchemaBuilder s(op);
  s.Doc("ONNX " + op + "-13: the int64 index of the " + what +
        " of `data` along `axis`; ties give the first index, or the last with select_last_index. A NaN counts "
        "as the extreme value (as in numpy). The axis must not be empty.")
      .SinceVersion(13)
      .Input("data", "T", LOOM_PARAM_SINGLE, "rank >= 1")
      .Output("reduced", "tensor(int64)", LOOM_PARAM_SINGLE, "data's shape with `axis` 1 (keepdims) or removed")
      .TypeConstraint("T", NumericTypes())
      .AttrInt("axis", 0, "the axis to search, in [-r, r-1]")
      .AttrInt("keepdims", 1, "1: keep the axis with size 1; 0: remove it")
      .AttrInt("select_last_index", 0, "1: ties give the last index instead of the first")
      .Infer(Fn<InferArg>());
  return reg.Register(s);
}

}  // namespace

sdk::Status RegisterReductionArgMaxProdLogSumSchemas(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(Arg(reg, "ArgMax", "maximum"));
  LOOM_SDK_RETURN_IF_ERROR(Arg(reg, "ArgMin", "minimum"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceProd", "product", "1"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceL1", "sum of absolute values", "0"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceL2", "square root of the sum of squares", "0"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceLogSum", "natural log of the sum", "-inf"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceLogSumExp", "log of the sum of exponentials (max-shifted)", "-inf"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceSumSquare", "sum of squares", "0"));
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
