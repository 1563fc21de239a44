// ArgMax/ArgMin and the reductions beyond ReduceSum/Mean/Max/Min (ReduceProd,
// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare)
// against naive references.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// ------------------------------------------------------------------ ArgMax/Min

absl::StatusOr<std::vector<Tensor>> RunArg(const std::string& op, const Tensor& x, int64_t axis, bool keepdims,
                                           bool last) {
  std::string text = "type: \"" + op + "\" name: \"a\" input: \"x\" output: \"y\"" +
                     " arg { name: \"axis\" i: " + std::to_string(axis) + " }" +
                     " arg { name: \"keepdims\" i: " + std::to_string(keepdims ? 1 : 0) + " }" +
                     " arg { name: \"select_last_index\" i: " + std::to_string(last ? 1 : 0) + " }";
  return RunSingleOp(ParseOp(text), {x});
}

// Plain loops: for every output position, scan the axis.
Tensor ArgRef(bool is_max, const Tensor& x, int64_t axis, bool keepdims, bool last) {
  const Shape& s = x.dims();
  const int64_t rank = static_cast<int64_t>(s.size());
  if (axis < 0) axis += rank;
  Shape kept = s;
  kept[axis] = 1;
  Shape out_shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) out_shape.push_back(s[d]);
    else if (keepdims) out_shape.push_back(1);
  }
  std::vector<int64_t> out(NumElements(kept));
  for (int64_t o = 0; o < NumElements(kept); ++o) {
    std::vector<int64_t> c = Unravel(o, kept);
    int64_t best = 0;
    double bv = 0;
    for (int64_t i = 0; i < s[axis]; ++i) {
      c[axis] = i;
      const double v = x.ElementAsDouble(Ravel(c, s));
      if (i == 0 || (is_max ? v > bv : v < bv) || (last && v == bv)) { best = i; bv = v; }
    }
    out[o] = best;
  }
  return Tensor::FromVector<int64_t>(out_shape, out);
}

TEST(ArgTest, KnownValues) {
  Tensor x = Tensor::FromVector<float>({2, 3}, {1, 5, 5, 7, 0, 7});
  auto mx = RunArg("ArgMax", x, 1, false, false);
  ASSERT_TRUE(mx.ok()) << mx.status();
  EXPECT_TRUE(AllClose((*mx)[0], Tensor::FromVector<int64_t>({2}, {1, 0})));
  auto mxl = RunArg("ArgMax", x, -1, true, true);
  ASSERT_TRUE(mxl.ok()) << mxl.status();
  EXPECT_TRUE(AllClose((*mxl)[0], Tensor::FromVector<int64_t>({2, 1}, {2, 2})));
  auto mn = RunArg("ArgMin", x, 0, true, false);
  ASSERT_TRUE(mn.ok()) << mn.status();
  EXPECT_TRUE(AllClose((*mn)[0], Tensor::FromVector<int64_t>({1, 3}, {0, 1, 0})));
  // A NaN is the extreme for both (numpy).
  Tensor n = Tensor::FromVector<float>({3}, {1, NAN, 3});
  auto nm = RunArg("ArgMax", n, 0, false, false);
  ASSERT_TRUE(nm.ok()) << nm.status();
  EXPECT_EQ((*nm)[0].data<int64_t>()[0], 1);
}

TEST(ArgTest, MatchesReference) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kInt32,
                        DataType::kInt64, DataType::kInt8, DataType::kUInt8}) {
      // Few distinct integer values: plenty of ties for select_last_index.
      Tensor x = RandomTensor(dt, {3, 4, 5}, 7, 0, 4);
      for (int64_t axis : {0, 1, 2, -1, -3}) {
        for (bool keepdims : {false, true}) {
          for (bool last : {false, true}) {
            auto out = RunArg(op, x, axis, keepdims, last);
            ASSERT_TRUE(out.ok()) << op << ": " << out.status();
            EXPECT_TRUE(AllClose((*out)[0], ArgRef(std::string(op) == "ArgMax", x, axis, keepdims, last)))
                << op << " " << DataTypeName(dt) << " axis " << axis << " keepdims " << keepdims << " last " << last;
          }
        }
      }
    }
  }
  // Large enough for the threaded path.
  Tensor big = RandomTensor(DataType::kFloat32, {300, 257}, 3);
  auto out = RunArg("ArgMin", big, 0, false, false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], ArgRef(false, big, 0, false, false)));
}

