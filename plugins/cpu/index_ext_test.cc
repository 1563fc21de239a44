// ArgMax/ArgMin, the extra reductions (ReduceProd, L1, L2, LogSum,
// LogSumExp, SumSquare), GatherElements, GatherND, ScatterElements,
// ScatterND, CumSum, NonZero, TopK, Hardmax and LpNormalization against
// naive references.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using testing::AllClose;
using testing::ParseOp;
using testing::RandomTensor;
using testing::RunSingleOp;

std::string IntsText(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t a : v) s += " ints: " + std::to_string(a);
  return s;
}

// Row-major coordinates of flat index i over `shape`.
std::vector<int64_t> Coords(int64_t i, const Shape& shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = i % shape[d];
    i /= shape[d];
  }
  return c;
}

int64_t Flat(const std::vector<int64_t>& c, const Shape& shape) {
  int64_t f = 0;
  for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + c[d];
  return f;
}

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
    std::vector<int64_t> c = Coords(o, kept);
    int64_t best = 0;
    double bv = 0;
    for (int64_t i = 0; i < s[axis]; ++i) {
      c[axis] = i;
      const double v = x.ElementAsDouble(Flat(c, s));
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
  const Shape& s = x.dims();
  const int64_t rank = static_cast<int64_t>(s.size());
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  std::vector<bool> red(rank, false);
  for (int64_t a : axes) red[a < 0 ? a + rank : a] = true;
  Shape out_shape, kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (!red[d]) { out_shape.push_back(s[d]); kept.push_back(s[d]); }
    else if (keepdims) out_shape.push_back(1);
  }
  std::vector<double> acc(NumElements(kept), op == "ReduceProd" ? 1.0 : 0.0);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    std::vector<int64_t> c = Coords(i, s), kc;
    for (int64_t d = 0; d < rank; ++d) {
      if (!red[d]) kc.push_back(c[d]);
    }
    const int64_t o = Flat(kc, kept);
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

// ---------------------------------------------------------------- GatherElements

absl::StatusOr<std::vector<Tensor>> RunGE(const Tensor& data, const Tensor& idx, int64_t axis) {
  return RunSingleOp(ParseOp("type: \"GatherElements\" name: \"g\" input: \"d\" input: \"i\" output: \"y\""
                             " arg { name: \"axis\" i: " + std::to_string(axis) + " }"),
                     {data, idx});
}

TEST(GatherElementsTest, KnownValues) {
  // The ONNX documentation's example.
  Tensor d = Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4});
  auto out = RunGE(d, Tensor::FromVector<int64_t>({2, 2}, {0, 0, 1, 0}), 1);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({2, 2}, {1, 1, 4, 3})));
  // Negative indices count from the end; int32 indices.
  auto neg = RunGE(d, Tensor::FromVector<int32_t>({1, 2}, {-1, -2}), 0);
  ASSERT_TRUE(neg.ok()) << neg.status();
  EXPECT_TRUE(AllClose((*neg)[0], Tensor::FromVector<float>({1, 2}, {3, 2})));
}

TEST(GatherElementsTest, MatchesReference) {
  const Shape ds = {4, 5, 6};
  for (DataType dt : {DataType::kFloat32, DataType::kInt64, DataType::kInt8, DataType::kFloat16}) {
    Tensor d = RandomTensor(dt, ds, 5, -50, 50);
    for (int64_t axis : {0, 1, 2, -1, -2}) {
      const int64_t ax = axis < 0 ? axis + 3 : axis;
      Shape is = {3, 4, 5};
      is[ax] = 7;  // the axis may be longer than data's
      Tensor idx = RandomTensor(DataType::kInt64, is, 9, -ds[ax], ds[ax] - 1);
      Tensor want = Tensor::Zeros(dt, is);
      const size_t es = DataTypeSize(dt);
      for (int64_t i = 0; i < idx.num_elements(); ++i) {
        std::vector<int64_t> c = Coords(i, is);
        int64_t k = idx.data<int64_t>()[i];
        c[ax] = k < 0 ? k + ds[ax] : k;
        std::memcpy(static_cast<char*>(want.raw_data()) + i * es,
                    static_cast<const char*>(d.raw_data()) + Flat(c, ds) * es, es);
      }
      auto out = RunGE(d, idx, axis);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(AllClose((*out)[0], want)) << DataTypeName(dt) << " axis " << axis;
    }
  }
}

