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

// y = x converted element by element to `to` (ONNX Cast-13 rules,
// ops/semantics/cast.h); y is already sized as x with dtype `to`. Every
// dtype Loom holds; a plain copy when the dtypes agree. INVALID_ARGUMENT
// (naming `label`) for a dtype without a C++ storage type.
Status CastTensor(const std::string& label, const Tensor& x, LoomDataType to, Tensor& y, int threads);

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

// dst[i0, .., ik] = src[base + i0 * strides[0] + .. + ik * strides[k]] for
// the row-major index over `shape` (element units of `esize` bytes; strides
// may be negative or zero). dst is contiguous. Used by Slice and Transpose.
void StridedCopy(const void* src, size_t esize, int64_t base, const std::vector<int64_t>& strides,
                 const std::vector<int64_t>& shape, void* dst, int threads);

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_TENSOR_UTIL_H_
