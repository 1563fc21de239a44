// Schemas of the index / extra-reduction family:
//  - ArgMax, ArgMin (ONNX opset 13): index of the max / min along one axis.
//  - ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
//    ReduceSumSquare (ONNX opset 18: axes as the optional int64 input; the
//    older opsets' `axes` attribute is accepted too), keepdims and
//    noop_with_empty_axes as in ONNX.
//  - GatherElements, GatherND (opset 13), ScatterElements, ScatterND
//    (opset 18 reductions: none, add, mul, max, min), CumSum (opset 14).
//  - NonZero (opset 13), TopK (opset 11), Hardmax (opset 13),
//    LpNormalization (opset 1).
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/families.h"
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

// GatherElements: data's dtype, indices' shape.
Status InferGatherElements(InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> idx;
  if (ctx.InputShape(1, &idx)) ctx.SetOutputShape(0, idx);
  return Status::Ok();
}

Status GatherElements(sdk::Registrar& reg) {
  sdk::SchemaBuilder s("GatherElements");
  s.Doc("ONNX GatherElements-13: output[i][j][k] = data[index][j][k] with index = indices[i][j][k] on "
        "`axis` (the other coordinates are the output's). Indices in [-s, s-1] for s = data's size on axis; "
        "others are an error.")
      .SinceVersion(13)
      .Input("data", "T", LOOM_PARAM_SINGLE, "rank r >= 1")
      .Input("indices", "Tind", LOOM_PARAM_SINGLE, "rank r; each dim but `axis` at most data's")
      .Output("output", "T", LOOM_PARAM_SINGLE, "indices' shape")
      .TypeConstraint("T", AllTypes())
      .TypeConstraint("Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64})
      .AttrInt("axis", 0, "the axis indexed, in [-r, r-1]")
      .Infer(Fn<InferGatherElements>());
  return reg.Register(s);
}

// GatherND: data's dtype; shape indices.shape[:-1] + data.shape[batch_dims + k:].
Status InferGatherND(InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> ds, is;
  if (!ctx.InputShape(0, &ds) || !ctx.InputShape(1, &is) || is.empty()) return Status::Ok();
  const int64_t b = ctx.info().IntOr("batch_dims", 0), k = is.back();
  if (k < 0 || b < 0 || b + k > static_cast<int64_t>(ds.size())) return Status::Ok();  // the kernel reports it
  std::vector<int64_t> out(is.begin(), is.end() - 1);
  out.insert(out.end(), ds.begin() + b + k, ds.end());
  ctx.SetOutputShape(0, out);
  return Status::Ok();
}

// Scatter*, CumSum: the output is data's dtype and shape.
Status InferSameAsData(InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> ds;
  if (ctx.InputShape(0, &ds)) ctx.SetOutputShape(0, ds);
  return Status::Ok();
}

Status GatherScatterND(sdk::Registrar& reg) {
  sdk::SchemaBuilder g("GatherND");
  g.Doc("ONNX GatherND-13: slices of `data` addressed by the last dim (k) of `indices`, after `batch_dims` "
        "leading dims shared by both. Output shape indices.shape[:-1] + data.shape[batch_dims + k:]. Index "
        "values in [-s, s-1] of their dim; others are an error.")
      .SinceVersion(13)
      .Input("data", "T", LOOM_PARAM_SINGLE, "rank r >= 1")
      .Input("indices", "tensor(int64)", LOOM_PARAM_SINGLE, "rank q >= 1; last dim k in [1, r - batch_dims]")
      .Output("output", "T", LOOM_PARAM_SINGLE, "indices.shape[:-1] + data.shape[batch_dims + k:]")
      .TypeConstraint("T", AllTypes())
      .AttrInt("batch_dims", 0, "number of leading dims data and indices share (batch)")
      .Infer(Fn<InferGatherND>());
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(g));

  sdk::SchemaBuilder se("ScatterElements");
  se.Doc("ONNX ScatterElements-18: a copy of `data` where output[...indices[i]...] on `axis` (other coordinates "
         "of i) is set to, or combined by `reduction` with, updates[i]. Duplicate indices with reduction none "
         "keep the last. Indices in [-s, s-1]; others are an error.")
      .SinceVersion(18)
      .Input("data", "T", LOOM_PARAM_SINGLE, "rank r >= 1")
      .Input("indices", "Tind", LOOM_PARAM_SINGLE, "rank r; each dim but `axis` at most data's")
      .Input("updates", "T", LOOM_PARAM_SINGLE, "indices' shape")
      .Output("output", "T", LOOM_PARAM_SINGLE, "data's shape")
      .TypeConstraint("T", AllTypes())
      .TypeConstraint("Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64})
      .AttrInt("axis", 0, "the axis indexed, in [-r, r-1]")
      .AttrString("reduction", "none", "none, add, mul, max or min (not none: numeric types only)")
      .Infer(Fn<InferSameAsData>());
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(se));

  sdk::SchemaBuilder sn("ScatterND");
  sn.Doc("ONNX ScatterND-18: a copy of `data` whose slices addressed by the last dim (k) of `indices` are set "
         "to, or combined by `reduction` with, the matching slices of `updates`. Index values in [-s, s-1]; "
         "others are an error.")
      .SinceVersion(18)
      .Input("data", "T", LOOM_PARAM_SINGLE, "rank r >= 1")
      .Input("indices", "tensor(int64)", LOOM_PARAM_SINGLE, "rank q >= 1; last dim k in [1, r]")
      .Input("updates", "T", LOOM_PARAM_SINGLE, "indices.shape[:-1] + data.shape[k:]")
      .Output("output", "T", LOOM_PARAM_SINGLE, "data's shape")
      .TypeConstraint("T", AllTypes())
      .AttrString("reduction", "none", "none, add, mul, max or min (not none: numeric types only)")
      .Infer(Fn<InferSameAsData>());
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(sn));

  sdk::SchemaBuilder cs("CumSum");
  cs.Doc("ONNX CumSum-14: cumulative sum of `x` along the axis given by the scalar input `axis`; `exclusive` "
         "leaves out the element itself, `reverse` sums from the end.")
      .SinceVersion(14)
      .Input("x", "T", LOOM_PARAM_SINGLE, "rank >= 1")
      .Input("axis", "T2", LOOM_PARAM_SINGLE, "0-D (or 1-element), in [-r, r-1]")
      .Output("y", "T", LOOM_PARAM_SINGLE, "x's shape")
      .TypeConstraint("T", NumericTypes())
      .TypeConstraint("T2", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64})
      .AttrInt("exclusive", 0, "1: y[i] sums x[0..i-1] (0 for the first)")
      .AttrInt("reverse", 0, "1: sum from the end of the axis")
      .Infer(Fn<InferSameAsData>());
  return reg.Register(cs);
}

