// LpPool and GlobalLpPool against naive references (plain loops in double
// over row-major coordinates), plus hand-computed values and error cases.
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

// ----------------------------------------------------- LpPool, GlobalLpPool

struct PoolCase {
  Shape x;
  std::vector<int64_t> kernel, strides, pads, dilations;
  std::string auto_pad = "NOTSET";
  bool ceil = false;
};

absl::StatusOr<std::vector<Tensor>> RunLpPool(const Tensor& x, const PoolCase& c, int64_t p) {
  return RunSingleOp(ParseOp("type: \"LpPool\" name: \"lp\" input: \"x\" output: \"y\"" +
                             IntsArg("kernel_shape", c.kernel) + IntsArg("strides", c.strides) +
                             IntsArg("pads", c.pads) + IntsArg("dilations", c.dilations) +
                             " arg { name: \"auto_pad\" s: \"" + c.auto_pad + "\" }" + IntArg("ceil_mode", c.ceil) +
                             IntArg("p", p)),
                     {x});
}

// The pool by the definition: output sizes from the ONNX formulas, every
// tap inside X contributes |x|^p.
Tensor LpPoolRef(const Tensor& x, const PoolCase& c, int64_t p) {
  const Shape& xs = x.dims();
  const size_t n = xs.size() - 2;
  const std::vector<int64_t> s = OnesIfEmpty(c.strides, n), dil = OnesIfEmpty(c.dilations, n);
  std::vector<int64_t> pb(n, 0), pe(n, 0), out(n);
  Shape ys = {xs[0], xs[1]};
  for (size_t d = 0; d < n; ++d) {
    const int64_t in = xs[d + 2], ek = (c.kernel[d] - 1) * dil[d] + 1;
    if (!SamePads(c.auto_pad, in, ek, s[d], &out[d], &pb[d], &pe[d])) {
      const int64_t b = c.pads.empty() || c.auto_pad == "VALID" ? 0 : c.pads[d];
      const int64_t e = c.pads.empty() || c.auto_pad == "VALID" ? 0 : c.pads[d + n];
      pb[d] = b;
      const double q = static_cast<double>(in + b + e - ek) / s[d];
      out[d] = static_cast<int64_t>(c.ceil ? std::ceil(q) : std::floor(q)) + 1;
      if (c.ceil && (out[d] - 1) * s[d] >= in + b) --out[d];
    }
    ys.push_back(out[d]);
  }
  const int64_t total = NumElements(ys);
  std::vector<double> yv(total);
  Shape kshape(c.kernel.begin(), c.kernel.end());
  for (int64_t f = 0; f < total; ++f) {
    const std::vector<int64_t> oc = Unravel(f, ys);
    double sum = 0;
    for (int64_t k = 0; k < NumElements(kshape); ++k) {
      const std::vector<int64_t> kc = Unravel(k, kshape);
      std::vector<int64_t> ic = {oc[0], oc[1]};
      bool inside = true;
      for (size_t d = 0; d < n; ++d) {
        const int64_t i = oc[d + 2] * s[d] - pb[d] + kc[d] * dil[d];
        inside = inside && i >= 0 && i < xs[d + 2];
        ic.push_back(i);
      }
      if (inside) sum += std::pow(std::fabs(x.ElementAsDouble(Ravel(ic, xs))), static_cast<double>(p));
    }
    yv[f] = std::pow(sum, 1.0 / p);
  }
  return Make(x.dtype(), ys, yv);
}