TEST(ArgTest, ZeroSizeAndErrors) {
  // A zero-size dim other than the axis: an empty output.
  auto z = RunArg("ArgMax", Tensor::Zeros(DataType::kFloat32, {0, 3}), 1, true, false);
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].dims(), (Shape{0, 1}));
  // An empty axis has no index.
  auto e = RunArg("ArgMax", Tensor::Zeros(DataType::kFloat32, {2, 0}), 1, true, false);
  EXPECT_FALSE(e.ok());
  auto bad = RunArg("ArgMin", RandomTensor(DataType::kFloat32, {2, 3}, 1), 2, true, false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("ArgMin"), std::string::npos) << bad.status();
  auto scalar = RunArg("ArgMax", Tensor::FromVector<float>({}, {1}), 0, true, false);
  EXPECT_FALSE(scalar.ok());
}

// ------------------------------------------------------------ extra reductions

const char* const kOps[] = {"ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
                            "ReduceSumSquare"};

absl::StatusOr<std::vector<Tensor>> RunReduce(const std::string& op, const Tensor& x, const std::vector<int64_t>& axes,
                                              bool keepdims, bool as_input, bool noop = false) {
  std::string text = "type: \"" + op + "\" name: \"r\" input: \"x\"";
  std::vector<Tensor> inputs = {x};
  if (as_input) {
    text += " input: \"axes\"";
    inputs.push_back(Tensor::FromVector<int64_t>({static_cast<int64_t>(axes.size())}, axes));
  }
  text += " output: \"y\" arg { name: \"keepdims\" i: " + std::to_string(keepdims ? 1 : 0) + " }";
  if (noop) text += " arg { name: \"noop_with_empty_axes\" i: 1 }";
  if (!as_input && !axes.empty()) text += " arg { name: \"axes\"" + IntsText(axes) + " }";
  return RunSingleOp(ParseOp(text), inputs);
}

// The reduction in doubles with plain loops (the textbook formula: no max
// shift for LogSumExp, so keep the test values small), cast back to x's dtype.
Tensor ReduceRef(const std::string& op, const Tensor& x, std::vector<int64_t> axes, bool keepdims) {
  const Reduction r = ReductionOf(x.dims(), axes, keepdims);
  const Shape& out_shape = r.out;
  std::vector<double> acc(NumElements(r.kept), op == "ReduceProd" ? 1.0 : 0.0);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const int64_t o = r.OutIndex(i, x.dims());
    const double v = x.ElementAsDouble(i);
    if (op == "ReduceProd") acc[o] *= v;
    else if (op == "ReduceL1") acc[o] += std::fabs(v);
    else if (op == "ReduceL2" || op == "ReduceSumSquare") acc[o] += v * v;
    else if (op == "ReduceLogSum") acc[o] += v;
    else acc[o] += std::exp(v);
  }
  for (double& a : acc) {
    if (op == "ReduceL2") a = std::sqrt(a);
    if (op == "ReduceLogSum" || op == "ReduceLogSumExp") a = std::log(a);
  }
  if (x.dtype() == DataType::kFloat64) return Tensor::FromVector<double>(out_shape, acc);
  if (x.dtype() == DataType::kInt64) {
    std::vector<int64_t> v;
    for (double a : acc) v.push_back(static_cast<int64_t>(a));
    return Tensor::FromVector<int64_t>(out_shape, v);
  }
  std::vector<float> v(acc.begin(), acc.end());
  return Tensor::FromVector<float>(out_shape, v);
}

TEST(ReduceExtTest, KnownValues) {
  Tensor x = Tensor::FromVector<float>({2, 2}, {1, -2, 3, 4});
  struct Case { const char* op; std::vector<float> want; };
  const Case cases[] = {{"ReduceProd", {3, -8}},
                        {"ReduceL1", {4, 6}},
                        {"ReduceL2", {std::sqrt(10.0f), std::sqrt(20.0f)}},
                        {"ReduceSumSquare", {10, 20}},
                        {"ReduceLogSum", {std::log(4.0f), std::log(2.0f)}},
                        {"ReduceLogSumExp", {std::log(std::exp(1.0f) + std::exp(3.0f)),
                                             std::log(std::exp(-2.0f) + std::exp(4.0f))}}};
  for (const Case& c : cases) {
    auto out = RunReduce(c.op, x, {0}, false, true);
    ASSERT_TRUE(out.ok()) << c.op << ": " << out.status();
    EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({2}, c.want))) << c.op;
  }
  // LogSumExp shifts by the max: no overflow on large values.
  auto big = RunReduce("ReduceLogSumExp", Tensor::FromVector<float>({2}, {1000, 1000}), {}, false, false);
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_TRUE(AllClose((*big)[0], Tensor::FromVector<float>({}, {1000 + std::log(2.0f)})));
  // Integer product wraps in 64 bits.
  auto ip = RunReduce("ReduceProd", Tensor::FromVector<int64_t>({3}, {-3, 4, 5}), {}, true, true);
  ASSERT_TRUE(ip.ok()) << ip.status();
  EXPECT_EQ((*ip)[0].data<int64_t>()[0], -60);
}

