// Device code of the reduction family (see reduction_sum_mean_max_min.h): one reduction
// kernel per (op, dtype) in two shapes, and three Softmax kernels.
//
// Reductions: with the innermost merged dim reduced (contiguous runs) and
// enough elements per output, a block of threads reduces each output (tree
// in shared memory); otherwise one thread reduces each output, walking the
// reduced dims with an odometer, so neighbouring threads read neighbouring
// elements when the innermost dim is kept. Few outputs over long reductions
// also get a block each.
//
// Softmax over [outer, len, inner]: inner == 1 gives contiguous rows, one
// warp per row (len <= 1024) or one block per row; inner > 1 gives one
// thread per column (neighbouring threads read neighbouring elements). All
// three make three passes: max, sum of exp(x - max), write.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "plugins/cuda/reduction_sum_mean_max_min.h"

namespace loom {
namespace cuda {
namespace {

constexpr int kBlock = 256;  // threads per block (a power of two, a multiple of 32)
constexpr int64_t kMaxGrid = 65535 * 8;

int GridFor(int64_t units_of_work, int64_t per_block) {
  int64_t g = (units_of_work + per_block - 1) / per_block;
  if (g < 1) g = 1;
  return static_cast<int>(g < kMaxGrid ? g : kMaxGrid);
}

// The type values are compared / converted in (as the CPU kernels do).
template <typename T> struct Compute { using C = float; };  // float, __half, __nv_bfloat16
template <> struct Compute<int32_t> { using C = int32_t; };
template <> struct Compute<int64_t> { using C = int64_t; };

// Accumulation rules of reduction K over storage type T, as in
// plugins/cpu/reduction_sum_mean_max_min.cc: float sums in double, integer
// sums in 64 bits wrapping like the type, Max / Min keep a NaN once they meet
// one.
template <ReduceOp K, typename T>
struct Red {
  using C = typename Compute<T>::C;
  static constexpr bool kSumLike = K == ReduceOp::kSum || K == ReduceOp::kMean;
  static constexpr bool kFloat = std::is_floating_point<C>::value;
  using Acc = std::conditional_t<!kSumLike, C, std::conditional_t<kFloat, double, int64_t>>;

