// CUDA convolutions (Conv, ConvTranspose, FusedConv on cuDNN) against the
// CPU kernels on random inputs. float32 compares directly; the CPU kernels
// are float32 only, so float16 runs are compared with the CPU kernel on the
// same values widened to float32.
#include <string>
#include <vector>

#include "core/net.h"
#include "core/workspace.h"
#include "plugins/cuda/cuda_test_util.h"

namespace loom {
namespace testing {
namespace {

// float32 tolerances for the convolutions: cuDNN sums in another order.
constexpr double kConvRtol = 1e-4, kConvAtol = 1e-4;

// ---------------------------------------------------------------------------
// Conv

struct ConvCase {
  std::string name;
  Shape x, w;
  bool bias = true;
  int64_t group = 1;
  std::vector<int64_t> strides, pads, dilations, kernel_shape;  // empty: absent
  std::string auto_pad;                                          // empty: absent
};

OperatorDef ConvOp(const ConvCase& c, const char* type = "Conv") {
  std::string text = std::string("type: '") + type + "' input: 'x' input: 'w'" + (c.bias ? " input: 'b'" : "") +
                     " output: 'y'" + IntArg("group", c.group) + IntsArg("strides", c.strides) +
                     IntsArg("pads", c.pads) + IntsArg("dilations", c.dilations) +
                     IntsArg("kernel_shape", c.kernel_shape);
  if (!c.auto_pad.empty()) text += StrArg("auto_pad", c.auto_pad);
  return ParseOp(text);
}

std::vector<ConvCase> ConvCases() {
  return {
      {"basic_pad1", {2, 3, 7, 8}, {4, 3, 3, 3}, true, 1, {}, {1, 1, 1, 1}},
      {"no_bias_stride2", {2, 3, 9, 8}, {5, 3, 3, 3}, false, 1, {2, 2}, {1, 1, 1, 1}},
      {"asymmetric_pads_dilation", {1, 3, 10, 9}, {4, 3, 3, 2}, true, 1, {2, 1}, {0, 1, 2, 0}, {2, 1}},
      {"group2", {2, 4, 6, 6}, {6, 2, 3, 3}, true, 2, {}, {1, 1, 1, 1}},
      {"depthwise", {1, 4, 8, 7}, {4, 1, 3, 3}, true, 4, {1, 2}, {1, 1, 1, 1}},
      {"depthwise_multiplier", {1, 3, 6, 6}, {6, 1, 3, 3}, true, 3},
      {"pointwise", {2, 16, 5, 5}, {8, 16, 1, 1}, true},
      {"same_upper_stride2", {1, 2, 7, 6}, {3, 2, 3, 3}, true, 1, {2, 2}, {}, {}, {}, "SAME_UPPER"},
      {"same_lower_stride2", {1, 2, 7, 6}, {3, 2, 4, 3}, true, 1, {2, 2}, {}, {}, {}, "SAME_LOWER"},
      {"valid", {1, 2, 7, 6}, {3, 2, 3, 3}, true, 1, {}, {9, 9, 9, 9}, {}, {}, "VALID"},
      {"kernel_shape_given", {1, 2, 5, 5}, {2, 2, 2, 3}, true, 1, {}, {}, {}, {2, 3}},
      {"conv1d", {2, 3, 10}, {5, 3, 3}, true, 1, {2}, {2, 1}},
      {"conv1d_same_upper", {2, 3, 11}, {4, 3, 4}, false, 1, {3}, {}, {}, {}, "SAME_UPPER"},
      {"conv3d", {1, 2, 5, 6, 7}, {3, 2, 2, 3, 3}, true, 1, {}, {1, 0, 1, 1, 1, 0}, {1, 2, 1}},
      {"conv3d_group_stride", {2, 4, 4, 5, 6}, {4, 2, 3, 3, 3}, true, 2, {1, 2, 2}, {1, 1, 1, 1, 1, 1}},
      {"no_input_channels", {1, 0, 5, 5}, {2, 0, 3, 3}, true, 1, {}, {1, 1, 1, 1}},
  };
}

TEST(CudnnConvTest, MatchesCpuFloat32) {
  LOOM_SKIP_WITHOUT_GPU();
  uint32_t seed = 1;
  for (const ConvCase& c : ConvCases()) {
    SCOPED_TRACE(c.name);
    std::vector<Tensor> in = {RandomTensor(kF32, c.x, seed++), RandomTensor(kF32, c.w, seed++)};
    if (c.bias) in.push_back(RandomTensor(kF32, {c.w[0]}, seed++));
    ExpectCudaMatchesCpu(ConvOp(c), in, kConvRtol, kConvAtol);
  }
}

TEST(CudnnConvTest, MatchesCpuFloat16) {
  LOOM_SKIP_WITHOUT_GPU();
  uint32_t seed = 100;
  for (const ConvCase& c : ConvCases()) {
    SCOPED_TRACE(c.name);
    std::vector<Tensor> in = {RandomTensor(kF16, c.x, seed++), RandomTensor(kF16, c.w, seed++)};
    if (c.bias) in.push_back(RandomTensor(kF16, {c.w[0]}, seed++));
    ExpectLowPrecisionMatchesCpu(ConvOp(c), in, 1e-2, 2e-2);
  }
}

// One operator instance run repeatedly in a net: the cached descriptors and
// algorithm serve new values of the same shapes, and a new X shape (a new
// plan, possibly the same kernel) still matches the CPU.
TEST(CudnnConvTest, RepeatedRunsOfOneNet) {
  LOOM_SKIP_WITHOUT_GPU();
  const ConvCase c = ConvCases()[2];  // asymmetric pads: the padded-copy path
  OperatorDef op = ConvOp(c);
  op.mutable_device_option()->set_device_type("CUDA");
  op.mutable_device_option()->set_device_id(0);
  Workspace ws;
  NetDef def;
  for (const char* in : {"x", "w", "b"}) def.add_external_input(in);
  def.add_external_output("y");
  *def.add_op() = op;
  ws.SetBlob("x", RandomTensor(kF32, c.x, 1));
  ws.SetBlob("w", RandomTensor(kF32, c.w, 2));
  ws.SetBlob("b", RandomTensor(kF32, {c.w[0]}, 3));
  auto net = Net::Create(def, &ws, testing::CudaRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  const Shape shapes[] = {c.x, c.x, {3, 3, 12, 5}};
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE(run);
    ws.SetBlob("x", RandomTensor(kF32, shapes[run], 10 + run));
    ws.SetBlob("w", RandomTensor(kF32, c.w, 20 + run));
    ASSERT_TRUE((*net)->Run().ok());
    auto cpu = testing::RunSingleOp(ConvOp(c), {*ws.GetBlob("x"), *ws.GetBlob("w"), *ws.GetBlob("b")},
                                    testing::CudaRegistry());
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    const Tensor* y = ws.GetBlob("y");
    ASSERT_NE(y, nullptr);
    EXPECT_TRUE(AllClose(*y, (*cpu)[0], kConvRtol, kConvAtol));
  }
}

TEST(CudnnConvTest, BadShapesAreErrors) {
  LOOM_SKIP_WITHOUT_GPU();
  ConvCase c{"bad", {1, 3, 5, 5}, {4, 2, 3, 3}, false};
  // W[1] != C / group.
  EXPECT_FALSE(testing::RunOnCuda(ConvOp(c), {RandomTensor(kF32, c.x, 1), RandomTensor(kF32, c.w, 2)}).ok());
  // Input smaller than the window.
  c.w = {4, 3, 7, 7};
  EXPECT_FALSE(testing::RunOnCuda(ConvOp(c), {RandomTensor(kF32, c.x, 1), RandomTensor(kF32, c.w, 2)}).ok());
  // pads of the wrong length.
  c.w = {4, 3, 3, 3};
  c.pads = {1, 1};
  EXPECT_FALSE(testing::RunOnCuda(ConvOp(c), {RandomTensor(kF32, c.x, 1), RandomTensor(kF32, c.w, 2)}).ok());
  // Bias of the wrong size.
  c.pads = {};
  c.bias = true;
  EXPECT_FALSE(testing::RunOnCuda(ConvOp(c), {RandomTensor(kF32, c.x, 1), RandomTensor(kF32, c.w, 2),
                                               RandomTensor(kF32, {3}, 3)})
                   .ok());
}

// ---------------------------------------------------------------------------
// ConvTranspose

struct DeconvCase {
  ConvCase conv;  // x, w ([C, M / group, k...]), bias, group, strides, pads, dilations, auto_pad
  std::vector<int64_t> output_padding, output_shape;
};

OperatorDef DeconvOp(const DeconvCase& c) {
  OperatorDef op = ConvOp(c.conv, "ConvTranspose");
  std::string extra = IntsArg("output_padding", c.output_padding) + IntsArg("output_shape", c.output_shape);
  if (!extra.empty()) {
    OperatorDef more = ParseOp("type: 'ConvTranspose'" + extra);
    for (const auto& a : more.arg()) *op.add_arg() = a;
  }
  return op;
}

std::vector<DeconvCase> DeconvCases() {
  return {
      {{"basic", {2, 3, 4, 5}, {3, 2, 3, 3}, true}},
      {{"stride2_pads", {2, 3, 4, 5}, {3, 4, 3, 3}, true, 1, {2, 2}, {1, 1, 1, 1}}},
      {{"asymmetric_pads", {1, 2, 5, 4}, {2, 3, 3, 3}, true, 1, {2, 1}, {1, 0, 0, 2}}},
      {{"output_padding", {1, 2, 4, 4}, {2, 3, 3, 3}, true, 1, {2, 2}, {1, 1, 1, 1}}, {1, 1}},
      {{"group2_dilation", {1, 4, 3, 4}, {4, 3, 3, 2}, true, 2, {2, 1}, {}, {2, 2}}},
      {{"depthwise", {2, 3, 4, 4}, {3, 1, 3, 3}, false, 3, {2, 2}, {1, 1, 1, 1}}},
      {{"same_upper", {1, 2, 4, 5}, {2, 3, 3, 3}, true, 1, {2, 2}, {}, {}, {}, "SAME_UPPER"}},
      {{"same_lower", {1, 2, 4, 5}, {2, 3, 4, 3}, true, 1, {2, 2}, {}, {}, {}, "SAME_LOWER"}},
      {{"valid", {1, 2, 3, 3}, {2, 2, 3, 3}, true, 1, {3, 2}, {}, {}, {}, "VALID"}},
      // output_shape larger than the natural size: negative end padding.
      {{"output_shape_larger", {1, 2, 3, 3}, {2, 2, 3, 3}, true, 1, {2, 2}}, {}, {9, 10}},
      {{"output_shape_smaller", {1, 2, 4, 4}, {2, 2, 3, 3}, true, 1, {2, 2}}, {}, {7, 8}},
      {{"deconv1d", {2, 3, 6}, {3, 2, 4}, true, 1, {3}, {1, 2}}},
      {{"deconv3d", {1, 2, 3, 4, 3}, {2, 2, 2, 3, 3}, true, 1, {2, 1, 2}, {0, 1, 1, 1, 0, 0}}},
      {{"no_input_channels", {1, 0, 3, 3}, {0, 2, 3, 3}, true}},
  };
}

TEST(CudnnConvTransposeTest, MatchesCpuFloat32) {
  LOOM_SKIP_WITHOUT_GPU();
  uint32_t seed = 200;
  for (const DeconvCase& c : DeconvCases()) {
    SCOPED_TRACE(c.conv.name);
    std::vector<Tensor> in = {RandomTensor(kF32, c.conv.x, seed++), RandomTensor(kF32, c.conv.w, seed++)};
    if (c.conv.bias) in.push_back(RandomTensor(kF32, {c.conv.w[1] * c.conv.group}, seed++));
    ExpectCudaMatchesCpu(DeconvOp(c), in, kConvRtol, kConvAtol);
  }
}

TEST(CudnnConvTransposeTest, MatchesCpuFloat16) {
  LOOM_SKIP_WITHOUT_GPU();
  uint32_t seed = 300;
  for (const DeconvCase& c : DeconvCases()) {
    SCOPED_TRACE(c.conv.name);
    std::vector<Tensor> in = {RandomTensor(kF16, c.conv.x, seed++), RandomTensor(kF16, c.conv.w, seed++)};
    if (c.conv.bias) in.push_back(RandomTensor(kF16, {c.conv.w[1] * c.conv.group}, seed++));
    ExpectLowPrecisionMatchesCpu(DeconvOp(c), in, 1e-2, 2e-2);
  }
}

TEST(CudnnConvTransposeTest, BadShapesAreErrors) {
  LOOM_SKIP_WITHOUT_GPU();
  // W[0] != C.
  DeconvCase c{{"bad", {1, 3, 4, 4}, {2, 2, 3, 3}, false}};
  EXPECT_FALSE(testing::RunOnCuda(DeconvOp(c), {RandomTensor(kF32, c.conv.x, 1), RandomTensor(kF32, c.conv.w, 2)}).ok());
  // Padding larger than the output: negative size.
  c.conv.w = {3, 2, 3, 3};
  c.conv.pads = {5, 5, 5, 5};
  EXPECT_FALSE(testing::RunOnCuda(DeconvOp(c), {RandomTensor(kF32, c.conv.x, 1), RandomTensor(kF32, c.conv.w, 2)}).ok());
}

// ---------------------------------------------------------------------------
// Runs without a GPU: every case above is valid for the CPU reference (so a
// failure on a GPU machine is the CUDA kernel's, not the case's).

TEST(CudnnCasesTest, CpuReferenceAcceptsEveryCase) {
  auto run = [](const OperatorDef& op, const std::vector<Tensor>& in) {
    auto r = testing::RunSingleOp(op, in, testing::CudaRegistry());
    EXPECT_TRUE(r.ok()) << op.DebugString() << r.status();
  };
  for (const ConvCase& c : ConvCases()) {
    std::vector<Tensor> in = {RandomTensor(kF32, c.x, 1), RandomTensor(kF32, c.w, 2)};
    if (c.bias) in.push_back(RandomTensor(kF32, {c.w[0]}, 3));
    run(ConvOp(c), in);
  }
  for (const DeconvCase& c : DeconvCases()) {
    std::vector<Tensor> in = {RandomTensor(kF32, c.conv.x, 1), RandomTensor(kF32, c.conv.w, 2)};
    if (c.conv.bias) in.push_back(RandomTensor(kF32, {c.conv.w[1] * c.conv.group}, 3));
    run(DeconvOp(c), in);
  }
}

}  // namespace
}  // namespace testing
}  // namespace loom

