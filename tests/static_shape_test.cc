// NetOptions::static_shape (core/net.h) and Prepare_ReleaseConstant (ABI 4):
// a Conv packs its constant W in prepare and lets it go; under static_shape
// the net frees the initializer after planning, and the results stay those
// of a net that keeps it, also when two Convs share one packed copy of it,
// and as well for Gemm's and MatMul's B and FC's W.
// A weight that another op also reads stays. A run
// with a signature the net did not plan first is refused with the inputs
// named; buckets declared before the first run all run.
#include "core/net.h"
#include "testing/op_runner.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

// A float32 initializer of `dims`, uniform in [-0.5, 0.5).
void AddInitializer(NetDef* def, const std::string& name, Shape dims, uint32_t seed) {
  Tensor t = testing::RandomTensor(DataType::kFloat32, dims, seed, -0.5, 0.5);
  TensorProto* p = def->add_initializer();
  p->set_name(name);
  for (int64_t d : dims) p->add_dims(d);
  p->set_raw_data(std::string(static_cast<const char*>(t.raw_data()), t.nbytes()));
}

// x [N, 4, 6, 6] -> Conv(W [8, 4, 3, 3], B [8]) -> Relu -> y; with
// `w_also_read`, W is a second output too (through Identity).
NetDef ConvNet(bool w_also_read) {
  NetDef def;
  std::string text = R"pb(
    name: "conv" external_input: "x" external_output: "y"
    op { type: "Conv" input: "x" input: "W" input: "B" output: "c" arg { name: "pads" ints: [1, 1, 1, 1] } }
    op { type: "Relu" input: "c" output: "y" }
  )pb";
  if (w_also_read) text += R"pb( op { type: "Identity" input: "W" output: "w_copy" } external_output: "w_copy" )pb";
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  AddInitializer(&def, "W", {8, 4, 3, 3}, 1);
  AddInitializer(&def, "B", {8}, 2);
  return def;
}

NetOptions Options(bool static_shape) {
  NetOptions o;
  o.static_shape = static_shape;
  o.num_threads = 1;
  return o;
}

Tensor Input(int64_t n, uint32_t seed) { return testing::RandomTensor(DataType::kFloat32, {n, 4, 6, 6}, seed); }

TEST(StaticShapeTest, PackedWeightsAreFreedAndResultsUnchanged) {
  Workspace ws, ref_ws;
  auto net = Net::Create(ConvNet(false), &ws, testing::CpuRegistry(), Options(true));
  auto ref = Net::Create(ConvNet(false), &ref_ws, testing::CpuRegistry(), Options(false));
  ASSERT_TRUE(net.ok() && ref.ok());
  for (uint32_t run = 0; run < 3; ++run) {
    ws.SetBlob("x", Input(2, 10 + run));
    ref_ws.SetBlob("x", Input(2, 10 + run));
    const absl::Status status = (*net)->Run();
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_TRUE((*ref)->Run().ok());
    ASSERT_TRUE(testing::AllClose(*ws.GetBlob("y"), *ref_ws.GetBlob("y"), 0, 0)) << "run " << run;
  }
  // W (the Conv packed it) is freed; B (read as is) and the reference's W stay.
  EXPECT_EQ((*net)->released_constants(), 1);
  EXPECT_EQ((*net)->released_constant_bytes(), 8u * 4 * 3 * 3 * sizeof(float));
  EXPECT_EQ(ws.GetBlob("W")->nbytes(), 0u);
  EXPECT_EQ(ws.GetBlob("B")->nbytes(), 8 * sizeof(float));
  EXPECT_EQ(ref_ws.GetBlob("W")->nbytes(), 8u * 4 * 3 * 3 * sizeof(float));
  EXPECT_EQ((*ref)->released_constants(), 0);
}

// Two Convs of the same W share one packed copy (Prepare_SharedPack), and
// W is still freed once both let go of it: the net drops W's entries from
// the store first (PackedConstants::Forget), and the kernels keep reading
// their copy.
TEST(StaticShapeTest, ASharedPackedWeightIsFreedToo) {
  NetDef def = ConvNet(false);
  OperatorDef* second = def.add_op();
  *second = def.op(0);
  second->set_output(0, "y2");
  def.add_external_output("y2");
  Workspace ws, ref_ws;
  NetScope scope;
  scope.packed_constants = std::make_shared<PackedConstants>();
  auto net = Net::Create(def, &ws, testing::CpuRegistry(), Options(true), scope);
  auto ref = Net::Create(def, &ref_ws, testing::CpuRegistry(), Options(false));
  ASSERT_TRUE(net.ok() && ref.ok());
  for (uint32_t run = 0; run < 2; ++run) {
    ws.SetBlob("x", Input(2, 20 + run));
    ref_ws.SetBlob("x", Input(2, 20 + run));
    ASSERT_TRUE((*net)->Run().ok());
    ASSERT_TRUE((*ref)->Run().ok());
    ASSERT_TRUE(testing::AllClose(*ws.GetBlob("y"), *ref_ws.GetBlob("y"), 0, 0)) << "run " << run;
    ASSERT_TRUE(testing::AllClose(*ws.GetBlob("y2"), *ref_ws.GetBlob("y2"), 0, 0)) << "run " << run;
  }
  EXPECT_EQ(scope.packed_constants->fills(), 1) << "one copy for both Convs";
  EXPECT_EQ(scope.packed_constants->live_entries(), 0u) << "W's entry was dropped when W was freed";
  EXPECT_EQ((*net)->released_constants(), 1);
  EXPECT_EQ(ws.GetBlob("W")->nbytes(), 0u);
}

