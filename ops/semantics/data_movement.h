// ONNX data-movement ops' attribute and input resolution, shared by every
// device's kernels: the output shapes and index arithmetic of Concat-13,
// Split-18/13/11/2, Slice-13/1, Transpose-13, Expand-13, Gather-13,
// Reshape-14, Flatten-13, Squeeze-13/1 and Unsqueeze-13/1, with their
// errors (INVALID_ARGUMENT naming the op label, the input, the expected and
// the found). Pure host arithmetic on shapes and int lists: the kernels read
// their int inputs (from host or device memory) and move the bytes.
#ifndef LOOM_OPS_SEMANTICS_DATA_MOVEMENT_H_
#define LOOM_OPS_SEMANTICS_DATA_MOVEMENT_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"
#include "ops/semantics/shape_math.h"

namespace loom {
namespace semantics {

// Concat-13: the inputs' `shapes` (at least one) agree in rank and in every
// dim but `axis` (attribute value, normalized into *axis); *out is input 0's
// shape with the axis dims summed (an error when the sum overflows int64).
inline sdk::Status ConcatShape(const std::string& label, const std::vector<std::vector<int64_t>>& shapes,
                               int64_t axis_attr, int64_t* axis, std::vector<int64_t>* out) {
  *out = shapes[0];
  const int64_t rank = static_cast<int64_t>(out->size());
  *axis = axis_attr;
  LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(axis, rank, label, "axis"));
  for (size_t i = 1; i < shapes.size(); ++i) {
    const std::vector<int64_t>& s = shapes[i];
    bool same = s.size() == out->size();
    for (int64_t d = 0; same && d < rank; ++d) same = d == *axis || s[d] == (*out)[d];
    if (!same) {
      return sdk::InvalidArgument(label + ": input " + std::to_string(i) + " has shape " + ShapeStr(s) +
                                  "; expected rank " + std::to_string(rank) + " and the dims of input 0 " +
                                  ShapeStr(shapes[0]) + " except on axis " + std::to_string(*axis));
    }
    if (__builtin_add_overflow((*out)[*axis], s[*axis], &(*out)[*axis])) {
      return sdk::InvalidArgument(label + ": the sum of the inputs' dims on axis " + std::to_string(*axis) +
                                  " overflows int64 (input " + std::to_string(i) + " has shape " + ShapeStr(s) + ")");
    }
  }
  return sdk::Status::Ok();
}

// Split-18/13/11/2: the sizes along the normalized `axis` of `in` for
// `n_out` outputs. `given` holds the `split` input's values, else the
// opset-2..11 `split` attribute; empty means equal parts (ceil(dim / n)
// each, the last one smaller; as ONNX Runtime, also for an empty split),
// with n = `num_outputs` (attribute; -1 if absent) which must equal n_out.
// Errors: num_outputs != n_out; sizes not n_out non-negative values summing
// to the dim (a sum past int64 included).
inline sdk::Status SplitSizes(const std::string& label, const std::vector<int64_t>& in, int64_t axis,
                              std::vector<int64_t> given, int64_t num_outputs, int64_t n_out,
                              std::vector<int64_t>* sizes) {
  *sizes = std::move(given);
  if (sizes->empty()) {
    const int64_t n = num_outputs >= 0 ? num_outputs : n_out;
    if (n != n_out) {
      return sdk::InvalidArgument(label + ": attribute num_outputs is " + std::to_string(n) + " but the op has " +
                                  std::to_string(n_out) + " outputs");
    }
    // ceil(dim / n) each, the rest to the last ones (no dim + n - 1 overflow).
    const int64_t chunk = in[axis] / n + (in[axis] % n != 0);
    int64_t rest = in[axis];
    for (int64_t i = 0; i < n; ++i) {
      const int64_t take = std::min(chunk, rest);
      sizes->push_back(take);
      rest -= take;
    }
  }
  int64_t sum = 0;
  bool bad = false;  // a negative size, or a sum past int64
  for (int64_t s : *sizes) bad = bad || s < 0 || __builtin_add_overflow(sum, s, &sum);
  if (static_cast<int64_t>(sizes->size()) != n_out || bad || sum != in[axis]) {
    return sdk::InvalidArgument(label + ": split " + ShapeStr(*sizes) + " must be " + std::to_string(n_out) +
                                " non-negative sizes summing to dim " + std::to_string(in[axis]) + " of axis " +
                                std::to_string(axis) + " of input " + ShapeStr(in));
  }
  return sdk::Status::Ok();
}

struct SliceGeometry;

// Slice-1's attributes (starts, ends, axes), the fallback when Slice-13's
// inputs are absent.
struct SliceAttrs {
  bool has_attrs = false;
  std::vector<int64_t> starts, ends, axes;

