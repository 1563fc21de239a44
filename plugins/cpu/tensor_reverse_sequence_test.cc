// ReverseSequence (tensor_reverse_sequence.cc) against hand-worked cases:
// time-major and batch-major, lengths 0 to T, an inner dim; errors name
// the input.
#include <string>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

TEST(ReverseSequence, BothLayoutsAndLengths) {
  // Time-major X [T=3, B=2, 1]: b0 = 1,2,3 (len 3 -> 3,2,1), b1 = 4,5,6
  // (len 1 -> unchanged).
  auto y = testing::RunSingleOp(testing::ParseOp(R"(type: "ReverseSequence" input: "x" input: "l" output: "y")"),
                                {F32({3, 2, 1}, {1, 4, 2, 5, 3, 6}), Tensor::FromVector<int64_t>({2}, {3, 1})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({3, 2, 1}, {3, 4, 2, 5, 1, 6}), 0, 0));
  // Batch-major X [B=2, T=3, 2]: b0 len 2 swaps its first two rows, b1 len 0.
  y = testing::RunSingleOp(
      testing::ParseOp(R"(type: "ReverseSequence" input: "x" input: "l" output: "y"
                          arg { name: "batch_axis" i: 0 } arg { name: "time_axis" i: 1 })"),
      {F32({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), Tensor::FromVector<int64_t>({2}, {2, 0})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({2, 3, 2}, {3, 4, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12}), 0, 0));
  y = testing::RunSingleOp(testing::ParseOp(R"(type: "ReverseSequence" input: "x" input: "l" output: "y")"),
                           {F32({3, 2}, {0, 0, 0, 0, 0, 0}), Tensor::FromVector<int64_t>({2}, {4, 1})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("sequence_lens[0] = 4 is outside [0, 3]"), std::string::npos) << y.status();
}

}  // namespace
}  // namespace loom
