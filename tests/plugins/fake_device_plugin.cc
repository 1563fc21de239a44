// A plugin that registers a device "FAKE" whose memory is ordinary host
// memory from its own allocator, and a Neg kernel on it that fails unless
// its input and output were allocated by that device. The device-copy test
// uses it to check that the planner moves tensors across devices.
//
// Fault injection (tests/faults_test.cc):
//  - the N-th allocation from now fails: call the exported hook
//    LoomFakeDeviceFailAllocation(N, mode) (find it with dlsym), or set
//    LOOM_FAKE_DEVICE_FAIL_ALLOCATION=N before the plugin loads. mode 0:
//    allocate returns RESOURCE_EXHAUSTED; mode 1: it breaks the contract,
//    returning OK without memory. N = 0 disarms. It fails once.
//  - LoomFakeDeviceLiveBlocks() and LoomFakeDeviceAllocations(): blocks
//    allocated and not freed, allocate calls so far (for leak checks).
//  - the op FailIf (domain loom.test; kernels on CPU and FAKE): Y = X, but
//    after sizing Y it fails (INTERNAL) when an element of X equals the
//    attribute `trigger` (default 666): a kernel failing mid-net.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <map>
#include <string>

#include "core/api/loom_sdk.h"

namespace {

std::mutex mu;
// Live blocks: start -> bytes.
std::map<const char*, size_t>& Blocks() {
  static std::map<const char*, size_t>* s = new std::map<const char*, size_t>;
  return *s;
}
// Inside a live block (the memory planner places tensors at offsets into
// one arena allocation).
bool Owned(const void* p) {
  const char* c = static_cast<const char*>(p);
  std::lock_guard<std::mutex> lock(mu);
  auto it = Blocks().upper_bound(c);
  if (it == Blocks().begin()) return false;
  --it;
  return c < it->first + it->second;
}

std::atomic<int64_t> fail_countdown{0};  // > 0: allocations until one fails
std::atomic<int> fail_mode{0};
std::atomic<int64_t> allocations{0};

int Count(void*) { return 1; }
LoomStatus* Allocate(void*, int, size_t bytes, void** ptr) {
  const int64_t call = ++allocations;
  int64_t left = fail_countdown.load();
  while (left > 0 && !fail_countdown.compare_exchange_weak(left, left - 1)) {
  }
  if (left == 1) {
    *ptr = nullptr;
    if (fail_mode.load() == 1) return nullptr;  // OK without memory: a broken allocator
    return loom::sdk::Status(LOOM_RESOURCE_EXHAUSTED, "FAKE allocator: allocation #" + std::to_string(call) + " of " +
                                                          std::to_string(bytes) + " bytes refused (fault injection)")
        .release();
  }
  *ptr = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (*ptr == nullptr) return loom::sdk::Status(LOOM_RESOURCE_EXHAUSTED, "FAKE allocator: out of memory").release();
  std::lock_guard<std::mutex> lock(mu);
  Blocks()[static_cast<const char*>(*ptr)] = bytes;
  return nullptr;
}
void Deallocate(void*, int, void* ptr) {
  {
    std::lock_guard<std::mutex> lock(mu);
    Blocks().erase(static_cast<const char*>(ptr));
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

// Y = X; fails after sizing Y when X holds the trigger value.
class FailIf {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo& info) { return info.GetFloat("trigger", &trigger_); }
  loom::sdk::Status Compute(loom::sdk::KernelContext& ctx) {
    loom::sdk::Tensor x = ctx.Input(0), y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    const float* in = x.data<float>();
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      if (in[i] == trigger_) {
        return loom::sdk::Status(LOOM_INTERNAL, "FailIf: element " + std::to_string(i) + " is the trigger value " +
                                                    std::to_string(trigger_) + " (fault injection)");
      }
    }
    if (x.num_elements() > 0) std::memcpy(y.raw_data(), x.raw_data(), x.num_elements() * sizeof(float));
    return loom::sdk::Status::Ok();
  }

 private:
  float trigger_ = 666.f;
};

}  // namespace

extern "C" LOOM_EXPORT void LoomFakeDeviceFailAllocation(int64_t nth, int mode) {
  fail_mode.store(mode);
  fail_countdown.store(nth > 0 ? nth : 0);
}
extern "C" LOOM_EXPORT int64_t LoomFakeDeviceLiveBlocks() {
  std::lock_guard<std::mutex> lock(mu);
  return static_cast<int64_t>(Blocks().size());
}
extern "C" LOOM_EXPORT int64_t LoomFakeDeviceAllocations() { return allocations.load(); }

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
  if (const char* n = std::getenv("LOOM_FAKE_DEVICE_FAIL_ALLOCATION")) {
    LoomFakeDeviceFailAllocation(std::atoll(n), 0);
  }
  LOOM_SDK_RETURN_IF_ERROR(reg.Device(d));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<FakeNeg>("Neg", {"FAKE", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}}));
  loom::sdk::SchemaBuilder fail("FailIf");
  fail.Domain("loom.test")
      .Doc("Y = X; fails when an element of X equals `trigger` (fault injection for tests).")
      .Input("X", "T")
      .Output("Y", "T")
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT})
      .AttrFloat("trigger", 666.f, "the value that makes the kernel fail");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(fail));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<FailIf>("FailIf", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}}));
  return reg.Kernel<FailIf>("FailIf", {"FAKE", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}});
}