  sdk::Status Read(const sdk::KernelInfo& info) {
    has_attrs = info.Has("starts") && info.Has("ends");
    starts = info.IntsOr("starts", {});
    ends = info.IntsOr("ends", {});
    axes = info.IntsOr("axes", {});
    return sdk::Status::Ok();
  }

  // With no `starts` input, takes starts/ends/axes from the attributes
  // (an error when there are none); with `starts`, `ends` is required.
  sdk::Status Select(const std::string& label, bool starts_given, bool ends_given, std::vector<int64_t>* s,
                     std::vector<int64_t>* e, std::vector<int64_t>* a) const {
    if (!starts_given) {
      if (!has_attrs) {
        return sdk::InvalidArgument(label + ": starts and ends are required (inputs, or opset-1 attributes)");
      }
      *s = starts;
      *e = ends;
      *a = axes;
    } else if (!ends_given) {
      return sdk::InvalidArgument(label + ": input 'ends' is required with input 'starts'");
    }
    return sdk::Status::Ok();
  }

  // Select, then ResolveSlice over `in` (defined below).
  sdk::Status Resolve(const std::string& label, const std::vector<int64_t>& in, bool starts_given, bool ends_given,
                      std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes,
                      const std::vector<int64_t>& steps, SliceGeometry* g) const;
};

// A resolved Slice over an input of shape `in`: output element c is input
// element base + sum c[d] * strides[d].
struct SliceGeometry {
  std::vector<int64_t> out;      // output shape
  std::vector<int64_t> strides;  // element strides into the input (negative for backward steps)
  int64_t base = 0;              // element offset of the first output element
};

// Slice-13: starts/ends/axes/steps (axes default 0..k-1, steps 1) over `in`.
// Negative positions count from the end, then clamp to the dim (the first
// element of a backward walk is at most d - 1, its end may be -1).
// Errors: lengths differing, an axis out of range or repeated, a 0 step.
inline sdk::Status ResolveSlice(const std::string& label, const std::vector<int64_t>& in,
                                const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                                std::vector<int64_t> axes, std::vector<int64_t> steps, SliceGeometry* g) {
  const int64_t rank = static_cast<int64_t>(in.size());
  if (axes.empty()) for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    return sdk::InvalidArgument(label + ": starts " + ShapeStr(starts) + ", ends " + ShapeStr(ends) + ", axes " +
                                ShapeStr(axes) + " and steps " + ShapeStr(steps) + " must have the same length");
  }
  // Per dim: first input index and step; untouched dims take all of it.
  std::vector<int64_t> first(in.size(), 0), step(in.size(), 1), out = in;
  std::vector<bool> seen(in.size(), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes[i];
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&a, rank, label, "axis"));
    if (seen[a]) return sdk::InvalidArgument(label + ": axis " + std::to_string(axes[i]) + " appears twice in 'axes'");
    seen[a] = true;
    const int64_t d = in[a], s = steps[i];
    if (s == 0) return sdk::InvalidArgument(label + ": input 'steps' " + ShapeStr(steps) + " has a 0");
    // The additions cannot overflow: d >= 0 is added only to negatives.
    int64_t b = starts[i] < 0 ? starts[i] + d : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + d : ends[i];
    if (s > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      out[a] = e > b ? (e - b - 1) / s + 1 : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, std::max<int64_t>(d - 1, 0));
      e = std::clamp<int64_t>(e, -1, d - 1);
      const int64_t back = s == INT64_MIN ? INT64_MAX : -s;  // |s| without overflow
      out[a] = d > 0 && b > e ? (b - e - 1) / back + 1 : 0;
    }
    first[a] = b;
    step[a] = out[a] > 1 ? s : 1;  // a step never taken (and never multiplied: INT64_MAX steps)
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  g->out = out;
  g->strides.assign(in.size(), 0);
  g->base = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    g->strides[d] = in_strides[d] * step[d];
    if (out[d] > 0) g->base += first[d] * in_strides[d];
  }
  return sdk::Status::Ok();
}

