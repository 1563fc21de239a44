// LayerNormalization, InstanceNormalization, LRN, MeanVarianceNormalization
// and LpNormalization against naive references (plain loops in double over
// row-major coordinates), plus hand-computed values and error cases.
#include <cmath>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// ------------------------------------------------------- LayerNormalization

absl::StatusOr<std::vector<Tensor>> RunLayerNorm(const Tensor& x, const Tensor& scale, const Tensor* b, int64_t axis,
                                                 double eps, bool stats) {
  std::string text = "type: \"LayerNormalization\" name: \"ln\" input: \"x\" input: \"s\"";
  text += b ? " input: \"b\"" : "";
  text += " output: \"y\"";
  text += stats ? " output: \"mean\" output: \"inv\"" : "";
  text += IntArg("axis", axis) + FloatArg("epsilon", eps);
  std::vector<Tensor> in = {x, scale};
  if (b) in.push_back(*b);
  return RunSingleOp(ParseOp(text), in);
}

// Y, Mean and InvStdDev by the definition; Scale and B are indexed through
// their right-aligned coordinates (1-sized dims broadcast).
void LayerNormRef(const Tensor& x, const Tensor& scale, const Tensor* b, int64_t axis, double eps, Tensor* y,
                  Tensor* mean, Tensor* inv) {
  const Shape& s = x.dims();
  const int64_t rank = static_cast<int64_t>(s.size());
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= s[d];
  const std::vector<double> xv = Values(x);
  auto param = [&](const Tensor& p, int64_t flat) {
    std::vector<int64_t> c = Unravel(flat, s), pc;
    for (size_t d = 0; d < p.rank(); ++d) {
      const int64_t xd = rank - static_cast<int64_t>(p.rank()) + static_cast<int64_t>(d);
      pc.push_back(p.dim(d) == 1 ? 0 : c[xd]);
    }
    return p.ElementAsDouble(Ravel(pc, p.dims()));
  };
  std::vector<double> yv(xv.size()), mv(outer), iv(outer);
  for (int64_t r = 0; r < outer; ++r) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < inner; ++i) m += xv[r * inner + i];
    m /= inner;
    for (int64_t i = 0; i < inner; ++i) v += (xv[r * inner + i] - m) * (xv[r * inner + i] - m);
    v /= inner;
    // The default stash_type is float32: the statistics are float values,
    // and epsilon is a float attribute.
    mv[r] = static_cast<float>(m);
    iv[r] = static_cast<float>(1 / std::sqrt(v + static_cast<float>(eps)));
    m = mv[r];
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t f = r * inner + i;
      yv[f] = (xv[f] - m) * iv[r] * param(scale, f) + (b ? param(*b, f) : 0.0);
    }
  }
  Shape ss = s;
  for (int64_t d = axis; d < rank; ++d) ss[d] = 1;
  *y = Make(x.dtype(), s, yv);
  *mean = Make(DataType::kFloat32, ss, mv);
  *inv = Make(DataType::kFloat32, ss, iv);
}

TEST(LayerNormTest, KnownValues) {
  // Rows {1, 3} (mean 2, std 1) and {2, 6} (mean 4, std 2).
  Tensor x = Tensor::FromVector<float>({2, 2}, {1, 3, 2, 6});
  Tensor s = Tensor::FromVector<float>({2}, {1, 2});
  Tensor b = Tensor::FromVector<float>({2}, {0, 10});
  auto out = RunLayerNorm(x, s, &b, -1, 0.0, true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({2, 2}, {-1, 12, -1, 12})));
  EXPECT_TRUE(AllClose((*out)[1], Tensor::FromVector<float>({2, 1}, {2, 4})));
  EXPECT_TRUE(AllClose((*out)[2], Tensor::FromVector<float>({2, 1}, {1, 0.5})));
}