// NonZero: int64 [rank, nnz]; nnz depends on the values (unknown shape).
Status InferNonZero(InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
  return Status::Ok();
}

// TopK: Values like X with `axis` = K when K is constant; Indices int64.
Status InferTopK(InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  ctx.SetOutputDType(1, LOOM_DTYPE_INT64);
  std::vector<int64_t> xs;
  sdk::Tensor k = ctx.InputConstant(1);
  if (!ctx.InputShape(0, &xs) || !k.present() || k.num_elements() != 1 || k.dtype() != LOOM_DTYPE_INT64) {
    return Status::Ok();
  }
  int64_t axis = ctx.info().IntOr("axis", -1);
  const int64_t rank = static_cast<int64_t>(xs.size());
  if (axis < -rank || axis >= rank) return Status::Ok();  // the kernel reports it
  if (axis < 0) axis += rank;
  xs[axis] = k.data<int64_t>()[0];
  ctx.SetOutputShape(0, xs);
  ctx.SetOutputShape(1, xs);
  return Status::Ok();
}

Status MiscSchemas(sdk::Registrar& reg) {
  sdk::SchemaBuilder nz("NonZero");
  nz.Doc("ONNX NonZero-13: the coordinates of the non-zero elements of X, as int64 [rank, nnz] in row-major "
         "order (a scalar counts as a 1-element vector).")
      .SinceVersion(13)
      .Input("X", "T", LOOM_PARAM_SINGLE, "any shape")
      .Output("Y", "tensor(int64)", LOOM_PARAM_SINGLE, "[max(rank, 1), nnz]")
      .TypeConstraint("T", AllTypes())
      .Infer(Fn<InferNonZero>());
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(nz));

  sdk::SchemaBuilder tk("TopK");
  tk.Doc("ONNX TopK-11: the K largest (or smallest) elements of X along `axis` and their int64 indices, "
         "sorted (also for sorted = 0); equal values keep the lower index first; NaN counts as largest. K in "
         "[0, X.shape[axis]].")
      .SinceVersion(11)
      .Input("X", "T", LOOM_PARAM_SINGLE, "rank >= 1")
      .Input("K", "tensor(int64)", LOOM_PARAM_SINGLE, "1-element 1-D tensor")
      .Output("Values", "T", LOOM_PARAM_SINGLE, "X's shape with `axis` = K")
      .Output("Indices", "tensor(int64)", LOOM_PARAM_SINGLE, "X's shape with `axis` = K")
      .TypeConstraint("T", NumericTypes())
      .AttrInt("axis", -1, "the axis searched, in [-r, r-1]")
      .AttrInt("largest", 1, "1: the largest elements; 0: the smallest")
      .AttrInt("sorted", 1, "accepted; the output is always sorted")
      .Infer(Fn<InferTopK>());
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(tk));

  sdk::SchemaBuilder hm("Hardmax");
  hm.Doc("ONNX Hardmax-13: 1 at the first maximum of `input` along `axis`, 0 elsewhere.")
      .SinceVersion(13)
      .Input("input", "T", LOOM_PARAM_SINGLE, "rank >= 1")
      .Output("output", "T", LOOM_PARAM_SINGLE, "input's shape")
      .TypeConstraint("T", FloatTypes())
      .AttrInt("axis", -1, "the axis, in [-r, r-1]")
      .Infer(Fn<InferSameAsData>());
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(hm));

  sdk::SchemaBuilder lp("LpNormalization");
  lp.Doc("ONNX LpNormalization-1: input divided by its L1 or L2 norm along `axis` (a zero line gives NaN).")
      .SinceVersion(1)
      .Input("input", "T", LOOM_PARAM_SINGLE, "rank >= 1")
      .Output("output", "T", LOOM_PARAM_SINGLE, "input's shape")
      .TypeConstraint("T", FloatTypes())
      .AttrInt("axis", -1, "the axis, in [-r, r-1]")
      .AttrInt("p", 2, "the norm's order: 1 or 2")
      .Infer(Fn<InferSameAsData>());
  return reg.Register(lp);
}

}  // namespace

sdk::Status RegisterIndexExtSchemas(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(Arg(reg, "ArgMax", "maximum"));
  LOOM_SDK_RETURN_IF_ERROR(Arg(reg, "ArgMin", "minimum"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceProd", "product", "1"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceL1", "sum of absolute values", "0"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceL2", "square root of the sum of squares", "0"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceLogSum", "natural log of the sum", "-inf"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceLogSumExp", "log of the sum of exponentials (max-shifted)", "-inf"));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceSumSquare", "sum of squares", "0"));
  LOOM_SDK_RETURN_IF_ERROR(GatherElements(reg));
  LOOM_SDK_RETURN_IF_ERROR(GatherScatterND(reg));
  return MiscSchemas(reg);
}

}  // namespace ops
}  // namespace loom
