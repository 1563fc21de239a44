// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss against naive
// references (plain loops), known values and error cases.
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

// --------------------------------------------------------------------- losses

struct LossCase {
  bool sce = false;
  std::string reduction = "mean";
  std::optional<int64_t> ignore;
  bool log_prob = false;
};

std::string LossText(const LossCase& c, bool weight) {
  std::string text = std::string("type: \"") + (c.sce ? "SoftmaxCrossEntropyLoss" : "NegativeLogLikelihoodLoss") +
                     "\" name: \"l\" input: \"x\" input: \"t\"";
  if (weight) text += " input: \"w\"";
  text += " output: \"y\"";
  if (c.log_prob) text += " output: \"lp\"";
  text += " arg { name: \"reduction\" s: \"" + c.reduction + "\" }";
  if (c.ignore) text += " arg { name: \"ignore_index\" i: " + std::to_string(*c.ignore) + " }";
  return text;
}

absl::StatusOr<std::vector<Tensor>> RunLoss(const LossCase& c, const Tensor& x, const Tensor& t, const Tensor* w) {
  std::vector<Tensor> in = {x, t};
  if (w) in.push_back(*w);
  return RunSingleOp(ParseOp(LossText(c, w != nullptr)), in);
}

// The ONNX reference formulas, in double: log_prob (the log-softmax over
// dim 1 for SCE) and the loss.
std::vector<Tensor> LossRef(const LossCase& c, const Tensor& x, const Tensor& t, const Tensor* w) {
  const Shape& xs = x.dims();
  const int64_t n = xs[0], cls = xs[1];
  int64_t d = 1;
  for (size_t i = 2; i < xs.size(); ++i) d *= xs[i];
  std::vector<double> lp(x.num_elements());
  for (int64_t i = 0; i < x.num_elements(); ++i) lp[i] = x.ElementAsDouble(i);
  if (c.sce) {
    for (int64_t a = 0; a < n; ++a) {
      for (int64_t b = 0; b < d; ++b) {
        // Straight from the definition (no max shift: the test scores are small).
        double s = 0;
        for (int64_t j = 0; j < cls; ++j) s += std::exp(x.ElementAsDouble((a * cls + j) * d + b));
        for (int64_t j = 0; j < cls; ++j) {
          lp[(a * cls + j) * d + b] = x.ElementAsDouble((a * cls + j) * d + b) - std::log(s);
        }
      }
    }
  }
  std::vector<double> loss(n * d), wt(n * d);
  for (int64_t a = 0; a < n; ++a) {
    for (int64_t b = 0; b < d; ++b) {
      const int64_t k = static_cast<int64_t>(t.ElementAsDouble(a * d + b));
      if (c.ignore && k == *c.ignore) continue;
      wt[a * d + b] = w ? w->ElementAsDouble(k) : 1.0;
      loss[a * d + b] = -lp[(a * cls + k) * d + b] * wt[a * d + b];
    }
  }
  std::vector<Tensor> out;
  if (c.reduction == "none") {
    out.push_back(Make(x.dtype(), t.dims(), loss));
  } else {
    double s = 0, ws = 0;
    for (size_t i = 0; i < loss.size(); ++i) { s += loss[i]; ws += wt[i]; }
    out.push_back(Make(x.dtype(), {}, {c.reduction == "sum" ? s : s / ws}));
  }
  out.push_back(Make(x.dtype(), xs, lp));
  return out;
}

TEST(LossTest, KnownValues) {
  // input [2, 3] of log-probabilities; targets 2 and 0; weights [1, 2, 3].
  Tensor x = Tensor::FromVector<float>({2, 3}, {-1, -2, -3, -4, -5, -6});
  Tensor t = Tensor::FromVector<int64_t>({2}, {2, 0});
  Tensor w = Tensor::FromVector<float>({3}, {1, 2, 3});
  LossCase c;
  c.reduction = "none";
  auto none = RunLoss(c, x, t, &w);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(AllClose((*none)[0], Tensor::FromVector<float>({2}, {9, 4})));
  c.reduction = "mean";  // (9 + 4) / (3 + 1)
  auto mean = RunLoss(c, x, t, &w);
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_TRUE(AllClose((*mean)[0], Tensor::FromVector<float>({}, {3.25f})));
  c.ignore = 0;  // only the first entry: 9 / 3
  auto ign = RunLoss(c, x, t, &w);
  ASSERT_TRUE(ign.ok()) << ign.status();
  EXPECT_TRUE(AllClose((*ign)[0], Tensor::FromVector<float>({}, {3.0f})));
  // SCE of equal scores: log_prob = -log(3) everywhere, the loss log(3).
  LossCase s;
  s.sce = true;
  s.log_prob = true;
  s.reduction = "sum";
  Tensor z = Tensor::FromVector<float>({2, 3}, {1, 1, 1, 1, 1, 1});
  auto sce = RunLoss(s, z, t, nullptr);
  ASSERT_TRUE(sce.ok()) << sce.status();
  const float l3 = std::log(3.0f);
  EXPECT_TRUE(AllClose((*sce)[0], Tensor::FromVector<float>({}, {2 * l3})));
  EXPECT_TRUE(AllClose((*sce)[1], Tensor::FromVector<float>({2, 3}, {-l3, -l3, -l3, -l3, -l3, -l3})));
}

