// Loads the example plugin next to the standard op set and runs its op.
#include <cmath>

#include "core/plugin_loader.h"
#include "testing/gradient_check.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"
#include "ops/std_ops.h"

namespace loom {
namespace {

TEST(SwishPlugin, LoadsAndMatchesReference) {
  Registry registry;
  ASSERT_TRUE(RegisterBuiltinPlugin(&registry, &LoomStdOpsInit, "<built-in>").ok());
  ASSERT_TRUE(LoadPlugin(&registry, "plugins/example/libloom_example.so").ok());
  std::optional<PluginRecord> rec = registry.FindPlugin("example");
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->version, "1.1.0");
  ASSERT_NE(registry.FindSchema("Swish"), nullptr);
  EXPECT_EQ(registry.FindSchema("Swish")->domain, "com.example");

  Tensor x = testing::RandomTensor(DataType::kFloat32, {3, 5}, 7, -4, 4);
  OperatorDef op = testing::ParseOp(R"(type: "Swish" input: "x" output: "y" arg { name: "beta" f: 0.5 })");
  auto out = testing::RunSingleOp(op, {x}, &registry);
  ASSERT_TRUE(out.ok()) << out.status();
  Tensor expected = Tensor::Zeros(DataType::kFloat32, {3, 5});
  for (int i = 0; i < 15; ++i) {
    float v = x.data<float>()[i];
    expected.data<float>()[i] = v / (1.0f + std::exp(-0.5f * v));
  }
  EXPECT_TRUE(testing::AllClose((*out)[0], expected));

  // Default beta = 1: swish(2) = 2 * sigmoid(2) = 1.7615942.
  auto two = testing::RunSingleOp(testing::ParseOp(R"(type: "Swish" input: "x" output: "y")"),
                                  {Tensor::FromVector<float>({}, {2.0f})}, &registry);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_NEAR(two->at(0).data<float>()[0], 1.7615942f, 1e-6);
}

// The plugin's gradient maker (ABI 5) and its SwishGradient kernel, against
// central finite differences in float64.
TEST(SwishPlugin, GradientMatchesFiniteDifferences) {
  Registry* registry = testing::CpuRegistryWith("plugins/example/libloom_example.so");
  ASSERT_NE(registry->FindSchema("Swish")->gradient, nullptr);
  for (float beta : {1.0f, 0.5f}) {
    OperatorDef op = testing::ParseOp(R"(type: "Swish" input: "x" output: "y" arg { name: "beta" f: )" +
                                      std::to_string(beta) + " }");
    EXPECT_TRUE(testing::CheckGradient(op, {testing::RandomTensor(DataType::kFloat64, {4, 3}, 3, -3, 3)}, registry))
        << "beta " << beta;
  }
}

// The schema's Infer gives Y and dX the shapes the kernels produce.
TEST(SwishPlugin, ShapeInferenceMatchesTheKernels) {
  Registry* registry = testing::CpuRegistryWith("plugins/example/libloom_example.so");
  testing::ExpectInferredShapes(testing::ParseOp(R"(type: "Swish" input: "x" output: "y")"),
                                {testing::RandomTensor(DataType::kFloat32, {2, 3, 4}, 5)}, registry);
  testing::ExpectInferredShapes(testing::ParseOp(R"(type: "SwishGradient" input: "x" input: "dy" output: "dx")"),
                                {testing::RandomTensor(DataType::kFloat64, {5}, 6),
                                 testing::RandomTensor(DataType::kFloat64, {5}, 7)},
                                registry);
}

TEST(SwishPlugin, RejectsWrongDtype) {
  Registry registry;
  ASSERT_TRUE(RegisterBuiltinPlugin(&registry, &LoomStdOpsInit, "<built-in>").ok());
  ASSERT_TRUE(LoadPlugin(&registry, "plugins/example/libloom_example.so").ok());
  auto out = testing::RunSingleOp(testing::ParseOp(R"(type: "Swish" name: "s" input: "x" output: "y")"),
                                  {Tensor::FromVector<int32_t>({2}, {1, 2})}, &registry);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("op #0 's' (Swish)"), std::string::npos) << out.status();
  EXPECT_NE(out.status().message().find("int32"), std::string::npos) << out.status();
}

}  // namespace
}  // namespace loom
