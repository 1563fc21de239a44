// Schemas of the tensor family: shape and data movement. Concat, Split,
// Slice, Reshape, Transpose, Flatten, Squeeze, Unsqueeze, Gather, Cast,
// Identity, Constant, Shape, Dropout (inference). ONNX semantics; each doc
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
#include "ops/semantics/shape_math.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

using sdk::InferenceContext;
using sdk::KernelInfo;
using sdk::Status;
using semantics::Product;
using semantics::ShapeStr;


Status BadAxis(const char* op, const char* what, int64_t axis, int64_t rank) {
  return sdk::InvalidArgument(std::string(op) + ": " + what + " " + std::to_string(axis) + " is out of range for rank " +
                              std::to_string(rank));
}

// ---- Concat -----------------------------------------------------------------
Status InferConcat(InferenceContext& ctx) {
  std::vector<int64_t> out;
  if (!ctx.InputShape(0, &out)) return Status::Ok();
  int64_t axis = ctx.info().IntOr("axis", 0);
  const int64_t rank = static_cast<int64_t>(out.size());
  if (!NormAxis(&axis, rank)) return BadAxis("Concat", "axis", axis, rank);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    std::vector<int64_t> s;
    if (!ctx.InputShape(i, &s)) return Status::Ok();
    bool same = s.size() == out.size();
    for (int64_t d = 0; same && d < rank; ++d) same = d == axis || s[d] == out[d];
    if (!same) {
      return sdk::InvalidArgument("Concat: input " + std::to_string(i) + " has shape " + ShapeStr(s) +
                                  ", which differs from " + ShapeStr(out) + " outside axis " + std::to_string(axis));
    }
    out[axis] += s[axis];
  }
  ctx.SetOutputShape(0, out);
  return Status::Ok();
}

// ---- Split ------------------------------------------------------------------
Status InferSplit(InferenceContext& ctx) {
  std::vector<int64_t> in;
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  const KernelInfo info = ctx.info();
  int64_t axis = info.IntOr("axis", 0);
  const int64_t rank = static_cast<int64_t>(in.size());
  if (!NormAxis(&axis, rank)) return BadAxis("Split", "axis", axis, rank);
  const int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
  std::vector<int64_t> sizes;
  if (HasInput(ctx, 1)) {
    if (!ConstantInts(ctx, 1, &sizes)) return Status::Ok();
  } else {
    sizes = info.IntsOr("split", {});
  }
  if (sizes.empty()) {  // equal split; the last chunk is smaller when uneven (opset 18)
    const int64_t n = info.IntOr("num_outputs", n_out);
    if (n != n_out) {
      return sdk::InvalidArgument("Split: num_outputs is " + std::to_string(n) + " but the op has " +
                                  std::to_string(n_out) + " outputs");
    }
    const int64_t chunk = (in[axis] + n - 1) / n;
    for (int64_t i = 0; i < n; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, in[axis] - i * chunk)));
  }
  int64_t sum = 0;
  for (int64_t s : sizes) sum += s;
  if (static_cast<int64_t>(sizes.size()) != n_out || sum != in[axis] ||
      std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s < 0; })) {
    return sdk::InvalidArgument("Split: split " + ShapeStr(sizes) + " does not divide dim " + std::to_string(in[axis]) +
                                " of axis " + std::to_string(axis) + " into " + std::to_string(n_out) + " outputs");
  }
  for (int64_t i = 0; i < n_out; ++i) {
    std::vector<int64_t> s = in;
    s[axis] = sizes[i];
    ctx.SetOutputShape(i, s);
  }
  return Status::Ok();
}

// ---- Slice ------------------------------------------------------------------
// The output shape of data[starts:ends:steps] on `axes` (ONNX Slice-13:
// negative starts/ends count from the end, then clamp to the dim; negative
// steps walk backwards). Empty message on success.
std::string SliceShape(const std::vector<int64_t>& dims, const std::vector<int64_t>& starts,
                       const std::vector<int64_t>& ends, std::vector<int64_t> axes, std::vector<int64_t> steps,
                       std::vector<int64_t>* out) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (axes.empty()) for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    return "starts, ends, axes and steps must have the same length";
  }
  *out = dims;
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes[i];
    if (!NormAxis(&a, rank)) return "axis " + std::to_string(axes[i]) + " is out of range for rank " + std::to_string(rank);
    if (seen[a]) return "axis " + std::to_string(axes[i]) + " appears twice in axes";
    seen[a] = true;
    const int64_t d = dims[a], step = steps[i];
    if (step == 0) return "steps must not be 0";
    int64_t b = starts[i] < 0 ? starts[i] + d : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + d : ends[i];
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      (*out)[a] = e > b ? (e - b - 1) / step + 1 : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, std::max<int64_t>(d - 1, 0));
      e = std::clamp<int64_t>(e, -1, d - 1);
      const int64_t back = step == INT64_MIN ? INT64_MAX : -step;  // |step| without overflow
      (*out)[a] = d > 0 && b > e ? (b - e - 1) / back + 1 : 0;
    }
  }
  return "";
}

