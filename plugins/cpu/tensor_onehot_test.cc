// OneHot against a naive reference for every index dtype; known values;
// error cases (a non-OK status, never a crash).
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

TEST(OneHot, NonFiniteOrHugeDepthIsAnError) {
  // A float depth truncates (2.7 -> 2); NaN, inf and 1e30 have no int64 depth.
  const OperatorDef op = ParseOp(R"(type: "OneHot" input: "i" input: "d" input: "v" output: "y")");
  const Tensor v = Tensor::FromVector<float>({2}, {0, 1});
  Tensor y = Run1(op, {I64({1, 0}), Tensor::FromVector<float>({}, {2.7f}), v});
  EXPECT_TRUE(SameTensor(y, Tensor::FromVector<float>({2, 2}, {0, 1, 1, 0})));
  ExpectError(op, {I64({1}), Tensor::FromVector<float>({}, {std::nanf("")}), v}, {"OneHot", "'depth'", "finite", "nan"});
  ExpectError(op, {I64({1}), Tensor::FromVector<double>({}, {-INFINITY}), v}, {"OneHot", "'depth'", "-inf"});
  ExpectError(op, {I64({1}), Tensor::FromVector<float>({}, {1e30f}), v}, {"OneHot", "'depth'", "1e12"});
}

}  // namespace
}  // namespace loom