TEST(LossTest, MatchesReference) {
  const std::vector<Shape> shapes = {{5, 4}, {3, 4, 2, 3}, {2, 3, 1}, {1, 1}};
  int seed = 0;
  for (bool sce : {false, true}) {
    for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16}) {
      for (const Shape& xs : shapes) {
        for (DataType tdt : {DataType::kInt64, DataType::kInt32}) {
          Shape ts = xs;
          ts.erase(ts.begin() + 1);
          const int64_t cls = xs[1];
          Tensor x = RandomTensor(dt, xs, ++seed, -2, 2);
          Tensor t = RandomTensor(tdt, ts, ++seed, 0, static_cast<double>(cls - 1));
          Tensor w = RandomTensor(dt, {cls}, ++seed, 0.5, 2);
          // With ignore_index -5, put it into the target (out of [0, C)).
          Tensor t_neg = Make(tdt, ts, std::vector<double>(t.num_elements(), 0));
          for (int64_t i = 0; i < t.num_elements(); ++i) {
            const double v = i % 3 == 1 ? -5 : t.ElementAsDouble(i);
            if (tdt == DataType::kInt64) t_neg.data<int64_t>()[i] = static_cast<int64_t>(v);
            else t_neg.data<int32_t>()[i] = static_cast<int32_t>(v);
          }
          const double tol = dt == DataType::kFloat16 ? 3e-3 : 1e-5;
          for (bool weighted : {false, true}) {
            for (const char* red : {"none", "sum", "mean"}) {
              for (int ig = 0; ig < 3; ++ig) {
                LossCase c;
                c.sce = sce;
                c.reduction = red;
                c.log_prob = sce && ig != 1;
                if (ig == 1) c.ignore = 1;  // inside [0, C): ignores real classes
                if (ig == 2) c.ignore = -5;
                const Tensor& tt = ig == 2 ? t_neg : t;
                auto out = RunLoss(c, x, tt, weighted ? &w : nullptr);
                const std::string what = std::string(sce ? "SCE " : "NLL ") + DataTypeName(dt) + " " +
                                         x.DebugString() + " " + DataTypeName(tdt) + " weighted " +
                                         std::to_string(weighted) + " " + red + " ignore case " + std::to_string(ig);
                ASSERT_TRUE(out.ok()) << what << ": " << out.status();
                std::vector<Tensor> ref = LossRef(c, x, tt, weighted ? &w : nullptr);
                // A mean over entries that are all ignored is NaN in both.
                EXPECT_TRUE(AllClose((*out)[0], ref[0], tol, tol)) << what;
                if (c.log_prob) {
                  EXPECT_TRUE(AllClose((*out)[1], ref[1], tol, tol)) << what << " log_prob";
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST(LossTest, ZeroSizeAndInferredShapes) {
  for (bool sce : {false, true}) {
    Tensor x = Tensor::Zeros(DataType::kFloat32, {0, 3, 2});
    Tensor t = Tensor::Zeros(DataType::kInt64, {0, 2});
    LossCase c;
    c.sce = sce;
    c.reduction = "none";
    auto none = RunLoss(c, x, t, nullptr);
    ASSERT_TRUE(none.ok()) << none.status();
    EXPECT_EQ((*none)[0].dims(), (Shape{0, 2}));
    c.reduction = "sum";
    auto sum = RunLoss(c, x, t, nullptr);
    ASSERT_TRUE(sum.ok()) << sum.status();
    EXPECT_TRUE(AllClose((*sum)[0], Tensor::FromVector<float>({}, {0})));
    Tensor xr = RandomTensor(DataType::kFloat32, {2, 3, 4}, 3);
    Tensor tr = RandomTensor(DataType::kInt64, {2, 4}, 4, 0, 2);
    for (const char* red : {"none", "mean"}) {
      c.reduction = red;
      c.log_prob = sce;
      testing::ExpectInferredShapes(ParseOp(LossText(c, false)), {xr, tr});
    }
  }
}

TEST(LossTest, BadInputsAreErrors) {
  Tensor x = RandomTensor(DataType::kFloat32, {2, 3}, 1);
  Tensor t = Tensor::FromVector<int64_t>({2}, {0, 1});
  Tensor w = RandomTensor(DataType::kFloat32, {3}, 2);
  for (bool sce : {false, true}) {
    LossCase c;
    c.sce = sce;
    EXPECT_FALSE(RunLoss(c, x, Tensor::FromVector<int64_t>({3}, {0, 1, 2}), nullptr).ok()) << "target shape";
    EXPECT_FALSE(RunLoss(c, x, Tensor::FromVector<int64_t>({2}, {0, 3}), nullptr).ok()) << "class out of range";
    EXPECT_FALSE(RunLoss(c, x, Tensor::FromVector<int64_t>({2}, {-1, 0}), nullptr).ok()) << "negative class";
    Tensor w4 = RandomTensor(DataType::kFloat32, {4}, 2);
    EXPECT_FALSE(RunLoss(c, x, t, &w4).ok()) << "weight shape";
    EXPECT_FALSE(RunLoss(c, RandomTensor(DataType::kFloat32, {3}, 1), Tensor::FromVector<int64_t>({}, {0}), nullptr)
                     .ok())
        << "rank 1";
    c.reduction = "avg";
    EXPECT_FALSE(RunLoss(c, x, t, nullptr).ok()) << "unknown reduction";
    c.reduction = "mean";
    c.ignore = -1;  // the ignored value may be out of range, others not
    EXPECT_TRUE(RunLoss(c, x, Tensor::FromVector<int64_t>({2}, {-1, 0}), &w).ok());
    EXPECT_FALSE(RunLoss(c, x, Tensor::FromVector<int64_t>({2}, {-2, 0}), &w).ok());
  }
}

}  // namespace
}  // namespace loom
