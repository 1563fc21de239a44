// Device entry points of the CUDA reduction family (reduction_sum_mean_max_min.cc: Softmax,
// LogSoftmax, ReduceSum / ReduceMean / ReduceMax / ReduceMin).
#ifndef LOOM_PLUGINS_CUDA_REDUCTION_SUM_MEAN_MAX_MIN_H_
#define LOOM_PLUGINS_CUDA_REDUCTION_SUM_MEAN_MAX_MIN_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "core/api/loom_c_api.h"

namespace loom {
namespace cuda {

enum class ReduceOp { kSum, kMean, kMax, kMin };

// Most merged kept dims and most merged reduced dims of a reduction.
constexpr int kMaxReduceDims = 8;

// A reduction's input as kept and reduced dims (size-1 dims dropped,
// neighbours of the same kind merged), each with its input element stride.
// Output o (row-major over kdims) reduces the `count` elements at
// offset(o over kdims) + offset(t over rdims), t < count.
struct ReduceLayout {
  int nk = 0, nr = 0;
  int64_t kdims[kMaxReduceDims] = {}, kstrides[kMaxReduceDims] = {};
  int64_t rdims[kMaxReduceDims] = {}, rstrides[kMaxReduceDims] = {};
  int64_t n_out = 1, count = 1;
  bool inner_reduced = false;  // the innermost merged dim is reduced (stride 1)
};

// y[o] = op over the `count` elements of output o (see ReduceLayout), for
// float32, float16, bfloat16 (sums in double, max/min in float), int32 and
// int64 (sums in 64 bits, wrapping). Empty reductions (count = 0) give the
// identity: 0, NaN for a float mean (0 for an integer mean), -inf / +inf or
// the integer limits for max / min. Max / Min propagate NaN.
// cudaErrorInvalidValue for another dtype.
cudaError_t LaunchReduce(ReduceOp op, LoomDataType dtype, const ReduceLayout& layout, const void* x, void* y,
                         cudaStream_t stream);

// Softmax (log_softmax = false) or LogSoftmax of x viewed as
// [outer, len, inner] along the middle dim, into y of the same shape.
// float32, float16, bfloat16 (computed in float); cudaErrorInvalidValue for
// another dtype.
cudaError_t LaunchSoftmax(bool log_softmax, LoomDataType dtype, int64_t outer, int64_t len, int64_t inner,
                          const void* x, void* y, cudaStream_t stream);

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_REDUCTION_SUM_MEAN_MAX_MIN_H_