TEST(LayerNormTest, MatchesReference) {
  const Shape xs = {3, 4, 5};
  for (DataType dt : kFloatTypes) {
    Tensor x = RandomTensor(dt, xs, 11, -2, 3);
    for (int64_t axis : {0, 1, 2, -1, -2, -3}) {
      const int64_t a = axis < 0 ? axis + 3 : axis;
      const Shape norm(xs.begin() + a, xs.end());
      // Full normalized shape, the last dim only, and all-ones with leading 1s.
      std::vector<Shape> pshapes = {norm, {xs.back()}, Shape(3, 1)};
      for (const Shape& ps : pshapes) {
        Tensor s = RandomTensor(dt, ps, 12, 0.5, 2);
        Tensor b = RandomTensor(dt, ps, 13);
        for (bool with_b : {false, true}) {
          auto out = RunLayerNorm(x, s, with_b ? &b : nullptr, axis, 1e-3, true);
          ASSERT_TRUE(out.ok()) << out.status();
          Tensor y, m, inv;
          LayerNormRef(x, s, with_b ? &b : nullptr, axis, 1e-3, &y, &m, &inv);
          const double tol = Tol(dt);
          EXPECT_TRUE(AllClose((*out)[0], y, tol, tol)) << DataTypeName(dt) << " axis " << axis << " b " << with_b;
          // Statistics are stash_type (float32) whatever X's dtype.
          EXPECT_TRUE(AllClose((*out)[1], m, 1e-5, 1e-5)) << DataTypeName(dt) << " axis " << axis;
          EXPECT_TRUE(AllClose((*out)[2], inv, 1e-5, 1e-5)) << DataTypeName(dt) << " axis " << axis;
        }
      }
    }
  }
  // Large enough for the threaded path.
  Tensor big = RandomTensor(DataType::kFloat32, {128, 1000}, 5);
  Tensor s = RandomTensor(DataType::kFloat32, {1000}, 6);
  auto out = RunLayerNorm(big, s, nullptr, -1, 1e-5, false);
  ASSERT_TRUE(out.ok()) << out.status();
  Tensor y, m, inv;
  LayerNormRef(big, s, nullptr, -1, 1e-5, &y, &m, &inv);
  EXPECT_TRUE(AllClose((*out)[0], y, 1e-4, 1e-4));
}

TEST(LayerNormTest, StashTypeShapesAndZeroSize) {
  Tensor x = RandomTensor(DataType::kFloat64, {2, 3, 4}, 3);
  Tensor s = RandomTensor(DataType::kFloat64, {4}, 4);
  OperatorDef op = ParseOp(
      "type: \"LayerNormalization\" name: \"ln\" input: \"x\" input: \"s\" output: \"y\" output: \"mean\" "
      "output: \"inv\"" +
      IntArg("axis", 1));
  auto out = RunSingleOp(op, {x, s});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DataType::kFloat64);
  EXPECT_EQ((*out)[1].dtype(), DataType::kFloat32);
  EXPECT_EQ((*out)[1].dims(), (Shape{2, 1, 1}));
  ExpectInferredShapes(op, {x, s});
  // stash_type double: the statistics come out as float64.
  OperatorDef op64 = op;
  *op64.add_arg() = ParseOp("arg { name: \"stash_type\" i: 11 }").arg(0);
  auto out64 = RunSingleOp(op64, {x, s});
  ASSERT_TRUE(out64.ok()) << out64.status();
  EXPECT_EQ((*out64)[2].dtype(), DataType::kFloat64);
  // Zero rows: empty outputs.
  auto z = RunLayerNorm(Tensor::Zeros(DataType::kFloat32, {0, 4}), Tensor::Zeros(DataType::kFloat32, {4}), nullptr,
                        -1, 1e-5, true);
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].dims(), (Shape{0, 4}));
  EXPECT_EQ((*z)[1].dims(), (Shape{0, 1}));
}

TEST(LayerNormTest, Errors) {
  Tensor x = RandomTensor(DataType::kFloat32, {2, 4}, 1);
  Tensor s = RandomTensor(DataType::kFloat32, {4}, 2);
  auto bad_axis = RunLayerNorm(x, s, nullptr, 2, 1e-5, false);
  ASSERT_FALSE(bad_axis.ok());
  EXPECT_NE(std::string(bad_axis.status().message()).find("LayerNormalization"), std::string::npos);
  // Scale [3] does not broadcast to the normalized dims [4].
  auto bad_scale = RunLayerNorm(x, RandomTensor(DataType::kFloat32, {3}, 2), nullptr, -1, 1e-5, false);
  ASSERT_FALSE(bad_scale.ok());
  EXPECT_NE(std::string(bad_scale.status().message()).find("Scale"), std::string::npos) << bad_scale.status();
  // Scale varying over an unnormalized dim.
  EXPECT_FALSE(RunLayerNorm(x, RandomTensor(DataType::kFloat32, {2, 4}, 2), nullptr, -1, 1e-5, false).ok());
  Tensor b = RandomTensor(DataType::kFloat32, {5}, 3);
  EXPECT_FALSE(RunLayerNorm(x, s, &b, -1, 1e-5, false).ok());
  EXPECT_FALSE(RunLayerNorm(Tensor::FromVector<float>({}, {1}), Tensor::FromVector<float>({}, {1}), nullptr, -1,
                            1e-5, false)
                   .ok());
}

