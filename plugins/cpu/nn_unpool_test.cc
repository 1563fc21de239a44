// MaxUnpool (nn_unpool.cc) against hand-worked cases: the default output
// shape, a larger output_shape keeping the coordinates (ONNX's example);
// errors name the index.
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

const char kAttrs[] = R"( arg { name: "kernel_shape" ints: 2 ints: 2 } arg { name: "strides" ints: 2 ints: 2 })";
const std::string kOp = std::string(R"(type: "MaxUnpool" input: "x" input: "i" input: "s" output: "y")") + kAttrs;
const std::string kOpDefault = std::string(R"(type: "MaxUnpool" input: "x" input: "i" output: "y")") + kAttrs;

TEST(MaxUnpool, DefaultShapeAndALargerOutputShape) {
  const Tensor x = F32({1, 1, 2, 2}, {5, 6, 7, 8});
  const Tensor i = Tensor::FromVector<int64_t>({1, 1, 2, 2}, {5, 7, 13, 15});
  auto y = testing::RunSingleOp(testing::ParseOp(kOpDefault), {x, i});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({1, 1, 4, 4}, {0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 7, 0, 8}), 0, 0));
  y = testing::RunSingleOp(testing::ParseOp(kOp), {x, i, Tensor::FromVector<int64_t>({4}, {1, 1, 5, 5})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({1, 1, 5, 5}, {0, 0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 0,
                                                   0, 7, 0, 8, 0, 0, 0, 0, 0, 0}), 0, 0));
  y = testing::RunSingleOp(testing::ParseOp(kOpDefault), {x, Tensor::FromVector<int64_t>({1, 1, 2, 2}, {5, 7, 13, 16})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("I[3] = 16 is outside the default output's 16 elements"), std::string::npos)
      << y.status();
}

}  // namespace
}  // namespace loom