Status InferSlice(InferenceContext& ctx) {
  std::vector<int64_t> dims, starts, ends, axes, steps, out;
  if (!ctx.InputShape(0, &dims)) return Status::Ok();
  if (HasInput(ctx, 1)) {
    if (!ConstantInts(ctx, 1, &starts) || !ConstantInts(ctx, 2, &ends)) return Status::Ok();
    if (HasInput(ctx, 3) && !ConstantInts(ctx, 3, &axes)) return Status::Ok();
    if (HasInput(ctx, 4) && !ConstantInts(ctx, 4, &steps)) return Status::Ok();
  } else {
    const KernelInfo info = ctx.info();
    if (!info.Has("starts") || !info.Has("ends")) {
      return sdk::InvalidArgument("Slice: starts and ends are required (inputs, or opset-1 attributes)");
    }
    starts = info.IntsOr("starts", {});
    ends = info.IntsOr("ends", {});
    axes = info.IntsOr("axes", {});
  }
  std::string err = SliceShape(dims, starts, ends, axes, steps, &out);
  if (!err.empty()) return sdk::InvalidArgument("Slice: " + err);
  ctx.SetOutputShape(0, out);
  return Status::Ok();
}

// ---- Reshape ----------------------------------------------------------------
Status InferReshape(InferenceContext& ctx) {
  std::vector<int64_t> shape, in;
  if (!ConstantInts(ctx, 1, &shape)) return Status::Ok();
  const bool allowzero = ctx.info().IntOr("allowzero", 0) != 0;
  const bool known = ctx.InputShape(0, &in);
  int64_t infer_at = -1, product = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer_at >= 0) return sdk::InvalidArgument("Reshape: shape " + ShapeStr(shape) + " has more than one -1");
      infer_at = static_cast<int64_t>(i);
      continue;
    }
    if (shape[i] < -1) return sdk::InvalidArgument("Reshape: shape " + ShapeStr(shape) + " has a negative dim other than -1");
    if (shape[i] == 0 && !allowzero) {
      if (!known) return Status::Ok();
      if (i >= in.size()) {
        return sdk::InvalidArgument("Reshape: shape " + ShapeStr(shape) + " copies dim " + std::to_string(i) +
                                    " (0) of a rank-" + std::to_string(in.size()) + " input");
      }
      shape[i] = in[i];
    }
    product *= shape[i];
  }
  if (!known) {
    if (infer_at < 0) ctx.SetOutputShape(0, shape);
    return Status::Ok();
  }
  const int64_t n = Product(in, 0, in.size());
  if (infer_at >= 0) {
    if (product == 0 || n % product != 0) {
      return sdk::InvalidArgument("Reshape: cannot infer the -1 of " + ShapeStr(shape) + " for input " + ShapeStr(in));
    }
    shape[infer_at] = n / product;
    product *= shape[infer_at];
  }
  if (product != n) return sdk::InvalidArgument("Reshape: input " + ShapeStr(in) + " cannot be reshaped to " + ShapeStr(shape));
  ctx.SetOutputShape(0, shape);
  return Status::Ok();
}

// ---- Transpose, Flatten, Squeeze, Unsqueeze -----------------------------------
Status InferTranspose(InferenceContext& ctx) {
  std::vector<int64_t> in;
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> perm = ctx.info().IntsOr("perm", {});
  if (perm.empty()) for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  std::vector<int64_t> out;
  std::vector<bool> seen(in.size(), false);
  for (int64_t p : perm) {
    int64_t a = p;
    if (static_cast<int64_t>(perm.size()) != rank || !NormAxis(&a, rank) || seen[a]) {
      return sdk::InvalidArgument("Transpose: perm " + ShapeStr(perm) + " is not a permutation of the " +
                                  std::to_string(rank) + " axes");
    }
    seen[a] = true;
    out.push_back(in[a]);
  }
  ctx.SetOutputShape(0, out);
  return Status::Ok();
}

