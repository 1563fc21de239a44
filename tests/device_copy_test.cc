// The planner's cross-device copies (core/plan.h) with a fake device plugin:
// host inputs reach a FAKE op in FAKE memory, FAKE outputs read by CPU ops
// and net outputs come back to the host, copies are shared per device and
// redone when the input changes.
#include "core/net.h"
#include "core/plugin_loader.h"
#include "testing/op_runner.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

Registry* FakeRegistry() {
  static Registry* r = [] {
    Registry* reg = testing::CpuRegistry();
    absl::Status s = LoadPlugin(reg, "tests/plugins/libfake_device.so");
    EXPECT_TRUE(s.ok()) << s;
    return reg;
  }();
  return r;
}

// x (host) -> Neg@FAKE -> a -> Abs@CPU -> b (external)
//             Neg@FAKE(x) -> y (external, produced on FAKE)
//             Neg@FAKE(a) -> c -> Relu@CPU -> d (external)
constexpr char kNet[] = R"pb(
  name: "devices" external_input: "x"
  external_output: "b" external_output: "y" external_output: "d"
  op { type: "Neg" input: "x" output: "a" device_option { device_type: "FAKE" } }
  op { type: "Abs" input: "a" output: "b" }
  op { type: "Neg" input: "x" output: "y" device_option { device_type: "FAKE" } }
  op { type: "Neg" input: "a" output: "c" device_option { device_type: "FAKE" } }
  op { type: "Relu" input: "c" output: "d" }
)pb";

std::vector<float> Values(const Tensor* t) { return std::vector<float>(t->data<float>(), t->data<float>() + t->num_elements()); }

TEST(DeviceCopyTest, TensorsMoveToTheDeviceOfEachOpAndOutputsComeBackToTheHost) {
  NetDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kNet, &def));
  Workspace ws;
  ws.SetBlob("x", Tensor::FromVector<float>({4}, {1.f, -2.f, 3.f, -4.f}));
  auto net = Net::Create(def, &ws, FakeRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  absl::Status s = (*net)->Run();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Values(ws.GetBlob("b")), (std::vector<float>{1.f, 2.f, 3.f, 4.f}));
  EXPECT_EQ(Values(ws.GetBlob("y")), (std::vector<float>{-1.f, 2.f, -3.f, 4.f}));
  EXPECT_EQ(Values(ws.GetBlob("d")), (std::vector<float>{1.f, 0.f, 3.f, 0.f}));
  // Net outputs are on the host; the intermediate 'a' stays on FAKE.
  EXPECT_TRUE(ws.GetBlob("y")->device()->is_host());
  EXPECT_TRUE(ws.GetBlob("b")->device()->is_host());
  EXPECT_EQ(ws.GetBlob("a")->device()->type(), "FAKE");
  ASSERT_NE(ws.GetBlob("x@FAKE:0"), nullptr);
  EXPECT_EQ(ws.GetBlob("x@FAKE:0")->device()->type(), "FAKE");
  // One copy of x to FAKE serves both FAKE readers.
  const PlanStep& first = (*net)->last_plan()->steps()[0];
  const PlanStep& third = (*net)->last_plan()->steps()[2];
  EXPECT_EQ(first.copies_before.size(), 1u);
  EXPECT_TRUE(third.copies_before.empty());
  EXPECT_EQ(third.copies_after.size(), 1u);

  // New values of the same shape: the cached plan copies them again.
  ws.SetBlob("x", Tensor::FromVector<float>({4}, {-5.f, 6.f, -7.f, 8.f}));
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ((*net)->plans_built(), 1);
  EXPECT_EQ(Values(ws.GetBlob("y")), (std::vector<float>{5.f, -6.f, 7.f, -8.f}));
  EXPECT_EQ(Values(ws.GetBlob("b")), (std::vector<float>{5.f, 6.f, 7.f, 8.f}));
}

}  // namespace
}  // namespace loom
