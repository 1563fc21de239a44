// OneHot against a naive reference for every index dtype; known values;
// error cases (a non-OK status, never a crash).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "core/proto_io.h"
#include "core/testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using testing::ParseOp;
using testing::RandomTensor;
using testing::RunSingleOp;

const std::vector<DataType>& AllTypes() {
  static const std::vector<DataType> t = {
      DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16, DataType::kInt8,
      DataType::kUInt8,   DataType::kInt16,   DataType::kUInt16,  DataType::kInt32,    DataType::kUInt32,
      DataType::kInt64,   DataType::kUInt64,  DataType::kBool};
  return t;
}

Tensor I64(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>({static_cast<int64_t>(v.size())}, v); }

// Same dtype, dims and bytes.
::testing::AssertionResult SameTensor(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype() || actual.dims() != expected.dims()) {
    return ::testing::AssertionFailure() << "expected " << expected.DebugString() << ", found " << actual.DebugString();
  }
  const size_t es = DataTypeSize(actual.dtype());
  for (int64_t i = 0; i < actual.num_elements(); ++i) {
    if (std::memcmp(actual.data<char>() + i * es, expected.data<char>() + i * es, es) != 0) {
      return ::testing::AssertionFailure() << actual.DebugString() << ": first difference at flat index " << i
                                           << ": found " << actual.ElementAsDouble(i) << ", expected "
                                           << expected.ElementAsDouble(i);
    }
  }
  return ::testing::AssertionSuccess();
}

// Runs op and returns output 0; fails the test (and returns an empty tensor)
// on error.
Tensor Run1(const OperatorDef& op, const std::vector<Tensor>& inputs) {
  auto out = RunSingleOp(op, inputs);
  EXPECT_TRUE(out.ok()) << op.ShortDebugString() << ": " << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

// Expects `op` to fail with a message containing every one of `parts`.
void ExpectError(const OperatorDef& op, const std::vector<Tensor>& inputs, const std::vector<std::string>& parts) {
  auto out = RunSingleOp(op, inputs);
  ASSERT_FALSE(out.ok()) << op.ShortDebugString();
  for (const std::string& p : parts) {
    EXPECT_NE(out.status().message().find(p), std::string::npos) << "'" << p << "' not in: " << out.status();
  }
}

Shape Unravel(int64_t flat, const Shape& dims) {
  Shape idx(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    idx[k] = flat % dims[k];
    flat /= dims[k];
  }
  return idx;
}

int64_t Ravel(const Shape& idx, const Shape& dims) {
  int64_t flat = 0;
  for (size_t k = 0; k < dims.size(); ++k) flat = flat * dims[k] + idx[k];
  return flat;
}

// A tensor of `dims` whose element at multi-index o is x's element at
// src(o) (a flat index), copied as bytes.
template <typename F>
Tensor Gather(const Tensor& x, const Shape& dims, F src) {
  Tensor y = Tensor::Zeros(x.dtype(), dims);
  const size_t es = DataTypeSize(x.dtype());
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    std::memcpy(y.data<char>() + i * es, x.data<char>() + src(Unravel(i, dims)) * es, es);
  }
  return y;
}

// ---- OneHot ---------------------------------------------------------------------------
TEST(OneHot, MatchesNaive) {
  uint32_t seed = 900;
  const std::vector<DataType> index_types = {DataType::kInt64, DataType::kInt32, DataType::kFloat32,
                                             DataType::kUInt8, DataType::kInt8};
  for (DataType it : index_types) {
    for (DataType vt : AllTypes()) {
      for (const Shape& in : std::vector<Shape>{{}, {5}, {2, 3}, {2, 0}}) {
        const int64_t r = static_cast<int64_t>(in.size()) + 1;
        for (int64_t axis = -r; axis < r; ++axis) {
          const int64_t depth = 4;
          const bool is_signed = it != DataType::kUInt8;
          Tensor idx = RandomTensor(it, in, seed++, is_signed ? -6 : 0, 6);  // some out of range
          Tensor values = RandomTensor(vt, {2}, seed++, -9, 9);
          Tensor y = Run1(ParseOp("type: \"OneHot\" input: \"i\" input: \"d\" input: \"v\" output: \"y\" "
                                  "arg { name: \"axis\" i: " + std::to_string(axis) + " }"),
                          {idx, Tensor::FromVector<int64_t>({1}, {depth}), values});
          const int64_t a = axis < 0 ? axis + r : axis;
          Shape out = in;
          out.insert(out.begin() + a, depth);
          Tensor expected = Gather(values, out, [&](const Shape& o) {
            Shape i = o;
            i.erase(i.begin() + a);
            int64_t k = static_cast<int64_t>(idx.ElementAsDouble(Ravel(i, in)));
            if (k < 0) k += depth;
            return k == o[a] ? 1 : 0;
          });
          EXPECT_TRUE(SameTensor(y, expected)) << DataTypeName(it) << " -> " << DataTypeName(vt) << " "
                                               << ShapeToString(in) << " axis " << axis;
        }
      }
    }
  }
}

TEST(OneHot, KnownValuesAndErrors) {
  // Depth as a float scalar; -1 is the last class; 5 is out of range.
  Tensor y = Run1(ParseOp(R"(type: "OneHot" input: "i" input: "d" input: "v" output: "y")"),
                  {Tensor::FromVector<int64_t>({3}, {0, -1, 5}), Tensor::FromVector<float>({}, {3}),
                   Tensor::FromVector<float>({2}, {0, 2})});
  EXPECT_TRUE(SameTensor(y, Tensor::FromVector<float>({3, 3}, {2, 0, 0, 0, 0, 2, 0, 0, 0})));
  const OperatorDef op = ParseOp(R"(type: "OneHot" input: "i" input: "d" input: "v" output: "y")");
  ExpectError(op, {I64({1}), I64({0}), Tensor::FromVector<float>({2}, {0, 1})}, {"OneHot", "depth", ">= 1"});
  ExpectError(op, {I64({1}), I64({3}), Tensor::FromVector<float>({3}, {0, 1, 2})}, {"OneHot", "values", "[3]"});
  ExpectError(ParseOp(R"(type: "OneHot" input: "i" input: "d" input: "v" output: "y" arg { name: "axis" i: 2 })"),
              {I64({1}), I64({3}), Tensor::FromVector<float>({2}, {0, 1})}, {"OneHot", "axis", "2"});
}

}  // namespace
}  // namespace loom