Status InferFlatten(InferenceContext& ctx) {
  std::vector<int64_t> in;
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  int64_t axis = ctx.info().IntOr("axis", 1);
  const int64_t rank = static_cast<int64_t>(in.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return BadAxis("Flatten", "axis", ctx.info().IntOr("axis", 1), rank);
  ctx.SetOutputShape(0, {Product(in, 0, axis), Product(in, axis, in.size())});
  return Status::Ok();
}

// Axes from input 1 (opset 13) or else the `axes` attribute (opset 1-11);
// false when input 1 is given but not a constant.
bool AxesOf(const InferenceContext& ctx, std::vector<int64_t>* axes, bool* given) {
  *given = HasInput(ctx, 1);
  if (*given) return ConstantInts(ctx, 1, axes);
  *given = ctx.info().Has("axes");
  *axes = ctx.info().IntsOr("axes", {});
  return true;
}

Status InferSqueeze(InferenceContext& ctx) {
  std::vector<int64_t> in, axes;
  bool given = false;
  if (!ctx.InputShape(0, &in) || !AxesOf(ctx, &axes, &given)) return Status::Ok();
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<bool> drop(in.size(), false);
  for (int64_t a : axes) {
    int64_t n = a;
    if (!NormAxis(&n, rank)) return BadAxis("Squeeze", "axis", a, rank);
    if (in[n] != 1) {
      return sdk::InvalidArgument("Squeeze: axis " + std::to_string(a) + " of input " + ShapeStr(in) + " is not 1");
    }
    drop[n] = true;
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (axes.empty() ? in[i] != 1 : !drop[i]) out.push_back(in[i]);
  }
  ctx.SetOutputShape(0, out);
  return Status::Ok();
}

Status InferUnsqueeze(InferenceContext& ctx) {
  std::vector<int64_t> in, axes;
  bool given = false;
  if (!ctx.InputShape(0, &in) || !AxesOf(ctx, &axes, &given)) return Status::Ok();
  if (!given) return sdk::InvalidArgument("Unsqueeze: axes are required (input, or the opset 1-11 attribute)");
  const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  std::vector<bool> ones(rank, false);
  for (int64_t a : axes) {
    int64_t n = a;
    if (!NormAxis(&n, rank)) return BadAxis("Unsqueeze", "axis", a, rank);
    if (ones[n]) return sdk::InvalidArgument("Unsqueeze: axis " + std::to_string(a) + " appears twice in axes");
    ones[n] = true;
  }
  std::vector<int64_t> out;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) out.push_back(ones[i] ? 1 : in[next++]);
  ctx.SetOutputShape(0, out);
  return Status::Ok();
}

// ---- Gather -----------------------------------------------------------------
Status InferGather(InferenceContext& ctx) {
  std::vector<int64_t> data, indices;
  if (!ctx.InputShape(0, &data) || !ctx.InputShape(1, &indices)) return Status::Ok();
  int64_t axis = ctx.info().IntOr("axis", 0);
  const int64_t rank = static_cast<int64_t>(data.size());
  if (!NormAxis(&axis, rank)) return BadAxis("Gather", "axis", axis, rank);
  std::vector<int64_t> out(data.begin(), data.begin() + axis);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  ctx.SetOutputShape(0, out);
  return Status::Ok();
}

