// Schemas of the tensor-ext family: ConstantOfShape, Size, Expand, Tile,
// Range, Trilu, EyeLike, Pad, DepthToSpace, SpaceToDepth, OneHot,
// CastLike (ONNX semantics; each doc names the opset).
//
// Inference sets the output dtypes that differ from input 0 and the output
// shapes where they follow from the input shapes and, for shape/repeats
// style inputs, from their values when those are constants. Anything
// unknown leaves the output shape unknown; the kernel repeats the checks.
#include <algorithm>
#include <cmath>
#include <cstdint>
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




// ---- ConstantOfShape: dtype of `value` (float32 default), dims = input ----
Status InferConstantOfShape(InferenceContext& ctx) {
  sdk::Tensor value;
  LoomDataType dt = LOOM_DTYPE_FLOAT;
  if (ctx.info().GetTensor("value", &value).ok() && value.present()) dt = value.dtype();
  ctx.SetOutputDType(0, dt);
  std::vector<int64_t> dims;
  if (ConstantInts(ctx, 0, &dims) &&
      std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; })) {
    ctx.SetOutputShape(0, dims);
  }
  return Status::Ok();
}

// ---- Size: int64 scalar -----------------------------------------------------
Status InferSize(InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
  ctx.SetOutputShape(0, {});
  return Status::Ok();
}

// ---- Expand: broadcast(input.shape, shape) ---------------------------------
Status InferExpand(InferenceContext& ctx) {
  std::vector<int64_t> in, shape, out;
  if (!ctx.InputShape(0, &in) || !ConstantInts(ctx, 1, &shape)) return Status::Ok();
  if (Broadcast(in, shape, &out)) ctx.SetOutputShape(0, out);
  return Status::Ok();
}

// ---- Tile: dims[i] * repeats[i] ---------------------------------------------
Status InferTile(InferenceContext& ctx) {
  std::vector<int64_t> in, reps;
  if (!ctx.InputShape(0, &in) || !ConstantInts(ctx, 1, &reps)) return Status::Ok();
  if (reps.size() != in.size()) return Status::Ok();  // the kernel reports it
  for (size_t i = 0; i < in.size(); ++i) {
    if (reps[i] < 0) return Status::Ok();
    in[i] *= reps[i];
  }
  ctx.SetOutputShape(0, in);
  return Status::Ok();
}

// ---- Trilu / EyeLike: shape of input 0 -------------------------------------
Status InferEyeLike(InferenceContext& ctx) {
  const int64_t dt = ctx.info().IntOr("dtype", 0);
  ctx.SetOutputDType(0, dt != 0 ? static_cast<LoomDataType>(dt) : ctx.InputDType(0));
  std::vector<int64_t> in;
  if (ctx.InputShape(0, &in)) ctx.SetOutputShape(0, in);
  return Status::Ok();
}

// ---- Pad: dims + begin + end on the padded axes (constant pads/axes) -------
Status InferPad(InferenceContext& ctx) {
  std::vector<int64_t> in, pads, axes;
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  const int64_t rank = static_cast<int64_t>(in.size());
  if (HasInput(ctx, 1)) {
    if (!ConstantInts(ctx, 1, &pads)) return Status::Ok();
  } else {
    pads = ctx.info().IntsOr("pads", {});
  }
  if (HasInput(ctx, 3)) {
    if (!ConstantInts(ctx, 3, &axes)) return Status::Ok();
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size()) return Status::Ok();  // the kernel reports it
  for (size_t a = 0; a < axes.size(); ++a) {
    int64_t axis = axes[a];
    if (axis < -rank || axis >= rank) return Status::Ok();
    if (axis < 0) axis += rank;
    in[axis] += pads[a] + pads[a + axes.size()];
    if (in[axis] < 0) return Status::Ok();
  }
  ctx.SetOutputShape(0, in);
  return Status::Ok();
}

// ---- DepthToSpace / SpaceToDepth -------------------------------------------
template <bool kToSpace>
Status InferDepthSpace(InferenceContext& ctx) {
  std::vector<int64_t> in;
  const int64_t b = ctx.info().IntOr("blocksize", 0);
  if (!ctx.InputShape(0, &in) || in.size() != 4 || b <= 0) return Status::Ok();
  if (kToSpace) {
    if (in[1] % (b * b) != 0) return Status::Ok();
    ctx.SetOutputShape(0, {in[0], in[1] / (b * b), in[2] * b, in[3] * b});
  } else {
    if (in[2] % b != 0 || in[3] % b != 0) return Status::Ok();
    ctx.SetOutputShape(0, {in[0], in[1] * b * b, in[2] / b, in[3] / b});
  }
  return Status::Ok();
}

