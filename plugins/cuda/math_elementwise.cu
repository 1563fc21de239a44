// Device code of the elementwise family (see math_elementwise.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "plugins/cuda/device_util.h"
#include "plugins/cuda/math_elementwise.h"

namespace loom {
namespace cuda {
namespace {

template <BinaryOp K>
__device__ __forceinline__ float Apply(float a, float b) {
  if constexpr (K == BinaryOp::kAdd) return a + b;
  if constexpr (K == BinaryOp::kSub) return a - b;
  if constexpr (K == BinaryOp::kMul) return a * b;
  if constexpr (K == BinaryOp::kDiv) return a / b;
  if constexpr (K == BinaryOp::kPow) return powf(a, b);
  if constexpr (K == BinaryOp::kMax) return fmaxf(a, b);
  if constexpr (K == BinaryOp::kMin) return fminf(a, b);
  if constexpr (K == BinaryOp::kPRelu) return a < 0.f ? a * b : a;
  return 0.f;
}

template <BinaryOp K, typename T>
__global__ void BinaryKernel(BroadcastIndex ix, int64_t n, const T* a, const T* b, T* y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rem = i, oa = 0, ob = 0;
    for (int d = ix.rank - 1; d >= 0; --d) {
      int64_t c = rem % ix.dims[d];
      rem /= ix.dims[d];
      oa += c * ix.sa[d];
      ob += c * ix.sb[d];
    }
    Store(y, i, Apply<K>(Load(a, oa), Load(b, ob)));
  }
}

__device__ __forceinline__ float ApplyUnary(UnaryOp op, float x, float alpha, float beta) {
  switch (op) {
    case UnaryOp::kRelu: return x > 0.f ? x : 0.f;
    case UnaryOp::kSigmoid: return 1.f / (1.f + expf(-x));
    case UnaryOp::kTanh: return tanhf(x);
    case UnaryOp::kExp: return expf(x);
    case UnaryOp::kLog: return logf(x);
    case UnaryOp::kSqrt: return sqrtf(x);
    case UnaryOp::kReciprocal: return 1.f / x;
    case UnaryOp::kNeg: return -x;
    case UnaryOp::kAbs: return fabsf(x);
    case UnaryOp::kFloor: return floorf(x);
    case UnaryOp::kCeil: return ceilf(x);
    case UnaryOp::kErf: return erff(x);
    case UnaryOp::kLeakyRelu: return x >= 0.f ? x : alpha * x;
    case UnaryOp::kElu: return x >= 0.f ? x : alpha * (expf(x) - 1.f);
    case UnaryOp::kSelu: return x > 0.f ? beta * x : beta * alpha * (expf(x) - 1.f);
    case UnaryOp::kHardSigmoid: return fmaxf(0.f, fminf(1.f, alpha * x + beta));
    case UnaryOp::kSoftplus: return x > 20.f ? x : log1pf(expf(x));
    case UnaryOp::kSoftsign: return x / (1.f + fabsf(x));
    case UnaryOp::kClip: return fminf(fmaxf(x, alpha), beta);
    case UnaryOp::kIdentity: return x;
    case UnaryOp::kScale: return alpha * x;
    case UnaryOp::kHardSwish: return x * fmaxf(0.f, fminf(1.f, x / 6.f + 0.5f));
  }
  return x;
}

template <typename T>
__global__ void UnaryKernel(UnaryOp op, int64_t n, const T* x, T* y, float alpha, float beta) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Store(y, i, ApplyUnary(op, Load(x, i), alpha, beta));
  }
}

template <typename T>
cudaError_t Binary(BinaryOp op, const BroadcastIndex& ix, int64_t n, const T* a, const T* b, T* y, cudaStream_t s) {
  int g = Blocks(n);
  switch (op) {
    case BinaryOp::kAdd: BinaryKernel<BinaryOp::kAdd, T><<<g, kThreads, 0, s>>>(ix, n, a, b, y); break;
    case BinaryOp::kSub: BinaryKernel<BinaryOp::kSub, T><<<g, kThreads, 0, s>>>(ix, n, a, b, y); break;
    case BinaryOp::kMul: BinaryKernel<BinaryOp::kMul, T><<<g, kThreads, 0, s>>>(ix, n, a, b, y); break;
    case BinaryOp::kDiv: BinaryKernel<BinaryOp::kDiv, T><<<g, kThreads, 0, s>>>(ix, n, a, b, y); break;
    case BinaryOp::kPow: BinaryKernel<BinaryOp::kPow, T><<<g, kThreads, 0, s>>>(ix, n, a, b, y); break;
    case BinaryOp::kMax: BinaryKernel<BinaryOp::kMax, T><<<g, kThreads, 0, s>>>(ix, n, a, b, y); break;
    case BinaryOp::kMin: BinaryKernel<BinaryOp::kMin, T><<<g, kThreads, 0, s>>>(ix, n, a, b, y); break;
    case BinaryOp::kPRelu: BinaryKernel<BinaryOp::kPRelu, T><<<g, kThreads, 0, s>>>(ix, n, a, b, y); break;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchBinary(BinaryOp op, LoomDataType dtype, const BroadcastIndex& ix, int64_t n, const void* a,
                         const void* b, void* y, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  switch (dtype) {
    case LOOM_DTYPE_FLOAT:
      return Binary(op, ix, n, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(y), s);
    case LOOM_DTYPE_FLOAT16:
      return Binary(op, ix, n, static_cast<const __half*>(a), static_cast<const __half*>(b), static_cast<__half*>(y), s);
    case LOOM_DTYPE_BFLOAT16:
      return Binary(op, ix, n, static_cast<const __nv_bfloat16*>(a), static_cast<const __nv_bfloat16*>(b),
                    static_cast<__nv_bfloat16*>(y), s);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchUnary(UnaryOp op, LoomDataType dtype, int64_t n, const void* x, void* y, float alpha, float beta,
                        cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  int g = Blocks(n);
  switch (dtype) {
    case LOOM_DTYPE_FLOAT:
      UnaryKernel<float><<<g, kThreads, 0, s>>>(op, n, static_cast<const float*>(x), static_cast<float*>(y), alpha, beta);
      break;
    case LOOM_DTYPE_FLOAT16:
      UnaryKernel<__half><<<g, kThreads, 0, s>>>(op, n, static_cast<const __half*>(x), static_cast<__half*>(y), alpha, beta);
      break;
    case LOOM_DTYPE_BFLOAT16:
      UnaryKernel<__nv_bfloat16><<<g, kThreads, 0, s>>>(op, n, static_cast<const __nv_bfloat16*>(x),
                                                        static_cast<__nv_bfloat16*>(y), alpha, beta);
      break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace loom
