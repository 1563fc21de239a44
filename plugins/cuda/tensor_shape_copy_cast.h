// Device launchers of the CUDA tensor family (data movement): one strided
// copy (Transpose, Slice, Concat, Split, Expand), Gather, Cast and Where.
// The device code is tensor_shape_copy_cast.cu; the host glue (ONNX attribute handling,
// shape checks, registration) is tensor_shape_copy_cast.cc. Pure data movement works on
// bytes: the element size (1, 2, 4 or 8) selects the kernel, so every dtype
// of that size takes the same path.
#ifndef LOOM_PLUGINS_CUDA_TENSOR_SHAPE_COPY_CAST_H_
#define LOOM_PLUGINS_CUDA_TENSOR_SHAPE_COPY_CAST_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "core/api/loom_c_api.h"
#include "plugins/cuda/math_elementwise.h"

namespace loom {
namespace cuda {

// A copy over a `rank`-dim index space `dims`: the element at index c goes
// from src[src_base + sum c[d] * src_strides[d]] to dst[dst_base + sum c[d] *
// dst_strides[d]] (element units; src strides may be negative or 0).
struct CopyIndex {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t src_strides[kMaxRank] = {};
  int64_t dst_strides[kMaxRank] = {};
  int64_t src_base = 0;
  int64_t dst_base = 0;
};

// Runs the copy for `n` = prod(dims) elements of `esize` bytes (1, 2, 4, 8;
// else cudaErrorInvalidValue) on `stream`.
cudaError_t LaunchStridedCopy(size_t esize, const CopyIndex& index, int64_t n, const void* src, void* dst,
                              cudaStream_t stream);

// Gather over the flattened (outer, dim, inner) view of data: out[o, j, i] =
// data[o, idx(j), i] for o < outer, j < num_indices, i < inner (elements of
// `esize` bytes), with idx(j) = indices[j] (+ dim when negative). The indices
// (int64 when `indices64`, else int32) must already be in [-dim, dim).
cudaError_t LaunchGather(size_t esize, int64_t outer, int64_t dim, int64_t inner, int64_t num_indices,
                         const void* data, const void* indices, bool indices64, void* out, cudaStream_t stream);

// y[i] = Cast<to>(x[i]) for `n` elements, the CPU plugin's conversions
// (plugins/cpu/tensor_cast.cc). float32, float64, float16, bfloat16, int8,
// uint8, int32, int64, bool; cudaErrorInvalidValue for other dtypes.
cudaError_t LaunchCast(LoomDataType from, LoomDataType to, int64_t n, const void* x, void* y, cudaStream_t stream);
// Whether LaunchCast handles dtype `t`.
bool CastSupports(LoomDataType t);

// Where's three-way broadcast: output dims and each operand's element
// strides over them (0 where broadcast).
struct WhereIndex {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t sc[kMaxRank] = {};
  int64_t sx[kMaxRank] = {};
  int64_t sy[kMaxRank] = {};
};

// out[i] = cond[ic(i)] ? x[ix(i)] : y[iy(i)] for `n` output elements of
// `esize` bytes; cond is bool storage (any nonzero byte is true).
cudaError_t LaunchWhere(size_t esize, const WhereIndex& index, int64_t n, const void* cond, const void* x,
                        const void* y, void* out, cudaStream_t stream);

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_TENSOR_SHAPE_COPY_CAST_H_
