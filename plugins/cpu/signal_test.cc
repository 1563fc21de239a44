// The window functions (signal.cc) against hand-computed values: periodic
// and symmetric forms, a one-point window, output_datatype; errors name
// the input.
#include <string>
#include <vector>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

Tensor Window(const std::string& op, int64_t size, int periodic, int dtype = 1) {
  auto y = testing::RunSingleOp(
      testing::ParseOp("type: \"" + op + "\" input: \"n\" output: \"w\" arg { name: \"periodic\" i: " +
                       std::to_string(periodic) + " } arg { name: \"output_datatype\" i: " + std::to_string(dtype) + " }"),
      {Tensor::FromVector<int64_t>({}, {size})});
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() ? (*y)[0] : Tensor();
}

TEST(Windows, HandComputedValues) {
  EXPECT_TRUE(AllClose(Window("HannWindow", 4, 1), F32({4}, {0, 0.5f, 1, 0.5f}), 1e-6, 1e-7));
  EXPECT_TRUE(AllClose(Window("HannWindow", 5, 0), F32({5}, {0, 0.5f, 1, 0.5f, 0}), 1e-6, 1e-7));
  EXPECT_TRUE(AllClose(Window("HammingWindow", 2, 1), F32({2}, {4.0f / 46, 1}), 1e-6, 1e-7));
  EXPECT_TRUE(AllClose(Window("BlackmanWindow", 3, 0), F32({3}, {0, 1, 0}), 1e-6, 1e-7));
  EXPECT_TRUE(AllClose(Window("BlackmanWindow", 1, 0), F32({1}, {1}), 0, 0));  // one point: [1]
  const Tensor d = Window("HannWindow", 4, 1, 11);  // double
  ASSERT_EQ(d.dtype(), DataType::kFloat64);
  EXPECT_EQ(d.data<double>()[1], 0.5 - 0.5 * std::cos(M_PI / 2));
}

TEST(Windows, ErrorsNameTheInput) {
  auto y = testing::RunSingleOp(testing::ParseOp(R"(type: "HannWindow" input: "n" output: "w")"),
                                {Tensor::FromVector<int64_t>({}, {-2})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("input size must be >= 0; found -2"), std::string::npos) << y.status();
}

}  // namespace
}  // namespace loom
