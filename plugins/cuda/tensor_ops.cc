// Host side of the CUDA tensor family: the data-movement ops with the CPU
// plugin's ONNX semantics (plugins/cpu/tensor_copy.cc, tensor_shape.cc,
// tensor_cast.cc, tensor_ext.cc, elementwise_ext.cc), the same attribute
// forms of the older opsets and the same errors as values.
//
//   Transpose-13, Slice-13/1, Concat-13, Split-18/13/11/2, Expand-13: one
//     strided-copy kernel (tensor_ops.cu), every dtype by element size.
//   Reshape-14, Flatten-13, Squeeze-13/1, Unsqueeze-13/1: the shape changes,
//     the bytes are copied device to device (nothing when in place).
//   Gather-13 (int32/int64 indices), Where-16: every dtype by element size.
//   Cast-13: float32, float64, float16, bfloat16, int8, uint8, int32, int64,
//     bool, each to each.
//
// Inputs live on the device. The inputs that shape the result (shape, axes,
// starts/ends/steps, split sizes, Gather's indices) are read back to the host
// on the op's stream, which costs a stream synchronization per op.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/cuda/cuda_status.h"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/tensor_ops.h"

namespace loom {
namespace cuda {
namespace {

using sdk::KernelContext;
using sdk::KernelInfo;
using sdk::Status;
using sdk::Tensor;

std::string ShapeStr(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string OpLabel(const KernelInfo& info) { return info.op_type() + " '" + info.op_name() + "'"; }

cudaStream_t StreamOf(const KernelContext& ctx) { return static_cast<cudaStream_t>(ctx.stream()); }

int64_t Product(const std::vector<int64_t>& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) st[k - 1] = st[k] * shape[k];
  return st;
}

// Element strides of `in` seen through its broadcast shape `out` (0 on
// broadcast dims), right-aligned.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t s = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t i = in.size() - 1 - k, o = out.size() - 1 - k;
    strides[o] = in[i] == 1 ? 0 : s;
    s *= in[i];
  }
  return strides;
}

// Numpy broadcast of two shapes (any rank); false if they do not broadcast.
bool BroadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out) {
  const size_t r = std::max(a.size(), b.size());
  out->assign(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[i] = da == 1 ? db : da;
  }
  return true;
}

Status NormalizeAxisOr(int64_t* axis, int64_t rank, const std::string& label, const char* what) {
  if (*axis < -rank || *axis >= rank) {
    return sdk::InvalidArgument(label + ": " + what + " " + std::to_string(*axis) + " is out of range for rank " +
                                std::to_string(rank) + " (expected [" + std::to_string(-rank) + ", " +
                                std::to_string(rank - 1) + "])");
  }
  if (*axis < 0) *axis += rank;
  return Status::Ok();
}

Status UnsupportedDtype(const std::string& label, LoomDataType dt) {
  return sdk::InvalidArgument(label + ": dtype " + sdk::DTypeName(dt) + " is not supported by this kernel");
}

// ---- Reading int inputs back from the device ---------------------------------------

// An int64/int32 input (shape, axes, starts, split, indices) on its way to
// the host: Start enqueues the copy, Finish waits for all of them at once.
struct HostInts {
  std::vector<int64_t> values;
  bool given = false;  // false (and values empty) for an absent optional input
  std::vector<int32_t> staging32;
  bool is32 = false;
};

