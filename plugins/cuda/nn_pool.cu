// Device code of the pools (see nn_pool.h). Values are computed in float
// (sums of the global average in double) and stored back in the tensor's
// dtype.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "plugins/cuda/device_util.h"
#include "plugins/cuda/nn_pool.h"

namespace loom {
namespace cuda {
namespace {

// The most negative finite value of T, as a float that converts exactly.
template <typename T> __device__ __forceinline__ float Lowest();
template <> __device__ __forceinline__ float Lowest<float>() { return -3.402823466e38f; }
template <> __device__ __forceinline__ float Lowest<__half>() { return -65504.0f; }
template <> __device__ __forceinline__ float Lowest<__nv_bfloat16>() { return -3.38953139e38f; }
template <> __device__ __forceinline__ float Lowest<int8_t>() { return -128.0f; }
template <> __device__ __forceinline__ float Lowest<uint8_t>() { return 0.0f; }

template <typename T>
__global__ void PoolKernel(PoolMode mode, PoolParams p, int64_t n, const T* x, T* y, int64_t* indices) {
  const int64_t out_plane = p.out[0] * p.out[1] * p.out[2];
  const int64_t in_plane = p.in[0] * p.in[1] * p.in[2];
  LOOM_GRID_STRIDE(i, n) {
    const int64_t plane = i / out_plane;
    int64_t r = i % out_plane;
    const int64_t o2 = r % p.out[2];
    r /= p.out[2];
    const int64_t o1 = r % p.out[1];
    const int64_t o0 = r / p.out[1];
    const int64_t o[3] = {o0, o1, o2};
    int64_t start[3];
    for (int d = 0; d < 3; ++d) start[d] = o[d] * p.stride[d] - p.pad_begin[d];
    const T* xp = x + plane * in_plane;
    if (mode == PoolMode::kMax) {
      bool found = false;
      float best = 0.0f;
      int64_t best_at = 0;
      for (int64_t j0 = 0; j0 < p.kernel[0]; ++j0) {
        const int64_t i0 = start[0] + j0 * p.dilation[0];
        if (i0 < 0 || i0 >= p.in[0]) continue;
        for (int64_t j1 = 0; j1 < p.kernel[1]; ++j1) {
          const int64_t i1 = start[1] + j1 * p.dilation[1];
          if (i1 < 0 || i1 >= p.in[1]) continue;
          for (int64_t j2 = 0; j2 < p.kernel[2]; ++j2) {
            const int64_t i2 = start[2] + j2 * p.dilation[2];
            if (i2 < 0 || i2 >= p.in[2]) continue;
            const float v = Load(xp, (i0 * p.in[1] + i1) * p.in[2] + i2);
            // The first maximum in window order wins ties (and a NaN only
            // when it comes first), as in the CPU kernel.
            if (!found || v > best) {
              found = true;
              best = v;
              best_at = i0 * p.index_stride[0] + i1 * p.index_stride[1] + i2 * p.index_stride[2];
            }
          }
        }
      }
      Store(y, i, found ? best : Lowest<T>());
      if (indices != nullptr) indices[i] = plane * in_plane + best_at;
    } else {
      float sum = 0.0f;
      int64_t count = 1;
      for (int d = 0; d < 3; ++d) {
        // Taps of this dim inside the input (exclude) or before the limit
        // (include: input plus explicit padding).
        int64_t taps = 0;
        for (int64_t j = 0; j < p.kernel[d]; ++j) {
          const int64_t at = start[d] + j * p.dilation[d];
          taps += mode == PoolMode::kAvgIncludePad ? (at < p.limit[d]) : (at >= 0 && at < p.in[d]);
        }
        count *= taps;
      }
      for (int64_t j0 = 0; j0 < p.kernel[0]; ++j0) {
        const int64_t i0 = start[0] + j0 * p.dilation[0];
        if (i0 < 0 || i0 >= p.in[0]) continue;
        for (int64_t j1 = 0; j1 < p.kernel[1]; ++j1) {
          const int64_t i1 = start[1] + j1 * p.dilation[1];
          if (i1 < 0 || i1 >= p.in[1]) continue;
          for (int64_t j2 = 0; j2 < p.kernel[2]; ++j2) {
            const int64_t i2 = start[2] + j2 * p.dilation[2];
            if (i2 < 0 || i2 >= p.in[2]) continue;
            sum += Load(xp, (i0 * p.in[1] + i1) * p.in[2] + i2);
          }
        }
      }
      Store(y, i, sum / static_cast<float>(count));
    }
  }
}

template <typename T>
__global__ void GlobalPoolKernel(bool max, int64_t planes, int64_t size, const T* x, T* y) {
  __shared__ double sums[kThreads];
  __shared__ float maxes[kThreads];
  for (int64_t p = blockIdx.x; p < planes; p += gridDim.x) {
    const T* row = x + p * size;
    double s = 0.0;
    float m = -INFINITY;
    for (int64_t i = threadIdx.x; i < size; i += blockDim.x) {
      const float v = Load(row, i);
      s += v;
      m = fmaxf(m, v);  // ignores NaN, like the CPU's std::max(m, v)
    }
    sums[threadIdx.x] = s;
    maxes[threadIdx.x] = m;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        sums[threadIdx.x] += sums[threadIdx.x + half];
        maxes[threadIdx.x] = fmaxf(maxes[threadIdx.x], maxes[threadIdx.x + half]);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      Store(y, p, max ? maxes[0] : static_cast<float>(sums[0] / static_cast<double>(size)));
    }
    __syncthreads();  // the shared arrays are reused by the next plane
  }
}

template <typename T>
cudaError_t Pool(PoolMode mode, const PoolParams& p, const void* x, void* y, int64_t* indices, cudaStream_t s) {
  const int64_t n = p.planes * p.out[0] * p.out[1] * p.out[2];
  if (n == 0) return cudaSuccess;
  PoolKernel<T><<<Blocks(n), kThreads, 0, s>>>(mode, p, n, static_cast<const T*>(x), static_cast<T*>(y), indices);
  return cudaGetLastError();
}

template <typename T>
cudaError_t GlobalPool(bool max, int64_t planes, int64_t size, const void* x, void* y, cudaStream_t s) {
  if (planes == 0) return cudaSuccess;
  const int grid = static_cast<int>(planes < (1 << 20) ? planes : (1 << 20));
  GlobalPoolKernel<T><<<grid, kThreads, 0, s>>>(max, planes, size, static_cast<const T*>(x), static_cast<T*>(y));
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchPool(PoolMode mode, LoomDataType dtype, const PoolParams& p, const void* x, void* y,
                       int64_t* indices, cudaStream_t s) {
  switch (dtype) {
    case LOOM_DTYPE_FLOAT: return Pool<float>(mode, p, x, y, indices, s);
    case LOOM_DTYPE_FLOAT16: return Pool<__half>(mode, p, x, y, indices, s);
    case LOOM_DTYPE_BFLOAT16: return Pool<__nv_bfloat16>(mode, p, x, y, indices, s);
    case LOOM_DTYPE_INT8: return mode == PoolMode::kMax ? Pool<int8_t>(mode, p, x, y, indices, s) : cudaErrorInvalidValue;
    case LOOM_DTYPE_UINT8: return mode == PoolMode::kMax ? Pool<uint8_t>(mode, p, x, y, indices, s) : cudaErrorInvalidValue;
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchGlobalPool(bool max, LoomDataType dtype, int64_t planes, int64_t size, const void* x, void* y,
                             cudaStream_t s) {
  switch (dtype) {
    case LOOM_DTYPE_FLOAT: return GlobalPool<float>(max, planes, size, x, y, s);
    case LOOM_DTYPE_FLOAT16: return GlobalPool<__half>(max, planes, size, x, y, s);
    case LOOM_DTYPE_BFLOAT16: return GlobalPool<__nv_bfloat16>(max, planes, size, x, y, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace cuda
}  // namespace loom