// ---------------------------------------------------- InstanceNormalization

absl::StatusOr<std::vector<Tensor>> RunInstanceNorm(const Tensor& x, const Tensor& s, const Tensor& b, double eps) {
  return RunSingleOp(ParseOp("type: \"InstanceNormalization\" name: \"in\" input: \"x\" input: \"s\" input: \"b\" "
                             "output: \"y\"" +
                             FloatArg("epsilon", eps)),
                     {x, s, b});
}

Tensor InstanceNormRef(const Tensor& x, const Tensor& s, const Tensor& b, double eps) {
  const Shape& xs = x.dims();
  const int64_t N = xs[0], C = xs[1];
  int64_t S = 1;
  for (size_t d = 2; d < xs.size(); ++d) S *= xs[d];
  const std::vector<double> xv = Values(x);
  std::vector<double> yv(xv.size());
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      const int64_t base = (n * C + c) * S;
      double m = 0, v = 0;
      for (int64_t i = 0; i < S; ++i) m += xv[base + i];
      m /= S;
      for (int64_t i = 0; i < S; ++i) v += (xv[base + i] - m) * (xv[base + i] - m);
      v /= S;
      for (int64_t i = 0; i < S; ++i) {
        yv[base + i] = s.ElementAsDouble(c) * (xv[base + i] - m) / std::sqrt(v + static_cast<float>(eps)) + b.ElementAsDouble(c);
      }
    }
  }
  return Make(x.dtype(), xs, yv);
}

TEST(InstanceNormTest, KnownValues) {
  // {0, 2}: mean 1, std 1 -> {-1, 1}, then * 2 + 1.
  auto out = RunInstanceNorm(Tensor::FromVector<float>({1, 1, 2}, {0, 2}), Tensor::FromVector<float>({1}, {2}),
                             Tensor::FromVector<float>({1}, {1}), 0.0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 1, 2}, {-1, 3})));
}

TEST(InstanceNormTest, MatchesReference) {
  for (DataType dt : kFloatTypes) {
    for (const Shape& xs : {Shape{2, 3, 4, 5}, Shape{2, 3, 7}, Shape{1, 2}, Shape{2, 3, 2, 2, 2}, Shape{0, 3, 4}}) {
      Tensor x = RandomTensor(dt, xs, 21, -3, 3);
      Tensor s = RandomTensor(dt, {xs[1]}, 22);
      Tensor b = RandomTensor(dt, {xs[1]}, 23);
      auto out = RunInstanceNorm(x, s, b, 1e-4);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(AllClose((*out)[0], InstanceNormRef(x, s, b, 1e-4), Tol(dt), Tol(dt)))
          << DataTypeName(dt) << " " << testing::IntsArg("x", xs);
    }
  }
  Tensor x = RandomTensor(DataType::kFloat32, {4, 16, 32, 32}, 24);
  Tensor s = RandomTensor(DataType::kFloat32, {16}, 25), b = RandomTensor(DataType::kFloat32, {16}, 26);
  auto out = RunInstanceNorm(x, s, b, 1e-5);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], InstanceNormRef(x, s, b, 1e-5), 1e-4, 1e-4));
}

TEST(InstanceNormTest, Errors) {
  Tensor x = RandomTensor(DataType::kFloat32, {2, 3, 4}, 1);
  Tensor c3 = RandomTensor(DataType::kFloat32, {3}, 2), c4 = RandomTensor(DataType::kFloat32, {4}, 3);
  auto bad = RunInstanceNorm(x, c4, c3, 1e-5);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("scale"), std::string::npos) << bad.status();
  EXPECT_FALSE(RunInstanceNorm(x, c3, c4, 1e-5).ok());
  EXPECT_FALSE(RunInstanceNorm(RandomTensor(DataType::kFloat32, {3}, 1), c3, c3, 1e-5).ok());
}

// --------------------------------------------------------------------- LRN

absl::StatusOr<std::vector<Tensor>> RunLrn(const Tensor& x, int64_t size, double alpha, double beta, double bias) {
  return RunSingleOp(ParseOp("type: \"LRN\" name: \"lrn\" input: \"x\" output: \"y\"" + IntArg("size", size) +
                             FloatArg("alpha", alpha) + FloatArg("beta", beta) + FloatArg("bias", bias)),
                     {x});
}