// Checks input `index` as the CPU's ReadIntsInput does (int64 or int32; 1-D
// when `must_be_1d`) and enqueues its copy to the host on the op's stream.
Status StartReadInts(const KernelContext& ctx, size_t index, const std::string& label, const char* name,
                     bool must_be_1d, HostInts* out) {
  out->values.clear();
  out->staging32.clear();
  Tensor t = ctx.Input(index);
  out->given = t.present();
  if (!t.present()) return Status::Ok();
  const LoomDataType dt = t.dtype();
  if (dt != LOOM_DTYPE_INT64 && dt != LOOM_DTYPE_INT32) {
    return sdk::InvalidArgument(label + ": input '" + name + "' must be int64 or int32, found " + sdk::DTypeName(dt));
  }
  if (must_be_1d && t.rank() > 1) {
    return sdk::InvalidArgument(label + ": input '" + name + "' must be 1-D, found shape " + ShapeStr(t.shape()));
  }
  const size_t n = static_cast<size_t>(t.num_elements());
  out->is32 = dt == LOOM_DTYPE_INT32;
  void* host = nullptr;
  size_t bytes = 0;
  if (out->is32) {
    out->staging32.resize(n);
    host = out->staging32.data();
    bytes = n * sizeof(int32_t);
  } else {
    out->values.resize(n);
    host = out->values.data();
    bytes = n * sizeof(int64_t);
  }
  if (bytes == 0) return Status::Ok();  // a zero-size tensor's data pointer may be null
  return CudaStatus(cudaMemcpyAsync(host, t.raw_data(), bytes, cudaMemcpyDeviceToHost, StreamOf(ctx)),
                    (label + ": reading input '" + name + "'").c_str());
}

// Waits for the copies of StartReadInts and widens int32 values.
Status FinishReadInts(const KernelContext& ctx, const std::string& label, std::initializer_list<HostInts*> reads) {
  LOOM_SDK_RETURN_IF_ERROR(
      CudaStatus(cudaStreamSynchronize(StreamOf(ctx)), (label + ": reading int inputs back").c_str()));
  for (HostInts* r : reads) {
    if (r->is32) r->values.assign(r->staging32.begin(), r->staging32.end());
  }
  return Status::Ok();
}

// ---- Copies ----------------------------------------------------------------------------

// Copies all of `in`'s bytes to `out` (same byte count) on the op's stream;
// nothing when they share memory (an in-place run).
Status CopyDevice(const KernelContext& ctx, const Tensor& in, const Tensor& out, const std::string& label) {
  const size_t bytes = static_cast<size_t>(in.num_elements()) * sdk::DTypeSize(in.dtype());
  if (bytes == 0 || in.raw_data() == out.raw_data()) return Status::Ok();
  return CudaStatus(cudaMemcpyAsync(out.raw_data(), in.raw_data(), bytes, cudaMemcpyDeviceToDevice, StreamOf(ctx)),
                    label.c_str());
}

// Launches the copy of already merged dims; more than kMaxRank dims (rare)
// take one launch per index of the leading dims.
Status LaunchMergedCopy(const KernelContext& ctx, const std::string& label, size_t esize, const int64_t* sh,
                        const int64_t* ss, const int64_t* ds, size_t rank, int64_t src_base, int64_t dst_base,
                        const void* src, void* dst) {
  if (rank > static_cast<size_t>(kMaxRank)) {
    for (int64_t i = 0; i < sh[0]; ++i) {
      LOOM_SDK_RETURN_IF_ERROR(LaunchMergedCopy(ctx, label, esize, sh + 1, ss + 1, ds + 1, rank - 1,
                                                src_base + i * ss[0], dst_base + i * ds[0], src, dst));
    }
    return Status::Ok();
  }
  CopyIndex ix;
  ix.rank = static_cast<int>(rank);
  int64_t n = 1;
  for (size_t d = 0; d < rank; ++d) {
    ix.dims[d] = sh[d];
    ix.src_strides[d] = ss[d];
    ix.dst_strides[d] = ds[d];
    n *= sh[d];
  }
  ix.src_base = src_base;
  ix.dst_base = dst_base;
  return CudaStatus(LaunchStridedCopy(esize, ix, n, src, dst, StreamOf(ctx)), label.c_str());
}

