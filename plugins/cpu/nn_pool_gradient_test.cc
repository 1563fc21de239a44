// MaxPoolGradient and AveragePoolGradient: the float32 kernels (oneDNN's
// pooling backward, max pooling's workspace from a forward_training pass)
// against the float64 ones (the plain loops of nn_pool_naive.h, which the
// finite-difference checks in tests/autodiff_layers_test.cc hold to the
// definition), on random inputs (no ties) with strides, pads, dilations,
// ceil_mode, count_include_pad and 1-D to 3-D windows.
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

TEST(PoolGradientTest, Float32MatchesFloat64Reference) {
  struct Case {
    std::string attrs;
    Shape x;
  };
  const std::vector<Case> cases = {
      {"arg { name: \"kernel_shape\" ints: [2, 2] } arg { name: \"strides\" ints: [2, 2] }", {4, 32, 16, 16}},
      {"arg { name: \"kernel_shape\" ints: [3, 3] } arg { name: \"strides\" ints: [2, 2] } "
       "arg { name: \"pads\" ints: [1, 1, 1, 1] }", {2, 64, 15, 15}},  // ResNet's stem pool
      {"arg { name: \"kernel_shape\" ints: [3, 2] } arg { name: \"strides\" ints: [2, 1] } "
       "arg { name: \"ceil_mode\" i: 1 }", {2, 5, 8, 7}},
      {"arg { name: \"kernel_shape\" ints: [2, 2] } arg { name: \"dilations\" ints: [2, 1] } "
       "arg { name: \"pads\" ints: [0, 1, 1, 0] }", {1, 3, 9, 6}},
      {"arg { name: \"kernel_shape\" ints: [3] } arg { name: \"strides\" ints: [2] } "
       "arg { name: \"auto_pad\" s: \"SAME_UPPER\" }", {3, 4, 11}},  // 1-D
      {"arg { name: \"kernel_shape\" ints: [2, 2, 2] } arg { name: \"strides\" ints: [2, 2, 2] }", {1, 2, 4, 6, 4}},
  };
  uint32_t seed = 1;
  for (const char* type : {"MaxPool", "AveragePool"}) {
    for (const Case& c : cases) {
      for (const char* extra : {"", " arg { name: \"count_include_pad\" i: 1 }"}) {
        if (std::string(type) == "MaxPool" && *extra) continue;
        if (std::string(type) == "AveragePool" && c.attrs.find("dilations") != std::string::npos) continue;
        const std::string attrs = c.attrs + extra;
        Tensor x = RandomTensor(DataType::kFloat64, c.x, seed++);
        auto y = RunSingleOp(ParseOp(std::string("type: \"") + type + "\" input: \"x\" output: \"y\" " + attrs), {x});
        ASSERT_TRUE(y.ok()) << type << " " << attrs << ": " << y.status();
        Tensor dy = RandomTensor(DataType::kFloat64, (*y)[0].dims(), seed++);
        const std::string grad = std::string("type: \"") + type +
                                 "Gradient\" input: \"x\" input: \"y\" input: \"dy\" output: \"dx\" " + attrs;
        auto f64 = RunSingleOp(ParseOp(grad), {x, (*y)[0], dy});
        auto f32 = RunSingleOp(ParseOp(grad), {Cast(DataType::kFloat32, x), Cast(DataType::kFloat32, (*y)[0]), Cast(DataType::kFloat32, dy)});
        ASSERT_TRUE(f64.ok()) << grad << ": " << f64.status();
        ASSERT_TRUE(f32.ok()) << grad << ": " << f32.status();
        EXPECT_TRUE(AllClose((*f32)[0], Cast(DataType::kFloat32, (*f64)[0]), 1e-5, 1e-6)) << grad;
      }
    }
  }
}

// Known values: a 2x2 max pool of one 4x4 plane sends each dY to its
// window's maximum; the average pool spreads it in quarters.
TEST(PoolGradientTest, KnownValues) {
  Tensor x = Tensor::FromVector<float>({1, 1, 4, 4}, {1, 9, 2, 3, 4, 5, 8, 6, 7, 1, 0, 2, 3, 2, 1, 5});
  Tensor dy = Tensor::FromVector<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  const std::string attrs = "arg { name: \"kernel_shape\" ints: [2, 2] } arg { name: \"strides\" ints: [2, 2] }";
  auto mx = RunSingleOp(ParseOp("type: \"MaxPoolGradient\" input: \"x\" input: \"x\" input: \"dy\" output: \"dx\" " + attrs),
                        {x, x, dy});
  ASSERT_TRUE(mx.ok()) << mx.status();
  EXPECT_TRUE(AllClose((*mx)[0], Tensor::FromVector<float>({1, 1, 4, 4}, {0, 1, 0, 0, 0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0, 4})));
  auto avg = RunSingleOp(
      ParseOp("type: \"AveragePoolGradient\" input: \"x\" input: \"x\" input: \"dy\" output: \"dx\" " + attrs), {x, x, dy});
  ASSERT_TRUE(avg.ok()) << avg.status();
  EXPECT_TRUE(AllClose((*avg)[0], Tensor::FromVector<float>({1, 1, 4, 4}, {0.25f, 0.25f, 0.5f, 0.5f, 0.25f, 0.25f, 0.5f,
                                                                          0.5f, 0.75f, 0.75f, 1, 1, 0.75f, 0.75f, 1, 1})));
}

}  // namespace
}  // namespace loom
