// String tensors through the ops that move whole elements (tensor_copy.cc,
// tensor_expand_tile_range.cc, tensor_gather_scatter.cc, tensor_compress.cc
// and Where in math_compare_logic_trig.cc): each output against strings
// worked out by hand. Reshape, Shape and Unsqueeze are in tensor_cast_test.
#include <string>
#include <vector>

#include "core/tensor.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// Runs `op` (text format) on `inputs` and returns its outputs. `infer`: the
// output shapes follow from the input shapes alone (no int input's values),
// so the schema's shape inference is checked against the kernel too.
std::vector<Tensor> RunOp(const std::string& op, const std::vector<Tensor>& inputs, bool infer = false) {
  auto y = RunSingleOp(ParseOp(op), inputs);
  EXPECT_TRUE(y.ok()) << y.status();
  if (!y.ok()) return {};
  if (infer) ExpectInferredShapes(ParseOp(op), inputs);
  return *y;
}

void ExpectStrings(const std::vector<Tensor>& ys, size_t i, const Shape& dims, const std::vector<std::string>& want) {
  ASSERT_GT(ys.size(), i);
  EXPECT_EQ(ys[i].dtype(), DataType::kString);
  EXPECT_EQ(ys[i].dims(), dims);
  EXPECT_EQ(ys[i].strings(), want);
}

// [["a", "bb", "ccc"], ["", "e", "ffff"]]
Tensor Two3() { return Strings({2, 3}, {"a", "bb", "ccc", "", "e", "ffff"}); }

TEST(Strings, Gather) {
  ExpectStrings(RunOp(R"(type: "Gather" input: "x" input: "i" output: "y")",
                    {Strings({3}, {"a", "b", "c"}), I64({2, 0})}, true),
                0, {2}, {"c", "a"});
  // Rows of a 2x3 on axis 1, a negative index, int32 indices of shape [2, 1].
  ExpectStrings(RunOp(R"(type: "Gather" input: "x" input: "i" output: "y" arg { name: "axis" i: 1 })",
                    {Two3(), Tensor::FromVector<int32_t>({2, 1}, {-1, 1})}, true),
                0, {2, 2, 1}, {"ccc", "bb", "ffff", "e"});
}

TEST(Strings, GatherElements) {
  ExpectStrings(RunOp(R"(type: "GatherElements" input: "x" input: "i" output: "y" arg { name: "axis" i: 1 })",
                    {Two3(), Tensor::FromVector<int64_t>({2, 2}, {2, 0, -2, 1})}, true),
                0, {2, 2}, {"ccc", "a", "e", "e"});
  ExpectStrings(RunOp(R"(type: "GatherElements" input: "x" input: "i" output: "y")",
                    {Two3(), Tensor::FromVector<int64_t>({1, 3}, {1, 0, 1})}, true),
                0, {1, 3}, {"", "bb", "ffff"});
}

TEST(Strings, Transpose) {
  ExpectStrings(RunOp(R"(type: "Transpose" input: "x" output: "y")", {Two3()}, true), 0, {3, 2},
                {"a", "", "bb", "e", "ccc", "ffff"});
  // A 2x1x2 with perm (2, 0, 1).
  ExpectStrings(RunOp(R"(type: "Transpose" input: "x" output: "y" arg { name: "perm" ints: 2 ints: 0 ints: 1 })",
                    {Strings({2, 1, 2}, {"p", "q", "r", "s"})}, true),
                0, {2, 2, 1}, {"p", "r", "q", "s"});
}

TEST(Strings, Slice) {
  // Columns 2 down to 0 by -2 of both rows.
  ExpectStrings(RunOp(R"(type: "Slice" input: "x" input: "s" input: "e" input: "a" input: "t" output: "y")",
                    {Two3(), I64({2}), I64({-4}), I64({1}), I64({-2})}),
                0, {2, 2}, {"ccc", "a", "ffff", ""});
  // Every other element of a 1-D, from 1.
  ExpectStrings(RunOp(R"(type: "Slice" input: "x" input: "s" input: "e" input: "" input: "t" output: "y")",
                    {Strings({6}, {"0", "1", "2", "3", "4", "5"}), I64({1}), I64({100}), Tensor(), I64({2})}),
                0, {3}, {"1", "3", "5"});
}

