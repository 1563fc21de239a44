#include "plugins/cuda/handles.h"

#include <map>

namespace loom {
namespace cuda {
namespace {

struct ThreadHandles {
  std::map<int, cublasHandle_t> cublas;
  std::map<int, cudnnHandle_t> cudnn;
  ~ThreadHandles() {
    for (auto& [dev, h] : cublas) cublasDestroy(h);
    for (auto& [dev, h] : cudnn) cudnnDestroy(h);
  }
};

ThreadHandles& Mine() {
  thread_local ThreadHandles h;
  return h;
}

}  // namespace

sdk::Status GetCublas(cudaStream_t stream, cublasHandle_t* out) {
  int dev = 0;
  LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaGetDevice(&dev), "cudaGetDevice");
  auto& m = Mine().cublas;
  auto it = m.find(dev);
  if (it == m.end()) {
    cublasHandle_t h = nullptr;
    LOOM_CUBLAS_RETURN_IF_ERROR(cublasCreate(&h), "cublasCreate");
    it = m.emplace(dev, h).first;
  }
  LOOM_CUBLAS_RETURN_IF_ERROR(cublasSetStream(it->second, stream), "cublasSetStream");
  *out = it->second;
  return sdk::Status::Ok();
}

sdk::Status GetCudnn(cudaStream_t stream, cudnnHandle_t* out) {
  int dev = 0;
  LOOM_CUDA_RETURN_STATUS_IF_ERROR(cudaGetDevice(&dev), "cudaGetDevice");
  auto& m = Mine().cudnn;
  auto it = m.find(dev);
  if (it == m.end()) {
    cudnnHandle_t h = nullptr;
    LOOM_CUDNN_RETURN_IF_ERROR(cudnnCreate(&h), "cudnnCreate");
    it = m.emplace(dev, h).first;
  }
  LOOM_CUDNN_RETURN_IF_ERROR(cudnnSetStream(it->second, stream), "cudnnSetStream");
  *out = it->second;
  return sdk::Status::Ok();
}

}  // namespace cuda
}  // namespace loom
