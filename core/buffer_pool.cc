#include "core/buffer_pool.h"

#include <cstdint>

#include "core/tensor.h"

namespace loom {
namespace {
// s * k, or SIZE_MAX where that overflows.
size_t Times(size_t s, size_t k) { return s > SIZE_MAX / k ? SIZE_MAX : s * k; }
}  // namespace

std::shared_ptr<BufferPool> BufferPool::Create() { return std::shared_ptr<BufferPool>(new BufferPool()); }

BufferPool::~BufferPool() {
  // Buffers hold the pool alive, so none is out now: free the lists.
  for (auto& [key, list] : free_) {
    for (const FreeBuffer& b : list) key.first->Free(b.data);
  }
}

void BufferPool::NewSignature() {
  absl::MutexLock lock(&mu_);
  ++signature_;
}

void* BufferPool::TakeFree(Device* device, size_t size, size_t max_size, bool stale_only, size_t* taken) {
  for (auto it = free_.lower_bound({device, size});
       it != free_.end() && it->first.first == device && it->first.second <= max_size; ++it) {
    std::vector<FreeBuffer>& list = it->second;
    for (size_t i = list.size(); i-- > 0;) {  // the most recently returned first
      if (stale_only && list[i].signature >= signature_) continue;
      void* data = list[i].data;
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
      free_bytes_ -= it->first.second;
      *taken = it->first.second;
      return data;
    }
  }
  return nullptr;
}

void BufferPool::TakeStale(Device* device, size_t size, std::vector<void*>* release) {
  // Largest first, so that as few as possible go.
  size_t released = 0;
  auto it = free_.lower_bound({device, size});
  while (released < size && it != free_.begin()) {
    --it;
    if (it->first.first != device || it->first.second < size / 8) break;
    std::vector<FreeBuffer>& list = it->second;
    for (size_t i = list.size(); i-- > 0 && released < size;) {
      if (list[i].signature >= signature_) continue;
      release->push_back(list[i].data);
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
      free_bytes_ -= it->first.second;
      released += it->first.second;
    }
  }
}

size_t BufferPool::BucketSize(size_t bytes) {
  constexpr size_t kSmall = 4096;
  if (bytes <= kSmall) return (bytes + 63) / 64 * 64;
  // 1/8 steps between powers of two: keep the top four bits.
  size_t top = 63 - static_cast<size_t>(__builtin_clzll(bytes));  // 2^top <= bytes
  size_t step = size_t{1} << (top - 3);
  if (bytes > SIZE_MAX - step) return bytes;  // a size no device gives anyway
  return (bytes + step - 1) / step * step;
}

absl::StatusOr<std::shared_ptr<Buffer>> BufferPool::Allocate(Device* device, size_t bytes) {
  const size_t size = BucketSize(bytes);
  size_t taken = size;  // the bytes of the buffer handed out
  void* data = nullptr;
  std::vector<void*> stale;  // back to the device before allocating
  uint64_t signature = 0;
  {
    absl::MutexLock lock(&mu_);
    // The smallest free buffer of at least `size` and at most twice it
    // (a small request taking a large buffer would make the next large one
    // allocate); else a stale one of up to 8x; else make room.
    data = TakeFree(device, size, Times(size, 2), /*stale_only=*/false, &taken);
    if (data == nullptr) data = TakeFree(device, Times(size, 2), Times(size, 8), /*stale_only=*/true, &taken);
    if (data != nullptr) {
      // The common case (a run like the last) takes the lock once.
      in_use_ += taken;
      if (in_use_ > high_water_) high_water_ = in_use_;
      signature = signature_;
    } else {
      TakeStale(device, size, &stale);
    }
  }
  if (data == nullptr) {
    for (void* p : stale) device->Free(p);
    absl::StatusOr<void*> p = device->Allocate(size);
    if (!p.ok()) {
      // Memory waiting in the free lists may be what the device lacks.
      std::vector<std::pair<Device*, void*>> release;
      {
        absl::MutexLock lock(&mu_);
        for (auto& [key, list] : free_) {
          for (const FreeBuffer& b : list) release.push_back({key.first, b.data});
          list.clear();
        }
        free_bytes_ = 0;
      }
      if (release.empty()) return p.status();
      for (auto& [d, q] : release) d->Free(q);
      p = device->Allocate(size);
      if (!p.ok()) return p.status();
    }
    data = *p;
    absl::MutexLock lock(&mu_);
    ++device_allocations_;
    in_use_ += taken;
    if (in_use_ > high_water_) high_water_ = in_use_;
    signature = signature_;
  }
  std::shared_ptr<Buffer> b(new Buffer(device, data, taken));
  b->pool_ = shared_from_this();
  b->pool_signature_ = signature;
  return b;
}

void BufferPool::Return(Device* device, void* data, size_t bytes, uint64_t signature) {
  bool keep = false;
  {
    absl::MutexLock lock(&mu_);
    in_use_ -= bytes;
    if (free_bytes_ + bytes <= 2 * high_water_) {
      free_[{device, bytes}].push_back({data, signature});
      free_bytes_ += bytes;
      keep = true;
    }
  }
  if (!keep) device->Free(data);
}

size_t BufferPool::in_use_bytes() const {
  absl::MutexLock lock(&mu_);
  return in_use_;
}
size_t BufferPool::high_water_bytes() const {
  absl::MutexLock lock(&mu_);
  return high_water_;
}
size_t BufferPool::free_bytes() const {
  absl::MutexLock lock(&mu_);
  return free_bytes_;
}
int64_t BufferPool::device_allocations() const {
  absl::MutexLock lock(&mu_);
  return device_allocations_;
}

}  // namespace loom
