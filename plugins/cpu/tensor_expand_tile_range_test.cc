// ConstantOfShape, Size, Expand, Tile, Range, Trilu and EyeLike against
// naive references on random inputs for every dtype, with zero-size dims
// and rank 0 where the op allows them; known values; error cases (a
// non-OK status, never a crash).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
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

// ---- ConstantOfShape ---------------------------------------------------------------
TEST(ConstantOfShape, EveryDtypeAndShape) {
  uint32_t seed = 1;
  for (DataType dt : AllTypes()) {
    for (const Shape& dims : std::vector<Shape>{{}, {3}, {2, 0, 4}, {2, 3, 5}}) {
      Tensor value = RandomTensor(dt, {1}, seed++, -5, 5);
      OperatorDef op = ParseOp(R"(type: "ConstantOfShape" input: "s" output: "y")");
      auto* arg = op.add_arg();
      arg->set_name("value");
      *arg->mutable_t() = TensorToProto(value);
      Tensor y = Run1(op, {I64(dims)});
      Tensor expected = Gather(value, dims, [](const Shape&) { return 0; });
      EXPECT_TRUE(SameTensor(y, expected)) << DataTypeName(dt) << " " << ShapeToString(dims);
    }
  }
}

TEST(ConstantOfShape, DefaultIsFloatZero) {
  Tensor y = Run1(ParseOp(R"(type: "ConstantOfShape" input: "s" output: "y")"), {I64({2, 2})});
  EXPECT_TRUE(SameTensor(y, Tensor::FromVector<float>({2, 2}, {0, 0, 0, 0})));
  Tensor v = Run1(ParseOp(R"(type: "ConstantOfShape" input: "s" output: "y"
                             arg { name: "value" t { dims: 1 data_type: 7 int64_data: -3 } })"),
                  {I64({3})});
  EXPECT_TRUE(SameTensor(v, Tensor::FromVector<int64_t>({3}, {-3, -3, -3})));
}

TEST(ConstantOfShape, Errors) {
  ExpectError(ParseOp(R"(type: "ConstantOfShape" input: "s" output: "y")"), {I64({2, -1})},
              {"ConstantOfShape", "input", ">= 0"});
  ExpectError(ParseOp(R"(type: "ConstantOfShape" input: "s" output: "y"
                         arg { name: "value" t { dims: 2 data_type: 1 float_data: [1, 2] } })"),
              {I64({2})}, {"ConstantOfShape", "value", "one element"});
}

// ---- Size ----------------------------------------------------------------------------
TEST(Size, EveryDtypeAndShape) {
  uint32_t seed = 100;
  for (DataType dt : AllTypes()) {
    for (const Shape& dims : std::vector<Shape>{{}, {0}, {3, 0, 2}, {2, 3, 4}}) {
      Tensor x = RandomTensor(dt, dims, seed++);
      Tensor y = Run1(ParseOp(R"(type: "Size" input: "x" output: "y")"), {x});
      EXPECT_TRUE(SameTensor(y, Tensor::FromVector<int64_t>({}, {x.num_elements()}))) << x.DebugString();
    }
  }
}

// ---- Expand ----------------------------------------------------------------------------
TEST(Expand, MatchesNaiveBroadcast) {
  struct Case { Shape in, shape, out; };
  const std::vector<Case> cases = {
      {{}, {2, 3}, {2, 3}},           {{3, 1}, {2, 1, 4}, {2, 3, 4}}, {{1, 4}, {3, 1}, {3, 4}},
      {{2, 3}, {}, {2, 3}},           {{2, 1}, {2, 0}, {2, 0}},       {{1}, {1}, {1}},
      {{2, 1, 3}, {1, 5, 1}, {2, 5, 3}}, {{0, 1}, {0, 3}, {0, 3}},
  };
  uint32_t seed = 200;
  for (DataType dt : AllTypes()) {
    for (const Case& c : cases) {
      Tensor x = RandomTensor(dt, c.in, seed++, -9, 9);
      Tensor y = Run1(ParseOp(R"(type: "Expand" input: "x" input: "s" output: "y")"), {x, I64(c.shape)});
      const size_t off = c.out.size() - c.in.size();
      Tensor expected = Gather(x, c.out, [&](const Shape& o) {
        Shape i(c.in.size());
        for (size_t k = 0; k < i.size(); ++k) i[k] = c.in[k] == 1 ? 0 : o[k + off];
        return Ravel(i, c.in);
      });
      EXPECT_TRUE(SameTensor(y, expected)) << DataTypeName(dt) << " " << ShapeToString(c.in) << " -> "
                                           << ShapeToString(c.shape);
    }
  }
}

