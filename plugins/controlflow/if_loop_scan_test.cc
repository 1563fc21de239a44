// ONNX If, Loop and Scan (plugins/controlflow) against values
// computed by hand in the test: bodies that read outer-scope blobs, carried
// values, scan outputs on non-leading axes and reverse directions, and
// runs repeated with new inputs (the body nets are reused).
#include <cmath>
#include <vector>

#include "core/net.h"
#include "core/plugin_loader.h"
#include "testing/op_runner.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

Registry* ControlFlowRegistry() { return testing::CpuRegistryWith("plugins/controlflow/libloom_controlflow.so"); }

NetDef ParseNet(const std::string& text) {
  NetDef net;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &net)) << text;
  return net;
}

std::vector<float> Values(const Tensor* t) {
  EXPECT_NE(t, nullptr);
  if (t == nullptr) return {};
  return std::vector<float>(t->data<float>(), t->data<float>() + t->num_elements());
}

// y = If(cond) { x + x } else { x * x }, x read from the outer scope.
constexpr char kIfNet[] = R"pb(
  name: "if_net" external_input: "cond" external_input: "x" external_output: "y"
  op {
    type: "If" input: "cond" output: "y"
    arg { name: "then_branch" n {
      name: "then" external_input: "x" external_output: "t"
      arg { name: "output_dtype.t" s: "float32" }
      op { type: "Add" input: "x" input: "x" output: "t" } } }
    arg { name: "else_branch" n {
      name: "else" external_input: "x" external_output: "e"
      arg { name: "output_dtype.e" s: "float32" }
      op { type: "Mul" input: "x" input: "x" output: "e" } } }
  })pb";

