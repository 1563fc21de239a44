// Device code of the convolutions (see nn_conv.h): the shifted copies and
// bias additions around cuDNN. Values are computed in float and stored back
// in the tensor's dtype.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "plugins/cuda/device_util.h"
#include "plugins/cuda/nn_conv.h"

namespace loom {
namespace cuda {
namespace {

template <typename T>
__global__ void ShiftCopyKernel(ShiftCopyParams p, int64_t n, const T* x, const T* bias, T* y) {
  LOOM_GRID_STRIDE(i, n) {
    int64_t rem = i, src = 0, xstride = 1, channel = 0;
    bool inside = true;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t c = rem % p.ydims[d];
      rem /= p.ydims[d];
      if (d == 1) channel = c;
      const int64_t s = c + p.offset[d];
      if (s < 0 || s >= p.xdims[d]) inside = false;
      src += s * xstride;
      xstride *= p.xdims[d];
    }
    float v = inside ? Load(x, src) : 0.0f;
    if (bias != nullptr) v += Load(bias, channel);
    Store(y, i, v);
  }
}

template <typename T>
__global__ void AddChannelBiasKernel(int64_t n, int64_t C, int64_t S, const T* bias, T* y) {
  LOOM_GRID_STRIDE(i, n) { Store(y, i, Load(y, i) + Load(bias, (i / S) % C)); }
}

}  // namespace

cudaError_t LaunchShiftCopy(LoomDataType dtype, const ShiftCopyParams& p, const void* x, const void* bias, void* y,
                            cudaStream_t s) {
  int64_t n = 1;
  for (int d = 0; d < p.rank; ++d) n *= p.ydims[d];
  if (n == 0) return cudaSuccess;
  switch (dtype) {
    case LOOM_DTYPE_FLOAT:
      ShiftCopyKernel<float><<<Blocks(n), kThreads, 0, s>>>(p, n, static_cast<const float*>(x),
                                                            static_cast<const float*>(bias), static_cast<float*>(y));
      break;
    case LOOM_DTYPE_FLOAT16:
      ShiftCopyKernel<__half><<<Blocks(n), kThreads, 0, s>>>(p, n, static_cast<const __half*>(x),
                                                             static_cast<const __half*>(bias), static_cast<__half*>(y));
      break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchAddChannelBias(LoomDataType dtype, int64_t N, int64_t C, int64_t S, const void* bias, void* y,
                                 cudaStream_t s) {
  const int64_t n = N * C * S;
  if (n == 0) return cudaSuccess;
  switch (dtype) {
    case LOOM_DTYPE_FLOAT:
      AddChannelBiasKernel<float><<<Blocks(n), kThreads, 0, s>>>(n, C, S, static_cast<const float*>(bias),
                                                                 static_cast<float*>(y));
      break;
    case LOOM_DTYPE_FLOAT16:
      AddChannelBiasKernel<__half><<<Blocks(n), kThreads, 0, s>>>(n, C, S, static_cast<const __half*>(bias),
                                                                  static_cast<__half*>(y));
      break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace loom
