// The float32 nonlinearities of the cell units (cell_unit_common.h) against
// float64 libm on 2^22 evenly spaced points of [-12, 12] (past the fit's
// [-9, 9] and the clamp), and every float of [0.5, 1.0) and [8, 9.5) (all
// 2^23 of each octave): tanh within 4e-7, sigmoid within 2.6e-7 (absolute);
// accuracy near 0, symmetry, saturation and NaN passing through.
#include "plugins/rnn/cell_unit_common.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace loom {
namespace rnn {
namespace {

using cell_unit::Sigmoid;
using cell_unit::Tanh;

double Sigmoid64(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Calls check(x) on the points the file comment names.
template <typename F>
void ForSamples(const F& check) {
  constexpr int kGrid = 1 << 22;
  for (int i = 0; i <= kGrid; ++i) check(-12.0f + 24.0f * static_cast<float>(i) / kGrid);
  for (float x = 0.5f; x < 1.0f; x = std::nextafter(x, 2.0f)) check(x);
  for (float x = 8.0f; x < 9.5f; x = std::nextafter(x, 10.0f)) check(x);
}

TEST(CellNonlinearitiesTest, TanhIsWithin4e7OfLibm) {
  double worst = 0;
  float worst_x = 0;
  ForSamples([&](float x) {
    const double e = std::fabs(static_cast<double>(Tanh(x)) - std::tanh(static_cast<double>(x)));
    if (e > worst) worst = e, worst_x = x;
  });
  EXPECT_LE(worst, 4e-7) << "at x = " << worst_x;
  EXPECT_GT(worst, 0.0);  // the sweep ran
  EXPECT_EQ(Tanh(0.0f), 0.0f);
  EXPECT_FLOAT_EQ(Tanh(1e-6f), 1e-6f);  // relative accuracy near 0
}

TEST(CellNonlinearitiesTest, SigmoidIsWithin26e8OfLibm) {
  double worst = 0;
  float worst_x = 0;
  ForSamples([&](float x) {
    const double e = std::fabs(static_cast<double>(Sigmoid(x)) - Sigmoid64(x));
    if (e > worst) worst = e, worst_x = x;
  });
  EXPECT_LE(worst, 2.6e-7) << "at x = " << worst_x;
  EXPECT_EQ(Sigmoid(0.0f), 0.5f);
  for (float x : {0.25f, 1.0f, 3.0f, 7.5f}) EXPECT_NEAR(Sigmoid(x) + Sigmoid(-x), 1.0f, 1.2e-7f) << x;
}

TEST(CellNonlinearitiesTest, SaturatesBeyondTheFitAndPassesNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {12.0f, 50.0f, 1e30f, inf}) {
    EXPECT_NEAR(Tanh(x), 1.0f, 1.2e-7f) << x;
    EXPECT_NEAR(Tanh(-x), -1.0f, 1.2e-7f) << x;
  }
  for (float x : {20.0f, 50.0f, 1e30f, inf}) {  // sigmoid(20) = 1 - 2e-9
    EXPECT_NEAR(Sigmoid(x), 1.0f, 1.2e-7f) << x;
    EXPECT_NEAR(Sigmoid(-x), 0.0f, 1.2e-7f) << x;
  }
  EXPECT_TRUE(std::isnan(Tanh(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(Sigmoid(std::numeric_limits<float>::quiet_NaN())));
}

}  // namespace
}  // namespace rnn
}  // namespace loom
