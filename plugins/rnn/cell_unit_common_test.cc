// The float32 nonlinearities of the cell units (cell_unit_common.h) against
// float64 libm on 2^22 evenly spaced points of [-12, 12] (past the fit's
// [-9, 9] and the clamp), every float of [0.5, 1) (a whole octave) and
// every float of [8, 9.5): tanh within 4e-7, sigmoid within 2.6e-7
// (absolute), both within their ranges; accuracy near 0, symmetry,
// saturation and NaN passing through. Each check runs twice: inline at the
// test's baseline ISA (as the plugin's default clone) and through a
// LOOM_CELL_CLONES function, the clone the cell loops run on this CPU
// (AVX2 or AVX-512, with fused multiply-adds).
#include "plugins/rnn/cell_unit_common.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace loom {
namespace rnn {
namespace {

using cell_unit::Sigmoid;
using cell_unit::Tanh;

LOOM_CELL_CLONES void TanhAll(const float* __restrict x, int64_t n, float* __restrict y) {
  for (int64_t i = 0; i < n; ++i) y[i] = Tanh(x[i]);
}
LOOM_CELL_CLONES void SigmoidAll(const float* __restrict x, int64_t n, float* __restrict y) {
  for (int64_t i = 0; i < n; ++i) y[i] = Sigmoid(x[i]);
}

double Sigmoid64(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// The points the file comment names.
std::vector<float> Samples() {
  std::vector<float> xs;
  constexpr int kGrid = 1 << 22;
  for (int i = 0; i <= kGrid; ++i) xs.push_back(-12.0f + 24.0f * static_cast<float>(i) / kGrid);
  for (float x = 0.5f; x < 1.0f; x = std::nextafter(x, 2.0f)) xs.push_back(x);
  for (float x = 8.0f; x < 9.5f; x = std::nextafter(x, 10.0f)) xs.push_back(x);
  return xs;
}

// Checks f (float32, inline and cloned) against exact (float64) on the
// samples: the largest absolute error at most `bound`, every value in
// [lo, hi].
template <typename F32, typename All, typename F64>
void CheckAgainstLibm(const char* name, F32 f, All all, F64 exact, double bound, float lo, float hi) {
  const std::vector<float> xs = Samples();
  std::vector<float> cloned(xs.size());
  all(xs.data(), static_cast<int64_t>(xs.size()), cloned.data());
  for (int pass = 0; pass < 2; ++pass) {
    const char* how = pass == 0 ? "inline" : "cloned";
    double worst = 0;
    float worst_x = 0;
    size_t out_of_range = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const float y = pass == 0 ? f(xs[i]) : cloned[i];
      const double e = std::fabs(static_cast<double>(y) - exact(static_cast<double>(xs[i])));
      if (e > worst) worst = e, worst_x = xs[i];
      if (!(y >= lo && y <= hi)) ++out_of_range;
    }
    EXPECT_LE(worst, bound) << name << " (" << how << ") at x = " << worst_x;
    EXPECT_GT(worst, 0.0) << name << " (" << how << "): the sweep ran";
    EXPECT_EQ(out_of_range, 0u) << name << " (" << how << ") outside [" << lo << ", " << hi << "]";
  }
}

TEST(CellNonlinearitiesTest, TanhIsWithin4e7OfLibmAndWithinPlusMinusOne) {
  CheckAgainstLibm("tanh", [](float x) { return Tanh(x); }, TanhAll, [](double x) { return std::tanh(x); }, 4e-7,
                   -1.0f, 1.0f);
  EXPECT_EQ(Tanh(0.0f), 0.0f);
  EXPECT_FLOAT_EQ(Tanh(1e-6f), 1e-6f);  // relative accuracy near 0
}

TEST(CellNonlinearitiesTest, SigmoidIsWithin26e8OfLibmAndWithinZeroOne) {
  CheckAgainstLibm("sigmoid", [](float x) { return Sigmoid(x); }, SigmoidAll, Sigmoid64, 2.6e-7, 0.0f, 1.0f);
  EXPECT_EQ(Sigmoid(0.0f), 0.5f);
  for (float x : {0.25f, 1.0f, 3.0f, 7.5f}) EXPECT_NEAR(Sigmoid(x) + Sigmoid(-x), 1.0f, 1.2e-7f) << x;
}

TEST(CellNonlinearitiesTest, SaturatesBeyondTheFitAndPassesNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {12.0f, 50.0f, 1e30f, inf}) {
    EXPECT_EQ(Tanh(x), 1.0f) << x;
    EXPECT_EQ(Tanh(-x), -1.0f) << x;
  }
  for (float x : {20.0f, 50.0f, 1e30f, inf}) {  // sigmoid(20) = 1 - 2e-9
    EXPECT_NEAR(Sigmoid(x), 1.0f, 1.2e-7f) << x;
    EXPECT_LE(Sigmoid(x), 1.0f) << x;
    EXPECT_NEAR(Sigmoid(-x), 0.0f, 1.2e-7f) << x;
    EXPECT_GE(Sigmoid(-x), 0.0f) << x;
  }
  EXPECT_TRUE(std::isnan(Tanh(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(Sigmoid(std::numeric_limits<float>::quiet_NaN())));
}

}  // namespace
}  // namespace rnn
}  // namespace loom
