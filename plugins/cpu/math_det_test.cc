// Det (math_det.cc) against hand-computed determinants: a row swap's sign,
// a singular matrix, a batch, double; errors name the input.
#include <string>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

TEST(Det, HandComputed) {
  // [[0, 2], [3, 4]]: 0*4 - 2*3 = -6 (pivoting swaps the rows); [[1, 2],
  // [2, 4]]: singular; [[2, 0, 0], [0, 3, 0], [1, 1, 4]]: 24 (batch of 1).
  auto y = testing::RunSingleOp(testing::ParseOp(R"(type: "Det" input: "x" output: "y")"),
                                {F32({2, 2, 2}, {0, 2, 3, 4, 1, 2, 2, 4})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({2}, {-6, 0}), 1e-6, 1e-6));
  y = testing::RunSingleOp(testing::ParseOp(R"(type: "Det" input: "x" output: "y")"),
                           {Tensor::FromVector<double>({1, 3, 3}, {2, 0, 0, 0, 3, 0, 1, 1, 4})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].data<double>()[0], 24.0);
  y = testing::RunSingleOp(testing::ParseOp(R"(type: "Det" input: "x" output: "y")"), {F32({2, 3}, {0, 0, 0, 0, 0, 0})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("X must be [*, M, M] (square matrices); found [2, 3]"), std::string::npos);
}

}  // namespace
}  // namespace loom
