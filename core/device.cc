#include "core/device.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "absl/base/config.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/status_bridge.h"

namespace loom {
namespace {

// Large buffers (at least kMapBytes) are mapped from the kernel directly
// and unmapped when freed, so memory a net gives back (the buffer pool's
// stale buffers, core/buffer_pool.h) leaves the process. Through malloc it
// would not: glibc raises its mmap threshold to the largest block freed (up
// to 32 MiB), after which such blocks come from heaps that keep their pages
// (measured: a bucketed LSTM language model's peak RSS is 1.088x of its
// largest bucket's when the pool frees stale buffers through malloc, 1.017x
// with them mapped). Under the sanitizers everything goes through malloc, which they
// check (overflows, leaks, races).
#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || defined(ABSL_HAVE_THREAD_SANITIZER) || \
    defined(ABSL_HAVE_MEMORY_SANITIZER) || defined(ABSL_HAVE_LEAK_SANITIZER)
constexpr bool kMapLargeBuffers = false;
#else
constexpr bool kMapLargeBuffers = true;
#endif
constexpr size_t kMapBytes = size_t{1} << 20;
// Mapped buffers of at least a huge page start on a huge-page boundary and
// ask for transparent huge pages (madvise(MADV_HUGEPAGE): Debian's default
// THP mode, "madvise", gives them to nobody else). Arenas, packed weights
// and large activations are then reached through a few TLB entries instead
// of one per 4 KiB page: convolutions that step across channel blocks and
// weight matrices larger than the L2 missed the TLB on most pages.
constexpr size_t kHugePageBytes = size_t{2} << 20;
constexpr size_t kPageBytes = 4096;

// `bytes` (a multiple of kPageBytes) mapped at a kHugePageBytes boundary:
// a huge page more is mapped, and the parts before the boundary and after
// the buffer are unmapped again. MAP_FAILED on failure, as mmap.
void* MapHugeAligned(size_t bytes) {
  const size_t span = bytes + kHugePageBytes;
  void* m = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return MAP_FAILED;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(m);
  const uintptr_t aligned = (begin + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (aligned > begin) munmap(m, aligned - begin);
  const size_t tail = begin + span - (aligned + bytes);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  void* p = reinterpret_cast<void*>(aligned);
  // Advice only: a kernel without THP keeps 4 KiB pages.
  madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

class CpuDeviceImpl : public Device {
 public:
  const std::string& type() const override { return type_; }
  int id() const override { return 0; }
  bool is_host() const override { return true; }
  absl::StatusOr<void*> Allocate(size_t bytes) override {
    if (bytes == 0) return nullptr;
    if (bytes > SIZE_MAX - kTensorAlignment) {
      return absl::ResourceExhaustedError(absl::StrCat("CPU: cannot allocate ", bytes, " bytes"));
    }
    size_t rounded = (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
    if (kMapLargeBuffers && rounded >= kMapBytes) {
      rounded = (rounded + kPageBytes - 1) / kPageBytes * kPageBytes;
      void* p = rounded >= kHugePageBytes
                    ? MapHugeAligned(rounded)
                    : mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) {
        return absl::ResourceExhaustedError(absl::StrCat("CPU: cannot map ", bytes, " bytes"));
      }
      absl::MutexLock lock(&mu_);
      mapped_[p] = rounded;
      return p;
    }
    void* p = std::aligned_alloc(kTensorAlignment, rounded);
    if (p == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat("CPU: cannot allocate ", bytes, " bytes"));
    }
    return p;
  }
  void Free(void* ptr) override {
    // Mapped blocks are page-aligned; only those pointers need the lookup.
    if (kMapLargeBuffers && reinterpret_cast<uintptr_t>(ptr) % 4096 == 0 && ptr != nullptr) {
      size_t bytes = 0;
      {
        absl::MutexLock lock(&mu_);
        auto it = mapped_.find(ptr);
        if (it != mapped_.end()) {
          bytes = it->second;
          mapped_.erase(it);
        }
      }
      if (bytes > 0) {
        munmap(ptr, bytes);
        return;
      }
    }
    std::free(ptr);
  }
  absl::Status Copy(void* dst, const void* src, size_t bytes, CopyKind, StreamHandle) override {
    if (bytes) std::memcpy(dst, src, bytes);
    return absl::OkStatus();
  }
  absl::StatusOr<StreamHandle> CreateStream() override { return nullptr; }
  void DestroyStream(StreamHandle) override {}
  absl::Status SynchronizeStream(StreamHandle) override { return absl::OkStatus(); }
  absl::StatusOr<EventHandle> CreateEvent() override { return nullptr; }
  void DestroyEvent(EventHandle) override {}
  absl::Status RecordEvent(EventHandle, StreamHandle) override { return absl::OkStatus(); }
  absl::Status StreamWaitEvent(StreamHandle, EventHandle) override { return absl::OkStatus(); }
  absl::Status SynchronizeEvent(EventHandle) override { return absl::OkStatus(); }

 private:
  std::string type_ = "CPU";
  absl::Mutex mu_;
  absl::flat_hash_map<void*, size_t> mapped_ ABSL_GUARDED_BY(mu_);  // mapped block -> bytes
};

}  // namespace

Device* CpuDevice() {
  static Device* cpu = new CpuDeviceImpl();
  return cpu;
}

void ReturnFreeHeapMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

PluginDevice::PluginDevice(const LoomDeviceDef& def, int id) : def_(def), type_(def.name), id_(id) {
  def_.name = type_.c_str();
}

// A plugin's allocator may fail (its status, code kept), or break the
// contract: OK without memory is RESOURCE_EXHAUSTED, memory that is not
// kTensorAlignment-aligned is given back and INTERNAL. Either way the message
// names the device and the size.
absl::StatusOr<void*> PluginDevice::Allocate(size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  absl::Status s = FromLoomStatus(def_.allocate(def_.user_data, id_, bytes, &p));
  if (!s.ok()) {  // *ptr is not trusted after an error
    return absl::Status(s.code(), absl::StrCat(type_, ":", id_, ": cannot allocate ", bytes, " bytes: ", s.message()));
  }
  if (p == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat(type_, ":", id_, ": cannot allocate ", bytes, " bytes: the device's allocate returned no memory"));
  }
  if (reinterpret_cast<uintptr_t>(p) % kTensorAlignment != 0) {
    def_.deallocate(def_.user_data, id_, p);
    return absl::InternalError(absl::StrCat(type_, ":", id_, ": allocate returned memory not aligned to ",
                                            kTensorAlignment, " bytes"));
  }
  return p;
}
void PluginDevice::Free(void* ptr) {
  if (ptr) def_.deallocate(def_.user_data, id_, ptr);
}
absl::Status PluginDevice::Copy(void* dst, const void* src, size_t bytes, CopyKind kind,
                                StreamHandle stream) {
  return FromLoomStatus(def_.copy(def_.user_data, id_, dst, src, bytes,
                                  static_cast<LoomCopyKind>(kind), stream));
}
absl::StatusOr<StreamHandle> PluginDevice::CreateStream() {
  void* s = nullptr;
  absl::Status st = FromLoomStatus(def_.create_stream(def_.user_data, id_, &s));
  if (!st.ok()) return st;
  return s;
}
void PluginDevice::DestroyStream(StreamHandle s) { def_.destroy_stream(def_.user_data, id_, s); }
absl::Status PluginDevice::SynchronizeStream(StreamHandle s) {
  return FromLoomStatus(def_.synchronize_stream(def_.user_data, id_, s));
}
absl::StatusOr<EventHandle> PluginDevice::CreateEvent() {
  void* e = nullptr;
  absl::Status st = FromLoomStatus(def_.create_event(def_.user_data, id_, &e));
  if (!st.ok()) return st;
  return e;
}
void PluginDevice::DestroyEvent(EventHandle e) { def_.destroy_event(def_.user_data, id_, e); }
absl::Status PluginDevice::RecordEvent(EventHandle e, StreamHandle s) {
  return FromLoomStatus(def_.record_event(def_.user_data, id_, e, s));
}
absl::Status PluginDevice::StreamWaitEvent(StreamHandle s, EventHandle e) {
  return FromLoomStatus(def_.stream_wait_event(def_.user_data, id_, s, e));
}
absl::Status PluginDevice::SynchronizeEvent(EventHandle e) {
  return FromLoomStatus(def_.synchronize_event(def_.user_data, id_, e));
}

}  // namespace loom
