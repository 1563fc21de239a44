// Faults at run time (issue 16), with the fake device plugin's fault hooks
// (tests/plugins/fake_device_plugin.cc):
//  - a device whose N-th allocation fails, for every N a run makes: Run
//    returns RESOURCE_EXHAUSTED naming the op, the size and the device;
//    nothing leaks, and the next Run succeeds with correct outputs on the
//    same plan; also for an allocator that returns OK without memory, and
//    for both executors;
//  - a kernel that fails mid-net (FailIf, on CPU and on FAKE): the error
//    names the op; the next good Run is correct without a new plan, and the
//    blobs of another net in the same workspace are intact;
//  - tensors asked for an impossible size fail with a status, not a crash.
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "testing/op_runner.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

constexpr char kPlugin[] = "tests/plugins/libfake_device.so";

Registry* FakeRegistry() {
  static Registry* r = [] {
    Registry* reg = testing::CpuRegistry();
    absl::Status s = LoadPlugin(reg, kPlugin);
    EXPECT_TRUE(s.ok()) << s;
    return reg;
  }();
  return r;
}

// The plugin's exported fault hooks, from the copy the registry loaded.
struct Hooks {
  void (*fail_allocation)(int64_t nth, int mode) = nullptr;
  int64_t (*live_blocks)() = nullptr;
  int64_t (*allocations)() = nullptr;
};
const Hooks& FakeHooks() {
  static Hooks h = [] {
    FakeRegistry();
    Hooks h;
    void* lib = dlopen(kPlugin, RTLD_NOW | RTLD_NOLOAD);
    EXPECT_NE(lib, nullptr) << dlerror();
    if (lib == nullptr) return h;
    h.fail_allocation = reinterpret_cast<void (*)(int64_t, int)>(dlsym(lib, "LoomFakeDeviceFailAllocation"));
    h.live_blocks = reinterpret_cast<int64_t (*)()>(dlsym(lib, "LoomFakeDeviceLiveBlocks"));
    h.allocations = reinterpret_cast<int64_t (*)()>(dlsym(lib, "LoomFakeDeviceAllocations"));
    EXPECT_TRUE(h.fail_allocation && h.live_blocks && h.allocations);
    return h;
  }();
  return h;
}

NetDef Parse(const std::string& text) {
  NetDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return def;
}

std::vector<float> Values(const Tensor* t) {
  if (t == nullptr) return {};
  return std::vector<float>(t->data<float>(), t->data<float>() + t->num_elements());
}

// Four FAKE allocations in a first run: the copy x@FAKE:0, a, c, y@FAKE:0.
//   x (host) -> Neg@FAKE -> a -> Neg@FAKE -> c -> Abs@CPU -> b (external)
//   x        -> Neg@FAKE -> y (external, made on FAKE, copied back)
constexpr char kAllocNet[] = R"pb(
  name: "alloc" external_input: "x" external_output: "b" external_output: "y"
  op { name: "neg1" type: "Neg" input: "x" output: "a" device_option { device_type: "FAKE" } }
  op { name: "neg2" type: "Neg" input: "a" output: "c" device_option { device_type: "FAKE" } }
  op { name: "abs" type: "Abs" input: "c" output: "b" }
  op { name: "neg3" type: "Neg" input: "x" output: "y" device_option { device_type: "FAKE" } }
)pb";

const std::vector<float> kX = {1.f, -2.f, 3.f, -4.f};

void ExpectAllocNetOutputs(Workspace& ws) {
  EXPECT_EQ(Values(ws.GetBlob("b")), (std::vector<float>{1.f, 2.f, 3.f, 4.f}));
  EXPECT_EQ(Values(ws.GetBlob("y")), (std::vector<float>{-1.f, 2.f, -3.f, 4.f}));
}

// Without the memory planner every op output is its own allocation, so each
// failing allocation names its op; with it, intermediates come from one
// arena (PlannedArenaAllocationFailure below).
NetOptions PerOpMemory() {
  NetOptions o;
  o.plan_memory = false;
  return o;
}

class AllocationFaultTest : public ::testing::TestWithParam<std::string> {
 protected:
  NetDef Def() const {
    NetDef def = Parse(kAllocNet);
    def.set_type(GetParam());
    return def;
  }
};

