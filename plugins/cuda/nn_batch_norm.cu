// Device code of BatchNormalization (see nn_batch_norm.h), computed in float.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "plugins/cuda/device_util.h"
#include "plugins/cuda/nn_batch_norm.h"

namespace loom {
namespace cuda {
namespace {

template <typename T>
__global__ void BatchNormKernel(int64_t n, int64_t C, int64_t S, float epsilon, const T* x, const T* scale, const T* b,
                                const T* mean, const T* var, T* y) {
  LOOM_GRID_STRIDE(i, n) {
    const int64_t c = (i / S) % C;
    const float v = (Load(x, i) - Load(mean, c)) / sqrtf(Load(var, c) + epsilon);
    Store(y, i, v * Load(scale, c) + Load(b, c));
  }
}

template <typename T>
cudaError_t BatchNorm(int64_t N, int64_t C, int64_t S, float eps, const void* x, const void* scale, const void* b,
                      const void* mean, const void* var, void* y, cudaStream_t s) {
  const int64_t n = N * C * S;
  if (n == 0) return cudaSuccess;
  BatchNormKernel<T><<<Blocks(n), kThreads, 0, s>>>(n, C, S, eps, static_cast<const T*>(x),
                                                    static_cast<const T*>(scale), static_cast<const T*>(b),
                                                    static_cast<const T*>(mean), static_cast<const T*>(var),
                                                    static_cast<T*>(y));
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchBatchNormInference(LoomDataType dtype, int64_t N, int64_t C, int64_t S, float epsilon, const void* x,
                                     const void* scale, const void* b, const void* mean, const void* var, void* y,
                                     cudaStream_t s) {
  switch (dtype) {
    case LOOM_DTYPE_FLOAT: return BatchNorm<float>(N, C, S, epsilon, x, scale, b, mean, var, y, s);
    case LOOM_DTYPE_FLOAT16: return BatchNorm<__half>(N, C, S, epsilon, x, scale, b, mean, var, y, s);
    case LOOM_DTYPE_BFLOAT16: return BatchNorm<__nv_bfloat16>(N, C, S, epsilon, x, scale, b, mean, var, y, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace cuda
}  // namespace loom