// ---- OneHot: values' dtype; indices' dims with depth inserted at axis ------
Status InferOneHot(InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(2));
  std::vector<int64_t> in;
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  sdk::Tensor d = ctx.InputConstant(1);
  if (!d.present() || d.num_elements() != 1) return Status::Ok();
  int64_t depth = 0;
  switch (d.dtype()) {
    case LOOM_DTYPE_INT64: depth = *d.data<int64_t>(); break;
    case LOOM_DTYPE_INT32: depth = *d.data<int32_t>(); break;
    case LOOM_DTYPE_FLOAT: depth = static_cast<int64_t>(*d.data<float>()); break;
    case LOOM_DTYPE_DOUBLE: depth = static_cast<int64_t>(*d.data<double>()); break;
    default: return Status::Ok();
  }
  const int64_t r = static_cast<int64_t>(in.size()) + 1;
  int64_t axis = ctx.info().IntOr("axis", -1);
  if (depth < 1 || axis < -r || axis >= r) return Status::Ok();  // the kernel reports it
  if (axis < 0) axis += r;
  in.insert(in.begin() + axis, depth);
  ctx.SetOutputShape(0, in);
  return Status::Ok();
}

// ---- CastLike: target_type's dtype, input's shape --------------------------
Status InferCastLike(InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(1));
  std::vector<int64_t> in;
  if (ctx.InputShape(0, &in)) ctx.SetOutputShape(0, in);
  return Status::Ok();
}

}  // namespace

