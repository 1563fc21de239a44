// Device code of the recurrent family (see rnn.h). The kernels only move
// elements, so they run on same-sized unsigned integers (4 or 8 bytes).
#include <algorithm>

#include "plugins/cuda/rnn.h"

namespace loom {
namespace cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 4096;

int Blocks(int64_t n) { return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks)); }

template <typename T>
__global__ void PackKernel(RnnPackJobs jobs) {
  const RnnPackJob job = jobs.job[blockIdx.y];
  const T* src = static_cast<const T*>(job.src);
  T* dst = static_cast<T*>(job.dst);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < job.count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = src ? src[i] : T(0);
  }
}

template <typename T>
__global__ void ReverseKernel(const T* src, T* dst, int64_t T_, int64_t N, int64_t C, const int32_t* lens,
                              bool batch_major) {
  const int64_t n_total = T_ * N * C;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n_total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = i % C;
    const int64_t row = i / C;  // t * N + n, or n * T + t when batch-major
    const int64_t t = batch_major ? row % T_ : row / N;
    const int64_t n = batch_major ? row / T_ : row % N;
    const int64_t len = lens[n];
    if (t < len) {
      const int64_t ts = len - 1 - t;
      const int64_t src_row = batch_major ? n * T_ + ts : ts * N + n;
      dst[i] = src[src_row * C + c];
    } else {
      dst[i] = T(0);
    }
  }
}

template <typename T>
__global__ void SwapMiddleKernel(const T* src, T* dst, int64_t outer, int64_t A, int64_t B, int64_t inner) {
  const int64_t n_total = outer * A * B * inner;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n_total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    // i indexes dst [outer, B, A, inner].
    const int64_t in = i % inner;
    int64_t rem = i / inner;
    const int64_t a = rem % A;
    rem /= A;
    const int64_t b = rem % B;
    const int64_t o = rem / B;
    dst[i] = src[((o * A + a) * B + b) * inner + in];
  }
}

template <typename T>
cudaError_t Pack(const RnnPackJobs& jobs, int64_t max_count, cudaStream_t stream) {
  dim3 grid(Blocks(max_count), jobs.count);
  PackKernel<T><<<grid, kThreads, 0, stream>>>(jobs);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchRnnPack(const RnnPackJobs& jobs, size_t esize, int64_t max_count, cudaStream_t stream) {
  if (jobs.count <= 0 || max_count <= 0) return cudaSuccess;
  if (jobs.count > kMaxRnnPackJobs) return cudaErrorInvalidValue;
  if (esize == 4) return Pack<uint32_t>(jobs, max_count, stream);
  if (esize == 8) return Pack<uint64_t>(jobs, max_count, stream);
  return cudaErrorInvalidValue;
}

cudaError_t LaunchRnnReverse(size_t esize, const void* src, void* dst, int64_t T, int64_t N, int64_t C,
                             const int32_t* lens, bool batch_major, cudaStream_t stream) {
  const int64_t n = T * N * C;
  if (n <= 0) return cudaSuccess;
  if (esize == 4) {
    ReverseKernel<uint32_t><<<Blocks(n), kThreads, 0, stream>>>(static_cast<const uint32_t*>(src),
                                                                 static_cast<uint32_t*>(dst), T, N, C, lens, batch_major);
  } else if (esize == 8) {
    ReverseKernel<uint64_t><<<Blocks(n), kThreads, 0, stream>>>(static_cast<const uint64_t*>(src),
                                                                 static_cast<uint64_t*>(dst), T, N, C, lens, batch_major);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchRnnSwapMiddle(size_t esize, const void* src, void* dst, int64_t outer, int64_t A, int64_t B,
                                int64_t inner, cudaStream_t stream) {
  const int64_t n = outer * A * B * inner;
  if (n <= 0) return cudaSuccess;
  if (esize == 4) {
    SwapMiddleKernel<uint32_t><<<Blocks(n), kThreads, 0, stream>>>(static_cast<const uint32_t*>(src),
                                                                    static_cast<uint32_t*>(dst), outer, A, B, inner);
  } else if (esize == 8) {
    SwapMiddleKernel<uint64_t><<<Blocks(n), kThreads, 0, stream>>>(static_cast<const uint64_t*>(src),
                                                                    static_cast<uint64_t*>(dst), outer, A, B, inner);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace loom
