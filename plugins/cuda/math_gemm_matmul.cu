// Device code of the BLAS family (see math_gemm_matmul.h): Gemm's C broadcast.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "plugins/cuda/math_gemm_matmul.h"

namespace loom {
namespace cuda {
namespace {

template <typename T>
__global__ void BroadcastScaleKernel(int64_t m, int64_t n, const T* c, int64_t s0, int64_t s1, float scale, T* y) {
  const int64_t total = m * n;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = i / n, col = i % n;
    y[i] = static_cast<T>(scale * static_cast<float>(c[r * s0 + col * s1]));
  }
}

constexpr int kThreads = 256;

}  // namespace

cudaError_t LaunchBroadcastScale(LoomDataType dtype, int64_t m, int64_t n, const void* c, int64_t s0, int64_t s1,
                                 float scale, void* y, cudaStream_t s) {
  const int64_t total = m * n;
  if (total == 0) return cudaSuccess;
  const int64_t want = (total + kThreads - 1) / kThreads;
  const int g = static_cast<int>(want < 65535 * 8 ? want : 65535 * 8);
  switch (dtype) {
    case LOOM_DTYPE_FLOAT:
      BroadcastScaleKernel<float><<<g, kThreads, 0, s>>>(m, n, static_cast<const float*>(c), s0, s1, scale,
                                                         static_cast<float*>(y));
      break;
    case LOOM_DTYPE_FLOAT16:
      BroadcastScaleKernel<__half><<<g, kThreads, 0, s>>>(m, n, static_cast<const __half*>(c), s0, s1, scale,
                                                          static_cast<__half*>(y));
      break;
    case LOOM_DTYPE_BFLOAT16:
      BroadcastScaleKernel<__nv_bfloat16><<<g, kThreads, 0, s>>>(m, n, static_cast<const __nv_bfloat16*>(c), s0, s1,
                                                                 scale, static_cast<__nv_bfloat16*>(y));
      break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace loom
