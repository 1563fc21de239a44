// The prepare step of the oneDNN kernels (Conv, FusedConv, ConvTranspose,
// Gemm, MatMul, FC, pooling, BatchNormalization, LSTM): with initializer
// weights the kernels pack them once at plan time and give the same results
// as with weights fed as inputs; weights fed as inputs may change between
// runs and each run uses the current values (no stale packed copy); and
// shape errors surface when the plan is built (Net::Prepare), naming the op.
#include "absl/strings/str_cat.h"
#include "core/net.h"
#include "core/proto_io.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using testing::RandomTensor;

struct Case {
  std::string name;
  std::string op;                    // OperatorDef text; inputs x, w, then extra
  std::vector<std::string> inputs;   // blob names in op order
  std::vector<Tensor> values;        // their values
  std::vector<int> weights;          // indices of the inputs that are weights
};

NetDef OneOpNet(const Case& c, const std::vector<bool>& as_initializer) {
  NetDef net;
  net.set_name(c.name);
  *net.add_op() = testing::ParseOp(c.op);
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (as_initializer[i]) {
      *net.add_initializer() = TensorToProto(c.values[i], c.inputs[i]);
    } else {
      net.add_external_input(c.inputs[i]);
    }
  }
  net.add_external_output("y");
  return net;
}

// Runs `c` as one net with its weights as initializers and compares with
// RunSingleOp (every input fed); then, with the weights fed as inputs, runs
// twice with different weight values and compares each run.
void CheckCase(Case c) {
  SCOPED_TRACE(c.name);
  const OperatorDef op = testing::ParseOp(c.op);
  auto reference = testing::RunSingleOp(op, c.values);
  ASSERT_TRUE(reference.ok()) << reference.status();

  std::vector<bool> init(c.inputs.size(), false);
  for (int i : c.weights) init[i] = true;
  {
    Workspace ws;
    for (size_t i = 0; i < c.inputs.size(); ++i) if (!init[i]) ws.SetBlob(c.inputs[i], *c.values[i].Clone());
    auto net = Net::Create(OneOpNet(c, init), &ws, testing::CpuRegistry());
    ASSERT_TRUE(net.ok()) << net.status();
    for (int run = 0; run < 2; ++run) {
      ASSERT_TRUE((*net)->Run().ok());
      EXPECT_TRUE(testing::AllClose(*ws.GetBlob("y"), (*reference)[0], 1e-5, 1e-5)) << "initializer weights, run " << run;
    }
  }
  Workspace ws;
  for (size_t i = 0; i < c.inputs.size(); ++i) ws.SetBlob(c.inputs[i], *c.values[i].Clone());
  auto net = Net::Create(OneOpNet(c, std::vector<bool>(c.inputs.size(), false)), &ws, testing::CpuRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_TRUE(testing::AllClose(*ws.GetBlob("y"), (*reference)[0], 1e-5, 1e-5)) << "fed weights, run 0";
  // New weight values, same shapes: the next run must use them.
  for (int i : c.weights) {
    c.values[i] = RandomTensor(c.values[i].dtype(), c.values[i].dims(), 900 + i, -0.5, 0.5);
    ws.SetBlob(c.inputs[i], *c.values[i].Clone());
  }
  auto changed = testing::RunSingleOp(op, c.values);
  ASSERT_TRUE(changed.ok()) << changed.status();
  ASSERT_FALSE(testing::AllClose((*changed)[0], (*reference)[0], 1e-5, 1e-5)) << "the new weights must matter";
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_TRUE(testing::AllClose(*ws.GetBlob("y"), (*changed)[0], 1e-5, 1e-5)) << "fed weights changed between runs";
}

Tensor R(Shape s, uint32_t seed) { return RandomTensor(DataType::kFloat32, s, seed, -0.5, 0.5); }

TEST(Prepare, ConvPacksConstantWeightsOnceAndRepacksFedOnes) {
  CheckCase({"conv", R"(type: "Conv" input: "x" input: "w" input: "b" output: "y"
                       arg { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 } arg { name: "group" i: 2 })",
             {"x", "w", "b"}, {R({2, 4, 7, 6}, 1), R({6, 2, 3, 3}, 2), R({6}, 3)}, {1, 2}});
  CheckCase({"fused", R"(type: "FusedConv" input: "x" input: "w" output: "y"
                        arg { name: "activation" s: "Relu" })",
             {"x", "w"}, {R({1, 3, 5, 5}, 4), R({8, 3, 1, 1}, 5)}, {1}});
}

