// The device interface. The core ships only the CPU device; plugins register
// others (the CUDA plugin registers "CUDA") through LoomDeviceDef, wrapped by
// PluginDevice. Executors use streams and events only through this interface.
#ifndef LOOM_CORE_DEVICE_H_
#define LOOM_CORE_DEVICE_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/api/loom_c_api.h"

namespace loom {

// Tensor allocations are aligned to this many bytes on every device.
inline constexpr size_t kTensorAlignment = 64;

enum class CopyKind {
  kHostToDevice = LOOM_COPY_HOST_TO_DEVICE,
  kDeviceToHost = LOOM_COPY_DEVICE_TO_HOST,
  kDeviceToDevice = LOOM_COPY_DEVICE_TO_DEVICE,
};

// Streams and events are opaque handles owned by their device; nullptr is the
// device's default stream.
using StreamHandle = void*;
using EventHandle = void*;

class Device {
 public:
  virtual ~Device() = default;
  // Registered name ("CPU", "CUDA") and ordinal.
  virtual const std::string& type() const = 0;
  virtual int id() const = 0;
  // True when kernels can read the memory from the host (CPU).
  virtual bool is_host() const = 0;

  // `bytes` of device memory aligned to kTensorAlignment. RESOURCE_EXHAUSTED
  // when it cannot be had. Allocate(0) returns nullptr.
  virtual absl::StatusOr<void*> Allocate(size_t bytes) = 0;
  virtual void Free(void* ptr) = 0;
  // Copies `bytes` bytes; asynchronous on `stream` where the device has streams.
  virtual absl::Status Copy(void* dst, const void* src, size_t bytes, CopyKind kind,
                            StreamHandle stream) = 0;

  virtual absl::StatusOr<StreamHandle> CreateStream() = 0;
  virtual void DestroyStream(StreamHandle stream) = 0;
  virtual absl::Status SynchronizeStream(StreamHandle stream) = 0;
  virtual absl::StatusOr<EventHandle> CreateEvent() = 0;
  virtual void DestroyEvent(EventHandle event) = 0;
  // Marks the point in `stream` after the work queued so far.
  virtual absl::Status RecordEvent(EventHandle event, StreamHandle stream) = 0;
  // Work queued on `stream` after this waits for `event`.
  virtual absl::Status StreamWaitEvent(StreamHandle stream, EventHandle event) = 0;
  // Blocks the calling thread until `event` has completed.
  virtual absl::Status SynchronizeEvent(EventHandle event) = 0;
};

// The process-wide CPU device (id 0). Streams and events on it are
// synchronous no-ops: work runs on the calling thread.
Device* CpuDevice();

// Hands the free pages of the C heap back to the system (glibc's
// malloc_trim; nothing elsewhere). For after a net let go of large heap
// blocks it will not allocate again: a model's weight bytes once they are
// in the workspace, initializers freed after packing. Without it glibc
// keeps them resident (freed large blocks raise its mmap threshold, so the
// next ones come from the heap), and they counted in peak RSS once packed
// weights moved to the CPU device's own mappings.
void ReturnFreeHeapMemory();

// Adapts a plugin's LoomDeviceDef (copied) to the Device interface.
class PluginDevice : public Device {
 public:
  PluginDevice(const LoomDeviceDef& def, int id);
  const std::string& type() const override { return type_; }
  int id() const override { return id_; }
  bool is_host() const override { return false; }
  absl::StatusOr<void*> Allocate(size_t bytes) override;
  void Free(void* ptr) override;
  absl::Status Copy(void* dst, const void* src, size_t bytes, CopyKind kind,
                    StreamHandle stream) override;
  absl::StatusOr<StreamHandle> CreateStream() override;
  void DestroyStream(StreamHandle stream) override;
  absl::Status SynchronizeStream(StreamHandle stream) override;
  absl::StatusOr<EventHandle> CreateEvent() override;
  void DestroyEvent(EventHandle event) override;
  absl::Status RecordEvent(EventHandle event, StreamHandle stream) override;
  absl::Status StreamWaitEvent(StreamHandle stream, EventHandle event) override;
  absl::Status SynchronizeEvent(EventHandle event) override;

 private:
  LoomDeviceDef def_;
  std::string type_;
  int id_;
};

}  // namespace loom

#endif  // LOOM_CORE_DEVICE_H_
