// Device code of the pools (nn_pool.cc: MaxPool, AveragePool,
// GlobalAveragePool, GlobalMaxPool), plain CUDA (nn_pool.cu) because they
// must reproduce ONNX's (and the CPU plugin's) semantics exactly: asymmetric
// pads, dilations, ceil_mode, count_include_pad's divisor and MaxPool's
// Indices, none of which cuDNN's pooling offers fully. Every launcher returns
// cudaGetLastError() after enqueuing on `stream`, cudaErrorInvalidValue for
// an unsupported dtype, and does nothing for an empty range.
#ifndef LOOM_PLUGINS_CUDA_NN_POOL_H_
#define LOOM_PLUGINS_CUDA_NN_POOL_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "core/api/loom_c_api.h"

namespace loom {
namespace cuda {

enum class PoolMode { kMax, kAvgExcludePad, kAvgIncludePad };

// A pooling window over 1..3 spatial dims, written as three (leading dims
// padded with size 1, kernel 1, stride 1, dilation 1, pad 0).
struct PoolParams {
  int64_t planes = 0;  // N * C
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1}, pad_begin[3] = {0, 0, 0};
  // kAvgIncludePad: per dim, taps at positions < limit (end of input plus the
  // explicit end padding) count in the divisor.
  int64_t limit[3] = {1, 1, 1};
  // MaxPool Indices: the weight of each spatial coordinate in the flat index
  // (row- or column-major over the real spatial dims; 0 for padded dims).
  int64_t index_stride[3] = {0, 0, 0};
};
// y [planes, out...] (and indices, int64, when not null; kMax only).
// kMax: float32, float16, bfloat16, int8, uint8; averages: float32, float16,
// bfloat16.
cudaError_t LaunchPool(PoolMode mode, LoomDataType dtype, const PoolParams& p, const void* x, void* y,
                       int64_t* indices, cudaStream_t stream);

// y[p] = mean (accumulated in double) or max of x[p, 0..size) for p <
// planes; size 0 gives NaN (mean) or -inf (max). float32, float16, bfloat16.
cudaError_t LaunchGlobalPool(bool max, LoomDataType dtype, int64_t planes, int64_t size, const void* x, void* y,
                             cudaStream_t stream);

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_NN_POOL_H_
