// Device helpers of the CUDA recurrent family (rnn.cc: ONNX LSTM, GRU, RNN on
// cudnnRNNForward): packing ONNX weights into cuDNN's weight space, reversing
// each sequence's valid prefix (ONNX direction "reverse", which cuDNN has not
// as a unidirectional mode), and swapping two middle dims (ONNX layouts vs
// cuDNN's). Element size 4 (float32) or 8 (float64); these only move bits.
#ifndef LOOM_PLUGINS_CUDA_RNN_H_
#define LOOM_PLUGINS_CUDA_RNN_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace loom {
namespace cuda {

// One contiguous block of the packed weight space: `count` elements copied
// from `src`, or zeros when `src` is null (absent B).
struct RnnPackJob {
  const void* src;
  void* dst;
  int64_t count;
};

// LSTM bidirectional needs the most: 2 directions x 8 matrices x (matrix,
// bias) = 32. Passed by value as a kernel parameter (768 bytes).
constexpr int kMaxRnnPackJobs = 32;
struct RnnPackJobs {
  RnnPackJob job[kMaxRnnPackJobs];
  int count;
};

// Runs every job in one launch; `max_count` is the largest job's count.
cudaError_t LaunchRnnPack(const RnnPackJobs& jobs, size_t esize, int64_t max_count, cudaStream_t stream);

// Per batch entry n, reverses the first lens[n] steps and zeroes the rest:
// dst[t, n, :] = src[lens[n] - 1 - t, n, :] for t < lens[n], else 0.
// Shapes [T, N, C] (time-major) or [N, T, C] (batch_major). `lens` is device
// memory, each in [1, T]. src and dst must not overlap.
cudaError_t LaunchRnnReverse(size_t esize, const void* src, void* dst, int64_t T, int64_t N, int64_t C,
                             const int32_t* lens, bool batch_major, cudaStream_t stream);

// dst[o, b, a, i] = src[o, a, b, i] for src [outer, A, B, inner] (dst is
// [outer, B, A, inner]). src and dst must not overlap.
cudaError_t LaunchRnnSwapMiddle(size_t esize, const void* src, void* dst, int64_t outer, int64_t A, int64_t B,
                                int64_t inner, cudaStream_t stream);

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_RNN_H_