TEST(GatherElementsTest, ZeroSizeAndErrors) {
  Tensor d = RandomTensor(DataType::kFloat32, {2, 3}, 1);
  auto empty = RunGE(d, Tensor::Zeros(DataType::kInt64, {0, 3}), 0);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].dims(), (Shape{0, 3}));
  auto oob = RunGE(d, Tensor::FromVector<int64_t>({1, 1}, {3}), 1);
  ASSERT_FALSE(oob.ok());
  const std::string m(oob.status().message());
  EXPECT_NE(m.find("GatherElements"), std::string::npos) << m;
  EXPECT_NE(m.find("indices"), std::string::npos) << m;
  EXPECT_FALSE(RunGE(d, Tensor::FromVector<int64_t>({1, 1}, {-4}), 1).ok());
  EXPECT_FALSE(RunGE(d, Tensor::FromVector<int64_t>({1}, {0}), 0).ok());           // rank mismatch
  EXPECT_FALSE(RunGE(d, Tensor::FromVector<int64_t>({1, 4}, {0, 0, 0, 0}), 0).ok());  // dim 1 > data's
  EXPECT_FALSE(RunGE(d, Tensor::FromVector<int64_t>({1, 1}, {0}), 2).ok());        // axis out of range
}


// ------------------------------------------------------------------ GatherND

absl::StatusOr<std::vector<Tensor>> RunGND(const Tensor& data, const Tensor& idx, int64_t batch_dims) {
  return RunSingleOp(ParseOp("type: \"GatherND\" name: \"g\" input: \"d\" input: \"i\" output: \"y\""
                             " arg { name: \"batch_dims\" i: " + std::to_string(batch_dims) + " }"),
                     {data, idx});
}

TEST(GatherNDTest, KnownValues) {
  // ONNX documentation examples 2 and 5.
  Tensor d = Tensor::FromVector<int32_t>({2, 2}, {0, 1, 2, 3});
  auto out = RunGND(d, Tensor::FromVector<int64_t>({2, 1}, {1, 0}), 0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<int32_t>({2, 2}, {2, 3, 0, 1})));
  Tensor d3 = Tensor::FromVector<int32_t>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto b = RunGND(d3, Tensor::FromVector<int64_t>({2, 1}, {1, 0}), 1);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(AllClose((*b)[0], Tensor::FromVector<int32_t>({2, 2}, {2, 3, 4, 5})));
}

TEST(GatherNDTest, MatchesReference) {
  const Shape ds = {2, 3, 4, 5};
  Tensor d = RandomTensor(DataType::kFloat32, ds, 3);
  for (int64_t b : {0, 1, 2}) {
    for (int64_t k = 1; k + b <= 4; ++k) {
      Shape is;
      for (int64_t j = 0; j < b; ++j) is.push_back(ds[j]);
      is.push_back(3);
      is.push_back(k);
      // Random in-range (possibly negative) index tuples.
      Tensor idx = Tensor::Zeros(DataType::kInt64, is);
      Tensor r = RandomTensor(DataType::kFloat64, is, 17 + k, 0, 1);
      for (int64_t i = 0; i < idx.num_elements(); ++i) {
        const int64_t s = ds[b + i % k];
        idx.data<int64_t>()[i] = static_cast<int64_t>(r.data<double>()[i] * (2 * s - 0.01)) - s;
      }
      Shape out_shape(is.begin(), is.end() - 1);
      for (size_t j = b + k; j < ds.size(); ++j) out_shape.push_back(ds[j]);
      std::vector<float> want;
      const int64_t tuples = idx.num_elements() / k;
      int64_t slice = 1;
      for (size_t j = b + k; j < ds.size(); ++j) slice *= ds[j];
      const int64_t per_batch = tuples / NumElements(Shape(ds.begin(), ds.begin() + b));
      for (int64_t t = 0; t < tuples; ++t) {
        std::vector<int64_t> c = Coords(t / per_batch, Shape(ds.begin(), ds.begin() + b));
        for (int64_t j = 0; j < k; ++j) {
          int64_t v = idx.data<int64_t>()[t * k + j];
          c.push_back(v < 0 ? v + ds[b + j] : v);
        }
        while (c.size() < ds.size()) c.push_back(0);
        const int64_t start = Flat(c, ds);
        for (int64_t e = 0; e < slice; ++e) want.push_back(d.data<float>()[start + e]);
      }
      auto out = RunGND(d, idx, b);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>(out_shape, want))) << "b " << b << " k " << k;
    }
  }
}