// dst[dst_base + sum c[d] * dst_strides[d]] = src[src_base + sum c[d] *
// src_strides[d]] for every index c over `shape` (element units of `esize`
// bytes). Size-1 dims are dropped and dims contiguous on both sides merged
// (as the CPU's StridedCopy), so that a contiguous copy becomes one
// cudaMemcpyAsync and most copies fit the kernel's 8 dims.
Status StridedCopy(const KernelContext& ctx, const std::string& label, size_t esize, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& src_strides, int64_t src_base, const std::vector<int64_t>& dst_strides,
                   int64_t dst_base, const void* src, void* dst) {
  const int64_t n = Product(shape, 0, shape.size());
  if (n == 0) return Status::Ok();
  std::vector<int64_t> sh, ss, ds;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    if (!sh.empty() && ss.back() == src_strides[k] * shape[k] && ds.back() == dst_strides[k] * shape[k]) {
      sh.back() *= shape[k];
      ss.back() = src_strides[k];
      ds.back() = dst_strides[k];
    } else {
      sh.push_back(shape[k]);
      ss.push_back(src_strides[k]);
      ds.push_back(dst_strides[k]);
    }
  }
  if (sh.empty()) {  // a single element
    sh.push_back(1);
    ss.push_back(1);
    ds.push_back(1);
  }
  if (sh.size() == 1 && ss[0] == 1 && ds[0] == 1) {
    return CudaStatus(cudaMemcpyAsync(static_cast<char*>(dst) + dst_base * static_cast<int64_t>(esize),
                                      static_cast<const char*>(src) + src_base * static_cast<int64_t>(esize),
                                      static_cast<size_t>(n) * esize, cudaMemcpyDeviceToDevice, StreamOf(ctx)),
                      label.c_str());
  }
  return LaunchMergedCopy(ctx, label, esize, sh.data(), ss.data(), ds.data(), sh.size(), src_base, dst_base, src, dst);
}

// ---- Concat-13 ----------------------------------------------------------------------------

class ConcatKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 0);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    const size_t count = ctx.num_inputs();
    Tensor first = ctx.Input(0), y;
    std::vector<int64_t> out = first.shape();
    const int64_t rank = static_cast<int64_t>(out.size());
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "axis"));
    for (size_t i = 1; i < count; ++i) {
      const std::vector<int64_t> s = ctx.Input(i).shape();
      bool same = s.size() == out.size();
      for (int64_t d = 0; same && d < rank; ++d) same = d == axis || s[d] == out[d];
      if (!same) {
        return sdk::InvalidArgument(label_ + ": input " + std::to_string(i) + " has shape " + ShapeStr(s) +
                                    "; expected rank " + std::to_string(rank) + " and the dims of input 0 " +
                                    ShapeStr(first.shape()) + " except on axis " + std::to_string(axis));
      }
      out[axis] += s[axis];
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, first.dtype(), out, &y));
    const size_t esize = sdk::DTypeSize(first.dtype());
    const std::vector<int64_t> out_strides = RowMajorStrides(out);
    int64_t at = 0;  // position of this input along axis in the output
    for (size_t i = 0; i < count; ++i) {
      Tensor t = ctx.Input(i);
      const std::vector<int64_t> s = t.shape();
      LOOM_SDK_RETURN_IF_ERROR(StridedCopy(ctx, label_, esize, s, RowMajorStrides(s), 0, out_strides,
                                           at * out_strides[axis], t.raw_data(), y.raw_data()));
      at += s[axis];
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  int64_t axis_ = 0;
};