inline sdk::Status SliceAttrs::Resolve(const std::string& label, const std::vector<int64_t>& in, bool starts_given,
                                      bool ends_given, std::vector<int64_t> starts, std::vector<int64_t> ends,
                                      std::vector<int64_t> axes, const std::vector<int64_t>& steps,
                                      SliceGeometry* g) const {
  LOOM_SDK_RETURN_IF_ERROR(Select(label, starts_given, ends_given, &starts, &ends, &axes));
  return ResolveSlice(label, in, starts, ends, axes, steps, g);
}

// Transpose-13: output dim i is input dim perm[i] (`perm` empty: reversed;
// negative entries count from the end). *out is the output shape and
// *strides the input's element strides in output order. Error: perm not a
// permutation of the axes.
inline sdk::Status TransposeShape(const std::string& label, const std::vector<int64_t>& in,
                                  const std::vector<int64_t>& perm_attr, std::vector<int64_t>* out,
                                  std::vector<int64_t>* strides) {
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> perm = perm_attr;
  if (perm.empty()) for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  out->clear();
  strides->clear();
  std::vector<bool> seen(in.size(), false);
  for (int64_t p : perm) {
    int64_t a = p;
    if (static_cast<int64_t>(perm.size()) != rank || a < -rank || a >= rank || seen[a < 0 ? a + rank : a]) {
      return sdk::InvalidArgument(label + ": attribute perm " + ShapeStr(perm) + " is not a permutation of the " +
                                  std::to_string(rank) + " axes of input " + ShapeStr(in));
    }
    if (a < 0) a += rank;
    seen[a] = true;
    out->push_back(in[a]);
    strides->push_back(in_strides[a]);
  }
  return sdk::Status::Ok();
}

// Expand-13: the numpy broadcast of `in` with `shape`. Errors: the shapes do
// not broadcast, or the result has a negative dim.
inline sdk::Status ExpandShape(const std::string& label, const std::vector<int64_t>& in,
                               const std::vector<int64_t>& shape, std::vector<int64_t>* out) {
  if (!BroadcastShape(in, shape, out)) {
    return sdk::InvalidArgument(label + ": input shape " + ShapeStr(in) + " does not broadcast with 'shape' " +
                                ShapeStr(shape));
  }
  for (int64_t d : *out) {
    if (d < 0) return sdk::InvalidArgument(label + ": input 'shape' has a negative dim: " + ShapeStr(shape));
  }
  return sdk::Status::Ok();
}