TEST(Expand, KnownValuesAndErrors) {
  Tensor y = Run1(ParseOp(R"(type: "Expand" input: "x" input: "s" output: "y")"),
                  {Tensor::FromVector<float>({3, 1}, {1, 2, 3}), I64({2, 1, 2})});
  EXPECT_TRUE(SameTensor(y, Tensor::FromVector<float>({2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3})));
  ExpectError(ParseOp(R"(type: "Expand" input: "x" input: "s" output: "y")"),
              {Tensor::FromVector<float>({3}, {1, 2, 3}), I64({2})}, {"Expand", "broadcast", "[3]", "[2]"});
}

// ---- Tile ------------------------------------------------------------------------------
TEST(Tile, MatchesNaiveModulo) {
  struct Case { Shape in, reps; };
  const std::vector<Case> cases = {
      {{}, {}}, {{3}, {2}}, {{2, 3}, {2, 1}}, {{2, 3}, {1, 3}}, {{2, 0, 3}, {2, 2, 2}},
      {{2, 3}, {0, 2}}, {{2, 1, 3}, {3, 4, 2}},
  };
  uint32_t seed = 300;
  for (DataType dt : AllTypes()) {
    for (const Case& c : cases) {
      Tensor x = RandomTensor(dt, c.in, seed++, -9, 9);
      Shape out(c.in.size());
      for (size_t k = 0; k < out.size(); ++k) out[k] = c.in[k] * c.reps[k];
      Tensor y = Run1(ParseOp(R"(type: "Tile" input: "x" input: "r" output: "y")"), {x, I64(c.reps)});
      Tensor expected = Gather(x, out, [&](const Shape& o) {
        Shape i(o.size());
        for (size_t k = 0; k < i.size(); ++k) i[k] = o[k] % c.in[k];
        return Ravel(i, c.in);
      });
      EXPECT_TRUE(SameTensor(y, expected)) << DataTypeName(dt) << " " << ShapeToString(c.in);
    }
  }
}

TEST(Tile, KnownValuesAndErrors) {
  Tensor y = Run1(ParseOp(R"(type: "Tile" input: "x" input: "r" output: "y")"),
                  {Tensor::FromVector<int32_t>({2}, {1, 2}), I64({3})});
  EXPECT_TRUE(SameTensor(y, Tensor::FromVector<int32_t>({6}, {1, 2, 1, 2, 1, 2})));
  ExpectError(ParseOp(R"(type: "Tile" input: "x" input: "r" output: "y")"),
              {Tensor::FromVector<float>({2}, {1, 2}), I64({2, 2})}, {"Tile", "repeats", "1", "2"});
  ExpectError(ParseOp(R"(type: "Tile" input: "x" input: "r" output: "y")"),
              {Tensor::FromVector<float>({2}, {1, 2}), I64({-1})}, {"Tile", "repeats", ">= 0"});
}

