// SoftmaxGradient / LogSoftmaxGradient (math_softmax_gradient.cc): float32
// on oneDNN against the float64 loops (held to the definition by the
// finite-difference checks of tests/autodiff_test.cc) on every axis of
// random shapes, and a hand-computed value.
#include <cmath>
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

TEST(SoftmaxGradientTest, Float32OnOneDnnMatchesFloat64Reference) {
  const std::vector<Shape> shapes = {{7}, {3, 10}, {2, 5, 3, 4}, {16, 1000}, {2, 0, 3}, {40, 1000}};  // the last on 2 threads
  uint32_t seed = 1;
  for (const bool log : {false, true}) {
    const std::string type = log ? "LogSoftmax" : "Softmax";
    for (const Shape& s : shapes) {
      for (int64_t axis = -static_cast<int64_t>(s.size()); axis < static_cast<int64_t>(s.size()); ++axis) {
        const std::string attr = " arg { name: \"axis\" i: " + std::to_string(axis) + " }";
        auto y = RunSingleOp(ParseOp("type: \"" + type + "\" input: \"x\" output: \"y\"" + attr),
                             {RandomTensor(DataType::kFloat32, s, seed++, -3, 3)});
        ASSERT_TRUE(y.ok()) << y.status();
        const Tensor dy = RandomTensor(DataType::kFloat32, s, seed++);
        const OperatorDef op = ParseOp("type: \"" + type + "Gradient\" input: \"dy\" input: \"y\" output: \"dx\"" + attr);
        auto f32 = RunSingleOp(op, {dy, (*y)[0]});
        auto f64 = RunSingleOp(op, {Cast(DataType::kFloat64, dy), Cast(DataType::kFloat64, (*y)[0])});
        ASSERT_TRUE(f32.ok()) << type << ShapeToString(s) << attr << ": " << f32.status();
        ASSERT_TRUE(f64.ok()) << f64.status();
        const double terms = static_cast<double>(s[axis < 0 ? axis + s.size() : axis]);
        EXPECT_TRUE(AllClose((*f32)[0], Cast(DataType::kFloat32, (*f64)[0]), 1e-5, 2e-7 * terms))
            << type << "Gradient on " << ShapeToString(s) << attr;
      }
    }
  }
}

// Y = softmax([0, ln 3]) = [1/4, 3/4], dY = [1, 0]: sum(dY * Y) = 1/4, so
// dX = Y * (dY - 1/4) = [3/16, -3/16]. LogSoftmax's Y = log of those:
// dX = dY - Y' * sum(dY) = [1 - 1/4, -3/4].
TEST(SoftmaxGradientTest, KnownValues) {
  const Tensor dy = F32({1, 2}, {1, 0});
  EXPECT_TRUE(AllClose(Run1(ParseOp(R"(type: "SoftmaxGradient" input: "dy" input: "y" output: "dx")"),
                            {dy, F32({1, 2}, {0.25f, 0.75f})}),
                       F32({1, 2}, {3.0f / 16, -3.0f / 16})));
  EXPECT_TRUE(AllClose(Run1(ParseOp(R"(type: "LogSoftmaxGradient" input: "dy" input: "y" output: "dx")"),
                            {dy, F32({1, 2}, {std::log(0.25f), std::log(0.75f)})}),
                       F32({1, 2}, {0.75f, -0.75f})));
}

TEST(SoftmaxGradientTest, BadAxisOrOperandsAreErrors) {
  ExpectError(ParseOp(R"(type: "SoftmaxGradient" name: "s" input: "dy" input: "y" output: "dx" arg { name: "axis" i: 2 })"),
              {F32({1, 2}, {1, 0}), F32({1, 2}, {0.5f, 0.5f})}, "axis 2 is out of range for Y [1, 2]");
  ExpectError(ParseOp(R"(type: "LogSoftmaxGradient" name: "s" input: "dy" input: "y" output: "dx")"),
              {F32({2}, {1, 0}), F32({1, 2}, {0.5f, 0.5f})}, "dY float32[2] and Y float32[1, 2]");
}

}  // namespace
}  // namespace loom
