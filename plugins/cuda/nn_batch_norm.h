// Device code of BatchNormalization, inference (nn_batch_norm.cc,
// nn_batch_norm.cu). The launcher returns cudaGetLastError() after enqueuing
// on `stream`, cudaErrorInvalidValue for an unsupported dtype, and does
// nothing for an empty range.
#ifndef LOOM_PLUGINS_CUDA_NN_BATCH_NORM_H_
#define LOOM_PLUGINS_CUDA_NN_BATCH_NORM_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "core/api/loom_c_api.h"

namespace loom {
namespace cuda {

// y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + b[c] over x
// [N, C, S]; all tensors of `dtype` (float32, float16, bfloat16).
cudaError_t LaunchBatchNormInference(LoomDataType dtype, int64_t N, int64_t C, int64_t S, float epsilon, const void* x,
                                     const void* scale, const void* b, const void* mean, const void* var, void* y,
                                     cudaStream_t stream);

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_NN_BATCH_NORM_H_
