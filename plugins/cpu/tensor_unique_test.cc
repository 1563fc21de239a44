// Unique (tensor_unique.cc) against ONNX's documented examples, worked by
// hand: flattened, sorted and in order of first occurrence, and rows of a
// matrix along axis 0.
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

std::vector<Tensor> Unique(const Tensor& x, const std::string& args) {
  auto y = testing::RunSingleOp(
      testing::ParseOp(R"(type: "Unique" input: "x" output: "y" output: "i" output: "v" output: "c" )" + args), {x});
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() ? *y : std::vector<Tensor>(4);
}

TEST(Unique, FlattenedSortedAndByFirstOccurrence) {
  const Tensor x = F32({6}, {2, 1, 1, 3, 4, 3});
  std::vector<Tensor> o = Unique(x, R"(arg { name: "sorted" i: 0 })");
  EXPECT_TRUE(AllClose(o[0], F32({4}, {2, 1, 3, 4}), 0, 0));
  EXPECT_TRUE(AllClose(o[1], I64({0, 1, 3, 4}), 0, 0));
  EXPECT_TRUE(AllClose(o[2], I64({0, 1, 1, 2, 3, 2}), 0, 0));
  EXPECT_TRUE(AllClose(o[3], I64({1, 2, 2, 1}), 0, 0));
  o = Unique(x, "");
  EXPECT_TRUE(AllClose(o[0], F32({4}, {1, 2, 3, 4}), 0, 0));
  EXPECT_TRUE(AllClose(o[1], I64({1, 0, 3, 4}), 0, 0));
  EXPECT_TRUE(AllClose(o[2], I64({1, 0, 0, 2, 3, 2}), 0, 0));
  EXPECT_TRUE(AllClose(o[3], I64({2, 1, 2, 1}), 0, 0));
}

// Strings: ascending by code point (numpy's np.unique order: "B" < "a" <
// "b" < "é"), by first occurrence, and rows of a [3, 2] matrix.
TEST(Unique, Strings) {
  const Tensor x = Strings({6}, {"b", "a", "é", "b", "B", "a"});
  std::vector<Tensor> o = Unique(x, "");
  EXPECT_EQ(o[0].strings(), (std::vector<std::string>{"B", "a", "b", "é"}));
  EXPECT_TRUE(AllClose(o[1], I64({4, 1, 0, 2}), 0, 0));
  EXPECT_TRUE(AllClose(o[2], I64({2, 1, 3, 2, 0, 1}), 0, 0));
  EXPECT_TRUE(AllClose(o[3], I64({1, 2, 2, 1}), 0, 0));
  o = Unique(x, R"(arg { name: "sorted" i: 0 })");
  EXPECT_EQ(o[0].strings(), (std::vector<std::string>{"b", "a", "é", "B"}));
  EXPECT_TRUE(AllClose(o[2], I64({0, 1, 2, 0, 3, 1}), 0, 0));
  o = Unique(Strings({3, 2}, {"x", "y", "a", "b", "x", "y"}), R"(arg { name: "axis" i: 0 })");
  EXPECT_EQ(o[0].dims(), (Shape{2, 2}));
  EXPECT_EQ(o[0].strings(), (std::vector<std::string>{"a", "b", "x", "y"}));
  EXPECT_TRUE(AllClose(o[2], I64({1, 0, 1}), 0, 0));
}

TEST(Unique, RowsAlongAnAxis) {
  // Rows [1, 0, 0], [1, 0, 0], [2, 3, 4]: two distinct, the first twice.
  std::vector<Tensor> o = Unique(F32({3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4}), R"(arg { name: "axis" i: 0 })");
  EXPECT_TRUE(AllClose(o[0], F32({2, 3}, {1, 0, 0, 2, 3, 4}), 0, 0));
  EXPECT_TRUE(AllClose(o[1], I64({0, 2}), 0, 0));
  EXPECT_TRUE(AllClose(o[2], I64({0, 0, 1}), 0, 0));
  EXPECT_TRUE(AllClose(o[3], I64({2, 1}), 0, 0));
}

}  // namespace
}  // namespace loom