TEST_P(AllocationFaultTest, EveryFailingAllocationIsAStatusAndTheNextRunRecovers) {
  const Hooks& h = FakeHooks();
  ASSERT_NE(h.fail_allocation, nullptr);
  const int64_t live_before = h.live_blocks();

  // A clean run counts the FAKE allocations of a first run.
  int64_t first_run_allocs = 0;
  {
    Workspace ws;
    ws.SetBlob("x", Tensor::FromVector<float>({4}, kX));
    auto net = Net::Create(Def(), &ws, FakeRegistry(), PerOpMemory());
    ASSERT_TRUE(net.ok()) << net.status();
    const int64_t a0 = h.allocations();
    ASSERT_TRUE((*net)->Run().ok());
    first_run_allocs = h.allocations() - a0;
    ExpectAllocNetOutputs(ws);
    // Steady state: a second run allocates nothing on the device.
    ASSERT_TRUE((*net)->Run().ok());
    EXPECT_EQ(h.allocations() - a0, first_run_allocs);
  }
  EXPECT_EQ(h.live_blocks(), live_before);
  ASSERT_EQ(first_run_allocs, 4);

  for (int64_t n = 1; n <= first_run_allocs; ++n) {
    SCOPED_TRACE(::testing::Message() << "allocation " << n << " fails");
    {
      Workspace ws;
      ws.SetBlob("x", Tensor::FromVector<float>({4}, kX));
      auto net = Net::Create(Def(), &ws, FakeRegistry(), PerOpMemory());
      ASSERT_TRUE(net.ok()) << net.status();
      h.fail_allocation(n, 0);
      absl::Status s = (*net)->Run();
      h.fail_allocation(0, 0);
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
      EXPECT_TRUE(absl::StartsWith(s.message(), "op #")) << s;
      EXPECT_TRUE(absl::StrContains(s.message(), "FAKE:0: cannot allocate 16 bytes")) << s;
      EXPECT_TRUE(absl::StrContains(s.message(), "float32[4]")) << s;
      EXPECT_TRUE(absl::StrContains(s.message(), "fault injection")) << s;
      // Which op: the allocations come in plan order.
      const char* want = n <= 2 ? "'neg1'" : n == 3 ? "'neg2'" : "'neg3'";
      EXPECT_TRUE(absl::StrContains(s.message(), want)) << s;
      if (n == 1) {
        EXPECT_TRUE(absl::StrContains(s.message(), "copy across devices")) << s;
      }
      if (n == 2 || n == 3) {
        EXPECT_TRUE(absl::StrContains(s.message(), "output 0")) << s;
      }

      // The allocation works again: the same plan runs and is right.
      s = (*net)->Run();
      ASSERT_TRUE(s.ok()) << s;
      ExpectAllocNetOutputs(ws);
      EXPECT_EQ((*net)->plans_built(), 1);
      // New input values, same shape: still right, still one plan.
      ws.SetBlob("x", Tensor::FromVector<float>({4}, {-5.f, 6.f, -7.f, 8.f}));
      ASSERT_TRUE((*net)->Run().ok());
      EXPECT_EQ(Values(ws.GetBlob("b")), (std::vector<float>{5.f, 6.f, 7.f, 8.f}));
      EXPECT_EQ(Values(ws.GetBlob("y")), (std::vector<float>{5.f, -6.f, 7.f, -8.f}));
      EXPECT_EQ((*net)->plans_built(), 1);
    }
    // Net and workspace gone: every FAKE block is back.
    EXPECT_EQ(h.live_blocks(), live_before);
  }
}