// ---- Split-18/13/11/2 -------------------------------------------------------------------------
// Sizes from the `split` input, else the opset-2..11 attribute, else equal
// parts (ceil(dim / n) each, the last one smaller).
class SplitKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 0);
    attr_split_ = info.IntsOr("split", {});
    num_outputs_ = info.IntOr("num_outputs", -1);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0);
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size());
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "axis"));
    const int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
    HostInts split;
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, label_, "split", true, &split));
    if (split.given) LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, label_, {&split}));
    std::vector<int64_t> sizes = split.given ? split.values : attr_split_;
    if (sizes.empty()) {  // an empty split also means equal parts (as in ONNX Runtime)
      const int64_t n = num_outputs_ >= 0 ? num_outputs_ : n_out;
      if (n != n_out) {
        return sdk::InvalidArgument(label_ + ": attribute num_outputs is " + std::to_string(n) + " but the op has " +
                                    std::to_string(n_out) + " outputs");
      }
      const int64_t chunk = (in[axis] + n - 1) / n;
      for (int64_t i = 0; i < n; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, in[axis] - i * chunk)));
    }
    int64_t sum = 0;
    bool negative = false;
    for (int64_t s : sizes) {
      sum += s;
      negative = negative || s < 0;
    }
    if (static_cast<int64_t>(sizes.size()) != n_out || sum != in[axis] || negative) {
      return sdk::InvalidArgument(label_ + ": split " + ShapeStr(sizes) + " must be " + std::to_string(n_out) +
                                  " non-negative sizes summing to dim " + std::to_string(in[axis]) + " of axis " +
                                  std::to_string(axis) + " of input " + ShapeStr(in));
    }
    const size_t esize = sdk::DTypeSize(x.dtype());
    const std::vector<int64_t> in_strides = RowMajorStrides(in);
    int64_t at = 0;
    for (int64_t i = 0; i < n_out; ++i) {
      const int64_t offset = at;
      at += sizes[i];
      if (!ctx.OutputRequested(static_cast<size_t>(i))) continue;
      std::vector<int64_t> s = in;
      s[axis] = sizes[i];
      Tensor y;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(static_cast<size_t>(i), x.dtype(), s, &y));
      LOOM_SDK_RETURN_IF_ERROR(StridedCopy(ctx, label_, esize, s, in_strides, offset * in_strides[axis],
                                           RowMajorStrides(s), 0, x.raw_data(), y.raw_data()));
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  int64_t axis_ = 0, num_outputs_ = -1;
  std::vector<int64_t> attr_split_;
};

// ---- Slice-13 (starts/ends/axes/steps inputs) and Slice-1 (attributes) --------------------------
class SliceKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    has_attrs_ = info.Has("starts") && info.Has("ends");
    attr_starts_ = info.IntsOr("starts", {});
    attr_ends_ = info.IntsOr("ends", {});
    attr_axes_ = info.IntsOr("axes", {});
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    HostInts r_starts, r_ends, r_axes, r_steps;
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, label_, "starts", true, &r_starts));
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 2, label_, "ends", true, &r_ends));
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 3, label_, "axes", true, &r_axes));
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 4, label_, "steps", true, &r_steps));
    LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, label_, {&r_starts, &r_ends, &r_axes, &r_steps}));
    std::vector<int64_t> starts = r_starts.values, ends = r_ends.values, axes = r_axes.values,
                         steps = r_steps.values;
    if (!r_starts.given) {
      if (!has_attrs_) return sdk::InvalidArgument(label_ + ": starts and ends are required (inputs, or opset-1 attributes)");
      starts = attr_starts_;
      ends = attr_ends_;
      axes = attr_axes_;
    } else if (!r_ends.given) {
      return sdk::InvalidArgument(label_ + ": input 'ends' is required with input 'starts'");
    }
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size());
    if (axes.empty()) for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
      return sdk::InvalidArgument(label_ + ": starts " + ShapeStr(starts) + ", ends " + ShapeStr(ends) + ", axes " +
                                  ShapeStr(axes) + " and steps " + ShapeStr(steps) + " must have the same length");
    }
    // Per dim: first input index and step; untouched dims take all of it.
    std::vector<int64_t> first(in.size(), 0), step(in.size(), 1), out = in;
    std::vector<bool> seen(in.size(), false);
    for (size_t i = 0; i < starts.size(); ++i) {
      int64_t a = axes[i];
      LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&a, rank, label_, "axis"));
      if (seen[a]) return sdk::InvalidArgument(label_ + ": axis " + std::to_string(axes[i]) + " appears twice in 'axes'");
      seen[a] = true;
      const int64_t d = in[a], s = steps[i];
      if (s == 0) return sdk::InvalidArgument(label_ + ": input 'steps' " + ShapeStr(steps) + " has a 0");
      // Negative positions count from the end; then clamp to the dim (the
      // first element of a backward walk is at most d - 1, its end may be -1).
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
      step[a] = out[a] > 1 ? s : 1;  // a step never taken (and never multiplied)
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    const std::vector<int64_t> in_strides = RowMajorStrides(in);
    std::vector<int64_t> strides(in.size());
    int64_t base = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      strides[d] = in_strides[d] * step[d];
      if (out[d] > 0) base += first[d] * in_strides[d];
    }
    return StridedCopy(ctx, label_, sdk::DTypeSize(x.dtype()), out, strides, base, RowMajorStrides(out), 0,
                       x.raw_data(), y.raw_data());
  }

 private:
  std::string label_;
  bool has_attrs_ = false;
  std::vector<int64_t> attr_starts_, attr_ends_, attr_axes_;
};