// Where-16: condition (bool) ? X : Y, all three broadcast together; X and
// Y share a dtype. *shape is the broadcast shape. Errors: condition not
// bool, X and Y dtypes differing, shapes that do not broadcast.
inline sdk::Status WhereShape(const std::string& label, const sdk::Tensor& cond, const sdk::Tensor& x,
                              const sdk::Tensor& y, std::vector<int64_t>* shape) {
  if (cond.dtype() != LOOM_DTYPE_BOOL) {
    return sdk::InvalidArgument(label + ": input 'condition' must be bool; found " + sdk::DTypeName(cond.dtype()));
  }
  if (x.dtype() != y.dtype()) {
    return sdk::InvalidArgument(label + ": inputs 'X' and 'Y' must have the same dtype; found " +
                                sdk::DTypeName(x.dtype()) + " and " + sdk::DTypeName(y.dtype()));
  }
  std::vector<int64_t> xy;
  if (!BroadcastShape(x.shape(), y.shape(), &xy) || !BroadcastShape(cond.shape(), xy, shape)) {
    return sdk::InvalidArgument(label + ": shapes " + ShapeStr(cond.shape()) + ", " + ShapeStr(x.shape()) + " and " +
                                ShapeStr(y.shape()) + " do not broadcast");
  }
  return sdk::Status::Ok();
}

// Gather-13: every index in [-dim, dim - 1] for the (normalized) `axis` of
// size `dim`; an error naming the first one that is not.
inline sdk::Status CheckGatherIndices(const std::string& label, int64_t axis, int64_t dim,
                                      const std::vector<int64_t>& idx) {
  for (size_t j = 0; j < idx.size(); ++j) {
    if (idx[j] < -dim || idx[j] >= dim) {
      return sdk::InvalidArgument(label + ": input 'indices' has value " + std::to_string(idx[j]) + " at flat index " +
                                  std::to_string(j) + ", out of range for axis " + std::to_string(axis) + " of size " +
                                  std::to_string(dim) + " (expected [" + std::to_string(-dim) + ", " +
                                  std::to_string(dim - 1) + "])");
    }
  }
  return sdk::Status::Ok();
}

// Gather-13's output shape: in[:axis] + indices' shape + in[axis + 1:].
inline std::vector<int64_t> GatherShape(const std::vector<int64_t>& in, int64_t axis,
                                        const std::vector<int64_t>& indices_shape) {
  std::vector<int64_t> out(in.begin(), in.begin() + axis);
  out.insert(out.end(), indices_shape.begin(), indices_shape.end());
  out.insert(out.end(), in.begin() + axis + 1, in.end());
  return out;
}

// Reshape-14: `shape` entries 0 (copy the input dim, unless `allowzero`) and
// at most one -1 (inferred) for data of shape `in`. Errors: two -1s, a dim
// below -1, a 0 past the data's rank, a -1 that cannot be inferred, an
// element count that overflows int64 or differs.
inline sdk::Status ReshapeShape(const std::string& label, const std::vector<int64_t>& in, std::vector<int64_t> shape,
                                bool allowzero, std::vector<int64_t>* out) {
  const std::string found = ": input 'shape' " + ShapeStr(shape) + " for data " + ShapeStr(in);
  int64_t infer_at = -1, product = 1;
  bool zero = false, overflow = false;  // a 0 dim makes any overflow moot
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer_at >= 0) return sdk::InvalidArgument(label + found + " has more than one -1");
      infer_at = static_cast<int64_t>(i);
      continue;
    }
    if (shape[i] < -1) return sdk::InvalidArgument(label + found + " has a negative dim other than -1");
    if (shape[i] == 0 && !allowzero) {
      if (i >= in.size()) return sdk::InvalidArgument(label + found + ": a 0 copies a dim the data does not have");
      shape[i] = in[i];
    }
    zero = zero || shape[i] == 0;
    overflow = overflow || __builtin_mul_overflow(product, shape[i], &product);
  }
  if (zero) {
    product = 0;
  } else if (overflow) {
    return sdk::InvalidArgument(label + found + ": the element count of the shape overflows int64");
  }
  const int64_t n = Product(in);
  if (infer_at >= 0) {
    // 0 * x = 0 elements leaves the -1 undetermined (numpy and ONNX Runtime refuse it too).
    if (product == 0 || n % product != 0) return sdk::InvalidArgument(label + found + ": the -1 cannot be inferred");
    shape[infer_at] = n / product;
    product *= shape[infer_at];
  }
  if (product != n) {
    return sdk::InvalidArgument(label + found + ": " + std::to_string(n) + " elements cannot take a shape of " +
                                std::to_string(product));
  }
  *out = std::move(shape);
  return sdk::Status::Ok();
}

