// LayerNormalizationGradient (nn_normalization_gradient.cc): float32 on
// oneDNN's layer_normalization_backward (or the loops, where Scale or B
// broadcast) against the float64 loops, which the finite-difference checks
// of tests/autodiff_layers_test.cc hold to the definition; every subset of
// the outputs, one and several normalized dims.
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

struct Case {
  Shape x, scale, b;  // b empty: no B input
  int64_t axis;
};

TEST(LayerNormGradientTest, Float32MatchesFloat64Reference) {
  const std::vector<Case> cases = {
      {{8, 64}, {64}, {64}, -1},                // a transformer's rows
      {{2, 5, 3, 4}, {3, 4}, {3, 4}, 2},        // two normalized dims
      {{3, 7, 6}, {7, 6}, {}, 1},               // no B
      {{4, 1, 33}, {1, 33}, {33}, -1},          // Scale with a leading 1
      {{2, 3, 8}, {1}, {8}, -1},                // Scale broadcast: the loops
      {{6, 130}, {130}, {130}, 1},
      {{512, 96}, {96}, {96}, -1},  // above kParallelThreshold: on the context's threads
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    const Tensor x = RandomTensor(DataType::kFloat32, c.x, seed++, -2, 3);
    const Tensor scale = RandomTensor(DataType::kFloat32, c.scale, seed++, 0.5, 1.5);
    const Tensor b = c.b.empty() ? Tensor() : RandomTensor(DataType::kFloat32, c.b, seed++);
    const Tensor dy = RandomTensor(DataType::kFloat32, c.x, seed++);
    const std::string attrs = IntArg("axis", c.axis) + FloatArg("epsilon", 1e-5);
    // Rows summed into one dScale / dB element.
    int64_t rows = 1;
    for (int64_t d = 0; d < (c.axis < 0 ? c.axis + static_cast<int64_t>(c.x.size()) : c.axis); ++d) rows *= c.x[d];
    for (int outputs = 0; outputs < 4; ++outputs) {  // bit 0: dScale, bit 1: dB
      if ((outputs & 2) && c.b.empty()) continue;
      std::string text = "type: \"LayerNormalizationGradient\" input: \"x\" input: \"s\" input: \"dy\" ";
      text += c.b.empty() ? "" : "input: \"b\" ";
      text += "output: \"dx\" output: \"";
      text += (outputs & 1) ? "ds" : "";
      text += "\" output: \"";
      text += (outputs & 2) ? "db" : "";
      text += "\"" + attrs;
      std::vector<Tensor> in32 = {x, scale, dy}, in64;
      if (!c.b.empty()) in32.push_back(b);
      for (const Tensor& t : in32) in64.push_back(Cast(DataType::kFloat64, t));
      auto f32 = RunSingleOp(ParseOp(text), in32);
      auto f64 = RunSingleOp(ParseOp(text), in64);
      ASSERT_TRUE(f32.ok()) << text << ": " << f32.status();
      ASSERT_TRUE(f64.ok()) << text << ": " << f64.status();
      EXPECT_TRUE(AllClose((*f32)[0], Cast(DataType::kFloat32, (*f64)[0]), 1e-4, 1e-5)) << "dX of " << text;
      for (int k = 1; k <= 2; ++k) {
        if (!(outputs & k)) continue;
        EXPECT_TRUE(AllClose((*f32)[k], Cast(DataType::kFloat32, (*f64)[k]), 1e-4, 2e-6 * static_cast<double>(rows)))
            << (k == 1 ? "dScale of " : "dB of ") << text;
      }
    }
  }
}

// One row x = [1, 3] (mean 2, variance 1, eps 0), Scale [1, 1], dY [1, 0]:
// xhat = [-1, 1], g = dY, mean(g) = 1/2, mean(g * xhat) = -1/2, so
// dX = g - 1/2 + xhat / 2 = [0, 0]; dScale = dY * xhat = [-1, 0]; dB = dY.
TEST(LayerNormGradientTest, KnownValues) {
  auto out = RunSingleOp(ParseOp("type: \"LayerNormalizationGradient\" input: \"x\" input: \"s\" input: \"dy\" "
                                 "input: \"b\" output: \"dx\" output: \"ds\" output: \"db\"" +
                                 IntArg("axis", -1) + FloatArg("epsilon", 0)),
                         {F32({1, 2}, {1, 3}), F32({2}, {1, 1}), F32({1, 2}, {1, 0}), F32({2}, {0, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], F32({1, 2}, {0, 0}), 1e-6, 1e-6));
  EXPECT_TRUE(AllClose((*out)[1], F32({2}, {-1, 0})));
  EXPECT_TRUE(AllClose((*out)[2], F32({2}, {1, 0})));
}

}  // namespace
}  // namespace loom