TEST(GatherNDTest, Errors) {
  Tensor d = RandomTensor(DataType::kFloat32, {2, 3}, 1);
  auto oob = RunGND(d, Tensor::FromVector<int64_t>({1, 2}, {0, 3}), 0);
  ASSERT_FALSE(oob.ok());
  const std::string m(oob.status().message());
  EXPECT_NE(m.find("GatherND"), std::string::npos) << m;
  EXPECT_NE(m.find("indices"), std::string::npos) << m;
  EXPECT_FALSE(RunGND(d, Tensor::FromVector<int64_t>({1, 3}, {0, 0, 0}), 0).ok());  // k > rank
  EXPECT_FALSE(RunGND(d, Tensor::FromVector<int64_t>({3, 1}, {0, 0, 0}), 1).ok());  // batch dims differ
  EXPECT_FALSE(RunGND(d, Tensor::FromVector<int64_t>({2, 1}, {0, 0}), 2).ok());     // batch_dims too large
}

// ---------------------------------------------------------- ScatterElements

absl::StatusOr<std::vector<Tensor>> RunSE(const Tensor& data, const Tensor& idx, const Tensor& up, int64_t axis,
                                          const std::string& red) {
  return RunSingleOp(ParseOp("type: \"ScatterElements\" name: \"s\" input: \"d\" input: \"i\" input: \"u\""
                             " output: \"y\" arg { name: \"axis\" i: " + std::to_string(axis) +
                             " } arg { name: \"reduction\" s: \"" + red + "\" }"),
                     {data, idx, up});
}

TEST(ScatterElementsTest, KnownValues) {
  // ONNX documentation example 2, and the add reduction with a duplicate index.
  Tensor d = Tensor::FromVector<float>({1, 5}, {1, 2, 3, 4, 5});
  auto out = RunSE(d, Tensor::FromVector<int64_t>({1, 2}, {1, 3}), Tensor::FromVector<float>({1, 2}, {1.1f, 2.1f}),
                   1, "none");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 5}, {1, 1.1f, 3, 2.1f, 5})));
  auto add = RunSE(d, Tensor::FromVector<int32_t>({1, 2}, {-4, 1}), Tensor::FromVector<float>({1, 2}, {1, 2}), -1,
                   "add");
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_TRUE(AllClose((*add)[0], Tensor::FromVector<float>({1, 5}, {1, 5, 3, 4, 5})));
}

TEST(ScatterElementsTest, MatchesReference) {
  const Shape ds = {4, 5, 6};
  for (const std::string red : {"none", "add", "mul", "max", "min"}) {
    for (int64_t axis : {0, 1, -1}) {
      const int64_t ax = axis < 0 ? axis + 3 : axis;
      Tensor d = RandomTensor(DataType::kFloat64, ds, 2);
      Shape is = {3, 4, 5};
      Tensor idx = RandomTensor(DataType::kInt64, is, 4 + ax, -ds[ax], ds[ax] - 1);
      Tensor up = RandomTensor(DataType::kFloat64, is, 6);
      Tensor want = RandomTensor(DataType::kFloat64, ds, 2);  // a copy of d
      for (int64_t i = 0; i < idx.num_elements(); ++i) {
        std::vector<int64_t> c = Coords(i, is);
        const int64_t k = idx.data<int64_t>()[i];
        c[ax] = k < 0 ? k + ds[ax] : k;
        double& w = want.data<double>()[Flat(c, ds)];
        const double u = up.data<double>()[i];
        if (red == "none") w = u;
        else if (red == "add") w += u;
        else if (red == "mul") w *= u;
        else if (red == "max") w = std::max(w, u);
        else w = std::min(w, u);
      }
      auto out = RunSE(d, idx, up, axis, red);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(AllClose((*out)[0], want, 1e-12, 1e-12)) << red << " axis " << axis;
    }
  }
}

