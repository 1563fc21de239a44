// Device-code helpers shared by the CUDA plugin's .cu files (nvcc only):
// loads and stores through float, and the grid-stride launch shape.
#ifndef LOOM_PLUGINS_CUDA_DEVICE_UTIL_H_
#define LOOM_PLUGINS_CUDA_DEVICE_UTIL_H_

#ifdef __CUDACC__

#include <cstdint>

namespace loom {
namespace cuda {

template <typename T> __device__ __forceinline__ float Load(const T* p, int64_t i) { return static_cast<float>(p[i]); }
template <typename T> __device__ __forceinline__ void Store(T* p, int64_t i, float v) { p[i] = static_cast<T>(v); }

constexpr int kThreads = 256;
// Blocks of kThreads for n elements of a grid-stride loop (at least 1, at
// most 65535 * 8).
inline int Blocks(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 * 8 ? (b > 0 ? b : 1) : 65535 * 8);
}

}  // namespace cuda
}  // namespace loom

#define LOOM_GRID_STRIDE(i, n)                                                            \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

#endif  // __CUDACC__

#endif  // LOOM_PLUGINS_CUDA_DEVICE_UTIL_H_
