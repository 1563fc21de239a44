// Schemas of GatherElements, GatherND (ONNX opset 13), ScatterElements and
// ScatterND (opset 18 reductions: none, add, mul, max, min). Gather is in
// tensor.cc.
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
  return Status::Ok();
}

}  // namespace

sdk::Status RegisterTensorGatherScatterSchemas(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(GatherElements(reg));
  return GatherScatterND(reg);
}

}  // namespace ops
}  // namespace loom