TEST(LpPoolTest, KnownValues) {
  Tensor x = Tensor::FromVector<float>({1, 1, 4}, {1, -2, 3, -4});
  PoolCase c{{1, 1, 4}, {2}, {2}, {}, {}};
  auto p2 = RunLpPool(x, c, 2);
  ASSERT_TRUE(p2.ok()) << p2.status();
  EXPECT_TRUE(AllClose((*p2)[0], Tensor::FromVector<float>({1, 1, 2}, {std::sqrt(5.0f), 5})));
  auto p1 = RunLpPool(x, c, 1);
  ASSERT_TRUE(p1.ok()) << p1.status();
  EXPECT_TRUE(AllClose((*p1)[0], Tensor::FromVector<float>({1, 1, 2}, {3, 7})));
  // SAME_LOWER pads one at the front: windows [-1, 0], [0, 1], [1, 2].
  Tensor x3 = Tensor::FromVector<float>({1, 1, 3}, {1, 2, 3});
  PoolCase lower{{1, 1, 3}, {2}, {}, {}, {}, "SAME_LOWER"};
  auto sl = RunLpPool(x3, lower, 1);
  ASSERT_TRUE(sl.ok()) << sl.status();
  EXPECT_TRUE(AllClose((*sl)[0], Tensor::FromVector<float>({1, 1, 3}, {1, 3, 5})));
  // ceil_mode: the last window [4, 5] overhangs.
  PoolCase ceil{{1, 1, 5}, {2}, {2}, {}, {}, "NOTSET", true};
  auto cm = RunLpPool(Tensor::FromVector<float>({1, 1, 5}, {1, 2, 3, 4, 5}), ceil, 1);
  ASSERT_TRUE(cm.ok()) << cm.status();
  EXPECT_TRUE(AllClose((*cm)[0], Tensor::FromVector<float>({1, 1, 3}, {3, 7, 5})));
}

TEST(LpPoolTest, MatchesReference) {
  const std::vector<PoolCase> cases = {
      {{2, 3, 7}, {3}, {}, {}, {}},
      {{2, 3, 7}, {3}, {2}, {1, 2}, {}},
      {{2, 2, 6, 5}, {2, 3}, {1, 2}, {}, {}},
      {{2, 2, 6, 5}, {3, 2}, {2, 2}, {1, 0, 1, 1}, {}, "NOTSET", true},
      {{1, 2, 7, 6}, {2, 2}, {1, 1}, {}, {2, 2}},
      {{1, 2, 5, 6}, {3, 2}, {2, 1}, {}, {}, "SAME_UPPER"},
      {{1, 2, 5, 6}, {2, 3}, {2, 2}, {}, {}, "SAME_LOWER"},
      {{1, 2, 5, 6}, {2, 2}, {2, 2}, {}, {}, "VALID"},
      {{1, 2, 4, 3, 5}, {2, 2, 3}, {1, 2, 1}, {0, 1, 1, 1, 0, 1}, {}},
      {{0, 2, 4, 4}, {2, 2}, {}, {}, {}},
  };
  for (DataType dt : kFloatTypes) {
    for (size_t i = 0; i < cases.size(); ++i) {
      Tensor x = RandomTensor(dt, cases[i].x, 51 + i, -2, 2);
      for (int64_t p : {1, 2, 3}) {
        auto out = RunLpPool(x, cases[i], p);
        ASSERT_TRUE(out.ok()) << "case " << i << ": " << out.status();
        EXPECT_TRUE(AllClose((*out)[0], LpPoolRef(x, cases[i], p), Tol(dt), Tol(dt)))
            << DataTypeName(dt) << " case " << i << " p " << p;
      }
    }
  }
  PoolCase big{{4, 16, 32, 32}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {}};
  Tensor x = RandomTensor(DataType::kFloat32, big.x, 60);
  auto out = RunLpPool(x, big, 2);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], LpPoolRef(x, big, 2), 1e-5, 1e-5));
}