TEST(ReduceExtTest, IntegerLogResultsClampToTheDtype) {
  // The double result truncated and clamped: uint64 max (2^64 in double)
  // stays uint64 max, log(0) = -inf gives int32's min, 100 + log(2) gives 100.
  const uint64_t umax = std::numeric_limits<uint64_t>::max();
  Tensor x = Tensor::Zeros(DataType::kUInt64, {1});
  x.data<uint64_t>()[0] = umax;
  auto u = RunReduce("ReduceLogSumExp", x, {}, false, false);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ((*u)[0].data<uint64_t>()[0], umax);
  auto z = RunReduce("ReduceLogSum", Tensor::FromVector<int32_t>({2}, {0, 0}), {}, false, false);
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].data<int32_t>()[0], std::numeric_limits<int32_t>::min());
  auto h = RunReduce("ReduceLogSumExp", Tensor::FromVector<int64_t>({2}, {100, 100}), {}, false, false);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ((*h)[0].data<int64_t>()[0], 100);
}

TEST(ReduceExtTest, MatchesReference) {
  const std::vector<std::vector<int64_t>> axes_sets = {{}, {0}, {1}, {-1}, {0, 2}, {-3, 1}, {2, 0, 1}};
  for (const char* op : kOps) {
    for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kInt64}) {
      const std::string o = op;
      // Positive values for the logs; small ones so products stay exact.
      // Integer products of values in [-2, 2] stay below 2^63 and exact in double.
      const double hi = dt == DataType::kInt64 ? (o == "ReduceProd" ? 2 : 3) : 1.5;
      const double lo = (o == "ReduceLogSum") ? 0.5 : -hi;
      Tensor x = RandomTensor(dt, {3, 4, 5}, 13, lo, hi);
      for (const auto& axes : axes_sets) {
        for (bool keepdims : {false, true}) {
          for (bool as_input : {false, true}) {
            auto out = RunReduce(op, x, axes, keepdims, as_input);
            ASSERT_TRUE(out.ok()) << op << ": " << out.status();
            EXPECT_TRUE(AllClose((*out)[0], ReduceRef(op, x, axes, keepdims), 1e-5, 1e-5))
                << op << " " << DataTypeName(dt) << " axes" << IntsText(axes) << " keepdims " << keepdims;
          }
        }
      }
    }
  }
}

TEST(ReduceExtTest, NoopRankZeroZeroSizeAndErrors) {
  Tensor x = RandomTensor(DataType::kFloat32, {2, 3}, 3, 0.5, 2);
  for (const char* op : kOps) {
    auto noop = RunReduce(op, x, {}, true, true, /*noop=*/true);
    ASSERT_TRUE(noop.ok()) << op << ": " << noop.status();
    EXPECT_TRUE(AllClose((*noop)[0], x)) << op;
    Tensor s = Tensor::FromVector<float>({}, {1.5f});
    auto r0 = RunReduce(op, s, {}, false, false);
    ASSERT_TRUE(r0.ok()) << op << ": " << r0.status();
    EXPECT_TRUE(AllClose((*r0)[0], ReduceRef(op, s, {}, false))) << op;
    // Empty reductions give the identity: 1, 0, or log(0) = -inf.
    auto z = RunReduce(op, Tensor::Zeros(DataType::kFloat32, {0, 3}), {0}, false, true);
    ASSERT_TRUE(z.ok()) << op << ": " << z.status();
    EXPECT_TRUE(AllClose((*z)[0], ReduceRef(op, Tensor::Zeros(DataType::kFloat32, {0, 3}), {0}, false))) << op;
    auto bad = RunReduce(op, x, {2}, true, true);
    ASSERT_FALSE(bad.ok()) << op;
    EXPECT_NE(std::string(bad.status().message()).find(op), std::string::npos) << bad.status();
    EXPECT_FALSE(RunReduce(op, x, {1, -1}, true, true).ok()) << op;
  }
}

}  // namespace
}  // namespace loom