TEST_P(AllocationFaultTest, AnAllocatorReturningNoMemoryIsResourceExhausted) {
  const Hooks& h = FakeHooks();
  ASSERT_NE(h.fail_allocation, nullptr);
  const int64_t live_before = h.live_blocks();
  {
    Workspace ws;
    ws.SetBlob("x", Tensor::FromVector<float>({4}, kX));
    auto net = Net::Create(Def(), &ws, FakeRegistry(), PerOpMemory());
    ASSERT_TRUE(net.ok()) << net.status();
    h.fail_allocation(2, /*mode=*/1);
    absl::Status s = (*net)->Run();
    h.fail_allocation(0, 0);
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "op #0 'neg1' (Neg): output 0")) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "returned no memory")) << s;
    ASSERT_TRUE((*net)->Run().ok());
    ExpectAllocNetOutputs(ws);
    EXPECT_EQ((*net)->plans_built(), 1);
  }
  EXPECT_EQ(h.live_blocks(), live_before);
}

TEST_P(AllocationFaultTest, AFailureWhenALargerInputNeedsNewMemoryRecovers) {
  const Hooks& h = FakeHooks();
  ASSERT_NE(h.fail_allocation, nullptr);
  const int64_t live_before = h.live_blocks();
  {
    Workspace ws;
    ws.SetBlob("x", Tensor::FromVector<float>({4}, kX));
    auto net = Net::Create(Def(), &ws, FakeRegistry(), PerOpMemory());
    ASSERT_TRUE(net.ok()) << net.status();
    ASSERT_TRUE((*net)->Run().ok());
    // A larger input: a second plan, and the FAKE tensors need more memory.
    std::vector<float> big(64);
    for (size_t i = 0; i < big.size(); ++i) big[i] = (i % 2 ? -1.f : 1.f) * static_cast<float>(i);
    ws.SetBlob("x", Tensor::FromVector<float>({64}, big));
    h.fail_allocation(3, 0);
    absl::Status s = (*net)->Run();
    h.fail_allocation(0, 0);
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "256 bytes")) << s;
    ASSERT_TRUE((*net)->Run().ok());
    EXPECT_EQ((*net)->plans_built(), 2);
    std::vector<float> b = Values(ws.GetBlob("b")), y = Values(ws.GetBlob("y"));
    ASSERT_EQ(b.size(), big.size());
    ASSERT_EQ(y.size(), big.size());
    for (size_t i = 0; i < big.size(); ++i) {
      EXPECT_EQ(b[i], std::abs(big[i]));
      EXPECT_EQ(y[i], -big[i]);
    }
    // Back to the first shape: its cached plan, correct again.
    ws.SetBlob("x", Tensor::FromVector<float>({4}, kX));
    ASSERT_TRUE((*net)->Run().ok());
    ExpectAllocNetOutputs(ws);
    EXPECT_EQ((*net)->plans_built(), 2);
  }
  EXPECT_EQ(h.live_blocks(), live_before);
}

// The planner's arena is allocated when the plan is bound, before the first
// op: 64 bytes on FAKE for a and c (Neg declares its output in place, and a
// dies at neg2, so c takes a's place). Its failure names the net and the
// arena, and the next Run recovers with correct outputs and no leak.
TEST(PlannedMemoryFaultTest, ArenaAllocationFailureIsAStatusAndTheNextRunRecovers) {
  const Hooks& h = FakeHooks();
  ASSERT_NE(h.fail_allocation, nullptr);
  const int64_t live_before = h.live_blocks();
  {
    Workspace ws;
    ws.SetBlob("x", Tensor::FromVector<float>({4}, kX));
    auto net = Net::Create(Parse(kAllocNet), &ws, FakeRegistry());
    ASSERT_TRUE(net.ok()) << net.status();
    h.fail_allocation(1, 0);
    absl::Status s = (*net)->Run();
    h.fail_allocation(0, 0);
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "net 'alloc': memory plan: arena of 64 bytes")) << s;
    EXPECT_TRUE(absl::StrContains(s.message(), "FAKE:0: cannot allocate 64 bytes")) << s;
    ASSERT_TRUE((*net)->Run().ok());
    ExpectAllocNetOutputs(ws);
    EXPECT_EQ((*net)->arena_bytes(), 64u);
    // Steady state: nothing more from the device.
    const int64_t a0 = h.allocations();
    ASSERT_TRUE((*net)->Run().ok());
    EXPECT_EQ(h.allocations(), a0);
  }
  EXPECT_EQ(h.live_blocks(), live_before);
}