  __host__ __device__ __forceinline__ static Acc Init() {
    if constexpr (kSumLike) {
      return Acc(0);
    } else if constexpr (K == ReduceOp::kMax) {
      if constexpr (kFloat) return -INFINITY;
      else if constexpr (std::is_same<C, int32_t>::value) return INT32_MIN;
      else return INT64_MIN;
    } else {
      if constexpr (kFloat) return INFINITY;
      else if constexpr (std::is_same<C, int32_t>::value) return INT32_MAX;
      else return INT64_MAX;
    }
  }
  __host__ __device__ __forceinline__ static Acc Merge(Acc a, Acc x) {
    if constexpr (kSumLike) {
      if constexpr (kFloat) return a + x;
      else return static_cast<Acc>(static_cast<uint64_t>(a) + static_cast<uint64_t>(x));
    } else if constexpr (K == ReduceOp::kMax) {
      if constexpr (kFloat) return (a < x || x != x) ? x : a;  // x != x: NaN (no fast-math here)
      else return a < x ? x : a;
    } else {
      if constexpr (kFloat) return (x < a || x != x) ? x : a;
      else return x < a ? x : a;
    }
  }
  __host__ __device__ __forceinline__ static Acc Load(T v) { return static_cast<Acc>(static_cast<C>(v)); }
  __host__ __device__ __forceinline__ static T Finish(Acc a, int64_t count) {
    if constexpr (K == ReduceOp::kMean) {
      if constexpr (kFloat) return static_cast<T>(static_cast<float>(a / static_cast<double>(count)));  // 0/0: NaN
      else return count == 0 ? T(0) : static_cast<T>(a / static_cast<Acc>(count));
    } else if constexpr (kSumLike && kFloat) {
      return static_cast<T>(static_cast<float>(a));
    } else {
      return static_cast<T>(a);
    }
  }
};

__host__ __device__ __forceinline__ int64_t OffsetOf(int64_t flat, const int64_t* dims, const int64_t* strides, int n) {
  int64_t off = 0;
  for (int j = n - 1; j >= 0; --j) {
    off += (flat % dims[j]) * strides[j];
    flat /= dims[j];
  }
  return off;
}

// Output o of a thread-per-output reduction.
template <ReduceOp K, typename T>
__host__ __device__ __forceinline__ T ReduceOne(const ReduceLayout& l, const T* x, int64_t o) {
  using R = Red<K, T>;
  const T* base = x + OffsetOf(o, l.kdims, l.kstrides, l.nk);
  int64_t idx[kMaxReduceDims] = {};
  int64_t off = 0;
  typename R::Acc acc = R::Init();
  for (int64_t t = 0; t < l.count; ++t) {
    acc = R::Merge(acc, R::Load(base[off]));
    for (int j = l.nr - 1; j >= 0; --j) {  // odometer step over the reduced dims
      off += l.rstrides[j];
      if (++idx[j] < l.rdims[j]) break;
      off -= idx[j] * l.rstrides[j];
      idx[j] = 0;
    }
  }
  return R::Finish(acc, l.count);
}

// The partial result of output o's reduced elements t = first, first +
// step, ... (one thread's share of a block-per-output reduction).
template <ReduceOp K, typename T>
__host__ __device__ __forceinline__ typename Red<K, T>::Acc ReducePart(const ReduceLayout& l, const T* x, int64_t o,
                                                                       int64_t first, int64_t step) {
  using R = Red<K, T>;
  const T* base = x + OffsetOf(o, l.kdims, l.kstrides, l.nk);
  typename R::Acc acc = R::Init();
  if (l.nr == 1) {
    const int64_t rs = l.rstrides[0];
    for (int64_t t = first; t < l.count; t += step) acc = R::Merge(acc, R::Load(base[t * rs]));
  } else {
    for (int64_t t = first; t < l.count; t += step) {
      acc = R::Merge(acc, R::Load(base[OffsetOf(t, l.rdims, l.rstrides, l.nr)]));
    }
  }
  return acc;
}

template <ReduceOp K, typename T>
__global__ void ReducePerThread(ReduceLayout l, const T* x, T* y) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < l.n_out;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[o] = ReduceOne<K, T>(l, x, o);
  }
}

template <ReduceOp K, typename T>
__global__ void ReducePerBlock(ReduceLayout l, const T* x, T* y) {
  using R = Red<K, T>;
  using Acc = typename R::Acc;
  __shared__ Acc buf[kBlock];
  const int tid = threadIdx.x;
  for (int64_t o = blockIdx.x; o < l.n_out; o += gridDim.x) {  // block-uniform loop
    buf[tid] = ReducePart<K, T>(l, x, o, tid, kBlock);
    __syncthreads();
    for (int s = kBlock / 2; s > 0; s >>= 1) {
      if (tid < s) buf[tid] = R::Merge(buf[tid], buf[tid + s]);
      __syncthreads();
    }
    if (tid == 0) y[o] = R::Finish(buf[0], l.count);
    __syncthreads();  // buf is reused by the next output
  }
}

// Whether a reduction runs a block per output (else a thread per output).
inline bool PerBlock(const ReduceLayout& l) {
  return (l.inner_reduced && l.count >= 64) || (!l.inner_reduced && l.n_out < 1024 && l.count >= 1024);
}

template <ReduceOp K, typename T>
cudaError_t Reduce(const ReduceLayout& l, const T* x, T* y, cudaStream_t s) {
  if (PerBlock(l)) {
    ReducePerBlock<K, T><<<GridFor(l.n_out, 1), kBlock, 0, s>>>(l, x, y);
  } else {
    ReducePerThread<K, T><<<GridFor(l.n_out, kBlock), kBlock, 0, s>>>(l, x, y);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t ReduceTyped(ReduceOp op, const ReduceLayout& l, const void* x, void* y, cudaStream_t s) {
  const T* in = static_cast<const T*>(x);
  T* out = static_cast<T*>(y);
  switch (op) {
    case ReduceOp::kSum: return Reduce<ReduceOp::kSum, T>(l, in, out, s);
    case ReduceOp::kMean: return Reduce<ReduceOp::kMean, T>(l, in, out, s);
    case ReduceOp::kMax: return Reduce<ReduceOp::kMax, T>(l, in, out, s);
    case ReduceOp::kMin: return Reduce<ReduceOp::kMin, T>(l, in, out, s);
  }
  return cudaErrorInvalidValue;
}

// ---- Softmax ----

template <typename T> __device__ __forceinline__ float Ld(const T* p, int64_t i) { return static_cast<float>(p[i]); }

// Writes softmax / log-softmax of src[k] for k = first, first + step, ...
template <bool kLog, typename T>
__device__ __forceinline__ void WriteRow(const T* src, T* dst, int64_t len, int64_t first, int64_t step, float mx,
                                         float sum) {
  if (kLog) {
    // (x - max) - log(sum), as on the CPU: x - (max + log(sum)) would round
    // log(sum) away next to a large max.
    const float log_sum = logf(sum);
    for (int64_t k = first; k < len; k += step) dst[k] = static_cast<T>((Ld(src, k) - mx) - log_sum);
  } else {
    const float inv = 1.f / sum;
    for (int64_t k = first; k < len; k += step) dst[k] = static_cast<T>(expf(Ld(src, k) - mx) * inv);
  }
}

__device__ __forceinline__ float WarpMax(float v) {
  for (int s = 16; s > 0; s >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, s));
  return v;
}
__device__ __forceinline__ float WarpSum(float v) {
  for (int s = 16; s > 0; s >>= 1) v += __shfl_xor_sync(0xffffffffu, v, s);
  return v;
}

// One warp per contiguous row (the row index is warp-uniform, so every lane
// takes part in the shuffles).
template <bool kLog, typename T>
__global__ void SoftmaxWarpRows(int64_t rows, int64_t len, const T* x, T* y) {
  const int lane = threadIdx.x & 31;
  const int64_t warp = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t r = warp; r < rows; r += warps) {
    const T* src = x + r * len;
    T* dst = y + r * len;
    float mx = -INFINITY;
    for (int64_t k = lane; k < len; k += 32) mx = fmaxf(mx, Ld(src, k));
    mx = WarpMax(mx);
    float sum = 0.f;
    for (int64_t k = lane; k < len; k += 32) sum += expf(Ld(src, k) - mx);
    sum = WarpSum(sum);
    WriteRow<kLog>(src, dst, len, lane, 32, mx, sum);
  }
}

// Max (is_max) or sum of v over the block; every thread gets the result.
__device__ __forceinline__ float BlockReduce(float v, bool is_max, float* red) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  v = is_max ? WarpMax(v) : WarpSum(v);
  if (lane == 0) red[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < kBlock / 32 ? red[lane] : (is_max ? -INFINITY : 0.f);
    v = is_max ? WarpMax(v) : WarpSum(v);
    if (lane == 0) red[32] = v;
  }
  __syncthreads();
  const float r = red[32];
  __syncthreads();  // red is reused by the next call
  return r;
}