// ---- Transpose-13: output dim i is input dim perm[i] (default: reversed) ------------------------
class TransposeKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    perm_ = info.IntsOr("perm", {});
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size());
    std::vector<int64_t> perm = perm_;
    if (perm.empty()) for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
    const std::vector<int64_t> in_strides = RowMajorStrides(in);
    std::vector<int64_t> out, strides;
    std::vector<bool> seen(in.size(), false);
    for (int64_t p : perm) {
      int64_t a = p;
      if (static_cast<int64_t>(perm.size()) != rank || a < -rank || a >= rank || seen[a < 0 ? a + rank : a]) {
        return sdk::InvalidArgument(label_ + ": attribute perm " + ShapeStr(perm) + " is not a permutation of the " +
                                    std::to_string(rank) + " axes of input " + ShapeStr(in));
      }
      if (a < 0) a += rank;
      seen[a] = true;
      out.push_back(in[a]);
      strides.push_back(in_strides[a]);
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    return StridedCopy(ctx, label_, sdk::DTypeSize(x.dtype()), out, strides, 0, RowMajorStrides(out), 0, x.raw_data(),
                       y.raw_data());
  }

 private:
  std::string label_;
  std::vector<int64_t> perm_;
};

// ---- Expand-13: numpy broadcast of the input to (with) `shape` -----------------------------------
class ExpandKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    HostInts shape;
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, label_, "shape", true, &shape));
    LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, label_, {&shape}));
    const std::vector<int64_t> in = x.shape();
    std::vector<int64_t> out;
    if (!BroadcastShape(in, shape.values, &out)) {
      return sdk::InvalidArgument(label_ + ": input shape " + ShapeStr(in) + " does not broadcast with 'shape' " +
                                  ShapeStr(shape.values));
    }
    for (int64_t d : out) {
      if (d < 0) return sdk::InvalidArgument(label_ + ": input 'shape' has a negative dim: " + ShapeStr(shape.values));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    // A broadcast is a strided read with stride 0 on the broadcast dims.
    return StridedCopy(ctx, label_, sdk::DTypeSize(x.dtype()), out, BroadcastStrides(in, out), 0, RowMajorStrides(out),
                       0, x.raw_data(), y.raw_data());
  }

 private:
  std::string label_;
};

// ---- Gather-13 ------------------------------------------------------------------------------------
// out[o, j, i] = data[o, indices[j], i]; negative indices count from the end,
// others out of range are an error. The indices are checked on the host
// before the launch: an out-of-range read on the device would be a sticky
// illegal-address error rather than a status.
class GatherKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 0);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), idx_t = ctx.Input(1), y;
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size());
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "axis"));
    HostInts idx;
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, label_, "indices", false, &idx));
    LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, label_, {&idx}));
    const int64_t dim = in[axis];
    for (size_t j = 0; j < idx.values.size(); ++j) {
      const int64_t v = idx.values[j];
      if (v < -dim || v >= dim) {
        return sdk::InvalidArgument(label_ + ": input 'indices' has value " + std::to_string(v) + " at flat index " +
                                    std::to_string(j) + ", out of range for axis " + std::to_string(axis) + " of size " +
                                    std::to_string(dim) + " (expected [" + std::to_string(-dim) + ", " +
                                    std::to_string(dim - 1) + "])");
      }
    }
    std::vector<int64_t> out(in.begin(), in.begin() + axis);
    const std::vector<int64_t> ishape = idx_t.shape();
    out.insert(out.end(), ishape.begin(), ishape.end());
    out.insert(out.end(), in.begin() + axis + 1, in.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    const int64_t outer = Product(in, 0, static_cast<size_t>(axis));
    const int64_t inner = Product(in, static_cast<size_t>(axis) + 1, in.size());
    const int64_t n = static_cast<int64_t>(idx.values.size());
    return CudaStatus(LaunchGather(sdk::DTypeSize(x.dtype()), outer, dim, inner, n, x.raw_data(), idx_t.raw_data(),
                                   idx_t.dtype() == LOOM_DTYPE_INT64, y.raw_data(), StreamOf(ctx)),
                      label_.c_str());
  }

 private:
  std::string label_;
  int64_t axis_ = 0;
};

