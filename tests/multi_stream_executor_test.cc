// The multi-stream executor: the stream schedule of a branching net (pure
// bookkeeping, checked exactly), and runs on a fake device with streams that
// give the same results as the sequential executor.
#include "core/executor/multi_stream_executor.h"

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

// Two branches from x that join: a = -x, b = -a | c = -x, d = -c | e = b + d.
constexpr char kNet[] = R"pb(
  name: "branches" type: "multi_stream" external_input: "x" external_output: "e"
  arg { name: "max_streams" i: 2 }
  op { type: "Neg" input: "x" output: "a" device_option { device_type: "FAKE" } }
  op { type: "Neg" input: "a" output: "b" device_option { device_type: "FAKE" } }
  op { type: "Neg" input: "x" output: "c" device_option { device_type: "FAKE" } }
  op { type: "Neg" input: "c" output: "d" device_option { device_type: "FAKE" } }
  op { type: "Add" input: "b" input: "d" output: "e" }
)pb";

TEST(MultiStreamTest, BranchesGetTheirOwnStreamsAndJoinThroughEvents) {
  NetDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kNet, &def));
  Workspace ws;
  ws.SetBlob("x", Tensor::FromVector<float>({3}, {1.f, -2.f, 3.f}));
  auto net = Net::Create(def, &ws, FakeRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  const Tensor* e = ws.GetBlob("e");
  EXPECT_EQ(std::vector<float>(e->data<float>(), e->data<float>() + 3), (std::vector<float>{2.f, -4.f, 6.f}));

  StreamSchedule s = ScheduleStreams(*(*net)->last_plan(), 2);
  // a: stream 0 (no producer on a device stream yet: the copy of x is its own
  // write), b continues a; c starts the second branch on stream 1, d
  // continues c; e continues b on stream 0 and waits for d's event.
  EXPECT_EQ(s.stream, (std::vector<int>{0, 0, 1, 1, 0}));
  EXPECT_EQ(s.waits_on[4], (std::vector<int>{3}));
  EXPECT_TRUE(s.records_event[3]);
  EXPECT_FALSE(s.records_event[1]);
  EXPECT_EQ(s.num_streams, 2);
  // With one stream nothing waits.
  StreamSchedule one = ScheduleStreams(*(*net)->last_plan(), 1);
  EXPECT_EQ(one.stream, (std::vector<int>{0, 0, 0, 0, 0}));
  for (const auto& w : one.waits_on) EXPECT_TRUE(w.empty());
}

TEST(MultiStreamTest, SameResultAsSequentialOnARandomChain) {
  NetDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kNet, &def));
  NetDef seq = def;
  seq.set_type("");
  for (int run = 0; run < 2; ++run) {
    Tensor x = testing::RandomTensor(DataType::kFloat32, {5, 7}, 11 + run);
    Workspace w1, w2;
    w1.SetBlob("x", x);
    w2.SetBlob("x", x);
    auto n1 = Net::Create(def, &w1, FakeRegistry());
    auto n2 = Net::Create(seq, &w2, FakeRegistry());
    ASSERT_TRUE(n1.ok() && n2.ok());
    ASSERT_TRUE((*n1)->Run().ok());
    { auto st = (*n2)->Run(); ASSERT_TRUE(st.ok()) << st; }
    EXPECT_TRUE(testing::AllClose(*w1.GetBlob("e"), *w2.GetBlob("e"), 0, 0));
  }
}

TEST(MultiStreamTest, UnknownExecutorTypeIsAnError) {
  NetDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kNet, &def));
  def.set_type("dag");
  Workspace ws;
  auto net = Net::Create(def, &ws, FakeRegistry());
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("multi_stream"), std::string::npos);
}

}  // namespace
}  // namespace loom