TEST(Strings, Split) {
  // Uneven parts along axis 1: 1 and 2 columns.
  std::vector<Tensor> ys = RunOp(R"(type: "Split" input: "x" input: "s" output: "a" output: "b" arg { name: "axis" i: 1 })",
                               {Two3(), I64({1, 2})});
  ExpectStrings(ys, 0, {2, 1}, {"a", ""});
  ExpectStrings(ys, 1, {2, 2}, {"bb", "ccc", "e", "ffff"});
  // Equal parts of 5 into 2 outputs (opset 18 num_outputs): 3 and 2.
  ys = RunOp(R"(type: "Split" input: "x" output: "a" output: "b" arg { name: "num_outputs" i: 2 })",
           {Strings({5}, {"v", "w", "x", "y", "z"})}, true);
  ExpectStrings(ys, 0, {3}, {"v", "w", "x"});
  ExpectStrings(ys, 1, {2}, {"y", "z"});
}

TEST(Strings, Concat) {
  ExpectStrings(RunOp(R"(type: "Concat" input: "x" input: "y" input: "z" output: "o" arg { name: "axis" i: 1 })",
                    {Two3(), Strings({2, 1}, {"g", "h"}), Strings({2, 0}, {})}, true),
                0, {2, 4}, {"a", "bb", "ccc", "g", "", "e", "ffff", "h"});
  ExpectStrings(RunOp(R"(type: "Concat" input: "x" input: "y" output: "o" arg { name: "axis" i: 0 })",
                    {Strings({1}, {"k"}), Strings({2}, {"l", "m"})}, true),
                0, {3}, {"k", "l", "m"});
}

TEST(Strings, Tile) {
  ExpectStrings(RunOp(R"(type: "Tile" input: "x" input: "r" output: "y")", {Strings({1, 2}, {"a", "b"}), I64({2, 2})}),
                0, {2, 4}, {"a", "b", "a", "b", "a", "b", "a", "b"});
}

TEST(Strings, Expand) {
  // [2, 1] broadcast with [1, 3] to [2, 3].
  ExpectStrings(RunOp(R"(type: "Expand" input: "x" input: "s" output: "y")", {Strings({2, 1}, {"u", "v"}), I64({1, 3})}),
                0, {2, 3}, {"u", "u", "u", "v", "v", "v"});
  ExpectStrings(RunOp(R"(type: "Expand" input: "x" input: "s" output: "y")", {Strings({}, {"s"}), I64({2})}), 0, {2},
                {"s", "s"});
}

TEST(Strings, Compress) {
  const Tensor cond = Tensor::FromVector<bool>({3}, {true, false, true});
  ExpectStrings(RunOp(R"(type: "Compress" input: "x" input: "c" output: "y" arg { name: "axis" i: 1 })", {Two3(), cond}),
                0, {2, 2}, {"a", "ccc", "", "ffff"});
  // No axis: the flattened input.
  ExpectStrings(RunOp(R"(type: "Compress" input: "x" input: "c" output: "y")",
                    {Two3(), Tensor::FromVector<bool>({4}, {false, true, false, true})}),
                0, {2}, {"bb", ""});
}

TEST(Strings, Where) {
  // condition [2, 1], X [2, 3], Y a scalar.
  ExpectStrings(RunOp(R"(type: "Where" input: "c" input: "x" input: "y" output: "o")",
                    {Tensor::FromVector<bool>({2, 1}, {true, false}), Two3(), Strings({}, {"-"})}, true),
                0, {2, 3}, {"a", "bb", "ccc", "-", "-", "-"});
  ExpectStrings(RunOp(R"(type: "Where" input: "c" input: "x" input: "y" output: "o")",
                    {Tensor::FromVector<bool>({3}, {false, true, false}), Strings({3}, {"x0", "x1", "x2"}),
                     Strings({3}, {"y0", "y1", "y2"})}, true),
                0, {3}, {"y0", "x1", "y2"});
}

// GatherND picks whole slices; Size counts elements.
TEST(Strings, GatherNDAndSize) {
  // Two3() is [2, 3]; index tuples (1, 2) and (0, 1): two elements.
  ExpectStrings(RunOp(R"(type: "GatherND" input: "x" input: "i" output: "y")",
                      {Two3(), Tensor::FromVector<int64_t>({2, 2}, {1, 2, 0, 1})}),
                0, {2}, {"ffff", "bb"});
  ExpectStrings(RunOp(R"(type: "GatherND" input: "x" input: "i" output: "y")",
                      {Two3(), Tensor::FromVector<int64_t>({1, 1}, {-1})}),
                0, {1, 3}, {"", "e", "ffff"});  // row -1: the last
  std::vector<Tensor> n = RunOp(R"(type: "Size" input: "x" output: "n")", {Two3()});
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].data<int64_t>()[0], 6);
}