// ---- Cast-13 ----------------------------------------------------------------------------------------
class CastKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    int64_t to = 0;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("to", &to));
    to_ = static_cast<LoomDataType>(to);
    if (sdk::DTypeSize(to_) == 0) {
      return sdk::InvalidArgument(label_ + ": attribute 'to' = " + std::to_string(to) +
                                  " is not a dtype Loom supports (ONNX TensorProto.DataType codes)");
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    if (!CastSupports(x.dtype())) return UnsupportedDtype(label_, x.dtype());
    if (!CastSupports(to_)) return UnsupportedDtype(label_, to_);
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, to_, x.shape(), &y));
    if (x.dtype() == to_) return CopyDevice(ctx, x, y, label_);
    return CudaStatus(LaunchCast(x.dtype(), to_, x.num_elements(), x.raw_data(), y.raw_data(), StreamOf(ctx)),
                      label_.c_str());
  }

 private:
  std::string label_;
  LoomDataType to_ = LOOM_DTYPE_FLOAT;
};

// ---- Where-16: condition ? X : Y, all three broadcast together --------------------------------------
class WhereKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor cond = ctx.Input(0), x = ctx.Input(1), y = ctx.Input(2), out;
    if (cond.dtype() != LOOM_DTYPE_BOOL) {
      return sdk::InvalidArgument(label_ + ": input 'condition' must be bool; found " + sdk::DTypeName(cond.dtype()));
    }
    if (x.dtype() != y.dtype()) {
      return sdk::InvalidArgument(label_ + ": inputs 'X' and 'Y' must have the same dtype; found " +
                                  sdk::DTypeName(x.dtype()) + " and " + sdk::DTypeName(y.dtype()));
    }
    std::vector<int64_t> xy, shape;
    if (!BroadcastShape(x.shape(), y.shape(), &xy) || !BroadcastShape(cond.shape(), xy, &shape)) {
      return sdk::InvalidArgument(label_ + ": shapes " + ShapeStr(cond.shape()) + ", " + ShapeStr(x.shape()) +
                                  " and " + ShapeStr(y.shape()) + " do not broadcast");
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), shape, &out));
    const int64_t n = out.num_elements();
    if (n == 0) return Status::Ok();
    const std::vector<int64_t> sc = BroadcastStrides(cond.shape(), shape), sx = BroadcastStrides(x.shape(), shape),
                               sy = BroadcastStrides(y.shape(), shape);
    // Size-1 dims dropped, and a dim merged into its outer neighbour where
    // all three operands walk both as one (fewer divisions per element).
    std::vector<int64_t> dims, mc, mx, my;
    for (size_t k = 0; k < shape.size(); ++k) {
      if (shape[k] == 1) continue;
      if (!dims.empty() && mc.back() == sc[k] * shape[k] && mx.back() == sx[k] * shape[k] &&
          my.back() == sy[k] * shape[k]) {
        dims.back() *= shape[k];
        mc.back() = sc[k];
        mx.back() = sx[k];
        my.back() = sy[k];
      } else {
        dims.push_back(shape[k]);
        mc.push_back(sc[k]);
        mx.push_back(sx[k]);
        my.push_back(sy[k]);
      }
    }
    if (dims.size() > static_cast<size_t>(kMaxRank)) {
      return sdk::Unimplemented(label_ + ": the broadcast of " + ShapeStr(cond.shape()) + ", " + ShapeStr(x.shape()) +
                                " and " + ShapeStr(y.shape()) + " has " + std::to_string(dims.size()) +
                                " dims after merging; the CUDA kernel handles at most " + std::to_string(kMaxRank));
    }
    WhereIndex ix;
    ix.rank = static_cast<int>(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      ix.dims[d] = dims[d];
      ix.sc[d] = mc[d];
      ix.sx[d] = mx[d];
      ix.sy[d] = my[d];
    }
    return CudaStatus(LaunchWhere(sdk::DTypeSize(x.dtype()), ix, n, cond.raw_data(), x.raw_data(), y.raw_data(),
                                  out.raw_data(), StreamOf(ctx)),
                      label_.c_str());
  }

 private:
  std::string label_;
};