TEST(ScatterElementsTest, Errors) {
  Tensor d = RandomTensor(DataType::kFloat32, {2, 3}, 1);
  Tensor u = Tensor::FromVector<float>({1, 1}, {5});
  auto oob = RunSE(d, Tensor::FromVector<int64_t>({1, 1}, {2}), u, 0, "none");
  ASSERT_FALSE(oob.ok());
  const std::string m(oob.status().message());
  EXPECT_NE(m.find("ScatterElements"), std::string::npos) << m;
  EXPECT_NE(m.find("indices"), std::string::npos) << m;
  EXPECT_FALSE(RunSE(d, Tensor::FromVector<int64_t>({1, 2}, {0, 0}), u, 0, "none").ok());  // updates shape
  EXPECT_FALSE(RunSE(d, Tensor::FromVector<int64_t>({1, 1}, {0}), u, 0, "sub").ok());      // bad reduction
  EXPECT_FALSE(RunSE(d, Tensor::FromVector<int64_t>({1, 1}, {0}), u, 2, "none").ok());     // bad axis
}

// ---------------------------------------------------------------- ScatterND

absl::StatusOr<std::vector<Tensor>> RunSND(const Tensor& data, const Tensor& idx, const Tensor& up,
                                           const std::string& red) {
  return RunSingleOp(ParseOp("type: \"ScatterND\" name: \"s\" input: \"d\" input: \"i\" input: \"u\""
                             " output: \"y\" arg { name: \"reduction\" s: \"" + red + "\" }"),
                     {data, idx, up});
}

TEST(ScatterNDTest, KnownValuesAndReference) {
  // ONNX documentation example 1.
  Tensor d = Tensor::FromVector<float>({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto out = RunSND(d, Tensor::FromVector<int64_t>({4, 1}, {4, 3, 1, 7}),
                    Tensor::FromVector<float>({4}, {9, 10, 11, 12}), "none");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({8}, {1, 11, 3, 10, 9, 6, 7, 12})));
  // Slices of a [3, 4, 5] tensor addressed by (i, j) pairs, with duplicates, for every reduction.
  const Shape ds = {3, 4, 5};
  Tensor x = RandomTensor(DataType::kFloat64, ds, 8);
  Tensor idx = Tensor::FromVector<int64_t>({3, 2}, {0, 1, -1, 3, 0, 1});
  Tensor up = RandomTensor(DataType::kFloat64, {3, 5}, 9);
  for (const std::string red : {"none", "add", "mul", "max", "min"}) {
    Tensor want = RandomTensor(DataType::kFloat64, ds, 8);
    const int64_t starts[] = {(0 * 4 + 1) * 5, (2 * 4 + 3) * 5, (0 * 4 + 1) * 5};
    for (int64_t t = 0; t < 3; ++t) {
      for (int64_t e = 0; e < 5; ++e) {
        double& w = want.data<double>()[starts[t] + e];
        const double u = up.data<double>()[t * 5 + e];
        if (red == "none") w = u;
        else if (red == "add") w += u;
        else if (red == "mul") w *= u;
        else if (red == "max") w = std::max(w, u);
        else w = std::min(w, u);
      }
    }
    auto r = RunSND(x, idx, up, red);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(AllClose((*r)[0], want, 1e-12, 1e-12)) << red;
  }
  auto oob = RunSND(x, Tensor::FromVector<int64_t>({1, 2}, {0, 4}), RandomTensor(DataType::kFloat64, {1, 5}, 1),
                    "none");
  ASSERT_FALSE(oob.ok());
  EXPECT_NE(std::string(oob.status().message()).find("ScatterND"), std::string::npos) << oob.status();
  EXPECT_FALSE(RunSND(x, idx, RandomTensor(DataType::kFloat64, {3, 4}, 1), "none").ok());  // updates shape
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
            std::vector<int64_t> c = Coords(i, s);
            const int64_t p = c[ax];
            for (int64_t j = 0; j < s[ax]; ++j) {
              const bool take = rev ? (ex ? j > p : j >= p) : (ex ? j < p : j <= p);
              c[ax] = j;
              if (take) want[i] += in.ElementAsDouble(Flat(c, s));
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


// ------------------------------------------------------------------ NonZero

TEST(NonZeroTest, KnownValuesAndReference) {
  auto run = [](const Tensor& x) {
    return RunSingleOp(ParseOp("type: \"NonZero\" name: \"n\" input: \"x\" output: \"y\""), {x});
  };
  // ONNX documentation example.
  auto out = run(Tensor::FromVector<int32_t>({2, 2}, {1, 0, 1, 1}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<int64_t>({2, 3}, {0, 1, 1, 0, 0, 1})));
  for (DataType dt : {DataType::kFloat32, DataType::kInt64, DataType::kUInt8, DataType::kFloat16}) {
    const Shape s = {3, 4, 5};
    Tensor x = RandomTensor(dt, s, 21, -1, 1);  // rounds to many zeros for integers
    std::vector<std::vector<int64_t>> rows(3);
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      if (x.ElementAsDouble(i) == 0) continue;
      std::vector<int64_t> c = Coords(i, s);
      for (int d = 0; d < 3; ++d) rows[d].push_back(c[d]);
    }
    std::vector<int64_t> flat;
    for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
    auto r = run(x);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(AllClose((*r)[0], Tensor::FromVector<int64_t>({3, static_cast<int64_t>(rows[0].size())}, flat)))
        << DataTypeName(dt);
  }
  auto z = run(Tensor::Zeros(DataType::kFloat32, {0, 2}));
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].dims(), (Shape{2, 0}));
  auto sc = run(Tensor::FromVector<float>({}, {3}));
  ASSERT_TRUE(sc.ok()) << sc.status();
  EXPECT_TRUE(AllClose((*sc)[0], Tensor::FromVector<int64_t>({1, 1}, {0})));
}

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
            std::vector<int64_t> c = Coords(o, line);
            for (int64_t j = 0; j < k; ++j) {
              int64_t best = -1;
              double bv = 0;
              for (int64_t i = 0; i < s[ax]; ++i) {
                c[ax] = i;
                const double v = in.ElementAsDouble(Flat(c, s));
                if (!used[i] && (best < 0 || (largest ? v > bv : v < bv))) { best = i; bv = v; }
              }
              used[best] = true;
              c[ax] = j;
              wv[Flat(c, os)] = bv;
              wi[Flat(c, os)] = best;
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

// ---------------------------------------------------- Hardmax, LpNormalization

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
      std::vector<int64_t> c = Coords(o, line);
      int64_t best = 0;
      for (int64_t i = 1; i < s[ax]; ++i) {
        std::vector<int64_t> a = c, b = c;
        a[ax] = i;
        b[ax] = best;
        if (x.data<double>()[Flat(a, s)] > x.data<double>()[Flat(b, s)]) best = i;
      }
      c[ax] = best;
      want.data<double>()[Flat(c, s)] = 1;
    }
    auto r = run(x, axis);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(AllClose((*r)[0], want)) << "axis " << axis;
  }
  EXPECT_FALSE(run(x, 3).ok());
}

