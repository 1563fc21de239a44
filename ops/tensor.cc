// Schemas of the tensor family: shape and data movement. Concat, Split,
// Slice, Reshape, Transpose, Flatten, Squeeze, Unsqueeze, Gather, NonZero,
// Compress, Cast, CastLike, Identity, Constant, Shape, Dropout. ONNX semantics; each doc
// names the opset followed and the older attribute forms also accepted.
//
// Inference sets the output dtypes that differ from input 0 (Cast: `to`,
// Shape: int64, Constant: its value's, Dropout's mask: bool) and output
// shapes where they follow from the input shapes and, for shape/axes/starts
// style inputs, from their values when those are constants (initializers).
// An unknown input leaves the output shape unknown; the kernel (the
// authority at run time) repeats the checks.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/common.h"
#include "ops/semantics/data_movement.h"
#include "ops/semantics/shape_math.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

using sdk::InferenceContext;
using sdk::KernelInfo;
using sdk::Status;

// The label the inference errors name the op by (the planner adds the node).
std::string Label(const InferenceContext& ctx) { return ctx.info().op_type(); }

// ---- Concat (semantics::ConcatAttrs) ----------------------------------------------
// Checks the input shapes in order as far as they are known; output 0's shape
// once all are.
Status InferConcat(InferenceContext& ctx) {
  semantics::ConcatAttrs attrs;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Read(ctx.info()));
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    std::vector<int64_t> s;
    if (!ctx.InputShape(i, &s)) break;
    shapes.push_back(std::move(s));
  }
  if (shapes.empty()) return Status::Ok();
  int64_t axis = 0;
  std::vector<int64_t> out;
  LOOM_SDK_RETURN_IF_ERROR(attrs.OutputShape(Label(ctx), shapes, &axis, &out));
  if (shapes.size() == ctx.num_inputs()) ctx.SetOutputShape(0, out);
  return Status::Ok();
}

// ---- Split (semantics::SplitAttrs) ------------------------------------------------
Status InferSplit(InferenceContext& ctx) {
  std::vector<int64_t> in;
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  semantics::SplitAttrs attrs;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Read(ctx.info()));
  const std::string label = Label(ctx);
  int64_t axis = 0;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Axis(label, in, &axis));
  const bool given = HasInput(ctx, 1);
  std::vector<int64_t> input, sizes;
  if (given && !ConstantInts(ctx, 1, &input)) return Status::Ok();
  const int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
  LOOM_SDK_RETURN_IF_ERROR(attrs.Sizes(label, in, axis, given, input, n_out, &sizes));
  for (int64_t i = 0; i < n_out; ++i) ctx.SetOutputShape(i, semantics::SplitAttrs::OutputShape(in, axis, sizes[i]));
  return Status::Ok();
}

// ---- Slice (semantics::SliceAttrs) ------------------------------------------------
// Known when starts, ends (and axes, steps if given) are constants or the
// opset-1 attributes.
Status InferSlice(InferenceContext& ctx) {
  std::vector<int64_t> dims, starts, ends, axes, steps;
  if (!ctx.InputShape(0, &dims)) return Status::Ok();
  semantics::SliceAttrs attrs;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Read(ctx.info()));
  const bool starts_given = HasInput(ctx, 1);
  if (starts_given) {
    if (!ConstantInts(ctx, 1, &starts) || !ConstantInts(ctx, 2, &ends)) return Status::Ok();
    if (HasInput(ctx, 3) && !ConstantInts(ctx, 3, &axes)) return Status::Ok();
    if (HasInput(ctx, 4) && !ConstantInts(ctx, 4, &steps)) return Status::Ok();
  }
  semantics::SliceGeometry g;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Resolve(Label(ctx), dims, starts_given, /*ends_given=*/true, starts, ends, axes,
                                         steps, &g));
  ctx.SetOutputShape(0, g.out);
  return Status::Ok();
}