// ---- Cast, Identity, Constant, Shape, Dropout ------------------------------------
Status InferCast(InferenceContext& ctx) {
  const int64_t to = ctx.info().IntOr("to", 0);
  if (sdk::DTypeSize(static_cast<LoomDataType>(to)) == 0) {
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
  const TypeSet index = {"Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}};
  return RegisterOps(reg, {
      {"Concat", 13,
       "ONNX Concat-13: joins the inputs along `axis`; they agree in rank and in every other dim. "
       "Zero-size inputs are allowed.",
       {"inputs:T*|tensors of equal rank >= 1"}, {"concat_result:T"}, {bytes},
       {"axis:int!|the axis to join on, in [-r, r-1]"}, Fn<&InferConcat>()},
      {"Split", 18,
       "ONNX Split-18: splits `input` along `axis` into the outputs, by the sizes in `split` (the optional "
       "input of opset 13+, or the attribute of opset 2-11), else into equal parts (the last one smaller "
       "when the dim does not divide; num_outputs, opset 18, must then equal the number of outputs).",
       {"input:T", "split:tensor(int64)?|1-D sizes of the outputs along axis; sum = the dim"}, {"outputs:T*"}, {bytes},
       {"axis:int=0|the axis to split, in [-r, r-1]", "num_outputs:int?|opset 18: the number of equal parts",
        "split:ints?|opset 2-11 form of the split input"},
       Fn<&InferSplit>()},
      {"Slice", 13,
       "ONNX Slice-13: data[starts:ends:steps] on `axes` (default 0..n-1; steps default 1). Negative "
       "starts/ends count from the end of the dim, out-of-range ones clamp (INT64_MAX = to the end); "
       "negative steps walk backwards. The opset-1 form gives starts/ends/axes as attributes instead.",
       {"data:T", "starts:Tind?|1-D; required unless the opset-1 attributes are used",
        "ends:Tind?|1-D, the length of starts", "axes:Tind?|1-D, in [-r, r-1], no repeats", "steps:Tind?|1-D, nonzero"},
       {"output:T"}, {bytes, index},
       {"starts:ints?|opset-1 form of the starts input", "ends:ints?|opset-1 form of the ends input",
        "axes:ints?|opset-1 form of the axes input"},
       Fn<&InferSlice>()},
      {"Reshape", 14,
       "ONNX Reshape-14: data with the dims in `shape`; 0 copies the input's dim at that index (unless "
       "allowzero = 1, when 0 is a zero dim) and one -1 is inferred from the element count.",
       {"data:T", "shape:tensor(int64)|1-D, the new dims"}, {"reshaped:T"}, {bytes},
       {"allowzero:int=0|1: a 0 in shape is a zero dim rather than a copy"}, Fn<&InferReshape>(), true},
      {"Transpose", 13, "ONNX Transpose-13: output dim i is input dim perm[i]; perm defaults to reversing the axes.",
       {"data:T"}, {"transposed:T"}, {bytes},
       {"perm:ints?|a permutation of the axes (negative entries count from the end)"}, Fn<&InferTranspose>()},
      {"Flatten", 13, "ONNX Flatten-13: 2-D [prod(dims[:axis]), prod(dims[axis:])].", {"input:T"}, {"output:T"},
       {bytes}, {"axis:int=1|in [-r, r]"}, Fn<&InferFlatten>(), true},
      {"Squeeze", 13,
       "ONNX Squeeze-13: removes the size-1 dims at `axes` (the optional input of opset 13, or the "
       "attribute of opset 1-11); without axes, every size-1 dim.",
       {"data:T", "axes:tensor(int64)?|1-D, in [-r, r-1]"}, {"squeezed:T"}, {bytes},
       {"axes:ints?|opset 1-11 form of the axes input"}, Fn<&InferSqueeze>(), true},
      {"Unsqueeze", 13,
       "ONNX Unsqueeze-13: inserts size-1 dims at `axes` of the output (the input of opset 13, or the "
       "attribute of opset 1-11).",
       {"data:T", "axes:tensor(int64)?|1-D, in [-R, R-1] for the output rank R; required unless the opset 1-11 "
                  "attribute is used"},
       {"expanded:T"}, {bytes}, {"axes:ints?|opset 1-11 form of the axes input"}, Fn<&InferUnsqueeze>(), true},
      {"Gather", 13,
       "ONNX Gather-13: entries of `data` along `axis` picked by `indices` (negative ones count from the "
       "end); output shape data[:axis] + indices.shape + data[axis+1:]. An index out of range is an error.",
       {"data:T|rank >= 1", "indices:Tind|any shape, values in [-s, s-1] for s = data.dims[axis]"}, {"output:T"},
       {bytes, index}, {"axis:int=0|in [-r, r-1]"}, Fn<&InferGather>()},
      {"Cast", 13,
       "ONNX Cast-13: converts every element to the dtype `to` (an ONNX TensorProto.DataType code). "
       "Float to integer truncates toward zero (NaN gives 0; out-of-range values wrap like numpy's "
       "astype on x86); to bool: nonzero is true; float16/bfloat16 round to nearest even.",
       {"input:T1"}, {"output:T2"}, {{"T1", all}, {"T2", all}},
       {"to:int!|the output dtype", std::string("saturate:int=1|") + kSaturateDoc}, Fn<&InferCast>()},
      {"Identity", 16, "ONNX Identity-16 (tensors): output = input.", {"input:T"}, {"output:T"}, {bytes}, {},
       &SameShapeAsInput0, true},
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
       {"data:T"}, {"shape:tensor(int64)"}, {{"T", all, "any dtype"}},
       {"start:int=0|first axis", "end:int?|one past the last axis (default: the rank)"}, Fn<&InferShape>()},
      {"Dropout", 13,
       "ONNX Dropout-13, inference: output = data and mask (if requested) all true. training_mode = true "
       "is not implemented unless ratio is 0 (then it is the identity too). The opset-7/10 ratio "
       "attribute is accepted.",
       {"data:T", "ratio:T1?|scalar in [0, 1), default 0.5", "training_mode:T2?|scalar bool, default false"},
       {"output:T", "mask:T2?|bool, data's shape"}, {bytes, {"T1", FloatTypes()}, {"T2", {LOOM_DTYPE_BOOL}}},
       {"seed:int?|random seed (unused in inference)", "ratio:float?|opset 7-10 form of the ratio input"},
       Fn<&InferDropout>(), true},
  });
}

}  // namespace ops
}  // namespace loom