// Flatten-13: [prod(dims[:axis]), prod(dims[axis:])], `axis` in [-r, r].
inline sdk::Status FlattenShape(const std::string& label, const std::vector<int64_t>& in, int64_t axis_attr,
                                std::vector<int64_t>* out) {
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
  if (axis < 0 || axis > rank) {
    return sdk::InvalidArgument(label + ": axis " + std::to_string(axis_attr) + " is out of range for rank " +
                                std::to_string(rank) + " (expected [" + std::to_string(-rank) + ", " +
                                std::to_string(rank) + "])");
  }
  *out = {Product(in, 0, static_cast<size_t>(axis)), Product(in, static_cast<size_t>(axis), in.size())};
  return sdk::Status::Ok();
}

// Squeeze-13/1: drops the listed size-1 dims (`axes` empty: every size-1
// dim). Errors: an axis out of range or of a size other than 1.
inline sdk::Status SqueezeShape(const std::string& label, const std::vector<int64_t>& in,
                                const std::vector<int64_t>& axes, std::vector<int64_t>* out) {
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<bool> drop(in.size(), axes.empty());
  for (int64_t a : axes) {
    int64_t n = a;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&n, rank, label, "axis"));
    if (in[n] != 1) {
      return sdk::InvalidArgument(label + ": axis " + std::to_string(a) + " of input 'data' " + ShapeStr(in) +
                                  " has size " + std::to_string(in[n]) + ", which is not 1; only size-1 dims can be "
                                  "squeezed");
    }
    drop[n] = true;
  }
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (!(drop[i] && in[i] == 1)) out->push_back(in[i]);
  }
  return sdk::Status::Ok();
}

// Unsqueeze-13/1: `axes` index the output, whose rank is r + len(axes), and
// get size 1. Errors: an axis out of range or repeated.
inline sdk::Status UnsqueezeShape(const std::string& label, const std::vector<int64_t>& in,
                                  const std::vector<int64_t>& axes, std::vector<int64_t>* out) {
  const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  std::vector<bool> ones(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    int64_t n = a;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&n, rank, label, "axis"));
    if (ones[n]) return sdk::InvalidArgument(label + ": axis " + std::to_string(a) + " appears twice in 'axes'");
    ones[n] = true;
  }
  out->clear();
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) out->push_back(ones[i] ? 1 : in[next++]);
  return sdk::Status::Ok();
}

// ---- Attribute structs: what a kernel reads at creation (Read) and how it
// sizes its outputs at run time, the same for every device's kernel. Each
// takes the op label errors name; int inputs (split, axes, shape) are read by
// the kernel and passed in with whether they were given.

// Concat-13: `axis`.
struct ConcatAttrs {
  int64_t axis = 0;
  sdk::Status Read(const sdk::KernelInfo& info) {
    axis = info.IntOr("axis", 0);
    return sdk::Status::Ok();
  }
  // ConcatShape of the input shapes `shapes` (at least one); *axis_out is
  // the normalized axis.
  sdk::Status OutputShape(const std::string& label, const std::vector<std::vector<int64_t>>& shapes,
                          int64_t* axis_out, std::vector<int64_t>* out) const {
    return ConcatShape(label, shapes, axis, axis_out, out);
  }
  // The same over the kernel's inputs.
  sdk::Status OutputShape(const std::string& label, const sdk::KernelContext& ctx, int64_t* axis_out,
                          std::vector<int64_t>* out) const {
    std::vector<std::vector<int64_t>> shapes;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(ctx.Input(i).shape());
    return OutputShape(label, shapes, axis_out, out);
  }
};