// The scatters set whole elements (reduction none); a reduction on strings
// is refused naming the attribute.
TEST(Strings, Scatters) {
  // ScatterElements on axis 1: row 0 col 2 <- "X", row 1 col 0 <- "Y".
  ExpectStrings(RunOp(R"(type: "ScatterElements" input: "x" input: "i" input: "u" output: "y"
                         arg { name: "axis" i: 1 })",
                      {Two3(), Tensor::FromVector<int64_t>({2, 1}, {2, 0}), Strings({2, 1}, {"X", "Y"})}),
                0, {2, 3}, {"a", "bb", "X", "Y", "e", "ffff"});
  // ScatterND replaces row 1 whole.
  ExpectStrings(RunOp(R"(type: "ScatterND" input: "x" input: "i" input: "u" output: "y")",
                      {Two3(), Tensor::FromVector<int64_t>({1, 1}, {1}), Strings({1, 3}, {"p", "q", "r"})}),
                0, {2, 3}, {"a", "bb", "ccc", "p", "q", "r"});
  auto y = RunSingleOp(ParseOp(R"(type: "ScatterND" input: "x" input: "i" input: "u" output: "y"
                                  arg { name: "reduction" s: "add" })"),
                       {Two3(), Tensor::FromVector<int64_t>({1, 1}, {1}), Strings({1, 3}, {"p", "q", "r"})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("attribute 'reduction' other than none needs a numeric 'data'"),
            std::string::npos)
      << y.status();
}

// Sequences of strings (ONNX's seq(tensor(string))): split, read back,
// built and concatenated.
TEST(Strings, Sequences) {
  std::vector<Tensor> pieces = RunOp(R"(type: "SplitToSequence" input: "x" input: "s" output: "seq")",
                                     {Strings({4}, {"a", "b", "c", "d"}), Tensor::FromVector<int64_t>({2}, {1, 3})});
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].dtype(), SequenceOf(DataType::kString));
  ASSERT_EQ(pieces[0].values().size(), 2u);
  EXPECT_EQ(pieces[0].values()[1].strings(), (std::vector<std::string>{"b", "c", "d"}));
  ExpectStrings(RunOp(R"(type: "SequenceAt" input: "seq" input: "i" output: "y")",
                      {pieces[0], Tensor::FromVector<int64_t>({}, {0})}),
                0, {1}, {"a"});
  ExpectStrings(RunOp(R"(type: "ConcatFromSequence" input: "seq" output: "y" arg { name: "axis" i: 0 })",
                      {pieces[0]}),
                0, {4}, {"a", "b", "c", "d"});
  std::vector<Tensor> built = RunOp(R"(type: "SequenceConstruct" input: "a" input: "b" output: "seq")",
                                    {Strings({2}, {"x", "y"}), Strings({2}, {"z", "w"})});
  ASSERT_EQ(built.size(), 1u);
  ExpectStrings(RunOp(R"(type: "ConcatFromSequence" input: "seq" output: "y" arg { name: "axis" i: 0 }
                         arg { name: "new_axis" i: 1 })",
                      {built[0]}),
                0, {2, 2}, {"x", "y", "z", "w"});
}

// Ops ONNX gives no string type keep refusing them by type; X and Y of Where
// must agree.
TEST(Strings, RefusedByType) {
  for (const char* op : {R"(type: "Neg" input: "x" output: "y")", R"(type: "ReduceMax" input: "x" output: "y")"}) {
    auto y = RunSingleOp(ParseOp(op), {Two3()});
    ASSERT_FALSE(y.ok()) << op;
    EXPECT_NE(y.status().message().find("string"), std::string::npos) << y.status();
  }
  auto y = RunSingleOp(ParseOp(R"(type: "Where" input: "c" input: "x" input: "y" output: "o")"),
                       {Tensor::FromVector<bool>({1}, {true}), Strings({1}, {"a"}), Tensor::FromVector<float>({1}, {1})});
  EXPECT_FALSE(y.ok());
}

}  // namespace
}  // namespace loom
