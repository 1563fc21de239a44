// cuBLAS and cuDNN handles for kernels: one per (thread, GPU), created on
// first use and bound to the stream of the calling operator. Handles are not
// thread-safe, and the multi-stream executor runs operators on several
// threads, hence thread-local. Errors of either library as status values.
#ifndef LOOM_PLUGINS_CUDA_HANDLES_H_
#define LOOM_PLUGINS_CUDA_HANDLES_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <string>

#include "core/api/loom_sdk.h"
#include "plugins/cuda/cuda_status.h"

namespace loom {
namespace cuda {

inline sdk::Status CublasStatus(cublasStatus_t s, const std::string& what) {
  if (s == CUBLAS_STATUS_SUCCESS) return sdk::Status::Ok();
  return sdk::Internal("cuBLAS: " + what + " failed: " + cublasGetStatusName(s) + ": " + cublasGetStatusString(s));
}

inline sdk::Status CudnnStatus(cudnnStatus_t s, const std::string& what) {
  if (s == CUDNN_STATUS_SUCCESS) return sdk::Status::Ok();
  return sdk::Internal("cuDNN: " + what + " failed: " + cudnnGetErrorString(s));
}

// The calling thread's cuBLAS handle for the current GPU, set to `stream`.
sdk::Status GetCublas(cudaStream_t stream, cublasHandle_t* out);
// The calling thread's cuDNN handle for the current GPU, set to `stream`.
sdk::Status GetCudnn(cudaStream_t stream, cudnnHandle_t* out);

}  // namespace cuda
}  // namespace loom

#define LOOM_CUBLAS_RETURN_IF_ERROR(expr, what)                            \
  do {                                                                     \
    cublasStatus_t loom_s_ = (expr);                                       \
    if (loom_s_ != CUBLAS_STATUS_SUCCESS) return ::loom::cuda::CublasStatus(loom_s_, what); \
  } while (0)

#define LOOM_CUDNN_RETURN_IF_ERROR(expr, what)                             \
  do {                                                                     \
    cudnnStatus_t loom_s_ = (expr);                                        \
    if (loom_s_ != CUDNN_STATUS_SUCCESS) return ::loom::cuda::CudnnStatus(loom_s_, what); \
  } while (0)

#endif  // LOOM_PLUGINS_CUDA_HANDLES_H_