TEST(LpPoolTest, InferredShapes) {
  Tensor x = RandomTensor(DataType::kFloat32, {1, 2, 5, 6}, 1);
  ExpectInferredShapes(ParseOp("type: \"LpPool\" name: \"lp\" input: \"x\" output: \"y\"" +
                               IntsArg("kernel_shape", {3, 2}) + IntsArg("strides", {2, 2}) +
                               " arg { name: \"auto_pad\" s: \"SAME_UPPER\" }"),
                       {x});
  ExpectInferredShapes(ParseOp("type: \"LpPool\" name: \"lp\" input: \"x\" output: \"y\"" +
                               IntsArg("kernel_shape", {2, 2}) + IntsArg("strides", {2, 2}) + IntArg("ceil_mode", 1)),
                       {x});
  ExpectInferredShapes(ParseOp("type: \"GlobalLpPool\" name: \"g\" input: \"x\" output: \"y\""), {x});
}

TEST(LpPoolTest, Errors) {
  Tensor x = RandomTensor(DataType::kFloat32, {1, 2, 5, 6}, 1);
  // kernel_shape rank does not match the two spatial dims.
  auto bad = RunLpPool(x, {{}, {3}, {}, {}, {}}, 2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("LpPool"), std::string::npos) << bad.status();
  // Window larger than the input.
  EXPECT_FALSE(RunLpPool(x, {{}, {6, 2}, {}, {}, {}}, 2).ok());
  EXPECT_FALSE(RunLpPool(x, {{}, {2, 2}, {}, {}, {}}, 0).ok());
  EXPECT_FALSE(RunLpPool(RandomTensor(DataType::kFloat32, {2, 3}, 1), {{}, {}, {}, {}, {}}, 2).ok());
  // kernel_shape is required.
  EXPECT_FALSE(RunSingleOp(ParseOp("type: \"LpPool\" name: \"lp\" input: \"x\" output: \"y\""), {x}).ok());
}

absl::StatusOr<std::vector<Tensor>> RunGlobalLp(const Tensor& x, int64_t p) {
  return RunSingleOp(ParseOp("type: \"GlobalLpPool\" name: \"g\" input: \"x\" output: \"y\"" + IntArg("p", p)), {x});
}

Tensor GlobalLpRef(const Tensor& x, int64_t p) {
  const Shape& xs = x.dims();
  Shape ys(xs.size(), 1);
  ys[0] = xs[0];
  ys[1] = xs[1];
  const int64_t planes = xs[0] * xs[1], S = planes ? x.num_elements() / planes : 0;
  std::vector<double> yv(planes, 0);
  for (int64_t r = 0; r < planes; ++r) {
    for (int64_t i = 0; i < S; ++i) yv[r] += std::pow(std::fabs(x.ElementAsDouble(r * S + i)), static_cast<double>(p));
    yv[r] = std::pow(yv[r], 1.0 / p);
  }
  return Make(x.dtype(), ys, yv);
}

TEST(GlobalLpPoolTest, KnownValues) {
  auto out = RunGlobalLp(Tensor::FromVector<float>({1, 2, 2}, {3, -4, 1, 1}), 2);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 2, 1}, {5, std::sqrt(2.0f)})));
}

TEST(GlobalLpPoolTest, MatchesReference) {
  for (DataType dt : kFloatTypes) {
    for (const Shape& xs : {Shape{2, 3, 4, 5}, Shape{2, 3}, Shape{1, 2, 7}, Shape{2, 3, 0}, Shape{0, 3, 4}}) {
      Tensor x = RandomTensor(dt, xs, 71, -2, 2);
      for (int64_t p : {1, 2, 3}) {
        auto out = RunGlobalLp(x, p);
        ASSERT_TRUE(out.ok()) << out.status();
        EXPECT_TRUE(AllClose((*out)[0], GlobalLpRef(x, p), Tol(dt), Tol(dt))) << DataTypeName(dt) << " p " << p;
      }
    }
  }
  EXPECT_FALSE(RunGlobalLp(RandomTensor(DataType::kFloat32, {3}, 1), 2).ok());
  EXPECT_FALSE(RunGlobalLp(RandomTensor(DataType::kFloat32, {1, 3, 2}, 1), 0).ok());
}

}  // namespace
}  // namespace loom
