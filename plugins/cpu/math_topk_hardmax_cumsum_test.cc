// TopK, Hardmax and CumSum against naive references.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// --------------------------------------------------------------------- TopK

absl::StatusOr<std::vector<Tensor>> RunTopK(const Tensor& x, int64_t k, int64_t axis, bool largest) {
  return RunSingleOp(ParseOp("type: \"TopK\" name: \"t\" input: \"x\" input: \"k\" output: \"v\" output: \"i\""
                             " arg { name: \"axis\" i: " + std::to_string(axis) +
                             " } arg { name: \"largest\" i: " + std::to_string(largest ? 1 : 0) + " }"),
                     {x, Tensor::FromVector<int64_t>({1}, {k})});
}

TEST(TopKTest, KnownValuesAndReference) {
  Tensor x = Tensor::FromVector<float>({2, 4}, {1, 3, 3, 2, 4, 0, 4, -1});
  auto out = RunTopK(x, 2, -1, true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({2, 2}, {3, 3, 4, 4})));
  EXPECT_TRUE(AllClose((*out)[1], Tensor::FromVector<int64_t>({2, 2}, {1, 2, 0, 2})));
  auto sm = RunTopK(x, 1, 1, false);
  ASSERT_TRUE(sm.ok()) << sm.status();
  EXPECT_TRUE(AllClose((*sm)[1], Tensor::FromVector<int64_t>({2, 1}, {0, 3})));

  const Shape s = {3, 4, 5};
  for (DataType dt : {DataType::kFloat32, DataType::kInt32, DataType::kInt64}) {
    Tensor in = RandomTensor(dt, s, 31, -5, 5);  // ties for the integer types
    for (int64_t axis : {0, 1, 2, -1, -2}) {
      const int64_t ax = axis < 0 ? axis + 3 : axis;
      for (bool largest : {true, false}) {
        for (int64_t k : {int64_t{0}, int64_t{1}, s[ax]}) {
          Shape os = s;
          os[ax] = k;
          std::vector<double> wv;
          std::vector<int64_t> wi;
          wv.resize(NumElements(os));
          wi.resize(NumElements(os));
          Shape line = s;
          line[ax] = 1;
          for (int64_t o = 0; o < NumElements(line); ++o) {
            // Selection by repeated scans: the best unused element, lower index on ties.
            std::vector<bool> used(s[ax], false);
            std::vector<int64_t> c = Unravel(o, line);
            for (int64_t j = 0; j < k; ++j) {
              int64_t best = -1;
              double bv = 0;
              for (int64_t i = 0; i < s[ax]; ++i) {
                c[ax] = i;
                const double v = in.ElementAsDouble(Ravel(c, s));
                if (!used[i] && (best < 0 || (largest ? v > bv : v < bv))) { best = i; bv = v; }
              }
              used[best] = true;
              c[ax] = j;
              wv[Ravel(c, os)] = bv;
              wi[Ravel(c, os)] = best;
            }
          }
          auto r = RunTopK(in, k, axis, largest);
          ASSERT_TRUE(r.ok()) << r.status();
          EXPECT_TRUE(AllClose((*r)[1], Tensor::FromVector<int64_t>(os, wi)))
              << DataTypeName(dt) << " axis " << axis << " k " << k << " largest " << largest;
          for (int64_t i = 0; i < NumElements(os); ++i) {
            EXPECT_EQ((*r)[0].ElementAsDouble(i), wv[i]) << i;
          }
        }
      }
    }
  }
  auto bad = RunTopK(x, 5, -1, true);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("TopK"), std::string::npos) << bad.status();
  EXPECT_FALSE(RunTopK(x, 1, 2, true).ok());
  EXPECT_FALSE(RunTopK(x, -1, 0, true).ok());
}

// ------------------------------------------------------------------ Hardmax