// ---- Shape-only ops: Reshape-14, Flatten-13, Squeeze-13/1, Unsqueeze-13/1 ---------------------------

// Reshape-14: `shape` entries 0 (copy the input dim, unless allowzero) and
// one -1 (inferred).
class ReshapeKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    allowzero_ = info.IntOr("allowzero", 0) != 0;
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor data = ctx.Input(0), out;
    HostInts r_shape;
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, label_, "shape", true, &r_shape));
    LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, label_, {&r_shape}));
    std::vector<int64_t> shape = r_shape.values;
    const std::vector<int64_t> in = data.shape();
    const std::string found = ": input 'shape' " + ShapeStr(shape) + " for data " + ShapeStr(in);
    int64_t infer_at = -1, product = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == -1) {
        if (infer_at >= 0) return sdk::InvalidArgument(label_ + found + " has more than one -1");
        infer_at = static_cast<int64_t>(i);
        continue;
      }
      if (shape[i] < -1) return sdk::InvalidArgument(label_ + found + " has a negative dim other than -1");
      if (shape[i] == 0 && !allowzero_) {
        if (i >= in.size()) return sdk::InvalidArgument(label_ + found + ": a 0 copies a dim the data does not have");
        shape[i] = in[i];
      }
      product *= shape[i];
    }
    const int64_t n = data.num_elements();
    if (infer_at >= 0) {
      // 0 * x = 0 elements leaves the -1 undetermined (numpy and ONNX Runtime refuse it too).
      if (product == 0 || n % product != 0) {
        return sdk::InvalidArgument(label_ + found + ": the -1 cannot be inferred");
      }
      shape[infer_at] = n / product;
      product *= shape[infer_at];
    }
    if (product != n) {
      return sdk::InvalidArgument(label_ + found + ": " + std::to_string(n) + " elements cannot take a shape of " +
                                  std::to_string(product));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, data.dtype(), shape, &out));
    return CopyDevice(ctx, data, out, label_);
  }

 private:
  std::string label_;
  bool allowzero_ = false;
};

// Flatten-13: [prod(dims[:axis]), prod(dims[axis:])], axis in [-r, r].
class FlattenKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 1);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size());
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    if (axis < 0 || axis > rank) {
      return sdk::InvalidArgument(label_ + ": axis " + std::to_string(axis_) + " is out of range for rank " +
                                  std::to_string(rank) + " (expected [" + std::to_string(-rank) + ", " +
                                  std::to_string(rank) + "])");
    }
    const std::vector<int64_t> out = {Product(in, 0, static_cast<size_t>(axis)),
                                      Product(in, static_cast<size_t>(axis), in.size())};
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    return CopyDevice(ctx, x, y, label_);
  }

 private:
  std::string label_;
  int64_t axis_ = 1;
};