// Split-18/13/11/2: `axis`, `num_outputs` (-1: absent) and the opset-2..11
// `split` attribute.
struct SplitAttrs {
  int64_t axis = 0, num_outputs = -1;
  std::vector<int64_t> split;
  sdk::Status Read(const sdk::KernelInfo& info) {
    axis = info.IntOr("axis", 0);
    split = info.IntsOr("split", {});
    num_outputs = info.IntOr("num_outputs", -1);
    return sdk::Status::Ok();
  }
  // The axis normalized for input shape `in`.
  sdk::Status Axis(const std::string& label, const std::vector<int64_t>& in, int64_t* axis_out) const {
    *axis_out = axis;
    return NormalizeAxisOr(axis_out, static_cast<int64_t>(in.size()), label, "axis");
  }
  // The sizes of the `n_out` outputs along `axis_n` (from Axis): the `split`
  // input's values when `given`, else the attribute (see SplitSizes).
  sdk::Status Sizes(const std::string& label, const std::vector<int64_t>& in, int64_t axis_n, bool given,
                    const std::vector<int64_t>& input, int64_t n_out, std::vector<int64_t>* sizes) const {
    return SplitSizes(label, in, axis_n, given ? input : split, num_outputs, n_out, sizes);
  }
  // Output i's shape: `in` with `size` on `axis_n`.
  static std::vector<int64_t> OutputShape(const std::vector<int64_t>& in, int64_t axis_n, int64_t size) {
    std::vector<int64_t> s = in;
    s[axis_n] = size;
    return s;
  }
};

// Transpose-13: `perm` (empty: reversed).
struct TransposeAttrs {
  std::vector<int64_t> perm;
  sdk::Status Read(const sdk::KernelInfo& info) {
    perm = info.IntsOr("perm", {});
    return sdk::Status::Ok();
  }
  // See TransposeShape.
  sdk::Status OutputShape(const std::string& label, const std::vector<int64_t>& in, std::vector<int64_t>* out,
                          std::vector<int64_t>* strides) const {
    return TransposeShape(label, in, perm, out, strides);
  }
};

// Gather-13 over the flattened (outer, dim, inner) view of the data.
struct GatherGeometry {
  int64_t axis = 0;              // normalized
  int64_t outer = 1, dim = 0, inner = 1;
  std::vector<int64_t> out;      // output shape
};

// Gather-13: `axis`.
struct GatherAttrs {
  int64_t axis = 0;
  sdk::Status Read(const sdk::KernelInfo& info) {
    axis = info.IntOr("axis", 0);
    return sdk::Status::Ok();
  }
  // The axis normalized for data of shape `in` (checked before the indices
  // are read).
  sdk::Status Axis(const std::string& label, const std::vector<int64_t>& in, int64_t* axis_out) const {
    *axis_out = axis;
    return NormalizeAxisOr(axis_out, static_cast<int64_t>(in.size()), label, "axis");
  }
  // The output shape for data `in`, normalized axis `axis_n` (from Axis) and
  // indices of shape `indices_shape` (see GatherShape); needs no index
  // values.
  static std::vector<int64_t> OutputShape(const std::vector<int64_t>& in, int64_t axis_n,
                                          const std::vector<int64_t>& indices_shape) {
    return GatherShape(in, axis_n, indices_shape);
  }
  // Checks the index values `idx` (see CheckGatherIndices) and gives the
  // geometry for data `in`, normalized axis `axis_n` and indices of shape
  // `indices_shape`.
  static sdk::Status Resolve(const std::string& label, const std::vector<int64_t>& in, int64_t axis_n,
                             const std::vector<int64_t>& idx, const std::vector<int64_t>& indices_shape,
                             GatherGeometry* g) {
    g->axis = axis_n;
    g->dim = in[axis_n];
    LOOM_SDK_RETURN_IF_ERROR(CheckGatherIndices(label, axis_n, g->dim, idx));
    g->out = OutputShape(in, axis_n, indices_shape);
    g->outer = Product(in, 0, static_cast<size_t>(axis_n));
    g->inner = Product(in, static_cast<size_t>(axis_n) + 1, in.size());
    return sdk::Status::Ok();
  }
};