TEST(Prepare, ConvTransposePacksConstantWeightsOnceAndRepacksFedOnes) {
  CheckCase({"deconv", R"(type: "ConvTranspose" input: "x" input: "w" input: "b" output: "y"
                         arg { name: "strides" ints: 2 ints: 2 } arg { name: "output_padding" ints: 1 ints: 1 })",
             {"x", "w", "b"}, {R({1, 3, 4, 4}, 6), R({3, 5, 3, 3}, 7), R({5}, 8)}, {1, 2}});
}

TEST(Prepare, GemmMatMulAndFCWithConstantAndFedB) {
  CheckCase({"gemm", R"(type: "Gemm" input: "x" input: "w" input: "c" output: "y" arg { name: "transB" i: 1 })",
             {"x", "w", "c"}, {R({3, 5}, 9), R({4, 5}, 10), R({4}, 11)}, {1, 2}});
  CheckCase({"matmul", R"(type: "MatMul" input: "x" input: "w" output: "y")", {"x", "w"},
             {R({2, 3, 5}, 12), R({5, 4}, 13)}, {1}});
  // FC packs a constant W into the matmul's layout (a shared copy, ABI 8);
  // large enough that oneDNN picks a blocked layout on AVX-512.
  CheckCase({"fc", R"(type: "FC" input: "x" input: "w" input: "b" output: "y" arg { name: "axis" i: 2 })",
             {"x", "w", "b"}, {R({4, 8, 64}, 23), R({128, 64}, 24), R({128}, 25)}, {1, 2}});
}

TEST(Prepare, BatchNormAndLstmWithConstantAndFedWeights) {
  Tensor var = RandomTensor(DataType::kFloat32, {3}, 14, 0.5, 1.5);
  CheckCase({"bn", R"(type: "BatchNormalization" input: "x" input: "s" input: "b" input: "m" input: "w" output: "y")",
             {"x", "s", "b", "m", "w"}, {R({2, 3, 4, 4}, 15), R({3}, 16), R({3}, 17), R({3}, 18), var}, {1, 2, 3}});
  CheckCase({"lstm", R"(type: "LSTM" input: "x" input: "w" input: "r" input: "b" output: "y"
                       arg { name: "hidden_size" i: 4 })",
             {"x", "w", "r", "b"}, {R({5, 2, 3}, 19), R({1, 16, 3}, 20), R({1, 16, 4}, 21), R({1, 32}, 22)}, {1, 2, 3}});
}

// Builds the plan for `net_text` with x (an external input) and w (an
// initializer: in the workspace, not an external input); returns its error.
absl::Status PlanError(const std::string& net_text, const Tensor& x, const Tensor& w) {
  absl::StatusOr<NetDef> def = ParseNetDefText(net_text);
  if (!def.ok()) return def.status();
  Workspace ws;
  ws.SetBlob("x", *x.Clone());
  ws.SetBlob("w", *w.Clone());
  auto net = Net::Create(*def, &ws, testing::CpuRegistry());
  if (!net.ok()) return net.status();
  return (*net)->Prepare().status();
}

TEST(Prepare, ShapeErrorsSurfaceWhenThePlanIsBuilt) {
  // W [4, 3, 3, 3] does not fit X with 2 channels.
  absl::Status s = PlanError(R"(name: "n" external_input: "x" external_output: "y"
      op { name: "c1" type: "Conv" input: "x" input: "w" output: "y" })",
                             R({1, 2, 5, 5}, 30), R({4, 3, 3, 3}, 31));
  EXPECT_NE(s.message().find("op #0 'c1' (Conv): prepare: "), std::string::npos) << s;
  EXPECT_NE(s.message().find("input W [4, 3, 3, 3] does not fit X [1, 2, 5, 5]"), std::string::npos) << s;
  // Gemm: A [3, 5] and B [4, 2] disagree on K.
  s = PlanError(R"(name: "n" external_input: "x" external_output: "y"
      op { name: "g" type: "Gemm" input: "x" input: "w" output: "y" })",
                R({3, 5}, 32), R({4, 2}, 33));
  EXPECT_NE(s.message().find("op #0 'g' (Gemm): prepare: "), std::string::npos) << s;
  // MaxPool: a 3x3 window on a 2x2 input.
  s = PlanError(R"(name: "n" external_input: "x" external_output: "y"
      op { name: "p" type: "MaxPool" input: "x" output: "y" arg { name: "kernel_shape" ints: 3 ints: 3 } }
      op { name: "keep_w" type: "Relu" input: "w" output: "w2" })",
                R({1, 2, 2, 2}, 34), R({1}, 35));
  EXPECT_NE(s.message().find("op #0 'p' (MaxPool): prepare: "), std::string::npos) << s;
}

}  // namespace
}  // namespace loom
