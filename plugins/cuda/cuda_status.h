// CUDA, cuBLAS and cuDNN errors as Loom status values: the message names the
// call and the library's error name and text.
#ifndef LOOM_PLUGINS_CUDA_CUDA_STATUS_H_
#define LOOM_PLUGINS_CUDA_CUDA_STATUS_H_

#include <cuda_runtime.h>

#include <string>

#include "core/api/loom_sdk.h"

namespace loom {
namespace cuda {

inline std::string CudaErrorString(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

inline sdk::Status CudaStatus(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return sdk::Status::Ok();
  return sdk::Internal(std::string("CUDA: ") + what + " failed: " + CudaErrorString(e));
}

}  // namespace cuda
}  // namespace loom

// In a function returning LoomStatus*.
#define LOOM_CUDA_RETURN_IF_ERROR(expr, what)                            \
  do {                                                                   \
    cudaError_t loom_cuda_e_ = (expr);                                   \
    if (loom_cuda_e_ != cudaSuccess) {                                   \
      return ::loom::cuda::CudaStatus(loom_cuda_e_, what).release();     \
    }                                                                    \
  } while (0)

// In a function returning sdk::Status.
#define LOOM_CUDA_RETURN_STATUS_IF_ERROR(expr, what)                     \
  do {                                                                   \
    cudaError_t loom_cuda_e_ = (expr);                                   \
    if (loom_cuda_e_ != cudaSuccess) return ::loom::cuda::CudaStatus(loom_cuda_e_, what); \
  } while (0)

#endif  // LOOM_PLUGINS_CUDA_CUDA_STATUS_H_
