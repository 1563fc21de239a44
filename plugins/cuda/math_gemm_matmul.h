// Device helpers of the CUDA BLAS family (math_gemm_matmul.cc: Gemm, MatMul on cuBLAS).
#ifndef LOOM_PLUGINS_CUDA_MATH_GEMM_MATMUL_H_
#define LOOM_PLUGINS_CUDA_MATH_GEMM_MATMUL_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "core/api/loom_c_api.h"

namespace loom {
namespace cuda {

// Gemm's C term: y[i * n + j] = scale * c[i * s0 + j * s1] for i < m, j < n
// (s0 / s1 are 0 along broadcast dims). float32, float16, bfloat16 (scaled
// in float); cudaErrorInvalidValue for another dtype.
cudaError_t LaunchBroadcastScale(LoomDataType dtype, int64_t m, int64_t n, const void* c, int64_t s0, int64_t s1,
                                 float scale, void* y, cudaStream_t stream);

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_MATH_GEMM_MATMUL_H_
