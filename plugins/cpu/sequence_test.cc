// Sequence and optional kernels (sequence.cc) on hand-worked cases:
// insertion and erasure at every kind of position, SequenceAt copies,
// SplitToSequence by sizes, by a chunk with a remainder and into pieces
// without the axis, ConcatFromSequence along and on a new axis, the
// Optional trio; errors name the position or input.
#include <string>
#include <vector>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

Tensor Seq(std::vector<Tensor> items, DataType element = DataType::kFloat32) {
  return *Tensor::MakeValue(SequenceOf(element), std::move(items));
}

absl::StatusOr<std::vector<Tensor>> RunOp(const std::string& op, std::vector<Tensor> inputs) {
  return testing::RunSingleOp(testing::ParseOp(op), std::move(inputs));
}

TEST(Sequence, InsertAtEraseLength) {
  const Tensor a = F32({1}, {1}), b = F32({2}, {2, 3}), c = F32({1}, {4});
  // Insert c before position -1 of [a, b]: [a, c, b].
  auto y = RunOp(R"(type: "SequenceInsert" input: "s" input: "t" input: "p" output: "y")",
               {Seq({a, b}), c, Tensor::FromVector<int64_t>({}, {-1})});
  ASSERT_TRUE(y.ok()) << y.status();
  const Tensor s = (*y)[0];
  ASSERT_EQ(s.dtype(), SequenceOf(DataType::kFloat32));
  ASSERT_EQ(s.values().size(), 3u);
  EXPECT_TRUE(AllClose(s.values()[1], c, 0, 0));
  EXPECT_TRUE(AllClose(s.values()[2], b, 0, 0));
  // Without a position: at the end.
  y = RunOp(R"(type: "SequenceInsert" input: "s" input: "t" output: "y")", {s, a});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ((*y)[0].values().size(), 4u);
  // The new sequence shares the old one's tensors (values are immutable).
  EXPECT_EQ((*y)[0].values()[2].raw_data(), s.values()[2].raw_data());
  // SequenceAt -2 of [a, c, b] is c, copied out of the sequence.
  y = RunOp(R"(type: "SequenceAt" input: "s" input: "p" output: "y")", {s, Tensor::FromVector<int32_t>({}, {-2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], c, 0, 0));
  EXPECT_NE((*y)[0].raw_data(), s.values()[1].raw_data());
  // Erase position 0, then the last (no position): [c].
  y = RunOp(R"(type: "SequenceErase" input: "s" input: "p" output: "y")", {s, Tensor::FromVector<int64_t>({}, {0})});
  ASSERT_TRUE(y.ok()) << y.status();
  y = RunOp(R"(type: "SequenceErase" input: "s" output: "y")", {(*y)[0]});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ((*y)[0].values().size(), 1u);
  EXPECT_TRUE(AllClose((*y)[0].values()[0], c, 0, 0));
  y = RunOp(R"(type: "SequenceLength" input: "s" output: "y")", {s});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].data<int64_t>()[0], 3);
  // Out of range: [-3, 2] for SequenceAt on 3 tensors.
  y = RunOp(R"(type: "SequenceAt" input: "s" input: "p" output: "y")", {s, Tensor::FromVector<int64_t>({}, {3})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("position 3 is outside [-3, 2]"), std::string::npos) << y.status();
  // A tensor of another dtype does not go into a float sequence.
  y = RunOp(R"(type: "SequenceInsert" input: "s" input: "t" output: "y")", {s, Tensor::FromVector<int64_t>({1}, {1})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("int64"), std::string::npos) << y.status();
}

TEST(Sequence, ConstructEmptyAndConcat) {
  auto y = RunOp(R"(type: "SequenceEmpty" output: "y" arg { name: "dtype" i: 7 })", {});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].dtype(), SequenceOf(DataType::kInt64));
  EXPECT_TRUE((*y)[0].values().empty());
  // [[1, 2]], [[3, 4], [5, 6]] along axis 0 -> [[1, 2], [3, 4], [5, 6]].
  y = RunOp(R"(type: "SequenceConstruct" input: "a" input: "b" output: "y")",
          {F32({1, 2}, {1, 2}), F32({2, 2}, {3, 4, 5, 6})});
  ASSERT_TRUE(y.ok()) << y.status();
  const Tensor s = (*y)[0];
  y = RunOp(R"(type: "ConcatFromSequence" input: "s" output: "y" arg { name: "axis" i: 0 })", {s});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({3, 2}, {1, 2, 3, 4, 5, 6}), 0, 0));
  // Along axis 1 the rows differ (1 and 2): an error naming the tensor.
  y = RunOp(R"(type: "ConcatFromSequence" input: "s" output: "y" arg { name: "axis" i: 1 })", {s});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("tensor 1 is [2, 2]"), std::string::npos) << y.status();
  // Stacking [1, 2] and [3, 4] on a new last axis: [[1, 3], [2, 4]].
  y = RunOp(R"(type: "ConcatFromSequence" input: "s" output: "y" arg { name: "axis" i: -1 } arg { name: "new_axis" i: 1 })",
          {Seq({F32({2}, {1, 2}), F32({2}, {3, 4})})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({2, 2}, {1, 3, 2, 4}), 0, 0));
}