TEST(IfTest, RunsTheChosenBranchOnOuterScopeValues) {
  Workspace ws;
  ws.SetBlob("x", Tensor::FromVector<float>({3}, {1.5f, -2.f, 3.f}));
  auto net = Net::Create(ParseNet(kIfNet), &ws, ControlFlowRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  ws.SetBlob("cond", Tensor::FromVector<bool>({}, {true}));
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ(Values(ws.GetBlob("y")), (std::vector<float>{3.f, -4.f, 6.f}));
  ws.SetBlob("cond", Tensor::FromVector<bool>({}, {false}));
  ws.SetBlob("x", Tensor::FromVector<float>({2}, {4.f, -1.f}));
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ(Values(ws.GetBlob("y")), (std::vector<float>{16.f, 1.f}));
}

TEST(IfTest, ACondWithManyElementsIsAnError) {
  Workspace ws;
  ws.SetBlob("x", Tensor::FromVector<float>({1}, {1.f}));
  ws.SetBlob("cond", Tensor::FromVector<bool>({2}, {true, false}));
  auto net = Net::Create(ParseNet(kIfNet), &ws, ControlFlowRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  absl::Status s = (*net)->Run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cond"), std::string::npos) << s;
}

// Loop: s_{i+1} = s_i + float(i) * x (x from the outer scope); the scan
// output stacks s_{i+1}; the body's cond is i < stop (outer scope).
constexpr char kLoopNet[] = R"pb(
  name: "loop_net" external_input: "M" external_input: "c0" external_input: "s0"
  external_input: "x" external_input: "stop" external_output: "s_final" external_output: "s_all"
  op {
    type: "Loop" input: "M" input: "c0" input: "s0" output: "s_final" output: "s_all"
    arg { name: "body" n {
      name: "body" external_input: "i" external_input: "c_in" external_input: "s_in"
      external_input: "x" external_input: "stop"
      external_output: "c_out" external_output: "s_out" external_output: "s_scan"
      arg { name: "output_dtype.c_out" s: "bool" }
      arg { name: "output_dtype.s_out" s: "float32" }
      arg { name: "output_dtype.s_scan" s: "float32" }
      op { type: "Cast" input: "i" output: "fi" arg { name: "to" i: 1 } }
      op { type: "Mul" input: "fi" input: "x" output: "dx" }
      op { type: "Add" input: "s_in" input: "dx" output: "s_out" }
      op { type: "Identity" input: "s_out" output: "s_scan" }
      op { type: "Less" input: "i" input: "stop" output: "c_out" } } }
  })pb";

void ExpectLoop(int64_t M, int64_t stop, int expected_iterations) {
  Workspace ws;
  std::vector<float> x = {0.5f, -1.f}, s = {1.f, 2.f};
  ws.SetBlob("M", Tensor::FromVector<int64_t>({}, {M}));
  ws.SetBlob("c0", Tensor::FromVector<bool>({}, {true}));
  ws.SetBlob("s0", Tensor::FromVector<float>({2}, s));
  ws.SetBlob("x", Tensor::FromVector<float>({2}, x));
  ws.SetBlob("stop", Tensor::FromVector<int64_t>({}, {stop}));
  auto net = Net::Create(ParseNet(kLoopNet), &ws, ControlFlowRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  for (int run = 0; run < 2; ++run) {  // the second run reuses the body net
    ASSERT_TRUE((*net)->Run().ok());
    std::vector<float> cur = s, all;
    for (int i = 0; i < expected_iterations; ++i) {
      for (int k = 0; k < 2; ++k) cur[k] += static_cast<float>(i) * x[k];
      all.insert(all.end(), cur.begin(), cur.end());
    }
    EXPECT_EQ(Values(ws.GetBlob("s_final")), cur);
    // With no iteration the element shape is unknown: the scan output is [0].
    Shape expected_dims = expected_iterations > 0 ? Shape{expected_iterations, 2} : Shape{0};
    EXPECT_EQ(ws.GetBlob("s_all")->dims(), expected_dims);
    EXPECT_EQ(Values(ws.GetBlob("s_all")), all);
  }
}

TEST(LoopTest, StopsAtTheTripCount) { ExpectLoop(/*M=*/4, /*stop=*/100, 4); }
TEST(LoopTest, StopsWhenTheBodyConditionIsFalse) { ExpectLoop(/*M=*/100, /*stop=*/2, 3); }
TEST(LoopTest, ZeroTripsGivesTheInitialValues) { ExpectLoop(/*M=*/0, /*stop=*/100, 0); }

// Scan over axis 1 of X [B=2, L=3, C=2] in reverse: acc += slice; the scan
// output stacks acc * 2 on axis 1, written in reverse order.
constexpr char kScanNet[] = R"pb(
  name: "scan_net" external_input: "acc0" external_input: "X" external_input: "two"
  external_output: "acc" external_output: "ys"
  op {
    type: "Scan" input: "acc0" input: "X" output: "acc" output: "ys"
    arg { name: "num_scan_inputs" i: 1 }
    arg { name: "scan_input_axes" ints: 1 }
    arg { name: "scan_input_directions" ints: 1 }
    arg { name: "scan_output_axes" ints: -2 }
    arg { name: "scan_output_directions" ints: 1 }
    arg { name: "body" n {
      name: "body" external_input: "a_in" external_input: "x_t" external_input: "two"
      external_output: "a_out" external_output: "y_t"
      arg { name: "output_dtype.a_out" s: "float32" }
      arg { name: "output_dtype.y_t" s: "float32" }
      op { type: "Add" input: "a_in" input: "x_t" output: "a_out" }
      op { type: "Mul" input: "a_out" input: "two" output: "y_t" } } }
  })pb";

TEST(ScanTest, ReverseScanOverAnInnerAxis) {
  const int B = 2, L = 3, C = 2;
  Workspace ws;
  Tensor X = testing::RandomTensor(DataType::kFloat32, {B, L, C}, 7);
  Tensor acc0 = testing::RandomTensor(DataType::kFloat32, {B, C}, 8);
  ws.SetBlob("X", X);
  ws.SetBlob("acc0", acc0);
  ws.SetBlob("two", Tensor::FromVector<float>({}, {2.f}));
  auto net = Net::Create(ParseNet(kScanNet), &ws, ControlFlowRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  // Reference: step t reads position p = L-1-t and writes ys[:, L-1-t, :].
  std::vector<float> acc(acc0.data<float>(), acc0.data<float>() + B * C), ys(B * L * C);
  for (int t = 0; t < L; ++t) {
    int p = L - 1 - t;
    for (int b = 0; b < B; ++b) {
      for (int c = 0; c < C; ++c) {
        acc[b * C + c] += X.data<float>()[(b * L + p) * C + c];
        ys[(b * L + p) * C + c] = acc[b * C + c] * 2.f;
      }
    }
  }
  EXPECT_EQ(Values(ws.GetBlob("acc")), acc);
  EXPECT_EQ(ws.GetBlob("ys")->dims(), (Shape{B, L, C}));
  EXPECT_EQ(Values(ws.GetBlob("ys")), ys);
}

TEST(ScanTest, MismatchedScanLengthsAreAnError) {
  NetDef def = ParseNet(kScanNet);
  Workspace ws;
  ws.SetBlob("X", testing::RandomTensor(DataType::kFloat32, {2, 3, 2}, 1));
  ws.SetBlob("acc0", testing::RandomTensor(DataType::kFloat32, {2, 2}, 2));
  ws.SetBlob("two", Tensor::FromVector<float>({}, {2.f}));
  auto* args = def.mutable_op(0)->mutable_arg();
  for (auto& a : *args) {
    if (a.name() == "scan_input_axes") a.set_ints(0, 5);
  }
  auto net = Net::Create(def, &ws, ControlFlowRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  absl::Status s = (*net)->Run();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("scan_input_axes"), std::string::npos) << s;
}

// The body's own blobs (a scan input's slice, the carried states) are sized
// through the kernel context (ABI 11's ResizeTensor): under the enclosing
// net's limits, on whatever thread, and from its pool.
TEST(ScanTest, BodyBlobsAreSizedUnderTheNetsLimitsAndFromItsPool) {
  const int B = 2, L = 3, C = 512;  // a slice of X: [B, C] float32 = 4096 bytes
  Workspace ws;
  ws.SetBlob("X", testing::RandomTensor(DataType::kFloat32, {B, L, C}, 3));
  ws.SetBlob("acc0", testing::RandomTensor(DataType::kFloat32, {B, C}, 4));
  ws.SetBlob("two", Tensor::FromVector<float>({}, {2.f}));
  NetOptions small;
  small.max_tensor_bytes = 4000;
  auto refused = Net::Create(ParseNet(kScanNet), &ws, ControlFlowRegistry(), small);
  ASSERT_TRUE(refused.ok()) << refused.status();
  absl::Status s = (*refused)->Run();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  for (const char* needle : {"Scan", "a scan input's slice", "4096", "max_tensor_bytes = 4000"}) {
    EXPECT_NE(s.message().find(needle), std::string::npos) << "'" << needle << "' not in: " << s;
  }
  NetOptions enough;
  enough.max_tensor_bytes = 1 << 20;
  auto net = Net::Create(ParseNet(kScanNet), &ws, ControlFlowRegistry(), enough);
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  // The slice and the two carried states (value and staging), at least, came
  // from the net's pool and are still held by the body's workspace.
  EXPECT_GE((*net)->pool().in_use_bytes(), 3 * BufferPool::BucketSize(B * C * sizeof(float)));
  const int64_t device_allocations = (*net)->pool().device_allocations();
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ((*net)->pool().device_allocations(), device_allocations) << "a second run allocated again";
}

}  // namespace
}  // namespace loom