// One block per contiguous row (long rows).
template <bool kLog, typename T>
__global__ void SoftmaxBlockRows(int64_t rows, int64_t len, const T* x, T* y) {
  __shared__ float red[33];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {  // block-uniform loop
    const T* src = x + r * len;
    T* dst = y + r * len;
    float mx = -INFINITY;
    for (int64_t k = threadIdx.x; k < len; k += kBlock) mx = fmaxf(mx, Ld(src, k));
    mx = BlockReduce(mx, true, red);
    float sum = 0.f;
    for (int64_t k = threadIdx.x; k < len; k += kBlock) sum += expf(Ld(src, k) - mx);
    sum = BlockReduce(sum, false, red);
    WriteRow<kLog>(src, dst, len, threadIdx.x, kBlock, mx, sum);
  }
}

// One thread per column (o, i) of [outer, len, inner], inner > 1.
template <bool kLog, typename T>
__global__ void SoftmaxColumns(int64_t outer, int64_t len, int64_t inner, const T* x, T* y) {
  const int64_t cols = outer * inner;
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < cols;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t base = (c / inner) * len * inner + c % inner;
    const T* src = x + base;
    T* dst = y + base;
    float mx = -INFINITY;
    for (int64_t k = 0; k < len; ++k) mx = fmaxf(mx, Ld(src, k * inner));
    float sum = 0.f;
    for (int64_t k = 0; k < len; ++k) sum += expf(Ld(src, k * inner) - mx);
    if (kLog) {
      const float log_sum = logf(sum);
      for (int64_t k = 0; k < len; ++k) dst[k * inner] = static_cast<T>((Ld(src, k * inner) - mx) - log_sum);
    } else {
      const float inv = 1.f / sum;
      for (int64_t k = 0; k < len; ++k) dst[k * inner] = static_cast<T>(expf(Ld(src, k * inner) - mx) * inv);
    }
  }
}

