// Device code of the tensor family (see tensor_shape_copy_cast.h): grid-stride kernels
// for the strided copy, Gather, Cast and Where.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "plugins/cuda/device_util.h"
#include "plugins/cuda/tensor_shape_copy_cast.h"

namespace loom {
namespace cuda {
namespace {

// Below this bound every index and offset of a copy fits in int32 with room
// for the grid stride (at most 65535 * 8 * 256 < 2^28), so the cheaper 32-bit
// divisions cannot overflow.
constexpr int64_t kInt32Safe = int64_t{1} << 30;

// ---- Strided copy --------------------------------------------------------------

template <typename T, typename I>
__global__ void StridedCopyKernel(CopyIndex ix, I n, const T* __restrict__ src, T* __restrict__ dst) {
  for (I i = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x); i < n;
       i += static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x)) {
    I rem = i, so = static_cast<I>(ix.src_base), dof = static_cast<I>(ix.dst_base);
    for (int d = ix.rank - 1; d >= 0; --d) {
      const I dim = static_cast<I>(ix.dims[d]);
      const I c = rem % dim;
      rem /= dim;
      so += c * static_cast<I>(ix.src_strides[d]);
      dof += c * static_cast<I>(ix.dst_strides[d]);
    }
    dst[dof] = src[so];
  }
}

// Largest |offset| the copy reaches on one side.
int64_t Reach(const CopyIndex& ix, const int64_t* strides, int64_t base) {
  int64_t r = base < 0 ? -base : base;
  for (int d = 0; d < ix.rank; ++d) {
    const int64_t s = strides[d] < 0 ? -strides[d] : strides[d];
    if (ix.dims[d] > 1 && s > 0) {
      if (s >= kInt32Safe || ix.dims[d] - 1 >= kInt32Safe) return kInt32Safe;  // no overflow in the product
      r += (ix.dims[d] - 1) * s;
      if (r >= kInt32Safe) return kInt32Safe;
    }
  }
  return r;
}

template <typename T>
cudaError_t StridedCopy(const CopyIndex& ix, int64_t n, const void* src, void* dst, cudaStream_t s) {
  const T* in = static_cast<const T*>(src);
  T* out = static_cast<T*>(dst);
  const int g = Blocks(n);
  if (n < kInt32Safe && Reach(ix, ix.src_strides, ix.src_base) < kInt32Safe &&
      Reach(ix, ix.dst_strides, ix.dst_base) < kInt32Safe) {
    StridedCopyKernel<T, int32_t><<<g, kThreads, 0, s>>>(ix, static_cast<int32_t>(n), in, out);
  } else {
    StridedCopyKernel<T, int64_t><<<g, kThreads, 0, s>>>(ix, n, in, out);
  }
  return cudaGetLastError();
}

// ---- Gather ----------------------------------------------------------------------

template <typename T, typename Ind>
__global__ void GatherKernel(int64_t total, int64_t dim, int64_t inner, int64_t num_indices, const T* __restrict__ data,
                             const Ind* __restrict__ indices, T* __restrict__ out) {
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = e % inner, k = e / inner;
    const int64_t j = k % num_indices, o = k / num_indices;
    int64_t v = static_cast<int64_t>(indices[j]);
    if (v < 0) v += dim;
    out[e] = data[(o * dim + v) * inner + i];
  }
}

template <typename T>
cudaError_t Gather(int64_t outer, int64_t dim, int64_t inner, int64_t num_indices, const void* data,
                   const void* indices, bool indices64, void* out, cudaStream_t s) {
  const int64_t total = outer * num_indices * inner;
  const int g = Blocks(total);
  if (indices64) {
    GatherKernel<T, int64_t><<<g, kThreads, 0, s>>>(total, dim, inner, num_indices, static_cast<const T*>(data),
                                                    static_cast<const int64_t*>(indices), static_cast<T*>(out));
  } else {
    GatherKernel<T, int32_t><<<g, kThreads, 0, s>>>(total, dim, inner, num_indices, static_cast<const T*>(data),
                                                    static_cast<const int32_t*>(indices), static_cast<T*>(out));
  }
  return cudaGetLastError();
}

// ---- Cast --------------------------------------------------------------------------

// bool storage read as a byte, so that a byte other than 0/1 is no undefined
// behaviour (nonzero is true).
struct BoolByte {
  uint8_t b;
};

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// float16/bfloat16 compute as float, bool as bool; the others as themselves.
template <typename From>
__device__ __forceinline__ auto Widen(From v) {
  if constexpr (std::is_same_v<From, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<From, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else if constexpr (std::is_same_v<From, BoolByte>) {
    return v.b != 0;
  } else {
    return v;
  }
}

// As the CPU plugin (numpy astype on x86): NaN gives 0, truncation toward
// zero, saturation at int64's range, then wrap modulo 2^bits.
template <typename To>
__device__ __forceinline__ To FloatToInt(double x) {
  if (isnan(x)) return To(0);
  x = trunc(x);
  if constexpr (std::is_same_v<To, uint64_t>) {
    if (x >= 9223372036854775808.0) {
      return x >= 18446744073709551616.0 ? To(0xffffffffffffffffull) : static_cast<uint64_t>(x);
    }
  }
  int64_t i;
  if (x >= 9223372036854775808.0) {
    i = INT64_MAX;
  } else if (x < -9223372036854775808.0) {
    i = INT64_MIN;
  } else {
    i = static_cast<int64_t>(x);
  }
  return static_cast<To>(i);  // modulo 2^bits
}

template <typename To, typename From>
__device__ __forceinline__ To Convert(From v) {
  const auto w = Widen(v);
  using W = std::remove_const_t<decltype(w)>;
  if constexpr (std::is_same_v<To, BoolByte>) {
    return BoolByte{static_cast<uint8_t>(w != W(0) ? 1 : 0)};
  } else if constexpr (std::is_same_v<To, __half>) {
    return __float2half_rn(static_cast<float>(w));  // doubles round to float first, as on the CPU
  } else if constexpr (std::is_same_v<To, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(w));
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(w);
  } else if constexpr (std::is_floating_point_v<W>) {
    return FloatToInt<To>(static_cast<double>(w));
  } else {
    return static_cast<To>(w);
  }
}

