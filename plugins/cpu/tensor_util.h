// Helpers shared by the CPU plugin's tensor-family kernels (shape and data
// movement: tensor_shape.cc, tensor_copy.cc, tensor_cast.cc, ...) and the
// other kernels that read int inputs or move bytes.
#ifndef LOOM_PLUGINS_CPU_TENSOR_UTIL_H_
#define LOOM_PLUGINS_CPU_TENSOR_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/semantics/shape_math.h"
#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

// Every dtype a Loom tensor can hold (the byte-moving kernels take them all).
std::vector<LoomDataType> AllDTypes();
// AllDTypes and string: what the kernels that move whole elements take
// (string tensors through ElementsIn / ElementsOut or CopyData).
std::vector<LoomDataType> TensorDTypes();

// Copies-in-bytes above this size go parallel (smaller ones stay on the
// calling thread: a memcpy is cheaper than an OpenMP fork/join).
constexpr int64_t kParallelBytes = 1 << 18;

// Product of s[begin, end) (or of all of s) and row-major element strides.
using semantics::Product;
using semantics::RowMajorStrides;

// Copies `in`'s bytes into `out`, which has the same byte count; nothing when
// they share memory (an in-place Reshape/Identity).
void CopyData(const Tensor& in, const Tensor& out);

// The elements of a tensor as the data-moving kernels (Concat, Gather,
// Slice, Transpose, Where, ...) address them: a numeric tensor's buffer and
// dtype size, or for a string tensor one std::string_view per element
// (trivially copyable, so the kernels' memcpy and element copies move the
// views with the same index arithmetic as numbers: one path for every
// dtype). The views point into the input's strings, which outlive Compute.
class ElementsIn {
 public:
  explicit ElementsIn(const Tensor& t);
  const void* data() const { return string_ ? static_cast<const void*>(views_.data()) : raw_; }
  template <typename S>
  const S* data() const { return static_cast<const S*>(data()); }
  // Bytes per element: the dtype's size, or sizeof(std::string_view).
  size_t esize() const { return esize_; }

 private:
  const void* raw_ = nullptr;
  size_t esize_ = 0;
  bool string_ = false;
  std::vector<std::string_view> views_;
};

// An output's elements as ElementsIn's: the buffer of a numeric tensor; for
// a string tensor, views the kernel writes and Finish copies into the
// output's strings (call it once the views are written; nothing to do for
// numeric tensors). Default: no output (one not requested), data() null.
class ElementsOut {
 public:
  ElementsOut() = default;
  explicit ElementsOut(const Tensor& t);
  void* data() { return string_ ? static_cast<void*>(views_.data()) : raw_; }
  template <typename S>
  S* data() { return static_cast<S*>(data()); }
  Status Finish() const;

 private:
  Tensor t_;
  void* raw_ = nullptr;
  bool string_ = false;
  std::vector<std::string_view> views_;
};

// DispatchBytes (f(T{}) for a same-size unsigned type T), plus
// std::string_view for string tensors (their ElementsIn/ElementsOut).
template <typename F>
Status DispatchElements(LoomDataType dt, const std::string& label, F&& f) {
  if (dt == LOOM_DTYPE_STRING) return f(std::string_view{});
  return DispatchBytes(dt, label, f);
}

// Reads input `index` (an int64 or int32 tensor: shape, axes, starts, ...)
// into *out. *given is false, and *out empty, when the optional input is
// absent. Errors: another dtype, or a rank above 1 when `must_be_1d`.
Status ReadIntsInput(const KernelContext& ctx, size_t index, const std::string& label, const char* name,
                     bool must_be_1d, std::vector<int64_t>* out, bool* given);

// Normalizes `axis` from [-rank, rank-1]; the error names the op, what the
// axis is for and the rank.
using semantics::NormalizeAxisOr;

// `shape` seen as [outer, n, inner] around `axis` (from [-rank, rank-1],
// normalized; the error is NormalizeAxisOr's, naming `what`).
struct AxisSplit {
  int64_t axis = 0, outer = 1, n = 1, inner = 1;
};
inline Status SplitAtAxis(const std::vector<int64_t>& shape, int64_t axis, const std::string& label, const char* what,
                          AxisSplit* s) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label, what));
  *s = {axis, Product(shape, 0, axis), shape[axis], Product(shape, axis + 1, rank)};
  return Status::Ok();
}

// SplitAtAxis of input x, then output 0 sized as x (same dtype) into *y.
inline Status SplitSameShape(KernelContext& ctx, const Tensor& x, int64_t axis, const std::string& label,
                             const char* what, AxisSplit* s, Tensor* y) {
  LOOM_SDK_RETURN_IF_ERROR(SplitAtAxis(x.shape(), axis, label, what, s));
  return ctx.Output(0, x.dtype(), x.dims_data(), x.rank(), y);
}

// f(in + base, out + base) for each of the outer * inner lines along the
// split axis of `in` and `out` (both shaped as the split tensor): a line's
// n elements are s.inner apart.
template <typename S, typename F>
void ForEachAxisLine(const AxisSplit& s, const S* in, S* out, F&& f) {
  for (int64_t o = 0; o < s.outer * s.inner; ++o) {
    const int64_t base = (o / s.inner) * s.n * s.inner + o % s.inner;
    f(in + base, out + base);
  }
}

// dst[i0, .., ik] = src[base + i0 * strides[0] + .. + ik * strides[k]] for
// the row-major index over `shape` (element units of `esize` bytes; strides
// may be negative or zero). dst is contiguous. Used by Slice, Transpose,
// Expand and Tile; esize sizeof(std::string_view) moves string views
// (ElementsIn/ElementsOut).
void StridedCopy(const void* src, size_t esize, int64_t base, const std::vector<int64_t>& strides,
                 const std::vector<int64_t>& shape, void* dst, int threads);

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_TENSOR_UTIL_H_