template <bool kLog, typename T>
cudaError_t Softmax(int64_t outer, int64_t len, int64_t inner, const T* x, T* y, cudaStream_t s) {
  if (inner > 1) {
    SoftmaxColumns<kLog, T><<<GridFor(outer * inner, kBlock), kBlock, 0, s>>>(outer, len, inner, x, y);
  } else if (len <= 1024) {
    SoftmaxWarpRows<kLog, T><<<GridFor(outer, kBlock / 32), kBlock, 0, s>>>(outer, len, x, y);
  } else {
    SoftmaxBlockRows<kLog, T><<<GridFor(outer, 1), kBlock, 0, s>>>(outer, len, x, y);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t SoftmaxTyped(bool log_softmax, int64_t outer, int64_t len, int64_t inner, const void* x, void* y,
                         cudaStream_t s) {
  const T* in = static_cast<const T*>(x);
  T* out = static_cast<T*>(y);
  return log_softmax ? Softmax<true, T>(outer, len, inner, in, out, s) : Softmax<false, T>(outer, len, inner, in, out, s);
}

}  // namespace

cudaError_t LaunchReduce(ReduceOp op, LoomDataType dtype, const ReduceLayout& l, const void* x, void* y,
                         cudaStream_t s) {
  if (l.n_out == 0) return cudaSuccess;
  switch (dtype) {
    case LOOM_DTYPE_FLOAT: return ReduceTyped<float>(op, l, x, y, s);
    case LOOM_DTYPE_FLOAT16: return ReduceTyped<__half>(op, l, x, y, s);
    case LOOM_DTYPE_BFLOAT16: return ReduceTyped<__nv_bfloat16>(op, l, x, y, s);
    case LOOM_DTYPE_INT32: return ReduceTyped<int32_t>(op, l, x, y, s);
    case LOOM_DTYPE_INT64: return ReduceTyped<int64_t>(op, l, x, y, s);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchSoftmax(bool log_softmax, LoomDataType dtype, int64_t outer, int64_t len, int64_t inner,
                          const void* x, void* y, cudaStream_t s) {
  if (outer * len * inner == 0) return cudaSuccess;
  switch (dtype) {
    case LOOM_DTYPE_FLOAT: return SoftmaxTyped<float>(log_softmax, outer, len, inner, x, y, s);
    case LOOM_DTYPE_FLOAT16: return SoftmaxTyped<__half>(log_softmax, outer, len, inner, x, y, s);
    case LOOM_DTYPE_BFLOAT16: return SoftmaxTyped<__nv_bfloat16>(log_softmax, outer, len, inner, x, y, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace cuda
}  // namespace loom
