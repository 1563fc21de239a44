#include "plugins/cuda/cuda_device.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/cuda/cuda_status.h"

namespace loom {
namespace cuda {
namespace {

constexpr size_t kStagingBytes = 8 << 20;

struct Gpu {
  std::unique_ptr<CachingAllocator> allocator;
  std::mutex staging_mu;
  void* staging = nullptr;  // pinned host buffer, kStagingBytes
};

struct State {
  std::mutex mu;
  std::vector<std::unique_ptr<Gpu>> gpus;

  Gpu* Get(int id) {
    std::lock_guard<std::mutex> lock(mu);
    if (id < 0) return nullptr;
    if (gpus.size() <= static_cast<size_t>(id)) gpus.resize(id + 1);
    if (!gpus[id]) {
      auto g = std::make_unique<Gpu>();
      const char* env = std::getenv("LOOM_CUDA_MEMORY_LIMIT");
      size_t limit = env ? std::strtoull(env, nullptr, 10) : 0;
      g->allocator = std::make_unique<CachingAllocator>(
          [id](size_t bytes, std::string* error) -> void* {
            void* p = nullptr;
            cudaSetDevice(id);
            cudaError_t e = cudaMalloc(&p, bytes);
            if (e != cudaSuccess) {
              *error = CudaErrorString(e);
              cudaGetLastError();  // clear the sticky-free error state
              return nullptr;
            }
            return p;
          },
          [id](void* p) {
            cudaSetDevice(id);
            cudaFree(p);
          },
          limit);
      gpus[id] = std::move(g);
    }
    return gpus[id].get();
  }
};

State& GetState() {
  static State* s = new State;  // never destroyed: plugins may unload late
  return *s;
}

int Count(void*) { return DeviceCount(); }

LoomStatus* Allocate(void*, int id, size_t bytes, void** ptr) {
  Gpu* g = GetState().Get(id);
  if (g == nullptr) return sdk::InvalidArgument("CUDA: bad device id " + std::to_string(id)).release();
  std::string error;
  *ptr = g->allocator->Allocate(bytes, &error);
  if (*ptr == nullptr && bytes > 0) {
    return sdk::Status(LOOM_RESOURCE_EXHAUSTED, "CUDA:" + std::to_string(id) + ": " + error).release();
  }
  return nullptr;
}

void Deallocate(void*, int id, void* ptr) {
  Gpu* g = GetState().Get(id);
  if (g != nullptr) g->allocator->Free(ptr);
}

LoomStatus* Copy(void*, int id, void* dst, const void* src, size_t bytes, LoomCopyKind kind, void* stream) {
  if (bytes == 0) return nullptr;
  LOOM_CUDA_RETURN_IF_ERROR(cudaSetDevice(id), "cudaSetDevice");
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (kind == LOOM_COPY_DEVICE_TO_DEVICE) {
    LOOM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync D2D");
    return nullptr;
  }
  Gpu* g = GetState().Get(id);
  std::lock_guard<std::mutex> lock(g->staging_mu);
  if (g->staging == nullptr) LOOM_CUDA_RETURN_IF_ERROR(cudaMallocHost(&g->staging, kStagingBytes), "cudaMallocHost");
  for (size_t off = 0; off < bytes; off += kStagingBytes) {
    size_t n = std::min(kStagingBytes, bytes - off);
    if (kind == LOOM_COPY_HOST_TO_DEVICE) {
      std::memcpy(g->staging, static_cast<const char*>(src) + off, n);
      LOOM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(static_cast<char*>(dst) + off, g->staging, n, cudaMemcpyHostToDevice, s),
                                "cudaMemcpyAsync H2D");
      LOOM_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    } else {
      LOOM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(g->staging, static_cast<const char*>(src) + off, n, cudaMemcpyDeviceToHost, s),
                                "cudaMemcpyAsync D2H");
      LOOM_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s), "cudaStreamSynchronize");
      std::memcpy(static_cast<char*>(dst) + off, g->staging, n);
    }
  }
  return nullptr;
}

LoomStatus* CreateStream(void*, int id, void** stream) {
  LOOM_CUDA_RETURN_IF_ERROR(cudaSetDevice(id), "cudaSetDevice");
  cudaStream_t s = nullptr;
  LOOM_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  *stream = s;
  return nullptr;
}

void DestroyStream(void*, int id, void* stream) {
  cudaSetDevice(id);
  cudaStreamDestroy(static_cast<cudaStream_t>(stream));
}

LoomStatus* SynchronizeStream(void*, int id, void* stream) {
  LOOM_CUDA_RETURN_IF_ERROR(cudaSetDevice(id), "cudaSetDevice");
  LOOM_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
  return nullptr;
}

LoomStatus* CreateEvent(void*, int id, void** event) {
  LOOM_CUDA_RETURN_IF_ERROR(cudaSetDevice(id), "cudaSetDevice");
  cudaEvent_t e = nullptr;
  LOOM_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  *event = e;
  return nullptr;
}

void DestroyEvent(void*, int id, void* event) {
  cudaSetDevice(id);
  cudaEventDestroy(static_cast<cudaEvent_t>(event));
}

LoomStatus* RecordEvent(void*, int id, void* event, void* stream) {
  LOOM_CUDA_RETURN_IF_ERROR(cudaSetDevice(id), "cudaSetDevice");
  LOOM_CUDA_RETURN_IF_ERROR(cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)),
                            "cudaEventRecord");
  return nullptr;
}

LoomStatus* StreamWaitEvent(void*, int id, void* stream, void* event) {
  LOOM_CUDA_RETURN_IF_ERROR(cudaSetDevice(id), "cudaSetDevice");
  LOOM_CUDA_RETURN_IF_ERROR(
      cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(event), 0), "cudaStreamWaitEvent");
  return nullptr;
}

LoomStatus* SynchronizeEvent(void*, int id, void* event) {
  LOOM_CUDA_RETURN_IF_ERROR(cudaSetDevice(id), "cudaSetDevice");
  LOOM_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "cudaEventSynchronize");
  return nullptr;
}

}  // namespace

int DeviceCount(std::string* why) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why != nullptr) *why = CudaErrorString(e);
    cudaGetLastError();
    return 0;
  }
  return n;
}

AllocatorStats MemoryStats(int device_id) {
  Gpu* g = GetState().Get(device_id);
  return g ? g->allocator->stats() : AllocatorStats{};
}

LoomDeviceDef CudaDeviceDef() {
  LoomDeviceDef d{};
  d.struct_size = sizeof(LoomDeviceDef);
  d.name = "CUDA";
  d.user_data = &GetState();
  d.device_count = &Count;
  d.allocate = &Allocate;
  d.deallocate = &Deallocate;
  d.copy = &Copy;
  d.create_stream = &CreateStream;
  d.destroy_stream = &DestroyStream;
  d.synchronize_stream = &SynchronizeStream;
  d.create_event = &CreateEvent;
  d.destroy_event = &DestroyEvent;
  d.record_event = &RecordEvent;
  d.stream_wait_event = &StreamWaitEvent;
  d.synchronize_event = &SynchronizeEvent;
  return d;
}

}  // namespace cuda
}  // namespace loom