TEST(HardmaxTest, KnownValuesAndReference) {
  auto run = [](const Tensor& x, int64_t axis) {
    return RunSingleOp(ParseOp("type: \"Hardmax\" name: \"h\" input: \"x\" output: \"y\" arg { name: \"axis\" i: " +
                               std::to_string(axis) + " }"),
                       {x});
  };
  auto out = run(Tensor::FromVector<float>({2, 3}, {1, 3, 3, -1, -2, -5}), -1);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({2, 3}, {0, 1, 0, 1, 0, 0})));
  const Shape s = {3, 4, 5};
  Tensor x = RandomTensor(DataType::kFloat64, s, 41);
  for (int64_t axis : {0, 1, -1}) {
    const int64_t ax = axis < 0 ? axis + 3 : axis;
    Tensor want = Tensor::Zeros(DataType::kFloat64, s);
    Shape line = s;
    line[ax] = 1;
    for (int64_t o = 0; o < NumElements(line); ++o) {
      std::vector<int64_t> c = Unravel(o, line);
      int64_t best = 0;
      for (int64_t i = 1; i < s[ax]; ++i) {
        std::vector<int64_t> a = c, b = c;
        a[ax] = i;
        b[ax] = best;
        if (x.data<double>()[Ravel(a, s)] > x.data<double>()[Ravel(b, s)]) best = i;
      }
      c[ax] = best;
      want.data<double>()[Ravel(c, s)] = 1;
    }
    auto r = run(x, axis);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(AllClose((*r)[0], want)) << "axis " << axis;
  }
  EXPECT_FALSE(run(x, 3).ok());
}

// ------------------------------------------------------------------- CumSum

absl::StatusOr<std::vector<Tensor>> RunCumSum(const Tensor& x, const Tensor& axis, bool exclusive, bool reverse) {
  return RunSingleOp(ParseOp("type: \"CumSum\" name: \"c\" input: \"x\" input: \"a\" output: \"y\""
                             " arg { name: \"exclusive\" i: " + std::to_string(exclusive ? 1 : 0) +
                             " } arg { name: \"reverse\" i: " + std::to_string(reverse ? 1 : 0) + " }"),
                     {x, axis});
}

TEST(CumSumTest, KnownValuesAndReference) {
  Tensor x = Tensor::FromVector<float>({4}, {1, 2, 3, 4});
  const std::pair<std::pair<bool, bool>, std::vector<float>> known[] = {
      {{false, false}, {1, 3, 6, 10}}, {{true, false}, {0, 1, 3, 6}},
      {{false, true}, {10, 9, 7, 4}},  {{true, true}, {9, 7, 4, 0}}};
  for (const auto& [flags, want] : known) {
    auto out = RunCumSum(x, Tensor::FromVector<int32_t>({}, {0}), flags.first, flags.second);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({4}, want)));
  }
  const Shape s = {3, 4, 5};
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kInt32, DataType::kInt64}) {
    Tensor in = RandomTensor(dt, s, 12, -10, 10);
    for (int64_t axis : {0, 1, 2, -1, -3}) {
      const int64_t ax = axis < 0 ? axis + 3 : axis;
      for (bool ex : {false, true}) {
        for (bool rev : {false, true}) {
          std::vector<double> want(in.num_elements(), 0);
          for (int64_t i = 0; i < in.num_elements(); ++i) {
            std::vector<int64_t> c = Unravel(i, s);
            const int64_t p = c[ax];
            for (int64_t j = 0; j < s[ax]; ++j) {
              const bool take = rev ? (ex ? j > p : j >= p) : (ex ? j < p : j <= p);
              c[ax] = j;
              if (take) want[i] += in.ElementAsDouble(Ravel(c, s));
            }
          }
          Tensor w = Tensor::Zeros(dt, s);
          for (int64_t i = 0; i < w.num_elements(); ++i) {
            if (dt == DataType::kFloat32) w.data<float>()[i] = static_cast<float>(want[i]);
            if (dt == DataType::kFloat64) w.data<double>()[i] = want[i];
            if (dt == DataType::kInt32) w.data<int32_t>()[i] = static_cast<int32_t>(want[i]);
            if (dt == DataType::kInt64) w.data<int64_t>()[i] = static_cast<int64_t>(want[i]);
          }
          auto out = RunCumSum(in, Tensor::FromVector<int64_t>({}, {axis}), ex, rev);
          ASSERT_TRUE(out.ok()) << out.status();
          EXPECT_TRUE(AllClose((*out)[0], w, 1e-5, 1e-5))
              << DataTypeName(dt) << " axis " << axis << " ex " << ex << " rev " << rev;
        }
      }
    }
  }
  auto z = RunCumSum(Tensor::Zeros(DataType::kFloat32, {0, 3}), Tensor::FromVector<int64_t>({}, {0}), false, false);
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].dims(), (Shape{0, 3}));
  auto bad = RunCumSum(x, Tensor::FromVector<int64_t>({}, {1}), false, false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("CumSum"), std::string::npos) << bad.status();
  EXPECT_FALSE(RunCumSum(x, Tensor::FromVector<float>({}, {0}), false, false).ok());
}

}  // namespace
}  // namespace loom
