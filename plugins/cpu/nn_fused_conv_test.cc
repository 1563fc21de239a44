// FusedConv (Conv + activation as a oneDNN post-op) against Conv followed by
// the ONNX activation op, both run through the CPU plugin, on random inputs.
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

struct Geometry {
  std::string name;
  Shape x, w;
  int64_t group = 1;
  std::vector<int64_t> strides, pads;  // empty: attribute absent
  bool bias = true;
};

struct Act {
  std::string type;
  std::vector<float> params;  // FusedConv's activation_params
  std::string onnx_args;      // the same as the activation op's attributes
};

const std::vector<Act>& Acts() {
  static const std::vector<Act> acts = {
      {"Relu", {}, ""},
      {"LeakyRelu", {0.2f}, "arg { name: \"alpha\" f: 0.2 }"},
      {"Clip", {-0.3f, 0.4f}, ""},  // Clip-13: min, max as inputs
      {"Sigmoid", {}, ""},
      {"Tanh", {}, ""},
      {"HardSigmoid", {0.3f, 0.6f}, "arg { name: \"alpha\" f: 0.3 } arg { name: \"beta\" f: 0.6 }"},
      {"HardSwish", {}, ""},
  };
  return acts;
}

std::string ConvText(const std::string& type, const Geometry& g, bool bias) {
  std::string t = "type: \"" + type + "\" input: \"X\" input: \"W\"" + (bias ? " input: \"B\"" : "") + " output: \"Y\"";
  t += " arg { name: \"group\" i: " + std::to_string(g.group) + " }";
  t += IntsArg("strides", g.strides) + IntsArg("pads", g.pads);
  return t;
}

OperatorDef FusedOp(const Geometry& g, const Act& a) {
  std::string t = ConvText("FusedConv", g, g.bias) + " arg { name: \"activation\" s: \"" + a.type + "\" }";
  if (!a.params.empty()) {
    t += " arg { name: \"activation_params\"";
    for (float p : a.params) t += " floats: " + std::to_string(p);
    t += " }";
  }
  return ParseOp(t);
}

// Conv, then the activation op on its output.
Tensor Unfused(const Geometry& g, const Act& a, const std::vector<Tensor>& in) {
  auto y = RunSingleOp(ParseOp(ConvText("Conv", g, g.bias)), in);
  EXPECT_TRUE(y.ok()) << y.status();
  if (!y.ok()) return Tensor();
  std::vector<Tensor> act_in = {(*y)[0]};
  std::string t = "type: \"" + a.type + "\" input: \"X\"";
  if (a.type == "Clip") {
    t += " input: \"lo\" input: \"hi\"";
    act_in.push_back(Tensor::FromVector<float>({}, {a.params[0]}));
    act_in.push_back(Tensor::FromVector<float>({}, {a.params[1]}));
  }
  auto z = RunSingleOp(ParseOp(t + " output: \"Y\" " + a.onnx_args), act_in);
  EXPECT_TRUE(z.ok()) << z.status();
  return z.ok() ? (*z)[0] : Tensor();
}

class FusedConvTest : public ::testing::TestWithParam<Geometry> {};

