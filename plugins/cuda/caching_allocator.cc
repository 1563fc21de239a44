#include "plugins/cuda/caching_allocator.h"

#include <algorithm>

namespace loom {
namespace cuda {

namespace {
constexpr size_t kSmallLimit = 1 << 20;    // 1 MiB
constexpr size_t kSmallRound = 512;
constexpr size_t kLargeRound = 2 << 20;    // 2 MiB
}  // namespace

CachingAllocator::CachingAllocator(BackendAlloc alloc, BackendFree free, size_t limit_bytes)
    : alloc_(std::move(alloc)), free_(std::move(free)), limit_(limit_bytes) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mu_);
  EmptyCacheLocked();
  for (auto& [ptr, size] : in_use_) free_(ptr);
}

size_t CachingAllocator::RoundUp(size_t bytes) {
  size_t r = bytes <= kSmallLimit ? kSmallRound : kLargeRound;
  return (bytes + r - 1) / r * r;
}

void* CachingAllocator::Allocate(size_t bytes, std::string* error) {
  if (bytes == 0) return nullptr;
  const size_t bin = RoundUp(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  // Reuse the smallest cached block of this bin or up to twice its size.
  auto it = free_blocks_.lower_bound(bin);
  if (it != free_blocks_.end() && it->first <= 2 * bin) {
    void* p = it->second;
    size_t size = it->first;
    free_blocks_.erase(it);
    in_use_[p] = size;
    stats_.bytes_in_use += size;
    stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
    ++stats_.allocations;
    ++stats_.cache_hits;
    return p;
  }
  if (limit_ > 0 && stats_.bytes_reserved + bin > limit_) {
    EmptyCacheLocked();
    if (stats_.bytes_reserved + bin > limit_) {
      *error = "RESOURCE_EXHAUSTED: allocating " + std::to_string(bytes) + " bytes (bin " + std::to_string(bin) +
               ") would exceed the allocator limit of " + std::to_string(limit_) + " bytes (" +
               std::to_string(stats_.bytes_in_use) + " in use)";
      return nullptr;
    }
  }
  std::string backend_error;
  void* p = alloc_(bin, &backend_error);
  if (p == nullptr && !free_blocks_.empty()) {  // give the cache back and retry
    EmptyCacheLocked();
    backend_error.clear();
    p = alloc_(bin, &backend_error);
  }
  if (p == nullptr) {
    *error = "RESOURCE_EXHAUSTED: device allocation of " + std::to_string(bin) + " bytes failed (" +
             std::to_string(stats_.bytes_in_use) + " bytes in use): " + backend_error;
    return nullptr;
  }
  ++stats_.backend_allocations;
  in_use_[p] = bin;
  stats_.bytes_reserved += bin;
  stats_.bytes_in_use += bin;
  stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  ++stats_.allocations;
  return p;
}

bool CachingAllocator::Free(void* ptr) {
  if (ptr == nullptr) return true;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = in_use_.find(ptr);
  if (it == in_use_.end()) return false;
  stats_.bytes_in_use -= it->second;
  free_blocks_.emplace(it->second, ptr);
  in_use_.erase(it);
  return true;
}

void CachingAllocator::EmptyCache() {
  std::lock_guard<std::mutex> lock(mu_);
  EmptyCacheLocked();
}

void CachingAllocator::EmptyCacheLocked() {
  for (auto& [size, ptr] : free_blocks_) {
    free_(ptr);
    stats_.bytes_reserved -= size;
    ++stats_.backend_frees;
  }
  free_blocks_.clear();
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace cuda
}  // namespace loom