// Gemm, MatMul and FC read only their packed copies of a constant B / W
// too: all three are freed, C and the biases (read as they are) stay, and
// the results are those of the net that keeps them.
TEST(StaticShapeTest, MatMulWeightsAreFreedToo) {
  NetDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    name: "mlp" external_input: "x" external_output: "y"
    op { type: "Gemm" input: "x" input: "B1" input: "C1" output: "h1" }
    op { type: "MatMul" input: "h1" input: "B2" output: "h2" }
    op { type: "FC" input: "h2" input: "W3" input: "b3" output: "y" }
  )pb", &def));
  AddInitializer(&def, "B1", {8, 32}, 1);
  AddInitializer(&def, "C1", {32}, 2);
  AddInitializer(&def, "B2", {32, 16}, 3);
  AddInitializer(&def, "W3", {4, 16}, 4);
  AddInitializer(&def, "b3", {4}, 5);
  Workspace ws, ref_ws;
  auto net = Net::Create(def, &ws, testing::CpuRegistry(), Options(true));
  auto ref = Net::Create(def, &ref_ws, testing::CpuRegistry(), Options(false));
  ASSERT_TRUE(net.ok() && ref.ok());
  for (uint32_t run = 0; run < 2; ++run) {
    const Tensor x = testing::RandomTensor(DataType::kFloat32, {3, 8}, 30 + run);
    ws.SetBlob("x", x);
    ref_ws.SetBlob("x", x);
    const absl::Status status = (*net)->Run();
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_TRUE((*ref)->Run().ok());
    ASSERT_TRUE(testing::AllClose(*ws.GetBlob("y"), *ref_ws.GetBlob("y"), 0, 0)) << "run " << run;
  }
  EXPECT_EQ((*net)->released_constants(), 3);
  EXPECT_EQ((*net)->released_constant_bytes(), (8u * 32 + 32 * 16 + 4 * 16) * sizeof(float));
  for (const char* freed : {"B1", "B2", "W3"}) EXPECT_EQ(ws.GetBlob(freed)->nbytes(), 0u) << freed;
  EXPECT_EQ(ws.GetBlob("C1")->nbytes(), 32 * sizeof(float));
  EXPECT_EQ(ws.GetBlob("b3")->nbytes(), 4 * sizeof(float));
}

TEST(StaticShapeTest, AWeightAnotherOpReadsStays) {
  Workspace ws;
  ws.SetBlob("x", Input(1, 3));
  auto net = Net::Create(ConvNet(true), &ws, testing::CpuRegistry(), Options(true));
  ASSERT_TRUE(net.ok());
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ((*net)->released_constants(), 0);
  EXPECT_EQ(ws.GetBlob("W")->nbytes(), 8u * 4 * 3 * 3 * sizeof(float));
  EXPECT_EQ(ws.GetBlob("w_copy")->nbytes(), 8u * 4 * 3 * 3 * sizeof(float));
}

TEST(StaticShapeTest, AnotherSignatureIsRefusedWithTheInputsNamed) {
  Workspace ws;
  ws.SetBlob("x", Input(1, 3));
  auto net = Net::Create(ConvNet(false), &ws, testing::CpuRegistry(), Options(true));
  ASSERT_TRUE(net.ok());
  ASSERT_TRUE((*net)->Run().ok());
  ws.SetBlob("x", Input(2, 4));
  absl::Status s = (*net)->Run();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("static_shape"), std::string::npos) << s;
  EXPECT_NE(s.message().find("x float32[2, 4, 6, 6]"), std::string::npos) << s;
  // Buckets can no longer be declared: the weights are gone.
  EXPECT_EQ((*net)->PlanBuckets({{{"x", {4, 4, 6, 6}}}}).code(), absl::StatusCode::kFailedPrecondition);
  // The planned signature still runs.
  ws.SetBlob("x", Input(1, 5));
  EXPECT_TRUE((*net)->Run().ok());
}

// A bucket naming an input that is not set fails and leaves the net as it
// was: still static (another signature refused after the first run).
TEST(StaticShapeTest, AFailedPlanBucketsLeavesTheNetStatic) {
  Workspace ws;
  ws.SetBlob("x", Input(1, 3));
  auto net = Net::Create(ConvNet(false), &ws, testing::CpuRegistry(), Options(true));
  ASSERT_TRUE(net.ok());
  EXPECT_EQ((*net)->PlanBuckets({{{"missing", {1}}}}).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ((*net)->released_constants(), 1);
  ws.SetBlob("x", Input(2, 4));
  EXPECT_EQ((*net)->Run().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(StaticShapeTest, BucketsDeclaredFirstAllRun) {
  Workspace ws, ref_ws;
  ws.SetBlob("x", Input(1, 3));
  auto net = Net::Create(ConvNet(false), &ws, testing::CpuRegistry(), Options(true));
  auto ref = Net::Create(ConvNet(false), &ref_ws, testing::CpuRegistry(), Options(false));
  ASSERT_TRUE(net.ok() && ref.ok());
  ASSERT_TRUE((*net)->PlanBuckets({{{"x", {1, 4, 6, 6}}}, {{"x", {3, 4, 6, 6}}}}).ok());
  EXPECT_EQ((*net)->released_constants(), 1);  // after both buckets packed W
  for (int64_t n : {3, 1, 3}) {
    ws.SetBlob("x", Input(n, 7));
    ref_ws.SetBlob("x", Input(n, 7));
    ASSERT_TRUE((*net)->Run().ok()) << "N = " << n << ": " << (*net)->Run();
    ASSERT_TRUE((*ref)->Run().ok());
    EXPECT_TRUE(testing::AllClose(*ws.GetBlob("y"), *ref_ws.GetBlob("y"), 0, 0)) << "N = " << n;
  }
  EXPECT_EQ((*net)->plans_built(), 2);
}

}  // namespace
}  // namespace loom