TEST(Tile, DimTimesRepeatsPastInt64IsAnError) {
  // 2 * 2^62 = 2^63 does not fit int64 (repeats fed, so the kernel's check);
  // 0 * (2^63 - 1) is 0: an empty output.
  ExpectError(ParseOp(R"(type: "Tile" input: "x" input: "r" output: "y")"),
              {Tensor::FromVector<float>({2}, {1, 2}), I64({int64_t{1} << 62})},
              {"Tile", "repeats", "4611686018427387904", "overflows int64"});
  Tensor y = Run1(ParseOp(R"(type: "Tile" input: "x" input: "r" output: "y")"),
                  {Tensor::Zeros(DataType::kFloat32, {0}), I64({std::numeric_limits<int64_t>::max()})});
  EXPECT_EQ(y.dims(), (Shape{0}));
}

// ---- Range -----------------------------------------------------------------------------
template <typename T>
void CheckRange(DataType dt, T start, T limit, T delta) {
  Tensor y = Run1(ParseOp(R"(type: "Range" input: "a" input: "b" input: "c" output: "y")"),
                  {Tensor::FromVector<T>({}, {start}), Tensor::FromVector<T>({}, {limit}),
                   Tensor::FromVector<T>({}, {delta})});
  std::vector<T> expected;
  // Naive: step until the limit (exclusive) is reached.
  for (int64_t i = 0;; ++i) {
    const double v = static_cast<double>(start) + static_cast<double>(i) * static_cast<double>(delta);
    if (delta > 0 ? v >= static_cast<double>(limit) : v <= static_cast<double>(limit)) break;
    expected.push_back(static_cast<T>(start + static_cast<T>(i) * delta));
  }
  EXPECT_TRUE(SameTensor(y, Tensor::FromVector<T>({static_cast<int64_t>(expected.size())}, expected)))
      << DataTypeName(dt) << " " << +start << " " << +limit << " " << +delta;
}

TEST(Range, EveryDtype) {
  for (int s = -7; s <= 7; s += 3) {
    for (int l = -8; l <= 8; l += 4) {
      for (int d : {-3, -1, 1, 2, 5}) {
        CheckRange<int16_t>(DataType::kInt16, s, l, d);
        CheckRange<int32_t>(DataType::kInt32, s, l, d);
        CheckRange<int64_t>(DataType::kInt64, s, l, d);
        CheckRange<double>(DataType::kFloat64, s * 0.5, l * 0.75, d * 0.25);
      }
    }
  }
  CheckRange<float>(DataType::kFloat32, 1.0f, 5.0f, 0.5f);
  CheckRange<float>(DataType::kFloat32, 10.0f, 4.0f, -3.0f);
  Tensor y = Run1(ParseOp(R"(type: "Range" input: "a" input: "b" input: "c" output: "y")"),
                  {Tensor::FromVector<float>({}, {1}), Tensor::FromVector<float>({}, {2.1f}),
                   Tensor::FromVector<float>({}, {0.5f})});
  EXPECT_TRUE(SameTensor(y, Tensor::FromVector<float>({3}, {1, 1.5f, 2})));
}

TEST(Range, Errors) {
  const OperatorDef op = ParseOp(R"(type: "Range" input: "a" input: "b" input: "c" output: "y")");
  ExpectError(op, {Tensor::FromVector<int32_t>({}, {0}), Tensor::FromVector<int32_t>({}, {4}),
                   Tensor::FromVector<int32_t>({}, {0})}, {"Range", "delta", "nonzero"});
  ExpectError(op, {Tensor::FromVector<int32_t>({2}, {0, 1}), Tensor::FromVector<int32_t>({}, {4}),
                   Tensor::FromVector<int32_t>({}, {1})}, {"Range", "start", "scalar"});
}