template <typename To, typename From>
__global__ void CastKernel(int64_t n, const From* __restrict__ x, To* __restrict__ y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = Convert<To, From>(x[i]);
  }
}

template <typename T>
struct Tag {
  using type = T;
};

// Calls f(Tag<T>{}) with T the device storage type of `t`; false for a dtype
// Cast does not handle.
template <typename F>
bool DispatchCastType(LoomDataType t, F&& f) {
  switch (t) {
    case LOOM_DTYPE_FLOAT: f(Tag<float>{}); return true;
    case LOOM_DTYPE_DOUBLE: f(Tag<double>{}); return true;
    case LOOM_DTYPE_FLOAT16: f(Tag<__half>{}); return true;
    case LOOM_DTYPE_BFLOAT16: f(Tag<__nv_bfloat16>{}); return true;
    case LOOM_DTYPE_INT8: f(Tag<int8_t>{}); return true;
    case LOOM_DTYPE_UINT8: f(Tag<uint8_t>{}); return true;
    case LOOM_DTYPE_INT32: f(Tag<int32_t>{}); return true;
    case LOOM_DTYPE_INT64: f(Tag<int64_t>{}); return true;
    case LOOM_DTYPE_BOOL: f(Tag<BoolByte>{}); return true;
    default: return false;
  }
}

// ---- Where --------------------------------------------------------------------------

template <typename T>
__global__ void WhereKernel(WhereIndex ix, int64_t n, const uint8_t* __restrict__ c, const T* __restrict__ x,
                            const T* __restrict__ y, T* __restrict__ out) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rem = i, oc = 0, ox = 0, oy = 0;
    for (int d = ix.rank - 1; d >= 0; --d) {
      const int64_t k = rem % ix.dims[d];
      rem /= ix.dims[d];
      oc += k * ix.sc[d];
      ox += k * ix.sx[d];
      oy += k * ix.sy[d];
    }
    out[i] = c[oc] != 0 ? x[ox] : y[oy];
  }
}

template <typename T>
cudaError_t Where(const WhereIndex& ix, int64_t n, const void* c, const void* x, const void* y, void* out,
                  cudaStream_t s) {
  WhereKernel<T><<<Blocks(n), kThreads, 0, s>>>(ix, n, static_cast<const uint8_t*>(c), static_cast<const T*>(x),
                                                 static_cast<const T*>(y), static_cast<T*>(out));
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchStridedCopy(size_t esize, const CopyIndex& ix, int64_t n, const void* src, void* dst,
                              cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (ix.rank < 1 || ix.rank > kMaxRank) return cudaErrorInvalidValue;
  switch (esize) {
    case 1: return StridedCopy<uint8_t>(ix, n, src, dst, s);
    case 2: return StridedCopy<uint16_t>(ix, n, src, dst, s);
    case 4: return StridedCopy<uint32_t>(ix, n, src, dst, s);
    case 8: return StridedCopy<uint64_t>(ix, n, src, dst, s);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchGather(size_t esize, int64_t outer, int64_t dim, int64_t inner, int64_t num_indices,
                         const void* data, const void* indices, bool indices64, void* out, cudaStream_t s) {
  if (outer == 0 || inner == 0 || num_indices == 0) return cudaSuccess;
  switch (esize) {
    case 1: return Gather<uint8_t>(outer, dim, inner, num_indices, data, indices, indices64, out, s);
    case 2: return Gather<uint16_t>(outer, dim, inner, num_indices, data, indices, indices64, out, s);
    case 4: return Gather<uint32_t>(outer, dim, inner, num_indices, data, indices, indices64, out, s);
    case 8: return Gather<uint64_t>(outer, dim, inner, num_indices, data, indices, indices64, out, s);
    default: return cudaErrorInvalidValue;
  }
}

bool CastSupports(LoomDataType t) {
  return DispatchCastType(t, [](auto) {});
}

cudaError_t LaunchCast(LoomDataType from, LoomDataType to, int64_t n, const void* x, void* y, cudaStream_t s) {
  if (!CastSupports(from) || !CastSupports(to)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  const int g = Blocks(n);
  DispatchCastType(from, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    DispatchCastType(to, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      CastKernel<To, From><<<g, kThreads, 0, s>>>(n, static_cast<const From*>(x), static_cast<To*>(y));
    });
  });
  return cudaGetLastError();
}

cudaError_t LaunchWhere(size_t esize, const WhereIndex& ix, int64_t n, const void* c, const void* x, const void* y,
                        void* out, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (ix.rank < 0 || ix.rank > kMaxRank) return cudaErrorInvalidValue;
  switch (esize) {
    case 1: return Where<uint8_t>(ix, n, c, x, y, out, s);
    case 2: return Where<uint16_t>(ix, n, c, x, y, out, s);
    case 4: return Where<uint32_t>(ix, n, c, x, y, out, s);
    case 8: return Where<uint64_t>(ix, n, c, x, y, out, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace cuda
}  // namespace loom