TEST(Sequence, SplitToSequence) {
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  // A chunk of 2 along axis 1: [[1, 2], [4, 5]] and the remainder [[3], [6]].
  auto y = RunOp(R"(type: "SplitToSequence" input: "x" input: "s" output: "y" arg { name: "axis" i: 1 })",
               {x, Tensor::FromVector<int64_t>({}, {2})});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ((*y)[0].values().size(), 2u);
  EXPECT_TRUE(AllClose((*y)[0].values()[0], F32({2, 2}, {1, 2, 4, 5}), 0, 0));
  EXPECT_TRUE(AllClose((*y)[0].values()[1], F32({2, 1}, {3, 6}), 0, 0));
  // Sizes [1, 2] along axis 1.
  y = RunOp(R"(type: "SplitToSequence" input: "x" input: "s" output: "y" arg { name: "axis" i: 1 })",
          {x, Tensor::FromVector<int64_t>({2}, {1, 2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0].values()[1], F32({2, 2}, {2, 3, 5, 6}), 0, 0));
  // No split, keepdims 0: the rows [1, 2, 3] and [4, 5, 6].
  y = RunOp(R"(type: "SplitToSequence" input: "x" output: "y" arg { name: "keepdims" i: 0 })", {x});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ((*y)[0].values().size(), 2u);
  EXPECT_TRUE(AllClose((*y)[0].values()[1], F32({3}, {4, 5, 6}), 0, 0));
  y = RunOp(R"(type: "SplitToSequence" input: "x" input: "s" output: "y" arg { name: "axis" i: 1 })",
          {x, Tensor::FromVector<int64_t>({2}, {1, 1})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("'split' sums to 2"), std::string::npos) << y.status();
}

TEST(Optional, HoldsOrNot) {
  auto y = RunOp(R"(type: "Optional" input: "x" output: "y")", {F32({2}, {7, 8})});
  ASSERT_TRUE(y.ok()) << y.status();
  const Tensor some = (*y)[0];
  EXPECT_EQ(some.dtype(), OptionalOf(DataType::kFloat32));
  y = RunOp(R"(type: "OptionalHasElement" input: "x" output: "y")", {some});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE((*y)[0].data<bool>()[0]);
  y = RunOp(R"(type: "OptionalGetElement" input: "x" output: "y")", {some});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({2}, {7, 8}), 0, 0));
  // None of type seq(int64) (attribute 'type' = SEQUENCE | INT64).
  y = RunOp(R"(type: "Optional" output: "y" arg { name: "type" i: 263 })", {});
  ASSERT_TRUE(y.ok()) << y.status();
  const Tensor none = (*y)[0];
  EXPECT_EQ(none.dtype(), OptionalOf(SequenceOf(DataType::kInt64)));
  y = RunOp(R"(type: "OptionalHasElement" input: "x" output: "y")", {none});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_FALSE((*y)[0].data<bool>()[0]);
  y = RunOp(R"(type: "OptionalGetElement" input: "x" output: "y")", {none});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("optional(seq(int64))) holds no value"), std::string::npos) << y.status();
  // Identity passes a sequence on, shared.
  const Tensor s = Seq({F32({1}, {5})});
  y = RunOp(R"(type: "Identity" input: "x" output: "y")", {s});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ((*y)[0].values().size(), 1u);
  EXPECT_EQ((*y)[0].values()[0].raw_data(), s.values()[0].raw_data());
}

}  // namespace
}  // namespace loom
