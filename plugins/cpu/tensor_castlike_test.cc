// CastLike against Cast for every dtype pair.
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
