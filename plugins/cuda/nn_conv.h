// Device helpers of the convolutions (nn_conv.cc: Conv, FusedConv,
// ConvTranspose on cuDNN): the copies and bias additions around cuDNN's
// convolutions (nn_conv.cu). Every launcher returns cudaGetLastError() after
// enqueuing on `stream`, cudaErrorInvalidValue for an unsupported dtype, and
// does nothing for an empty range.
#ifndef LOOM_PLUGINS_CUDA_NN_CONV_H_
#define LOOM_PLUGINS_CUDA_NN_CONV_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "core/api/loom_c_api.h"

namespace loom {
namespace cuda {

constexpr int kMaxCopyRank = 5;

// y [ydims] from x [xdims] (same rank): y[j] = x[j + offset] where that lies
// inside x, else 0; plus bias[j[1]] (per channel) when bias is not null.
struct ShiftCopyParams {
  int rank = 0;
  int64_t ydims[kMaxCopyRank] = {};
  int64_t xdims[kMaxCopyRank] = {};
  int64_t offset[kMaxCopyRank] = {};
};
// dtype: float32 or float16 (x, y and bias alike).
cudaError_t LaunchShiftCopy(LoomDataType dtype, const ShiftCopyParams& p, const void* x, const void* bias, void* y,
                            cudaStream_t stream);

// y [N, C, S] += bias [C], in place. float32 or float16.
cudaError_t LaunchAddChannelBias(LoomDataType dtype, int64_t N, int64_t C, int64_t S, const void* bias, void* y,
                                 cudaStream_t stream);

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_NN_CONV_H_
