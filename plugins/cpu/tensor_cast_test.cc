// tensor_cast.cc: CastLike against Cast for every dtype pair (Cast itself is
// checked against numpy's rules in tensor_test).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "core/proto_io.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// ---- CastLike ---------------------------------------------------------------------------
// The reference is Cast (tested against numpy's rules in tensor_test) with
// `to` = target_type's dtype: CastLike must agree with it bit for bit.
TEST(CastLike, MatchesCastEveryPair) {
  uint32_t seed = 1000;
  for (DataType from : AllTypes()) {
    for (DataType to : AllTypes()) {
      for (const Shape& dims : std::vector<Shape>{{}, {0, 3}, {4, 5}}) {
        Tensor x = RandomTensor(from, dims, seed++, -300, 300);
        Tensor target = RandomTensor(to, {2}, seed++);
        Tensor y = Run1(ParseOp(R"(type: "CastLike" input: "x" input: "t" output: "y")"), {x, target});
        Tensor expected = Run1(ParseOp("type: \"Cast\" input: \"x\" output: \"y\" arg { name: \"to\" i: " +
                                       std::to_string(static_cast<int>(to)) + " }"),
                               {x});
        EXPECT_TRUE(SameTensor(y, expected)) << DataTypeName(from) << " -> " << DataTypeName(to);
      }
    }
  }
  Tensor y = Run1(ParseOp(R"(type: "CastLike" input: "x" input: "t" output: "y")"),
                  {Tensor::FromVector<float>({3}, {1.7f, -2.5f, 0}), Tensor::Zeros(DataType::kInt32, {0})});
  EXPECT_TRUE(SameTensor(y, Tensor::FromVector<int32_t>({3}, {1, -2, 0})));
}

}  // namespace
}  // namespace loom

namespace loom {
namespace {

Tensor CastTo(int to, const Tensor& x) {
  auto y = testing::RunSingleOp(
      testing::ParseOp(R"(type: "Cast" input: "x" output: "y" arg { name: "to" i: )" + std::to_string(to) + " }"), {x});
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() ? (*y)[0] : Tensor();
}

// To string: numpy's str of each value (ops/semantics/cast_string.h).
TEST(Cast, NumbersToText) {
  const Tensor f = Tensor::FromVector<float>({8}, {3.0f, 0.0001f, 1e-5f, 1.5e16f, -0.5f, 0.039187793f, NAN, -INFINITY});
  EXPECT_EQ(CastTo(8, f).strings(),
            (std::vector<std::string>{"3.0", "0.0001", "1e-05", "1.5e+16", "-0.5", "0.039187793", "NaN", "-INF"}));
  // float64 keeps its own shortest digits.
  EXPECT_EQ(CastTo(8, Tensor::FromVector<double>({1}, {0.1})).strings(), (std::vector<std::string>{"0.1"}));
  EXPECT_EQ(CastTo(8, Tensor::FromVector<int64_t>({2}, {-7, 1234567890123})).strings(),
            (std::vector<std::string>{"-7", "1234567890123"}));
  EXPECT_EQ(CastTo(8, Tensor::FromVector<bool>({2}, {true, false})).strings(),
            (std::vector<std::string>{"True", "False"}));
}

// From string: the whole text must read as the number; errors name the element.
TEST(Cast, TextToNumbers) {
  Tensor s = *Tensor::Create(DataType::kString, {4});
  *s.mutable_strings() = {"2.5", "+INF", "-1e-3", "NaN"};
  const Tensor f = CastTo(1, s);
  ASSERT_EQ(f.dtype(), DataType::kFloat32);
  EXPECT_EQ(f.data<float>()[0], 2.5f);
  EXPECT_TRUE(std::isinf(f.data<float>()[1]) && f.data<float>()[1] > 0);
  EXPECT_FLOAT_EQ(f.data<float>()[2], -1e-3f);
  EXPECT_TRUE(std::isnan(f.data<float>()[3]));
  *s.mutable_strings() = {"42", "-3", "7", "0"};
  EXPECT_EQ(CastTo(6, s).data<int32_t>()[1], -3);
  // uint64 above INT64_MAX reads back; out-of-range and negative unsigned
  // values are errors, not wrapped.
  Tensor big = *Tensor::Create(DataType::kString, {1});
  *big.mutable_strings() = {"18446744073709551615"};
  EXPECT_EQ(CastTo(13, big).data<uint64_t>()[0], UINT64_MAX);
  // ... and so are C's hexadecimal floats, which strtod reads and numpy does not.
  for (const auto& [text, to] : std::vector<std::pair<std::string, int>>{
           {"3000000000", 6}, {"300", 2}, {"-1", 13}, {"0x10", 1}, {"-0X1p3", 11}}) {
    *big.mutable_strings() = {text};
    auto bad = testing::RunSingleOp(
        testing::ParseOp(R"(type: "Cast" input: "x" output: "y" arg { name: "to" i: )" + std::to_string(to) + " }"), {big});
    EXPECT_FALSE(bad.ok()) << text << " to " << to;
  }
  *s.mutable_strings() = {"1", "2", "3x", "4"};
  auto y = testing::RunSingleOp(testing::ParseOp(R"(type: "Cast" input: "x" output: "y" arg { name: "to" i: 7 })"), {s});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("element 2 \"3x\" is not a int64"), std::string::npos) << y.status();
}

}  // namespace
}  // namespace loom

namespace loom {
namespace {

// String tensors through the ops that move whole elements: Reshape keeps
// the elements in order, Shape reads the dims, Unsqueeze adds one.
TEST(Strings, ReshapeShapeUnsqueeze) {
  Tensor s = *Tensor::Create(DataType::kString, {2, 2});
  *s.mutable_strings() = {"a", "bb", "", "dddd"};
  auto y = testing::RunSingleOp(testing::ParseOp(R"(type: "Reshape" input: "x" input: "s" output: "y")"),
                                {s, Tensor::FromVector<int64_t>({1}, {4})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].dims(), Shape({4}));
  EXPECT_EQ((*y)[0].strings(), s.strings());
  y = testing::RunSingleOp(testing::ParseOp(R"(type: "Shape" input: "x" output: "y")"), {s});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].data<int64_t>()[1], 2);
  y = testing::RunSingleOp(testing::ParseOp(R"(type: "Unsqueeze" input: "x" input: "a" output: "y")"),
                           {s, Tensor::FromVector<int64_t>({1}, {0})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].dims(), Shape({1, 2, 2}));
  EXPECT_EQ((*y)[0].strings()[3], "dddd");
  // An op that computes on numbers refuses strings by type (the ops that
  // move whole elements take them: tensor_strings_test).
  y = testing::RunSingleOp(testing::ParseOp(R"(type: "Abs" input: "x" output: "y")"), {s});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("string"), std::string::npos) << y.status();
}

}  // namespace
}  // namespace loom
