// Helpers shared by the CPU plugin's tensor-family kernels (shape and data
// movement: tensor_shape.cc, tensor_copy.cc, tensor_cast.cc, ...) and the
// other kernels that read int inputs or move bytes.
#ifndef LOOM_PLUGINS_CPU_TENSOR_UTIL_H_
#define LOOM_PLUGINS_CPU_TENSOR_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ops/semantics/shape_math.h"
#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

// Every dtype a Loom tensor can hold (the byte-moving kernels take them all).
std::vector<LoomDataType> AllDTypes();

// Copies-in-bytes above this size go parallel (smaller ones stay on the
// calling thread: a memcpy is cheaper than an OpenMP fork/join).
constexpr int64_t kParallelBytes = 1 << 18;

// Product of s[begin, end) (or of all of s) and row-major element strides.
using semantics::Product;
using semantics::RowMajorStrides;

// Copies `in`'s bytes into `out`, which has the same byte count; nothing when
// they share memory (an in-place Reshape/Identity).
void CopyData(const Tensor& in, const Tensor& out);

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
// may be negative or zero). dst is contiguous. Used by Slice and Transpose.
void StridedCopy(const void* src, size_t esize, int64_t base, const std::vector<int64_t>& strides,
                 const std::vector<int64_t>& shape, void* dst, int threads);

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_TENSOR_UTIL_H_