Tensor LrnRef(const Tensor& x, int64_t size, double alpha, double beta, double bias) {
  // The attributes are float32.
  alpha = static_cast<float>(alpha);
  beta = static_cast<float>(beta);
  bias = static_cast<float>(bias);
  const Shape& xs = x.dims();
  const int64_t C = xs[1];
  const std::vector<double> xv = Values(x);
  std::vector<double> yv(xv.size());
  for (int64_t f = 0; f < x.num_elements(); ++f) {
    std::vector<int64_t> c = Unravel(f, xs);
    const int64_t ch = c[1];
    double sq = 0;
    for (int64_t i = std::max<int64_t>(0, ch - (size - 1) / 2); i <= std::min<int64_t>(C - 1, ch + size / 2); ++i) {
      c[1] = i;
      sq += xv[Ravel(c, xs)] * xv[Ravel(c, xs)];
    }
    yv[f] = xv[f] / std::pow(bias + alpha / size * sq, beta);
  }
  return Make(x.dtype(), xs, yv);
}

TEST(LrnTest, KnownValues) {
  // size 2: channel 0 sums channels 0..1 (1 + 4), channel 1 only itself (4).
  auto out = RunLrn(Tensor::FromVector<float>({1, 2, 1, 1}, {1, 2}), 2, 2.0, 1.0, 1.0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 2, 1, 1}, {1.0f / 6, 0.4f})));
}

TEST(LrnTest, MatchesReference) {
  for (DataType dt : kFloatTypes) {
    for (const Shape& xs : {Shape{2, 5, 3, 3}, Shape{1, 4}, Shape{2, 6, 5}, Shape{2, 0, 3}}) {
      Tensor x = RandomTensor(dt, xs, 31, -2, 2);
      for (int64_t size : {1, 2, 3, 5, 8}) {
        auto out = RunLrn(x, size, 0.3, 0.75, 1.5);
        ASSERT_TRUE(out.ok()) << out.status();
        EXPECT_TRUE(AllClose((*out)[0], LrnRef(x, size, 0.3, 0.75, 1.5), Tol(dt), Tol(dt)))
            << DataTypeName(dt) << " size " << size;
      }
    }
  }
  Tensor big = RandomTensor(DataType::kFloat32, {2, 32, 24, 24}, 32);
  auto out = RunLrn(big, 5, 1e-4, 0.75, 1.0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], LrnRef(big, 5, 1e-4, 0.75, 1.0)));
}

TEST(LrnTest, HugeSizeAndManyChannels) {
  // size 2^62 covers every channel: square_sum = 1 + 4 + 9 = 14 and, with
  // alpha = size (a float power of two), Y = X / (1 + 14).
  const int64_t k62 = int64_t{1} << 62;
  auto out = RunLrn(Tensor::FromVector<float>({1, 3, 1, 1}, {1, 2, 3}), k62, static_cast<double>(k62), 1.0, 1.0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 3, 1, 1}, {1.0f / 15, 2.0f / 15, 3.0f / 15})));
  // 2^16 channels of ones, size 2^17 + 1 (alpha = size): every window is all
  // channels, Y = 1 / (1 + 65536). Linear in C (the fuzzed case of a 30 s
  // timeout: a window loop per element is C^2).
  const int64_t C = 65536, size = 2 * C + 1;
  auto wide = RunLrn(Tensor::FromVector<float>({1, C}, std::vector<float>(C, 1.0f)), size, static_cast<double>(size),
                     1.0, 1.0);
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_TRUE(AllClose((*wide)[0], Tensor::FromVector<float>({1, C}, std::vector<float>(C, 1.0f / 65537))));
}

TEST(LrnTest, Errors) {
  EXPECT_FALSE(RunLrn(RandomTensor(DataType::kFloat32, {2, 3}, 1), 0, 1e-4, 0.75, 1.0).ok());
  auto rank1 = RunLrn(RandomTensor(DataType::kFloat32, {3}, 1), 3, 1e-4, 0.75, 1.0);
  ASSERT_FALSE(rank1.ok());
  EXPECT_NE(std::string(rank1.status().message()).find("LRN"), std::string::npos) << rank1.status();
  // size is required.
  EXPECT_FALSE(RunSingleOp(ParseOp("type: \"LRN\" name: \"lrn\" input: \"x\" output: \"y\""),
                           {RandomTensor(DataType::kFloat32, {1, 3, 2}, 1)})
                   .ok());
}

