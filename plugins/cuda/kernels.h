// One registration function per kernel family of the CUDA plugin (device
// "CUDA"); each family's device code is in the .cu file of the same name.
#ifndef LOOM_PLUGINS_CUDA_KERNELS_H_
#define LOOM_PLUGINS_CUDA_KERNELS_H_

#include <cstdint>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/cuda/elementwise.h"

namespace loom {
namespace cuda {

// Numpy broadcast of shapes a and b into *out with per-operand strides;
// false if they do not broadcast or the rank exceeds kMaxRank.
bool PlanBroadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out,
                   BroadcastIndex* index);

sdk::Status RegisterElementwiseKernels(sdk::Registrar& reg);  // elementwise.{cc,cu}

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_KERNELS_H_