INSTANTIATE_TEST_SUITE_P(Executors, AllocationFaultTest, ::testing::Values("", "multi_stream"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return p.param.empty() ? std::string("sequential") : p.param;
                         });

// x -> Relu -> r -> FailIf@<dev> -> f -> Neg@FAKE -> n -> Abs -> out
std::string FailNet(const std::string& fail_device, const std::string& type) {
  return std::string(R"pb(
    name: "failing" external_input: "x" external_output: "out" type: ")pb") + type + R"pb("
    op { name: "relu" type: "Relu" input: "x" output: "r" }
    op { name: "fail" type: "FailIf" domain: "loom.test" input: "r" output: "f"
         device_option { device_type: ")pb" + fail_device + R"pb(" } }
    op { name: "neg" type: "Neg" input: "f" output: "n" device_option { device_type: "FAKE" } }
    op { name: "abs" type: "Abs" input: "n" output: "out" }
  )pb";
}

// p -> Sigmoid -> q -> Neg@FAKE -> other_out: another net in the same
// workspace (q is an output too: the memory planner keeps only outputs).
constexpr char kOtherNet[] = R"pb(
  name: "other" external_input: "p" external_output: "other_out" external_output: "q"
  op { name: "sig" type: "Sigmoid" input: "p" output: "q" }
  op { name: "oneg" type: "Neg" input: "q" output: "other_out" device_option { device_type: "FAKE" } }
)pb";

struct FailCase {
  std::string device, type;
};

class KernelFaultTest : public ::testing::TestWithParam<FailCase> {};

