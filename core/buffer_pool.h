// BufferPool: device memory kept for reuse between a net's runs.
//
// Outputs whose size the planner cannot know before the run (a shape that
// depends on input values: NonZero, a Reshape to a computed shape) are
// allocated while the net runs and released after their last reader
// (core/memory_plan.h). Through a pool, the memory goes back to a free list
// instead of the device, and the next allocation of a size in the same
// bucket takes it: after the first run, a net with a fixed signature stops
// calling the device's allocator (ONNX Runtime's BFC arena and MXNet's
// pooled storage manager do the same job).
//
// Buckets: sizes are rounded up to a multiple of 64 bytes below 4 KiB, and
// to 1/8 steps between powers of two above (at most 12.5% slack); a request
// takes the smallest free buffer of at least its bucket size and at most
// twice that. The free lists hold at most twice as many bytes as the pool
// ever had in use at once (its high water); memory beyond that goes back to
// the device. (Measured on ResNet-18 at batch 8, whose requests are mostly
// convolutions' scratch: a cap of one high water made 344 device
// allocations in 11 runs where two made 7, the first run's; taking any
// larger buffer raised the high water from 31 to 57 MiB.)
//
// Signatures (buckets): a net that runs several input signatures (MXNet's
// BucketingModule; Net::PlanBuckets) calls NewSignature when it switches.
// Free buffers taken before the switch are stale: sized for another
// signature's tensors, they may never match a request again. A request the
// free lists cannot serve within 2x then takes a stale buffer of up to 8x
// its size (a shorter bucket's tensor in a longer one's buffer) before
// asking the device; when none fits, stale buffers of 1/8 to 1x its size
// (likely the same tensor at a shorter bucket) go back to the device, the
// largest first, until as many bytes as the new one's are gone. So a
// bucketed net holds about what its largest bucket needs, not the sum of
// every bucket's sizes; a net with one signature never has stale buffers
// and keeps the behaviour above. On the CPU, buffers of 1 MiB and more are
// mapped and unmapped directly, so what goes back leaves the process
// (core/device.cc). Measured with tools/bench/char_lm_buckets.sh (figures
// in BENCHMARKS.md): peak RSS 1.086x the largest bucket's alone before,
// 1.017x after. (A stale buffer taken by a smaller request counts whole in
// the in-use and high-water figures.)
//
// Thread-safe: buffers may be released on any thread.
#ifndef LOOM_CORE_BUFFER_POOL_H_
#define LOOM_CORE_BUFFER_POOL_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/device.h"

namespace loom {

class Buffer;

class BufferPool : public std::enable_shared_from_this<BufferPool> {
 public:
  static std::shared_ptr<BufferPool> Create();
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // At least `bytes` (> 0) on `device`, from the free list of its bucket or
  // from the device (RESOURCE_EXHAUSTED as Device::Allocate).
  absl::StatusOr<std::shared_ptr<Buffer>> Allocate(Device* device, size_t bytes);

  // The owner's net switched input signature: every buffer free now is
  // stale (see above). Cheap; call it on every switch.
  void NewSignature();

  // Bytes handed out now, the most ever handed out at once, bytes waiting
  // in the free lists, and device allocations made (all devices).
  size_t in_use_bytes() const;
  size_t high_water_bytes() const;
  size_t free_bytes() const;
  int64_t device_allocations() const;

  // The bucket size for a request of `bytes`.
  static size_t BucketSize(size_t bytes);

 private:
  friend class Buffer;
  BufferPool() = default;
  // From ~Buffer: memory of a pooled buffer, taken under `signature`, coming
  // back.
  void Return(Device* device, void* data, size_t bytes, uint64_t signature);

  struct FreeBuffer {
    void* data;
    uint64_t signature;  // signature_ when it was last taken
  };
  // A free buffer of at least `size` bytes and at most `max_size` (with
  // `stale_only`: one returned before the last NewSignature); removes it
  // from its list, sets *taken to its bytes. nullptr: none.
  void* TakeFree(Device* device, size_t size, size_t max_size, bool stale_only, size_t* taken)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes stale free buffers of `device` smaller than `size` and at
  // least size / 8, largest first, until at least `size` bytes are gone (or
  // none is left); appends them to *release.
  void TakeStale(Device* device, size_t size, std::vector<void*>* release) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::pair<Device*, size_t>, std::vector<FreeBuffer>> free_ ABSL_GUARDED_BY(mu_);
  uint64_t signature_ ABSL_GUARDED_BY(mu_) = 0;
  size_t in_use_ ABSL_GUARDED_BY(mu_) = 0;
  size_t high_water_ ABSL_GUARDED_BY(mu_) = 0;
  size_t free_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t device_allocations_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace loom

#endif  // LOOM_CORE_BUFFER_POOL_H_