// ---- Trilu -----------------------------------------------------------------------------
TEST(Trilu, MatchesNaive) {
  uint32_t seed = 400;
  for (DataType dt : AllTypes()) {
    for (const Shape& dims : std::vector<Shape>{{3, 4}, {2, 4, 3}, {2, 0, 3}, {3, 0}, {1, 2, 5, 5}}) {
      for (int upper : {0, 1}) {
        for (int64_t k : {-7, -2, -1, 0, 1, 3, 9}) {
          Tensor x = RandomTensor(dt, dims, seed++, -9, 9);
          Tensor y = Run1(ParseOp("type: \"Trilu\" input: \"x\" input: \"k\" output: \"y\" arg { name: \"upper\" i: " +
                                  std::to_string(upper) + " }"),
                          {x, Tensor::FromVector<int64_t>({}, {k})});
          Tensor expected = Tensor::Zeros(dt, dims);
          const size_t es = DataTypeSize(dt);
          for (int64_t f = 0; f < x.num_elements(); ++f) {
            const Shape o = Unravel(f, dims);
            const int64_t i = o[o.size() - 2], j = o.back();
            if (upper ? j - i >= k : j - i <= k) std::memcpy(expected.data<char>() + f * es, x.data<char>() + f * es, es);
          }
          EXPECT_TRUE(SameTensor(y, expected)) << DataTypeName(dt) << " upper " << upper << " k " << k;
        }
      }
    }
  }
}

TEST(Trilu, KnownValuesAndErrors) {
  Tensor x = Tensor::FromVector<int32_t>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_TRUE(SameTensor(Run1(ParseOp(R"(type: "Trilu" input: "x" output: "y")"), {x}),
                         Tensor::FromVector<int32_t>({3, 3}, {1, 2, 3, 0, 5, 6, 0, 0, 9})));
  EXPECT_TRUE(SameTensor(Run1(ParseOp(R"(type: "Trilu" input: "x" output: "y" arg { name: "upper" i: 0 })"), {x}),
                         Tensor::FromVector<int32_t>({3, 3}, {1, 0, 0, 4, 5, 0, 7, 8, 9})));
  ExpectError(ParseOp(R"(type: "Trilu" input: "x" output: "y")"), {Tensor::FromVector<float>({3}, {1, 2, 3})},
              {"Trilu", "rank >= 2", "[3]"});
}

// ---- EyeLike ---------------------------------------------------------------------------
TEST(EyeLike, MatchesNaive) {
  uint32_t seed = 500;
  for (DataType in_dt : {DataType::kFloat32, DataType::kInt32}) {
    for (DataType out_dt : AllTypes()) {
      for (const Shape& dims : std::vector<Shape>{{3, 4}, {4, 3}, {0, 3}, {1, 1}}) {
        for (int64_t k : {-5, -1, 0, 2, 4}) {
          Tensor x = RandomTensor(in_dt, dims, seed++);
          Tensor y = Run1(ParseOp("type: \"EyeLike\" input: \"x\" output: \"y\" arg { name: \"k\" i: " +
                                  std::to_string(k) + " } arg { name: \"dtype\" i: " +
                                  std::to_string(static_cast<int>(out_dt)) + " }"),
                          {x});
          Tensor ref = Tensor::Zeros(DataType::kFloat64, dims);
          for (int64_t i = 0; i < dims[0]; ++i) {
            if (i + k >= 0 && i + k < dims[1]) ref.data<double>()[i * dims[1] + i + k] = 1;
          }
          ASSERT_EQ(y.dtype(), out_dt);
          ASSERT_EQ(y.dims(), dims);
          for (int64_t f = 0; f < y.num_elements(); ++f) {
            EXPECT_EQ(y.ElementAsDouble(f), ref.data<double>()[f]) << DataTypeName(out_dt) << " k " << k << " at " << f;
          }
        }
      }
    }
  }
  // Without dtype the output takes the input's.
  Tensor y = Run1(ParseOp(R"(type: "EyeLike" input: "x" output: "y")"), {Tensor::Zeros(DataType::kInt64, {2, 2})});
  EXPECT_TRUE(SameTensor(y, Tensor::FromVector<int64_t>({2, 2}, {1, 0, 0, 1})));
}

TEST(EyeLike, Errors) {
  ExpectError(ParseOp(R"(type: "EyeLike" input: "x" output: "y")"), {Tensor::Zeros(DataType::kFloat32, {2, 2, 2})},
              {"EyeLike", "2-D", "[2, 2, 2]"});
}

}  // namespace
}  // namespace loom