TEST(LpNormalizationTest, KnownValuesAndReference) {
  auto run = [](const Tensor& x, int64_t axis, int64_t p) {
    return RunSingleOp(ParseOp("type: \"LpNormalization\" name: \"l\" input: \"x\" output: \"y\""
                               " arg { name: \"axis\" i: " + std::to_string(axis) + " } arg { name: \"p\" i: " +
                               std::to_string(p) + " }"),
                       {x});
  };
  auto out = run(Tensor::FromVector<float>({2, 2}, {3, 4, 1, -3}), -1, 2);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({2, 2}, {0.6f, 0.8f, 1 / std::sqrt(10.0f),
                                                                     -3 / std::sqrt(10.0f)})));
  const Shape s = {3, 4, 5};
  Tensor x = RandomTensor(DataType::kFloat64, s, 51);
  for (int64_t p : {1, 2}) {
    for (int64_t axis : {0, 1, -1}) {
      const int64_t ax = axis < 0 ? axis + 3 : axis;
      Tensor want = Tensor::Zeros(DataType::kFloat64, s);
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        std::vector<int64_t> c = Coords(i, s);
        double norm = 0;
        for (int64_t j = 0; j < s[ax]; ++j) {
          c[ax] = j;
          const double v = x.data<double>()[Flat(c, s)];
          norm += p == 1 ? std::fabs(v) : v * v;
        }
        want.data<double>()[i] = x.data<double>()[i] / (p == 1 ? norm : std::sqrt(norm));
      }
      auto r = run(x, axis, p);
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_TRUE(AllClose((*r)[0], want, 1e-12, 1e-12)) << "p " << p << " axis " << axis;
    }
  }
  EXPECT_FALSE(run(x, -4, 2).ok());
  EXPECT_FALSE(run(x, 0, 3).ok());
}

}  // namespace
}  // namespace loom
