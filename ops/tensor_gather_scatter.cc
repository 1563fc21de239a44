// Schemas of GatherElements, GatherND (ONNX opset 13), Scatter (opset 9),
// ScatterElements and ScatterND (opset 18 reductions: none, add, mul, max,
// min). Gather is in tensor.cc.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// GatherND: data's dtype; shape indices.shape[:-1] + data.shape[batch_dims + k:].
sdk::Status InferGatherND(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> ds, is;
  if (!ctx.InputShape(0, &ds) || !ctx.InputShape(1, &is) || is.empty()) return sdk::Status::Ok();
  const int64_t b = ctx.info().IntOr("batch_dims", 0), k = is.back();
  const int64_t r = static_cast<int64_t>(ds.size());
  if (k < 0 || b < 0 || b > r || k > r - b) return sdk::Status::Ok();  // the kernel reports it
  std::vector<int64_t> out(is.begin(), is.end() - 1);
  out.insert(out.end(), ds.begin() + b + k, ds.end());
  ctx.SetOutputShape(0, out);
  return sdk::Status::Ok();
}

// data (rank r >= 1), indices and, for the scatters, updates: the inputs all
// four ops share, with T any dtype (string too when `strings`: the kernel
// moves whole elements).
sdk::SchemaBuilder IndexedSchema(const std::string& op, int since, const std::string& doc, const std::string& tind,
                                 const std::string& indices_doc, const std::string& updates_doc,
                                 bool strings = false) {
  sdk::SchemaBuilder s = Schema(op, since, doc);
  s.Input("data", "T", LOOM_PARAM_SINGLE, "rank r >= 1").Input("indices", tind, LOOM_PARAM_SINGLE, indices_doc);
  if (!updates_doc.empty()) s.Input("updates", "T", LOOM_PARAM_SINGLE, updates_doc);
  s.TypeConstraint("T", strings ? TensorTypes() : AllTypes());
  if (tind == "Tind") s.TypeConstraint("Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64});
  return s;
}

}  // namespace

sdk::Status RegisterTensorGatherScatterSchemas(sdk::Registrar& reg) {
  const char* elements_indices = "rank r; each dim but `axis` at most data's";
  const char* reduction_doc = "none, add, mul, max or min (not none: numeric types only)";
  sdk::SchemaBuilder ge = IndexedSchema("GatherElements", 13,
      "ONNX GatherElements-13: output[i][j][k] = data[index][j][k] with index = indices[i][j][k] on "
      "`axis` (the other coordinates are the output's). Indices in [-s, s-1] for s = data's size on axis; "
      "others are an error.", "Tind", elements_indices, "", /*strings=*/true);
  ge.Output("output", "T", LOOM_PARAM_SINGLE, "indices' shape")
      .AttrInt("axis", 0, "the axis indexed, in [-r, r-1]")
      .Infer(Fn<InferLike<0, 1>>());
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(ge));

  sdk::SchemaBuilder g = IndexedSchema("GatherND", 13,
      "ONNX GatherND-13: slices of `data` addressed by the last dim (k) of `indices`, after `batch_dims` "
      "leading dims shared by both. Output shape indices.shape[:-1] + data.shape[batch_dims + k:]. Index "
      "values in [-s, s-1] of their dim; others are an error.", "tensor(int64)",
      "rank q >= 1; last dim k in [1, r - batch_dims]", "", /*strings=*/true);
  g.Output("output", "T", LOOM_PARAM_SINGLE, "indices.shape[:-1] + data.shape[batch_dims + k:]")
      .AttrInt("batch_dims", 0, "number of leading dims data and indices share (batch)")
      .Infer(Fn<InferGatherND>());
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(g));

  sdk::SchemaBuilder se = IndexedSchema("ScatterElements", 18,
      "ONNX ScatterElements-18: a copy of `data` where output[...indices[i]...] on `axis` (other coordinates "
      "of i) is set to, or combined by `reduction` with, updates[i]. Duplicate indices with reduction none "
      "keep the last. Indices in [-s, s-1]; others are an error.", "Tind", elements_indices, "indices' shape",
      /*strings=*/true);
  se.Output("output", "T", LOOM_PARAM_SINGLE, "data's shape")
      .AttrInt("axis", 0, "the axis indexed, in [-r, r-1]")
      .AttrString("reduction", "none", reduction_doc)
      .Infer(Fn<InferLike<0, 0>>());
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(se));

  // Scatter-9 (deprecated in opset 11 for ScatterElements): the same without
  // reduction; opset 9 and 10 models use it.
  sdk::SchemaBuilder sc = IndexedSchema("Scatter", 9,
      "ONNX Scatter-9 (deprecated since opset 11): ScatterElements without reduction: a copy of `data` where "
      "output[...indices[i]...] on `axis` is set to updates[i]; duplicate indices keep the last.", "Tind",
      elements_indices, "indices' shape", /*strings=*/true);
  sc.Output("output", "T", LOOM_PARAM_SINGLE, "data's shape")
      .AttrInt("axis", 0, "the axis indexed, in [-r, r-1]")
      .Infer(Fn<InferLike<0, 0>>());
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(sc));

  sdk::SchemaBuilder sn = IndexedSchema("ScatterND", 18,
      "ONNX ScatterND-18: a copy of `data` whose slices addressed by the last dim (k) of `indices` are set "
      "to, or combined by `reduction` with, the matching slices of `updates`. Index values in [-s, s-1]; "
      "others are an error.", "tensor(int64)", "rank q >= 1; last dim k in [1, r]",
      "indices.shape[:-1] + data.shape[k:]", /*strings=*/true);
  sn.Output("output", "T", LOOM_PARAM_SINGLE, "data's shape")
      .AttrString("reduction", "none", reduction_doc)
      .Infer(Fn<InferLike<0, 0>>());
  return reg.Register(sn);
}

}  // namespace ops
}  // namespace loom
