// Compress against a naive reference (plain loops), known values and error
// cases.
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// ------------------------------------------------------------------- Compress

absl::StatusOr<std::vector<Tensor>> RunCompress(const Tensor& x, const std::vector<bool>& cond,
                                                std::optional<int64_t> axis) {
  std::string text = "type: \"Compress\" name: \"c\" input: \"x\" input: \"c\" output: \"y\"";
  if (axis) text += " arg { name: \"axis\" i: " + std::to_string(*axis) + " }";
  return RunSingleOp(ParseOp(text), {x, Tensor::FromVector<bool>({static_cast<int64_t>(cond.size())}, cond)});
}

// Element by element through coordinates, for any dtype (copies bytes).
Tensor CompressRef(const Tensor& x, const std::vector<bool>& cond, std::optional<int64_t> axis) {
  std::vector<int64_t> kept;
  for (size_t i = 0; i < cond.size(); ++i) {
    if (cond[i]) kept.push_back(static_cast<int64_t>(i));
  }
  Shape in_shape = x.dims();
  int64_t ax = 0;
  if (!axis) {
    in_shape = {x.num_elements()};
  } else {
    ax = *axis < 0 ? *axis + static_cast<int64_t>(in_shape.size()) : *axis;
  }
  Shape out_shape = in_shape;
  out_shape[ax] = static_cast<int64_t>(kept.size());
  Tensor y = Tensor::Zeros(x.dtype(), out_shape);
  const size_t es = DataTypeSize(x.dtype());
  for (int64_t o = 0; o < y.num_elements(); ++o) {
    std::vector<int64_t> c = Unravel(o, out_shape);
    c[ax] = kept[c[ax]];
    std::memcpy(static_cast<char*>(y.raw_data()) + o * es,
                static_cast<const char*>(x.raw_data()) + Ravel(c, in_shape) * es, es);
  }
  return y;
}

TEST(CompressTest, KnownValues) {
  Tensor x = Tensor::FromVector<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto r0 = RunCompress(x, {false, true, true}, 0);
  ASSERT_TRUE(r0.ok()) << r0.status();
  EXPECT_TRUE(AllClose((*r0)[0], Tensor::FromVector<float>({2, 2}, {3, 4, 5, 6})));
  auto r1 = RunCompress(x, {false, true}, -1);
  ASSERT_TRUE(r1.ok()) << r1.status();
  EXPECT_TRUE(AllClose((*r1)[0], Tensor::FromVector<float>({3, 1}, {2, 4, 6})));
  auto flat = RunCompress(x, {false, true, false, false, true}, std::nullopt);  // shorter: the rest false
  ASSERT_TRUE(flat.ok()) << flat.status();
  EXPECT_TRUE(AllClose((*flat)[0], Tensor::FromVector<float>({2}, {2, 5})));
}

TEST(CompressTest, MatchesReference) {
  int seed = 0;
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kInt8,
                      DataType::kInt64, DataType::kBool}) {
    for (const Shape& s : {Shape{5}, Shape{3, 4, 5}, Shape{2, 0, 3}, Shape{}}) {
      Tensor x = RandomTensor(dt, s, ++seed, -5, 5);
      const int64_t rank = static_cast<int64_t>(s.size());
      std::vector<std::optional<int64_t>> axes = {std::nullopt};
      for (int64_t a = -rank; a < rank; ++a) axes.push_back(a);
      for (const auto& axis : axes) {
        const int64_t n = axis ? s[*axis < 0 ? *axis + rank : *axis] : x.num_elements();
        for (int64_t len : {n, n > 0 ? n - 1 : 0}) {
          std::vector<bool> cond(len);
          for (int64_t i = 0; i < len; ++i) cond[i] = (i * 7 + seed) % 3 != 0;
          auto out = RunCompress(x, cond, axis);
          const std::string what = x.DebugString() + " axis " + (axis ? std::to_string(*axis) : "none") + " len " +
                                   std::to_string(len);
          ASSERT_TRUE(out.ok()) << what << ": " << out.status();
          EXPECT_TRUE(AllClose((*out)[0], CompressRef(x, cond, axis), 0, 0)) << what;
        }
      }
    }
  }
}

TEST(CompressTest, BadInputsAreErrors) {
  Tensor x = RandomTensor(DataType::kFloat32, {3, 2}, 1);
  EXPECT_FALSE(RunCompress(x, {true, true, true, true}, 0).ok()) << "condition longer than the axis";
  EXPECT_FALSE(RunCompress(x, std::vector<bool>(7, true), std::nullopt).ok()) << "longer than the flat input";
  EXPECT_FALSE(RunCompress(x, {true}, 2).ok()) << "axis out of range";
  EXPECT_FALSE(RunCompress(x, {true}, -3).ok()) << "negative axis out of range";
  EXPECT_FALSE(RunCompress(Tensor::FromVector<float>({}, {1}), {true}, 0).ok()) << "axis on a scalar";
  auto not_bool = RunSingleOp(ParseOp("type: \"Compress\" name: \"c\" input: \"x\" input: \"c\" output: \"y\""),
                              {x, Tensor::FromVector<int64_t>({2}, {1, 0})});
  EXPECT_FALSE(not_bool.ok()) << "int64 condition";
}

}  // namespace
}  // namespace loom
