// SoftShrink's tests, from this workspace, through Loom's test kit
// (loom_plugin_test): known values, the inferred shapes, and the gradient
// against finite differences in float64 and float32.
#include <cmath>

#include "testing/gradient_check.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace {

using loom::DataType;
using loom::Tensor;
using loom::testing::CheckGradient;
using loom::testing::CpuRegistryWith;
using loom::testing::ParseOp;

// The plugin under test, by its runfiles path: this workspace's root package
// (found so whether this workspace is the main one or another's @ocr_session).
loom::Registry* Registry() { return CpuRegistryWith("ocr_session/libsoft_shrink.so"); }

TEST(SoftShrinkTest, KnownValues) {
  auto y = loom::testing::RunSingleOp(ParseOp(R"(type: "SoftShrink" domain: "com.example" input: "x" output: "y")"),
                                      {Tensor::FromVector<float>({5}, {-2, -0.5f, 0, 0.25f, 3})}, Registry());
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(loom::testing::AllClose((*y)[0], Tensor::FromVector<float>({5}, {-1.5f, 0, 0, 0, 2.5f})));
}

TEST(SoftShrinkTest, ShapeInferenceMatchesTheKernel) {
  loom::testing::ExpectInferredShapes(
      ParseOp(R"(type: "SoftShrink" input: "x" output: "y" arg { name: "lambd" f: 0.1 })"),
      {loom::testing::RandomTensor(DataType::kFloat32, {2, 3, 4}, 1)}, Registry());
}

// Inputs kept away from the kinks at +-lambd, where the finite difference
// straddles the corner.
Tensor AwayFromKinks(DataType dtype, uint32_t seed) {
  Tensor x = loom::testing::RandomTensor(dtype, {3, 4}, seed, -2, 2);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const double v = loom::testing::ElementAsDouble(x, i);
    loom::testing::SetElement(x, i, std::abs(std::abs(v) - 0.5) < 0.1 ? v + 0.3 : v);
  }
  return x;
}

TEST(SoftShrinkTest, GradientMatchesFiniteDifferences) {
  const auto op = ParseOp(R"(type: "SoftShrink" input: "x" output: "y")");
  EXPECT_TRUE(CheckGradient(op, {AwayFromKinks(DataType::kFloat64, 2)}, Registry()));
  EXPECT_TRUE(CheckGradient(op, {AwayFromKinks(DataType::kFloat32, 3)}, Registry()));  // float32 tolerances
}

}  // namespace