namespace loom {
namespace testing {
namespace {

// FusedConv (Conv + activation, made by the importer) against the CPU's
// oneDNN post-op kernel, for every activation.
TEST(CudaFusedConvTest, MatchesCpuForEveryActivation) {
  LOOM_SKIP_WITHOUT_GPU();
  const char* acts[][2] = {{"Relu", ""},
                           {"LeakyRelu", "arg { name: 'activation_params' floats: 0.2 }"},
                           {"Clip", "arg { name: 'activation_params' floats: -0.5 floats: 0.75 }"},
                           {"Sigmoid", ""},
                           {"Tanh", ""},
                           {"HardSigmoid", ""},
                           {"HardSwish", ""}};
  for (const auto& a : acts) {
    OperatorDef op = testing::ParseOp(
        std::string("type: 'FusedConv' input: 'x' input: 'w' input: 'b' output: 'y' arg { name: 'activation' s: '") +
        a[0] + "' } arg { name: 'pads' ints: 1 ints: 1 ints: 1 ints: 1 } " + a[1]);
    testing::ExpectCudaMatchesCpu(op, {testing::RandomTensor(DataType::kFloat32, {2, 3, 7, 6}, 1),
                                       testing::RandomTensor(DataType::kFloat32, {4, 3, 3, 3}, 2),
                                       testing::RandomTensor(DataType::kFloat32, {4}, 3)},
                                  1e-4, 1e-4);
  }
}

}  // namespace
}  // namespace testing
}  // namespace loom