// ---- Transpose (semantics::TransposeAttrs) ----------------------------------------
Status InferTranspose(InferenceContext& ctx) {
  std::vector<int64_t> in, out, strides;
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  semantics::TransposeAttrs attrs;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Read(ctx.info()));
  LOOM_SDK_RETURN_IF_ERROR(attrs.OutputShape(Label(ctx), in, &out, &strides));
  ctx.SetOutputShape(0, out);
  return Status::Ok();
}

// ---- Reshape, Flatten, Squeeze, Unsqueeze (semantics::ReshapeAttrs, ...) ----------
// The shape-only ops: the int input named Attrs::kIntsInput (index 1) must be
// a constant when given; without it the attribute form applies.
template <typename Attrs>
Status InferShapeOnly(InferenceContext& ctx) {
  Attrs attrs;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Read(ctx.info()));
  const bool given = Attrs::kIntsInput != nullptr && HasInput(ctx, 1);
  std::vector<int64_t> in, ints, out;
  if (given && !ConstantInts(ctx, 1, &ints)) return Status::Ok();
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  LOOM_SDK_RETURN_IF_ERROR(attrs.OutputShape(Label(ctx), in, given, ints, &out));
  ctx.SetOutputShape(0, out);
  return Status::Ok();
}

// Reshape's output is known from a constant `shape` alone when it has no -1
// and no copying 0.
Status InferReshape(InferenceContext& ctx) {
  std::vector<int64_t> shape, in, out;
  if (!ConstantInts(ctx, 1, &shape)) return Status::Ok();
  if (ctx.InputShape(0, &in)) return InferShapeOnly<semantics::ReshapeAttrs>(ctx);
  semantics::ReshapeAttrs attrs;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Read(ctx.info()));
  bool known = false;
  LOOM_SDK_RETURN_IF_ERROR(attrs.OutputShapeWithoutData(Label(ctx), shape, &known, &out));
  if (known) ctx.SetOutputShape(0, out);
  return Status::Ok();
}

// ---- Gather (semantics::GatherAttrs) ----------------------------------------------
Status InferGather(InferenceContext& ctx) {
  std::vector<int64_t> data, indices;
  if (!ctx.InputShape(0, &data) || !ctx.InputShape(1, &indices)) return Status::Ok();
  semantics::GatherAttrs attrs;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Read(ctx.info()));
  int64_t axis = 0;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Axis(Label(ctx), data, &axis));
  ctx.SetOutputShape(0, semantics::GatherAttrs::OutputShape(data, axis, indices));
  return Status::Ok();
}

// ---- Cast, Identity, Constant, Shape, Dropout ------------------------------------
Status InferCast(InferenceContext& ctx) {
  const int64_t to = ctx.info().IntOr("to", 0);
  if (sdk::DTypeSize(static_cast<LoomDataType>(to)) == 0 && to != LOOM_DTYPE_STRING) {
    return sdk::InvalidArgument("Cast: attribute 'to' = " + std::to_string(to) +
                                " is not a dtype Loom supports (ONNX TensorProto.DataType codes)");
  }
  InferLike<0, 0>(ctx);
  ctx.SetOutputDType(0, static_cast<LoomDataType>(to));
  return Status::Ok();
}

// The attributes Constant takes its value from; exactly one must be set.
const char* const kConstantAttrs[] = {"value", "value_float", "value_floats", "value_int",
                                      "value_ints", "value_string", "value_strings"};

Status InferConstant(InferenceContext& ctx) {
  const KernelInfo info = ctx.info();
  std::vector<std::string> set;
  for (const char* a : kConstantAttrs) if (info.Has(a)) set.push_back(a);
  if (set.size() != 1) {
    return sdk::InvalidArgument("Constant: exactly one of value, value_float, value_floats, value_int, value_ints, "
                                "value_string, value_strings must be set; found " + std::to_string(set.size()));
  }
  const std::string& a = set[0];
  if (a == "value") {
    sdk::Tensor t;
    LOOM_SDK_RETURN_IF_ERROR(info.GetTensor("value", &t));
    ctx.SetOutputDType(0, t.dtype());
    ctx.SetOutputShape(0, t.shape());
  } else if (a == "value_float" || a == "value_int") {
    ctx.SetOutputDType(0, a == "value_float" ? LOOM_DTYPE_FLOAT : LOOM_DTYPE_INT64);
    ctx.SetOutputShape(0, {});
  } else if (a == "value_floats") {
    ctx.SetOutputDType(0, LOOM_DTYPE_FLOAT);
    ctx.SetOutputShape(0, {static_cast<int64_t>(info.FloatsOr("value_floats", {}).size())});
  } else if (a == "value_ints") {
    ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
    ctx.SetOutputShape(0, {static_cast<int64_t>(info.IntsOr("value_ints", {}).size())});
  } else {
    return sdk::Unimplemented("Constant: " + a + ": string tensors are not supported");
  }
  return Status::Ok();
}