TEST_P(FusedConvTest, MatchesConvThenActivation) {
  const Geometry& g = GetParam();
  uint32_t seed = 1;
  for (const Act& a : Acts()) {
    SCOPED_TRACE(a.type);
    // Inputs wide enough to reach every activation's saturated ranges.
    std::vector<Tensor> in = {RandomTensor(DataType::kFloat32, g.x, seed++, -2, 2),
                              RandomTensor(DataType::kFloat32, g.w, seed++, -1, 1)};
    in.push_back(g.bias ? RandomTensor(DataType::kFloat32, {g.w[0]}, seed++, -1, 1) : Tensor());
    auto fused = RunSingleOp(FusedOp(g, a), in);
    ASSERT_TRUE(fused.ok()) << fused.status();
    EXPECT_TRUE(AllClose((*fused)[0], Unfused(g, a, in), 1e-4, 1e-5));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, FusedConvTest,
    ::testing::Values(Geometry{"plain2d", {2, 3, 7, 6}, {4, 3, 3, 3}},
                      Geometry{"pads_strides", {1, 4, 9, 8}, {6, 4, 3, 2}, 1, {2, 1}, {1, 0, 2, 1}},
                      Geometry{"groups_nobias", {1, 6, 5, 5}, {4, 3, 3, 3}, 2, {}, {1, 1, 1, 1}, false},
                      Geometry{"depthwise", {1, 8, 10, 10}, {8, 1, 3, 3}, 8, {2, 2}, {1, 1, 1, 1}},
                      Geometry{"pointwise", {1, 16, 7, 7}, {24, 16, 1, 1}},
                      Geometry{"conv1d", {2, 3, 11}, {5, 3, 4}, 1, {2}, {1, 2}},
                      Geometry{"conv3d", {1, 2, 4, 5, 4}, {3, 2, 2, 3, 2}},
                      Geometry{"no_input_channels", {1, 0, 4, 4}, {3, 0, 3, 3}}),
    [](const ::testing::TestParamInfo<Geometry>& i) { return i.param.name; });

// 1x1 conv, W = 1, B = 0: Y = act(X), computed by hand.
TEST(FusedConvKnownValues, OneByOneIdentity) {
  const Tensor x = Tensor::FromVector<float>({1, 1, 1, 4}, {-4.0f, -1.0f, 0.5f, 5.0f});
  const Tensor w = Tensor::FromVector<float>({1, 1, 1, 1}, {1.0f});
  const Geometry g{"id", {1, 1, 1, 4}, {1, 1, 1, 1}, 1, {}, {}, false};
  struct Want {
    Act act;
    std::vector<float> y;
  };
  const std::vector<Want> wants = {
      {{"Relu", {}, ""}, {0.0f, 0.0f, 0.5f, 5.0f}},
      {{"LeakyRelu", {0.1f}, ""}, {-0.4f, -0.1f, 0.5f, 5.0f}},
      {{"Clip", {-2.0f, 1.0f}, ""}, {-2.0f, -1.0f, 0.5f, 1.0f}},
      {{"HardSigmoid", {0.2f, 0.5f}, ""}, {0.0f, 0.3f, 0.6f, 1.0f}},
      {{"HardSwish", {}, ""}, {0.0f, -1.0f / 3.0f, 0.5f * 3.5f / 6.0f, 5.0f}},
      {{"Clip", {2.0f, 1.0f}, ""}, {1.0f, 1.0f, 1.0f, 1.0f}},  // min > max: ONNX gives max
  };
  for (const Want& want : wants) {
    SCOPED_TRACE(want.act.type);
    auto y = RunSingleOp(FusedOp(g, want.act), {x, w, Tensor()});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(AllClose((*y)[0], Tensor::FromVector<float>({1, 1, 1, 4}, want.y), 1e-5, 1e-6));
  }
}

TEST(FusedConvShapes, InferenceMatchesKernel) {
  const Geometry g{"s", {1, 4, 9, 8}, {6, 4, 3, 2}, 1, {2, 1}, {1, 0, 2, 1}};
  ExpectInferredShapes(FusedOp(g, Acts()[0]), {RandomTensor(DataType::kFloat32, g.x, 1),
                                              RandomTensor(DataType::kFloat32, g.w, 2),
                                              RandomTensor(DataType::kFloat32, {6}, 3)});
}

TEST(FusedConvErrors, BadActivationOrShapes) {
  const Geometry g{"e", {1, 2, 4, 4}, {3, 2, 3, 3}, 1, {}, {}, false};
  const std::vector<Tensor> in = {RandomTensor(DataType::kFloat32, g.x, 1), RandomTensor(DataType::kFloat32, g.w, 2),
                                  Tensor()};
  EXPECT_FALSE(RunSingleOp(FusedOp(g, {"Elu", {}, ""}), in).ok());          // not a fusable activation
  EXPECT_FALSE(RunSingleOp(FusedOp(g, {"Clip", {1.0f}, ""}), in).ok());     // Clip needs min and max
  EXPECT_FALSE(RunSingleOp(FusedOp(g, {"LeakyRelu", {1, 2}, ""}), in).ok());  // one alpha
  // W's channels differ from X's.
  EXPECT_FALSE(RunSingleOp(FusedOp(g, Acts()[0]),
                           {in[0], RandomTensor(DataType::kFloat32, {3, 5, 3, 3}, 3), Tensor()})
                   .ok());
}

}  // namespace
}  // namespace loom
