// A caching device allocator, after PyTorch's CUDACachingAllocator and
// Caffe2's CUB allocator: requests are rounded up into size bins, freed
// blocks go back to a free list instead of to the driver, and a later request
// of the same bin reuses one. This keeps cudaMalloc/cudaFree (which
// synchronize the device) out of steady-state runs.
//
// Bins: requests up to 1 MiB round up to a multiple of 512 bytes; larger ones
// to a multiple of 2 MiB. A free block is reused for a request of its bin or
// of a bin at most half its size smaller (so a 4 MiB block may serve 2-4 MiB
// requests, never 1 KiB). The backend (raw allocate/free) is injected, so the
// bookkeeping is tested without a GPU.
//
// Limit: with limit_bytes > 0, reserved bytes (in use + cached) never exceed
// it; a request that would is first retried after returning the cache to the
// backend, then fails with RESOURCE_EXHAUSTED. A backend failure also
// empties the cache and retries once. Thread-safe.
#ifndef LOOM_PLUGINS_CUDA_CACHING_ALLOCATOR_H_
#define LOOM_PLUGINS_CUDA_CACHING_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

namespace loom {
namespace cuda {

struct AllocatorStats {
  size_t bytes_in_use = 0;     // handed out and not yet freed (bin sizes)
  size_t bytes_reserved = 0;   // held from the backend: in use + cached
  size_t peak_bytes_in_use = 0;
  int64_t allocations = 0;     // Allocate calls that returned a block
  int64_t cache_hits = 0;      // ... served from the cache
  int64_t backend_allocations = 0;
  int64_t backend_frees = 0;
};

class CachingAllocator {
 public:
  // backend_alloc returns nullptr on failure and may set *error.
  using BackendAlloc = std::function<void*(size_t bytes, std::string* error)>;
  using BackendFree = std::function<void(void* ptr)>;

  CachingAllocator(BackendAlloc alloc, BackendFree free, size_t limit_bytes = 0);
  ~CachingAllocator();  // returns every block to the backend
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // The bin a request of `bytes` falls in (bytes > 0).
  static size_t RoundUp(size_t bytes);

  // A block of at least `bytes` (nullptr for 0 bytes). On failure returns
  // nullptr and sets *error (the message names the request, the limit or the
  // backend's error).
  void* Allocate(size_t bytes, std::string* error);
  // Returns a block from Allocate to the cache; unknown pointers are ignored
  // (reported by the return value false).
  bool Free(void* ptr);
  // Returns every cached (free) block to the backend.
  void EmptyCache();

  AllocatorStats stats() const;
  size_t limit_bytes() const { return limit_; }

 private:
  void EmptyCacheLocked();

  BackendAlloc alloc_;
  BackendFree free_;
  size_t limit_;
  mutable std::mutex mu_;
  std::multimap<size_t, void*> free_blocks_;     // bin size -> block
  std::unordered_map<void*, size_t> in_use_;     // block -> bin size
  AllocatorStats stats_;
};

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_CACHING_ALLOCATOR_H_