sdk::Status RegisterTensorExtSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllTypes();
  const char* kAll = "any dtype: the op only moves bytes";
  {
    sdk::SchemaBuilder s("ConstantOfShape");
    s.Doc("ONNX ConstantOfShape-20: a tensor of dims `input` filled with the one element of `value` "
          "(default a float32 0).")
        .SinceVersion(20)
        .Input("input", "T1", LOOM_PARAM_SINGLE, "1-D int64, the output dims (>= 0); empty gives a scalar")
        .Output("output", "T2")
        .TypeConstraint("T1", {LOOM_DTYPE_INT64})
        .TypeConstraint("T2", all)
        .Attr("value", LOOM_ATTR_TENSOR, false, "one-element tensor: the fill value and output dtype")
        .Infer(Fn<&InferConstantOfShape>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("Size");
    s.Doc("ONNX Size-13: the input's element count as an int64 scalar.")
        .SinceVersion(13)
        .Input("data", "T")
        .Output("size", "T1")
        .TypeConstraint("T", all, "any dtype")
        .TypeConstraint("T1", {LOOM_DTYPE_INT64})
        .Infer(Fn<&InferSize>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("Expand");
    s.Doc("ONNX Expand-13: input broadcast (numpy rules) with `shape`; the output shape is the broadcast of "
          "both, so a 1 in shape keeps the input's dim.")
        .SinceVersion(13)
        .Input("input", "T")
        .Input("shape", "tensor(int64)", LOOM_PARAM_SINGLE, "1-D")
        .Output("output", "T")
        .TypeConstraint("T", all, kAll)
        .Infer(Fn<&InferExpand>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("Tile");
    s.Doc("ONNX Tile-13: the input repeated repeats[i] times along axis i.")
        .SinceVersion(13)
        .Input("input", "T")
        .Input("repeats", "T1", LOOM_PARAM_SINGLE, "1-D int64 of length rank, each >= 0")
        .Output("output", "T")
        .TypeConstraint("T", all, kAll)
        .TypeConstraint("T1", {LOOM_DTYPE_INT64})
        .Infer(Fn<&InferTile>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("Range");
    s.Doc("ONNX Range-11: 1-D [start, start + delta, ...] with max(ceil((limit - start) / delta), 0) "
          "elements; element i is start + i * delta.")
        .SinceVersion(11)
        .Input("start", "T", LOOM_PARAM_SINGLE, "scalar")
        .Input("limit", "T", LOOM_PARAM_SINGLE, "scalar, exclusive")
        .Input("delta", "T", LOOM_PARAM_SINGLE, "scalar, nonzero")
        .Output("output", "T")
        .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_INT16, LOOM_DTYPE_INT32,
                              LOOM_DTYPE_INT64});
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("Trilu");
    s.Doc("ONNX Trilu-14: keeps the upper (upper = 1: j - i >= k) or lower (j - i <= k) triangle of the last "
          "two dims of the input (rank >= 2), zeroing the rest.")
        .SinceVersion(14)
        .Input("input", "T", LOOM_PARAM_SINGLE, "rank >= 2")
        .Input("k", "tensor(int64)", LOOM_PARAM_OPTIONAL, "scalar diagonal offset, default 0")
        .Output("output", "T")
        .TypeConstraint("T", all, kAll)
        .AttrInt("upper", 1, "1: upper triangle, 0: lower")
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("EyeLike");
    s.Doc("ONNX EyeLike-9: a 2-D tensor of the input's shape with ones on diagonal k (j - i == k) and zeros "
          "elsewhere, of dtype `dtype` (default: the input's).")
        .SinceVersion(9)
        .Input("input", "T1", LOOM_PARAM_SINGLE, "2-D")
        .Output("output", "T2")
        .TypeConstraint("T1", all)
        .TypeConstraint("T2", all)
        .AttrInt("k", 0, "diagonal offset: > 0 above, < 0 below the main diagonal")
        .Attr("dtype", LOOM_ATTR_INT, false, "output dtype (ONNX TensorProto.DataType code)")
        .Infer(Fn<&InferEyeLike>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("Pad");
    s.Doc("ONNX Pad-19: pads (negative values crop) the `axes` (default all) by pads = [begins..., ends...]; "
          "mode constant (constant_value, default 0), reflect (mirror without repeating the edge), edge "
          "(repeat the edge) or wrap (periodic). The opset-2 attributes pads and value are also accepted.")
        .SinceVersion(19)
        .Input("data", "T")
        .Input("pads", "tensor(int64)", LOOM_PARAM_OPTIONAL, "1-D, 2 * len(axes); required unless the opset-2 "
               "attribute is used")
        .Input("constant_value", "T", LOOM_PARAM_OPTIONAL, "scalar fill for mode constant, default 0")
        .Input("axes", "Tind", LOOM_PARAM_OPTIONAL, "1-D, in [-r, r-1], no repeats")
        .Output("output", "T")
        .TypeConstraint("T", all, kAll)
        .TypeConstraint("Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64})
        .AttrString("mode", "constant", "constant, reflect, edge or wrap")
        .Attr("pads", LOOM_ATTR_INTS, false, "opset-2 form of the pads input")
        .AttrFloat("value", 0.0f, "opset-2 form of constant_value")
        .Infer(Fn<&InferPad>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("DepthToSpace");
    s.Doc("ONNX DepthToSpace-13: [N, C, H, W] to [N, C / b^2, H * b, W * b], moving channel blocks into "
          "b x b spatial blocks; mode DCR (depth-column-row: channel index (bh * b + bw) * C / b^2 + c) or CRD "
          "(c * b^2 + bh * b + bw).")
        .SinceVersion(13)
        .Input("input", "T", LOOM_PARAM_SINGLE, "4-D, C a multiple of blocksize^2")
        .Output("output", "T")
        .TypeConstraint("T", all, kAll)
        .Attr("blocksize", LOOM_ATTR_INT, true, "b > 0")
        .AttrString("mode", "DCR", "DCR or CRD")
        .Infer(Fn<&InferDepthSpace<true>>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("SpaceToDepth");
    s.Doc("ONNX SpaceToDepth-13: [N, C, H, W] to [N, C * b^2, H / b, W / b], the inverse of DepthToSpace "
          "in DCR mode.")
        .SinceVersion(13)
        .Input("input", "T", LOOM_PARAM_SINGLE, "4-D, H and W multiples of blocksize")
        .Output("output", "T")
        .TypeConstraint("T", all, kAll)
        .Attr("blocksize", LOOM_ATTR_INT, true, "b > 0")
        .Infer(Fn<&InferDepthSpace<false>>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("OneHot");
    s.Doc("ONNX OneHot-11: values[1] where the new axis' index equals the index (negative ones count from "
          "the end, in [-depth, depth-1]), values[0] elsewhere; an index out of range gives an all-off row. "
          "Output: indices' dims with depth inserted at axis; dtype of values.")
        .SinceVersion(11)
        .Input("indices", "T1", LOOM_PARAM_SINGLE, "any shape; non-integer values are truncated")
        .Input("depth", "T2", LOOM_PARAM_SINGLE, "one element, >= 1 (cast to an integer)")
        .Input("values", "T3", LOOM_PARAM_SINGLE, "1-D [off_value, on_value]")
        .Output("output", "T3")
        .TypeConstraint("T1", NumericTypes())
        .TypeConstraint("T2", NumericTypes())
        .TypeConstraint("T3", all)
        .AttrInt("axis", -1, "where the depth axis goes, in [-r-1, r] for indices' rank r")
        .Infer(Fn<&InferOneHot>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("CastLike");
    s.Doc("ONNX CastLike-15: Cast (same conversion rules as Cast-13) of input to the dtype of target_type, "
          "whose values are not read.")
        .SinceVersion(15)
        .Input("input", "T1")
        .Input("target_type", "T2", LOOM_PARAM_SINGLE, "only its dtype matters")
        .Output("output", "T2")
        .TypeConstraint("T1", all)
        .TypeConstraint("T2", all)
        .AttrInt("saturate", 1, "opset 19; applies to float8 types only, which Loom does not have")
        .Infer(Fn<&InferCastLike>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
