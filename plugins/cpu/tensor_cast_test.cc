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