TEST_P(KernelFaultTest, AFailingKernelLeavesTheWorkspaceAndPlanCacheUsable) {
  const Hooks& h = FakeHooks();
  const int64_t live_before = h.live_blocks ? h.live_blocks() : 0;
  {
    Workspace ws;
    ws.SetBlob("x", Tensor::FromVector<float>({3}, {1.f, -2.f, 3.f}));
    ws.SetBlob("p", Tensor::FromVector<float>({2}, {0.f, 100.f}));
    auto net = Net::Create(Parse(FailNet(GetParam().device, GetParam().type)), &ws, FakeRegistry());
    auto other = Net::Create(Parse(kOtherNet), &ws, FakeRegistry());
    ASSERT_TRUE(net.ok()) << net.status();
    ASSERT_TRUE(other.ok()) << other.status();

    ASSERT_TRUE((*other)->Run().ok());
    const std::vector<float> other_out = Values(ws.GetBlob("other_out"));
    const std::vector<float> q = Values(ws.GetBlob("q"));
    const void* other_out_data = ws.GetBlob("other_out")->raw_data();
    ASSERT_EQ(other_out.size(), 2u);
    EXPECT_NEAR(other_out[0], -0.5f, 1e-6);
    EXPECT_NEAR(other_out[1], -1.f, 1e-6);

    absl::Status s = (*net)->Run();
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(Values(ws.GetBlob("out")), (std::vector<float>{1.f, 0.f, 3.f}));

    // The trigger value after Relu: the second op fails after sizing its output.
    ws.SetBlob("x", Tensor::FromVector<float>({3}, {1.f, 666.f, 3.f}));
    s = (*net)->Run();
    EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
    EXPECT_TRUE(absl::StartsWith(s.message(), "op #1 'fail' (FailIf): FailIf: element 1 is the trigger value")) << s;
    // The last good output is still there (the failing run stopped before it).
    EXPECT_EQ(Values(ws.GetBlob("out")), (std::vector<float>{1.f, 0.f, 3.f}));

    // The other net's blobs are untouched, and it still runs.
    EXPECT_EQ(Values(ws.GetBlob("other_out")), other_out);
    EXPECT_EQ(ws.GetBlob("other_out")->raw_data(), other_out_data);
    EXPECT_EQ(Values(ws.GetBlob("q")), q);
    EXPECT_EQ(Values(ws.GetBlob("p")), (std::vector<float>{0.f, 100.f}));

    // Good input again: correct, on the cached plan.
    ws.SetBlob("x", Tensor::FromVector<float>({3}, {-7.f, 8.f, -9.f}));
    s = (*net)->Run();
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(Values(ws.GetBlob("out")), (std::vector<float>{0.f, 8.f, 0.f}));
    EXPECT_EQ((*net)->plans_built(), 1);
    EXPECT_EQ((*net)->cached_plans(), 1u);

    // Failing again and recovering again is the same.
    ws.SetBlob("x", Tensor::FromVector<float>({3}, {666.f, 666.f, 666.f}));
    EXPECT_FALSE((*net)->Run().ok());
    ws.SetBlob("x", Tensor::FromVector<float>({3}, {2.f, 4.f, 6.f}));
    ASSERT_TRUE((*net)->Run().ok());
    EXPECT_EQ(Values(ws.GetBlob("out")), (std::vector<float>{2.f, 4.f, 6.f}));
    EXPECT_EQ((*net)->plans_built(), 1);

    ASSERT_TRUE((*other)->Run().ok());
    EXPECT_EQ(Values(ws.GetBlob("other_out")), other_out);
    EXPECT_EQ((*other)->plans_built(), 1);
  }
  if (h.live_blocks) {
    EXPECT_EQ(h.live_blocks(), live_before);
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, KernelFaultTest,
                         ::testing::Values(FailCase{"CPU", ""}, FailCase{"FAKE", ""}, FailCase{"CPU", "multi_stream"},
                                           FailCase{"FAKE", "multi_stream"}),
                         [](const ::testing::TestParamInfo<FailCase>& p) {
                           return p.param.device + "_" + (p.param.type.empty() ? "sequential" : p.param.type);
                         });

TEST(TensorFaultTest, ImpossibleSizesAreErrorsAndLeaveTheTensorUsable) {
  Tensor t = Tensor::FromVector<float>({2}, {1.f, 2.f});
  // More elements than int64 holds.
  absl::Status s = t.Resize(DataType::kFloat32, {int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  // Elements that fit, bytes that do not.
  s = t.Resize(DataType::kFloat64, {int64_t{1} << 62});
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  // Bytes that fit size_t but no allocator gives: the CPU device refuses.
  s = t.Resize(DataType::kUInt8, {int64_t{1} << 62});
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "uint8[")) << s;
  // After a failed allocation the tensor is empty, not elements without memory.
  EXPECT_EQ(t.num_elements(), 0);
  EXPECT_EQ(t.raw_data(), nullptr);
  ASSERT_TRUE(t.Resize(DataType::kFloat32, {3}).ok());
  ASSERT_NE(t.raw_data(), nullptr);
  t.data<float>()[2] = 5.f;
  EXPECT_EQ(t.data<float>()[2], 5.f);
  EXPECT_FALSE(Tensor::Create(DataType::kFloat32, {-1}).ok());
}

TEST(TensorFaultTest, AFakeDeviceTensorWhoseAllocationFailsIsEmptyAndCanBeResizedAgain) {
  const Hooks& h = FakeHooks();
  ASSERT_NE(h.fail_allocation, nullptr);
  Device* fake = FakeRegistry()->FindDevice("FAKE", 0);
  ASSERT_NE(fake, nullptr);
  const int64_t live_before = h.live_blocks();
  {
    auto t = Tensor::Create(DataType::kFloat32, {8}, fake);
    ASSERT_TRUE(t.ok()) << t.status();
    h.fail_allocation(1, 0);
    absl::Status s = t->Resize(DataType::kFloat32, {16});
    h.fail_allocation(0, 0);
    EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
    EXPECT_EQ(s.message(), "float32[16]: FAKE:0: cannot allocate 64 bytes: FAKE allocator: allocation #" +
                               std::to_string(h.allocations()) + " of 64 bytes refused (fault injection)");
    EXPECT_EQ(t->num_elements(), 0);
    EXPECT_EQ(t->raw_data(), nullptr);
    EXPECT_EQ(h.live_blocks(), live_before);  // the old block was given back first
    ASSERT_TRUE(t->Resize(DataType::kFloat32, {16}).ok());
    EXPECT_NE(t->raw_data(), nullptr);
    EXPECT_EQ(h.live_blocks(), live_before + 1);
  }
  EXPECT_EQ(h.live_blocks(), live_before);
}

}  // namespace
}  // namespace loom
