// The CUDA device that the cuda plugin registers with the core (device type
// "CUDA"; device ids are CUDA ordinals): memory from a CachingAllocator per
// GPU, copies, streams and events through the CUDA runtime.
//
// Copies between host and device go through a pinned (page-locked) staging
// buffer per GPU (in 8 MiB chunks), because the core hands pageable host
// memory and cudaMemcpyAsync from pageable memory is synchronous anyway;
// they complete before Copy returns. Device-to-device copies are
// asynchronous on the given stream. Streams are non-blocking; events have
// timing disabled.
//
// Environment: LOOM_CUDA_MEMORY_LIMIT (bytes; 0 or unset = no limit) caps each
// GPU's allocator.
#ifndef LOOM_PLUGINS_CUDA_CUDA_DEVICE_H_
#define LOOM_PLUGINS_CUDA_CUDA_DEVICE_H_

#include <string>

#include "core/api/loom_c_api.h"
#include "plugins/cuda/caching_allocator.h"

namespace loom {
namespace cuda {

// The device table to register (user_data points at a process-wide state).
LoomDeviceDef CudaDeviceDef();

// Number of usable GPUs; 0 when cudaGetDeviceCount fails (no driver, no
// device). *why gets the CUDA error then.
int DeviceCount(std::string* why = nullptr);

// The allocator statistics of GPU `device_id` (zeros if never used).
AllocatorStats MemoryStats(int device_id);

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_CUDA_DEVICE_H_