// The shape-only ops (Reshape-14, Flatten-13, Squeeze-13/1, Unsqueeze-13/1):
// the bytes are copied as they are. kIntsInput names the int input (index 1)
// the output shape depends on (null: none); OutputShape takes its values and
// whether it was given.

struct ReshapeAttrs {
  static constexpr const char* kIntsInput = "shape";
  bool allowzero = false;
  sdk::Status Read(const sdk::KernelInfo& info) {
    allowzero = info.IntOr("allowzero", 0) != 0;
    return sdk::Status::Ok();
  }
  sdk::Status OutputShape(const std::string& label, const std::vector<int64_t>& in, bool /*given*/,
                          const std::vector<int64_t>& shape, std::vector<int64_t>* out) const {
    return ReshapeShape(label, in, shape, allowzero, out);
  }
  // Shape inference with the data's shape unknown: *known says whether
  // `shape` alone gives the output (no -1 to infer, no 0 that copies a data
  // dim); then *out is it. Errors, as ReshapeShape's, for two -1s or a dim
  // below -1 (those met before a copying 0).
  sdk::Status OutputShapeWithoutData(const std::string& label, const std::vector<int64_t>& shape, bool* known,
                                     std::vector<int64_t>* out) const {
    const std::string found = ": input 'shape' " + ShapeStr(shape);
    *known = false;
    bool infer = false;
    for (int64_t d : shape) {
      if (d == -1) {
        if (infer) return sdk::InvalidArgument(label + found + " has more than one -1");
        infer = true;
      } else if (d < -1) {
        return sdk::InvalidArgument(label + found + " has a negative dim other than -1");
      } else if (d == 0 && !allowzero) {
        return sdk::Status::Ok();  // copies a dim of the data
      }
    }
    *known = !infer;
    if (*known) *out = shape;
    return sdk::Status::Ok();
  }
};

struct FlattenAttrs {
  static constexpr const char* kIntsInput = nullptr;
  int64_t axis = 1;
  sdk::Status Read(const sdk::KernelInfo& info) {
    axis = info.IntOr("axis", 1);
    return sdk::Status::Ok();
  }
  sdk::Status OutputShape(const std::string& label, const std::vector<int64_t>& in, bool /*given*/,
                          const std::vector<int64_t>& /*unused*/, std::vector<int64_t>* out) const {
    return FlattenShape(label, in, axis, out);
  }
};

// Squeeze-13 (axes input) and Squeeze-1/11 (axes attribute); no axes: every
// size-1 dim.
struct SqueezeAttrs {
  static constexpr const char* kIntsInput = "axes";
  std::vector<int64_t> axes;
  sdk::Status Read(const sdk::KernelInfo& info) {
    axes = info.IntsOr("axes", {});
    return sdk::Status::Ok();
  }
  sdk::Status OutputShape(const std::string& label, const std::vector<int64_t>& in, bool given,
                          const std::vector<int64_t>& input, std::vector<int64_t>* out) const {
    return SqueezeShape(label, in, given ? input : axes, out);
  }
};

// Unsqueeze-13 (axes input) and Unsqueeze-1/11 (axes attribute): axes index
// the output, whose rank is r + len(axes). Error: neither given.
struct UnsqueezeAttrs {
  static constexpr const char* kIntsInput = "axes";
  bool has_attr = false;
  std::vector<int64_t> axes;
  sdk::Status Read(const sdk::KernelInfo& info) {
    has_attr = info.Has("axes");
    axes = info.IntsOr("axes", {});
    return sdk::Status::Ok();
  }
  sdk::Status OutputShape(const std::string& label, const std::vector<int64_t>& in, bool given,
                          const std::vector<int64_t>& input, std::vector<int64_t>* out) const {
    if (!given && !has_attr) {
      return sdk::InvalidArgument(label + ": axes are required (input 'axes', or the opset 1-11 attribute)");
    }
    return UnsqueezeShape(label, in, given ? input : axes, out);
  }
};

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_DATA_MOVEMENT_H_