// Squeeze-13 (axes input) and Squeeze-1/11 (axes attribute); no axes: every
// size-1 dim.
class SqueezeKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    attr_axes_ = info.IntsOr("axes", {});
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    HostInts r_axes;
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, label_, "axes", true, &r_axes));
    if (r_axes.given) LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, label_, {&r_axes}));
    const std::vector<int64_t> axes = r_axes.given ? r_axes.values : attr_axes_;
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size());
    std::vector<bool> drop(in.size(), axes.empty());
    for (int64_t a : axes) {
      int64_t n = a;
      LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&n, rank, label_, "axis"));
      if (in[n] != 1) {
        return sdk::InvalidArgument(label_ + ": axis " + std::to_string(a) + " of input 'data' " + ShapeStr(in) +
                                    " has size " + std::to_string(in[n]) + "; only size-1 dims can be squeezed");
      }
      drop[n] = true;
    }
    std::vector<int64_t> out;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!(drop[i] && in[i] == 1)) out.push_back(in[i]);
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    return CopyDevice(ctx, x, y, label_);
  }

 private:
  std::string label_;
  std::vector<int64_t> attr_axes_;
};

// Unsqueeze-13 (axes input) and Unsqueeze-1/11 (axes attribute): axes index
// the output, whose rank is r + len(axes).
class UnsqueezeKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    has_attr_ = info.Has("axes");
    attr_axes_ = info.IntsOr("axes", {});
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    HostInts r_axes;
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, label_, "axes", true, &r_axes));
    std::vector<int64_t> axes;
    if (r_axes.given) {
      LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, label_, {&r_axes}));
      axes = r_axes.values;
    } else {
      if (!has_attr_) return sdk::InvalidArgument(label_ + ": axes are required (input 'axes', or the opset 1-11 attribute)");
      axes = attr_axes_;
    }
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
    std::vector<bool> ones(static_cast<size_t>(rank), false);
    for (int64_t a : axes) {
      int64_t n = a;
      LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&n, rank, label_, "axis"));
      if (ones[n]) return sdk::InvalidArgument(label_ + ": axis " + std::to_string(a) + " appears twice in 'axes'");
      ones[n] = true;
    }
    std::vector<int64_t> out;
    size_t next = 0;
    for (int64_t i = 0; i < rank; ++i) out.push_back(ones[i] ? 1 : in[next++]);
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    return CopyDevice(ctx, x, y, label_);
  }

 private:
  std::string label_;
  bool has_attr_ = false;
  std::vector<int64_t> attr_axes_;
};

// Every dtype a Loom tensor can hold: the byte-moving kernels take them all.
std::vector<LoomDataType> AllDTypes() {
  return {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_INT8,
          LOOM_DTYPE_UINT8, LOOM_DTYPE_INT16,  LOOM_DTYPE_UINT16,  LOOM_DTYPE_INT32,    LOOM_DTYPE_UINT32,
          LOOM_DTYPE_INT64, LOOM_DTYPE_UINT64, LOOM_DTYPE_BOOL};
}

// The dtypes Cast converts between on CUDA (LaunchCast).
std::vector<LoomDataType> CastDTypes() {
  return {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_INT8,
          LOOM_DTYPE_UINT8, LOOM_DTYPE_INT32, LOOM_DTYPE_INT64,   LOOM_DTYPE_BOOL};
}

}  // namespace

sdk::Status RegisterTensorKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllDTypes(), cast = CastDTypes();
  const std::vector<LoomDataType> index = {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64};
  auto t = [&](std::vector<std::pair<std::string, std::vector<LoomDataType>>> tc) {
    return sdk::KernelOptions{"CUDA", "", 0, std::move(tc)};
  };
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<TransposeKernel>("Transpose", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConcatKernel>("Concat", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SplitKernel>("Split", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SliceKernel>("Slice", t({{"T", all}, {"Tind", index}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReshapeKernel>("Reshape", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<FlattenKernel>("Flatten", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SqueezeKernel>("Squeeze", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnsqueezeKernel>("Unsqueeze", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GatherKernel>("Gather", t({{"T", all}, {"Tind", index}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CastKernel>("Cast", t({{"T1", cast}, {"T2", cast}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<WhereKernel>("Where", t({{"B", {LOOM_DTYPE_BOOL}}, {"T", all}})));
  return reg.Kernel<ExpandKernel>("Expand", t({{"T", all}}));
}

}  // namespace cuda
}  // namespace loom
