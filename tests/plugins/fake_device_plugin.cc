// A plugin that registers a device "FAKE" whose memory is ordinary host
// memory from its own allocator, and a Neg kernel on it that fails unless
// its input and output were allocated by that device. The device-copy test
// uses it to check that the planner moves tensors across devices.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "core/api/loom_sdk.h"

namespace {

std::mutex mu;
std::set<const void*>& Blocks() {
  static std::set<const void*>* s = new std::set<const void*>;
  return *s;
}
bool Owned(const void* p) {
  std::lock_guard<std::mutex> lock(mu);
  return Blocks().count(p) > 0;
}

int Count(void*) { return 1; }
LoomStatus* Allocate(void*, int, size_t bytes, void** ptr) {
  *ptr = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  std::lock_guard<std::mutex> lock(mu);
  Blocks().insert(*ptr);
  return nullptr;
}
void Deallocate(void*, int, void* ptr) {
  {
    std::lock_guard<std::mutex> lock(mu);
    Blocks().erase(ptr);
  }
  std::free(ptr);
}
LoomStatus* Copy(void*, int, void* dst, const void* src, size_t bytes, LoomCopyKind, void*) {
  std::memcpy(dst, src, bytes);
  return nullptr;
}
LoomStatus* NewHandle(void*, int, void** h) {
  *h = nullptr;
  return nullptr;
}
void NoHandle(void*, int, void*) {}
LoomStatus* Ok1(void*, int, void*) { return nullptr; }
LoomStatus* Ok2(void*, int, void*, void*) { return nullptr; }

class FakeNeg {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo&) { return loom::sdk::Status::Ok(); }
  loom::sdk::Status Compute(loom::sdk::KernelContext& ctx) {
    loom::sdk::Tensor x = ctx.Input(0), y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    if (x.num_elements() > 0 && (!Owned(x.raw_data()) || !Owned(y.raw_data()))) {
      return loom::sdk::InvalidArgument("FAKE Neg: tensors are not in FAKE device memory");
    }
    for (int64_t i = 0; i < x.num_elements(); ++i) y.data<float>()[i] = -x.data<float>()[i];
    return loom::sdk::Status::Ok();
  }
};

}  // namespace

LOOM_PLUGIN("fake_device", "1.0.0", reg) {
  LoomDeviceDef d{};
  d.struct_size = sizeof(LoomDeviceDef);
  d.name = "FAKE";
  d.device_count = &Count;
  d.allocate = &Allocate;
  d.deallocate = &Deallocate;
  d.copy = &Copy;
  d.create_stream = &NewHandle;
  d.destroy_stream = &NoHandle;
  d.synchronize_stream = &Ok1;
  d.create_event = &NewHandle;
  d.destroy_event = &NoHandle;
  d.record_event = &Ok2;
  d.stream_wait_event = &Ok2;
  d.synchronize_event = &Ok1;
  LOOM_SDK_RETURN_IF_ERROR(reg.Device(d));
  return reg.Kernel<FakeNeg>("Neg", {"FAKE", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}});
}