// ------------------------------------------------ MeanVarianceNormalization

absl::StatusOr<std::vector<Tensor>> RunMvn(const Tensor& x, const std::vector<int64_t>* axes) {
  return RunSingleOp(ParseOp("type: \"MeanVarianceNormalization\" name: \"mvn\" input: \"x\" output: \"y\"" +
                             (axes ? IntsArg("axes", *axes) : std::string())),
                     {x});
}

Tensor MvnRef(const Tensor& x, std::vector<int64_t> axes) {
  const Shape& xs = x.dims();
  const int64_t rank = static_cast<int64_t>(xs.size());
  std::vector<bool> red(rank, false);
  for (int64_t a : axes) red[a < 0 ? a + rank : a] = true;
  Shape kept;
  for (int64_t d = 0; d < rank; ++d) kept.push_back(red[d] ? 1 : xs[d]);
  auto group = [&](int64_t f) {
    std::vector<int64_t> c = Unravel(f, xs);
    for (int64_t d = 0; d < rank; ++d)
      if (red[d]) c[d] = 0;
    return Ravel(c, kept);
  };
  const std::vector<double> xv = Values(x);
  const int64_t G = NumElements(kept);
  std::vector<double> sum(G, 0), sq(G, 0), cnt(G, 0), yv(xv.size());
  for (int64_t f = 0; f < x.num_elements(); ++f) {
    sum[group(f)] += xv[f];
    sq[group(f)] += xv[f] * xv[f];
    cnt[group(f)] += 1;
  }
  for (int64_t f = 0; f < x.num_elements(); ++f) {
    const int64_t g = group(f);
    const double m = sum[g] / cnt[g], var = sq[g] / cnt[g] - m * m;
    yv[f] = (xv[f] - m) / (std::sqrt(std::max(var, 0.0)) + 1e-9);
  }
  return Make(x.dtype(), xs, yv);
}

TEST(MvnTest, KnownValues) {
  // Default axes [0, 2, 3]: per channel; channel 0 {1, 3} -> {-1, 1}, channel 1 {5, 5} -> {0, 0}.
  auto out = RunMvn(Tensor::FromVector<float>({1, 2, 1, 2}, {1, 3, 5, 5}), nullptr);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 2, 1, 2}, {-1, 1, 0, 0})));
}

TEST(MvnTest, MatchesReference) {
  for (DataType dt : kFloatTypes) {
    Tensor x = RandomTensor(dt, {2, 3, 4, 5}, 41, -2, 4);
    for (std::vector<int64_t> axes : std::vector<std::vector<int64_t>>{
             {0, 2, 3}, {1}, {-1}, {0, 1, 2, 3}, {2, 3}, {-3, 0}, {3, 3}}) {
      auto out = RunMvn(x, &axes);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(AllClose((*out)[0], MvnRef(x, axes), Tol(dt) * 4, Tol(dt) * 4))
          << DataTypeName(dt) << IntsArg("axes", axes);
    }
    auto dflt = RunMvn(x, nullptr);
    ASSERT_TRUE(dflt.ok()) << dflt.status();
    EXPECT_TRUE(AllClose((*dflt)[0], MvnRef(x, {0, 2, 3}), Tol(dt) * 4, Tol(dt) * 4)) << DataTypeName(dt);
  }
  Tensor big = RandomTensor(DataType::kFloat32, {8, 64, 16, 16}, 42);
  auto out = RunMvn(big, nullptr);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], MvnRef(big, {0, 2, 3}), 1e-4, 1e-4));
  // A zero-size dim: an empty output.
  std::vector<int64_t> axes = {1};
  auto z = RunMvn(Tensor::Zeros(DataType::kFloat32, {0, 3}), &axes);
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].dims(), (Shape{0, 3}));
}

TEST(MvnTest, Errors) {
  // Default axes [0, 2, 3] need rank >= 4.
  auto bad = RunMvn(RandomTensor(DataType::kFloat32, {2, 3}, 1), nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("MeanVarianceNormalization"), std::string::npos);
  std::vector<int64_t> axes = {-3};
  EXPECT_FALSE(RunMvn(RandomTensor(DataType::kFloat32, {2, 3}, 1), &axes).ok());
}

// ---------------------------------------------------------- LpNormalization

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
        std::vector<int64_t> c = Unravel(i, s);
        double norm = 0;
        for (int64_t j = 0; j < s[ax]; ++j) {
          c[ax] = j;
          const double v = x.data<double>()[Ravel(c, s)];
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
