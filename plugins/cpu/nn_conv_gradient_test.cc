// ConvGradient: the float32 kernel (oneDNN's backward primitives) against
// the float64 one (the plain loops of nn_conv_naive.h, which the
// finite-difference checks in tests/autodiff_test.cc hold to the
// definition) on random shapes with strides, pads, dilations, groups and
// 1-D to 3-D windows, with and without dB and dX.
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// Within float32 rounding of sums of `terms` products of values in [-1, 1].
::testing::AssertionResult CloseToReference(const Tensor& f32, const Tensor& f64, int64_t terms) {
  Tensor ref = Tensor::Zeros(DataType::kFloat32, f64.dims());
  for (int64_t i = 0; i < f64.num_elements(); ++i) ref.data<float>()[i] = static_cast<float>(f64.data<double>()[i]);
  return AllClose(f32, ref, 1e-4, 2e-6 * static_cast<double>(terms));
}

struct Case {
  std::string attrs;
  Shape x, w;
};

TEST(ConvGradientTest, Float32MatchesFloat64Reference) {
  const std::vector<Case> cases = {
      {"", {2, 3, 8, 8}, {4, 3, 3, 3}},
      {"arg { name: \"pads\" ints: [1, 1, 1, 1] }", {4, 16, 12, 12}, {32, 16, 3, 3}},  // a CNN's 3x3 same conv
      {"arg { name: \"pads\" ints: [1, 0, 1, 2] } arg { name: \"strides\" ints: [2, 1] }", {1, 2, 9, 10}, {3, 2, 2, 3}},
      {"arg { name: \"group\" i: 2 } arg { name: \"dilations\" ints: [2, 1] }", {2, 4, 10, 7}, {6, 2, 2, 2}},
      {"arg { name: \"group\" i: 8 } arg { name: \"pads\" ints: [1, 1, 1, 1] }", {2, 8, 9, 9}, {8, 1, 3, 3}},  // depthwise
      {"arg { name: \"strides\" ints: [2, 2] } arg { name: \"pads\" ints: [3, 3, 3, 3] }", {2, 3, 32, 32}, {16, 3, 7, 7}},
      {"arg { name: \"strides\" ints: [2, 2] }", {2, 16, 8, 8}, {32, 16, 1, 1}},  // ResNet's downsampling 1x1
      {"arg { name: \"auto_pad\" s: \"SAME_UPPER\" }", {3, 2, 11}, {5, 2, 4}},       // 1-D
      {"arg { name: \"group\" i: 3 } arg { name: \"pads\" ints: [1, 1] } arg { name: \"strides\" ints: [2] }",
       {2, 3, 10}, {6, 1, 3}},
      {"arg { name: \"pads\" ints: [1, 0, 1, 1, 0, 1] }", {1, 2, 4, 5, 6}, {3, 2, 3, 2, 3}},  // 3-D
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    const int64_t M = c.w[0];
    Tensor x = RandomTensor(DataType::kFloat32, c.x, seed++), w = RandomTensor(DataType::kFloat32, c.w, seed++);
    // dY's shape from the float64 forward (Conv's own shape rule).
    const std::string conv = "type: \"Conv\" input: \"x\" input: \"w\" output: \"y\" " + c.attrs;
    auto y = RunSingleOp(ParseOp(conv), {Cast(DataType::kFloat64, x), Cast(DataType::kFloat64, w)});
    ASSERT_TRUE(y.ok()) << conv << ": " << y.status();
    Tensor dy = RandomTensor(DataType::kFloat32, (*y)[0].dims(), seed++);
    int64_t terms = 1;  // products summed into one dW element: N times Y's spatial size
    for (size_t i = 2; i < (*y)[0].dims().size(); ++i) terms *= (*y)[0].dims()[i];
    terms *= c.x[0];
    for (int outputs = 1; outputs <= 3; ++outputs) {
      std::string text = "type: \"ConvGradient\" input: \"x\" input: \"w\" input: \"dy\" output: \"dw\" ";
      text += outputs >= 2 ? "output: \"db\" " : "output: \"\" ";
      text += outputs >= 3 ? "output: \"dx\" " : "";
      text += c.attrs;
      auto f32 = RunSingleOp(ParseOp(text), {x, w, dy});
      auto f64 = RunSingleOp(ParseOp(text), {Cast(DataType::kFloat64, x), Cast(DataType::kFloat64, w), Cast(DataType::kFloat64, dy)});
      ASSERT_TRUE(f32.ok()) << text << ": " << f32.status();
      ASSERT_TRUE(f64.ok()) << text << ": " << f64.status();
      EXPECT_TRUE(CloseToReference((*f32)[0], (*f64)[0], terms)) << "dW of " << text;
      if (outputs >= 2) {
        ASSERT_EQ((*f32)[1].dims(), Shape{M});
        EXPECT_TRUE(CloseToReference((*f32)[1], (*f64)[1], terms)) << "dB of " << text;
      }
      if (outputs >= 3) {
        EXPECT_TRUE(CloseToReference((*f32)[2], (*f64)[2], M * 27)) << "dX of " << text;
      }
    }
  }
}

// A known value: one 2x2 input, a 1x1 kernel of weight 3, dY all ones:
// dW = sum(X), dB = 4, dX = 3 everywhere.
TEST(ConvGradientTest, KnownValues) {
  auto out = RunSingleOp(
      ParseOp("type: \"ConvGradient\" input: \"x\" input: \"w\" input: \"dy\" output: \"dw\" output: \"db\" "
              "output: \"dx\""),
      {Tensor::FromVector<float>({1, 1, 2, 2}, {1, 2, 3, 4}), Tensor::FromVector<float>({1, 1, 1, 1}, {3}),
       Tensor::FromVector<float>({1, 1, 2, 2}, {1, 1, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 1, 1, 1}, {10})));
  EXPECT_TRUE(AllClose((*out)[1], Tensor::FromVector<float>({1}, {4})));
  EXPECT_TRUE(AllClose((*out)[2], Tensor::FromVector<float>({1, 1, 2, 2}, {3, 3, 3, 3})));
}

TEST(ConvGradientTest, WrongDyIsAnError) {
  auto out = RunSingleOp(ParseOp("type: \"ConvGradient\" name: \"g\" input: \"x\" input: \"w\" input: \"dy\" output: \"dw\""),
                         {RandomTensor(DataType::kFloat32, {1, 2, 5, 5}, 1), RandomTensor(DataType::kFloat32, {3, 2, 3, 3}, 2),
                          RandomTensor(DataType::kFloat32, {1, 3, 5, 5}, 3)});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(out.status().message()).find("dY must be float32[1, 3, 3, 3]"), std::string::npos) << out.status();
}

}  // namespace
}  // namespace loom