Status InferShape(InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
  std::vector<int64_t> in;
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  const int64_t rank = static_cast<int64_t>(in.size());
  const KernelInfo info = ctx.info();
  int64_t start = info.IntOr("start", 0), end = info.Has("end") ? info.IntOr("end", rank) : rank;
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  ctx.SetOutputShape(0, {std::max<int64_t>(0, end - start)});
  return Status::Ok();
}

Status InferDropout(InferenceContext& ctx) {
  std::vector<int64_t> in;
  const bool known = ctx.InputShape(0, &in);
  if (known) ctx.SetOutputShape(0, in);
  if (ctx.num_outputs() > 1) {
    ctx.SetOutputDType(1, LOOM_DTYPE_BOOL);
    if (known) ctx.SetOutputShape(1, in);
  }
  return Status::Ok();
}

}  // namespace

sdk::Status RegisterTensorSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllTypes();
  const TypeSet bytes = {"T", all, kMovesBytes};
  const std::vector<LoomDataType> with_string = TensorTypes();  // whole elements moved: strings too
  // Ops that move whole elements (string tensors too).
  const TypeSet bytes_or_string = {"T", with_string, kMovesBytes};
  const std::vector<LoomDataType> identity_types = AllValueTypes();
  const TypeSet index = {"Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}};
  std::vector<OpSpec> specs = {
      {"Concat", 13,
       "ONNX Concat-13: joins the inputs along `axis`; they agree in rank and in every other dim. "
       "Zero-size inputs are allowed.",
       {"inputs:T*|tensors of equal rank >= 1"}, {"concat_result:T"}, {bytes_or_string},
       {"axis:int!|the axis to join on, in [-r, r-1]"}, Fn<&InferConcat>()},
      {"Split", 18,
       "ONNX Split-18: splits `input` along `axis` into the outputs, by the sizes in `split` (the optional "
       "input of opset 13+, or the attribute of opset 2-11), else into equal parts (the last one smaller "
       "when the dim does not divide; num_outputs, opset 18, must then equal the number of outputs).",
       {"input:T", "split:tensor(int64)?|1-D sizes of the outputs along axis; sum = the dim"}, {"outputs:T*"},
       {bytes_or_string},
       {"axis:int=0|the axis to split, in [-r, r-1]", "num_outputs:int?|opset 18: the number of equal parts",
        "split:ints?|opset 2-11 form of the split input"},
       Fn<&InferSplit>()},
      {"Slice", 13,
       "ONNX Slice-13: data[starts:ends:steps] on `axes` (default 0..n-1; steps default 1). Negative "
       "starts/ends count from the end of the dim, out-of-range ones clamp (INT64_MAX = to the end); "
       "negative steps walk backwards. The opset-1 form gives starts/ends/axes as attributes instead.",
       {"data:T", "starts:Tind?|1-D; required unless the opset-1 attributes are used",
        "ends:Tind?|1-D, the length of starts", "axes:Tind?|1-D, in [-r, r-1], no repeats", "steps:Tind?|1-D, nonzero"},
       {"output:T"}, {bytes_or_string, index},
       {"starts:ints?|opset-1 form of the starts input", "ends:ints?|opset-1 form of the ends input",
        "axes:ints?|opset-1 form of the axes input"},
       Fn<&InferSlice>()},
      {"Reshape", 14,
       "ONNX Reshape-14: data with the dims in `shape`; 0 copies the input's dim at that index (unless "
       "allowzero = 1, when 0 is a zero dim) and one -1 is inferred from the element count.",
       {"data:T", "shape:tensor(int64)|1-D, the new dims"}, {"reshaped:T"}, {bytes_or_string},
       {"allowzero:int=0|1: a 0 in shape is a zero dim rather than a copy"}, Fn<&InferReshape>(), true},
      {"Transpose", 13, "ONNX Transpose-13: output dim i is input dim perm[i]; perm defaults to reversing the axes.",
       {"data:T"}, {"transposed:T"}, {bytes_or_string},
       {"perm:ints?|a permutation of the axes (negative entries count from the end)"}, Fn<&InferTranspose>()},
      {"Flatten", 13, "ONNX Flatten-13: 2-D [prod(dims[:axis]), prod(dims[axis:])].", {"input:T"}, {"output:T"},
       {bytes_or_string}, {"axis:int=1|in [-r, r]"}, Fn<&InferShapeOnly<semantics::FlattenAttrs>>(), true},
      {"Squeeze", 13,
       "ONNX Squeeze-13: removes the size-1 dims at `axes` (the optional input of opset 13, or the "
       "attribute of opset 1-11); without axes, every size-1 dim.",
       {"data:T", "axes:tensor(int64)?|1-D, in [-r, r-1]"}, {"squeezed:T"}, {bytes_or_string},
       {"axes:ints?|opset 1-11 form of the axes input"}, Fn<&InferShapeOnly<semantics::SqueezeAttrs>>(), true},
      {"Unsqueeze", 13,
       "ONNX Unsqueeze-13: inserts size-1 dims at `axes` of the output (the input of opset 13, or the "
       "attribute of opset 1-11).",
       {"data:T", "axes:tensor(int64)?|1-D, in [-R, R-1] for the output rank R; required unless the opset 1-11 "
                  "attribute is used"},
       {"expanded:T"}, {bytes_or_string}, {"axes:ints?|opset 1-11 form of the axes input"}, Fn<&InferShapeOnly<semantics::UnsqueezeAttrs>>(), true},
      {"Gather", 13,
       "ONNX Gather-13: entries of `data` along `axis` picked by `indices` (negative ones count from the "
       "end); output shape data[:axis] + indices.shape + data[axis+1:]. An index out of range is an error.",
       {"data:T|rank >= 1", "indices:Tind|any shape, values in [-s, s-1] for s = data.dims[axis]"}, {"output:T"},
       {bytes_or_string, index}, {"axis:int=0|in [-r, r-1]"}, Fn<&InferGather>()},
      {"NonZero", 13,
       "ONNX NonZero-13: the coordinates of the non-zero elements of X, as int64 [rank, nnz] in row-major "
       "order (a scalar counts as a 1-element vector).",
       // nnz depends on the values, so the shape stays unknown.
       {"X:T|any shape"}, {"Y:tensor(int64)|[max(rank, 1), nnz]"}, {{"T", all}}, {},
       Fn<OutputDType<LOOM_DTYPE_INT64>>()},
      // Opset 9 differs only in rejecting negative axes.
      {"Compress", 11,
       "ONNX Compress-11: the slices of `input` along `axis` whose `condition` entry is true (condition may "
       "be shorter than the axis: the rest count as false). Without axis the flattened input is compressed.",
       {"input:T|rank r >= 1", "condition:T1|1-D bool, at most the axis' (or the flat input's) size"},
       {"output:T|input's shape with the axis' size the true count, or 1-D"},
       {bytes_or_string, {"T1", {LOOM_DTYPE_BOOL}}}, {"axis:int?|the axis, in [-r, r-1]; absent: flatten first"}},
      {"Cast", 13,
       "ONNX Cast-13: converts every element to the dtype `to` (an ONNX TensorProto.DataType code). "
       "Float to integer truncates toward zero (NaN gives 0; out-of-range values wrap like numpy's "
       "astype on x86); to bool: nonzero is true; float16/bfloat16 round to nearest even. To string: numpy's "
       "str (shortest round-trip digits, positional for 1e-4 <= |x| < 1e16, else 1e-05 style; NaN, INF, -INF; "
       "True/False); from string: the whole text as strtod/strtoll read it, an error naming the element "
       "otherwise (ops/semantics/cast_string.h).",
       {"input:T1"}, {"output:T2"}, {{"T1", with_string}, {"T2", with_string}},
       {"to:int!|the output dtype", std::string("saturate:int=1|") + kSaturateDoc}, Fn<&InferCast>()},
      {"CastLike", 15,
       "ONNX CastLike-15: Cast (same conversion rules as Cast-13) of input to the dtype of target_type, "
       "whose values are not read.",
       {"input:T1", "target_type:T2|only its dtype matters"}, {"output:T2"}, {{"T1", with_string}, {"T2", with_string}},
       {std::string("saturate:int=1|") + kSaturateDoc}, Fn<InferLike<1, 0>>()},
      {"Identity", 16,
       "ONNX Identity-16: output = input, a tensor (strings too), sequence or optional (shared: values are "
       "immutable).",
       {"input:T"}, {"output:T"}, {{"T", identity_types}}, {}, &SameShapeAsInput0, true},
      {"Constant", 13,
       "ONNX Constant-13: outputs the value of exactly one attribute: value (a tensor), value_float / "
       "value_int (scalars), value_floats / value_ints (1-D). String values are not supported.",
       {}, {"output:T"}, {{"T", all}},
       {"value:tensor?|the output tensor", "value_float:float?|a float32 scalar",
        "value_floats:floats?|a 1-D float32 tensor", "value_int:int?|an int64 scalar",
        "value_ints:ints?|a 1-D int64 tensor", "value_string:string?|unsupported (string tensors)",
        "value_strings:strings?|unsupported (string tensors)"},
       Fn<&InferConstant>()},
      {"Shape", 15,
       "ONNX Shape-15: the input's dims[start:end] as 1-D int64 (negative start/end count from the end, "
       "both clamp to [0, r]).",
       {"data:T"}, {"shape:tensor(int64)"}, {{"T", with_string, "any dtype"}},
       {"start:int=0|first axis", "end:int?|one past the last axis (default: the rank)"}, Fn<&InferShape>()},
      {"Dropout", 13,
       "ONNX Dropout-13: in inference (training_mode false or absent) output = data and mask all true; in "
       "training mode each element is kept with probability 1 - ratio and scaled by 1 / (1 - ratio) (float32, "
       "float64), mask true where kept. Masks come from a generator per op, seeded by `seed` when given, new on "
       "every run. The opset-7/10 ratio attribute is accepted.",
       {"data:T", "ratio:T1?|scalar in [0, 1), default 0.5", "training_mode:T2?|scalar bool, default false"},
       {"output:T", "mask:T2?|bool, data's shape"}, {bytes, {"T1", FloatTypes()}, {"T2", {LOOM_DTYPE_BOOL}}},
       {"seed:int?|seed of the op's mask generator (default: random)", "ratio:float?|opset 7-10 form of the ratio input"},
       Fn<&InferDropout>(), true},
  };
  // Pure and cheap data movement: folded at plan time when the inputs are
  // constants (weights reshaped, unsqueezed or cast in exported graphs).
  LOOM_SDK_RETURN_IF_ERROR(SetFold(LOOM_FOLD_CONSTANT_INPUTS,
                                   {"Concat", "Split", "Slice", "Reshape", "Transpose", "Flatten", "Squeeze",
                                    "Unsqueeze", "Gather", "Cast", "Identity", "Constant"},
                                   &specs));
  // Shape reads only its input's dims: folded whenever the plan knows them.
  LOOM_SDK_RETURN_IF_ERROR(SetFold(LOOM_FOLD_INPUT_SHAPES, {"Shape"}, &specs));
  return RegisterOps(reg, specs);
}

}  // namespace ops
}  // namespace loom
