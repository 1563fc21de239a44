// GridSample-16 (tensor_grid_sample.cc) against hand-worked samples: bilinear
// with align_corners 0 and 1, nearest (halves to even), bicubic on one row,
// each padding mode on points outside the image, batches and channels, the
// float dtypes, a NaN point; bad attributes and shapes name what is wrong.
#include <cmath>
#include <string>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

std::string Op(const std::string& mode, const std::string& padding, int align_corners) {
  return R"(type: "GridSample" input: "x" input: "g" output: "y" arg { name: "mode" s: ")" + mode +
         R"(" } arg { name: "padding_mode" s: ")" + padding + R"(" })" + IntArg("align_corners", align_corners);
}

// X = [[1, 2], [3, 4]] as [1, 1, 2, 2].
Tensor Image() { return F32({1, 1, 2, 2}, {1, 2, 3, 4}); }

TEST(GridSample, BilinearAlignCornersOff) {
  // align_corners 0 on 2 pixels: x_pix = ((g + 1) * 2 - 1) / 2 = g + 0.5.
  //   (0, 0)       -> (0.5, 0.5): all four averaged = 2.5
  //   (-0.5, -0.5) -> (0, 0): pixel 1
  //   (0.5, -0.5)  -> (1, 0): pixel 2
  //   (-1, -1)     -> (-0.5, -0.5): only pixel 1 is inside, weight 0.5 * 0.5 -> 0.25
  //   (1, 0)       -> (1.5, 0.5): pixels 2 and 4 inside, weight 0.25 each -> 1.5
  //   (-0.25, 0.25) -> (0.25, 0.75): rows 1.25 and 3.25, 0.25 * 1.25 + 0.75 * 3.25 = 2.75
  const Tensor g = F32({1, 1, 6, 2}, {0, 0, -0.5, -0.5, 0.5, -0.5, -1, -1, 1, 0, -0.25, 0.25});
  // Defaults are bilinear, zeros, align_corners 0.
  auto y = testing::RunSingleOp(testing::ParseOp(R"(type: "GridSample" input: "x" input: "g" output: "y")"),
                                {Image(), g});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({1, 1, 1, 6}, {2.5, 1, 2, 0.25, 1.5, 2.75}), 1e-6, 1e-6));
}

TEST(GridSample, BilinearAlignCornersOn) {
  // align_corners 1: x_pix = (g + 1) / 2 * (2 - 1): -1 and 1 are the corner
  // pixels' centers. (0, 0) -> 2.5; (-1, -1) -> 1; (1, 1) -> 4; (1, -1) -> 2;
  // (-0.5, 0.5) -> (0.25, 0.75) -> 2.75; (2, 0) -> (1.5, 0.5) -> 0.25 * (2 + 4) = 1.5.
  const Tensor g = F32({1, 2, 3, 2}, {0, 0, -1, -1, 1, 1, 1, -1, -0.5, 0.5, 2, 0});
  auto y = testing::RunSingleOp(testing::ParseOp(Op("bilinear", "zeros", 1)), {Image(), g});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({1, 1, 2, 3}, {2.5, 1, 4, 2, 2.75, 1.5}), 1e-6, 1e-6));
}

TEST(GridSample, PaddingModesOutside) {
  // X = [1, 2, 4] as one row (y = 0 exactly); align_corners 0: x_pix = 1.5 g + 1.
  //   g -1.5 -> x -1.25: zeros: taps -2, -1 both outside -> 0; border: x 0 -> 1;
  //     reflection at -0.5: x 0.25 -> 0.75 * 1 + 0.25 * 2 = 1.25
  //   g 2 -> x 4: zeros 0; border x 2 -> 4; reflection at 2.5 then -0.5: 4 -> 1 -> 2
  //   g -0.9 -> x -0.35: zeros: tap 0 with weight 0.65 -> 0.65; border 1;
  //     reflection: -0.35 is inside [-0.5, 2.5], clamped to 0 -> 1
  //   g -4 -> x -5: zeros 0; border 1; reflection: -5 -> 4 -> 1 -> 2
  const Tensor x = F32({1, 1, 1, 3}, {1, 2, 4});
  const Tensor g = F32({1, 1, 4, 2}, {-1.5, 0, 2, 0, -0.9, 0, -4, 0});
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"zeros", {0, 0, 0.65f, 0}}, {"border", {1, 4, 1, 1}}, {"reflection", {1.25f, 2, 1, 2}}};
  for (const auto& [padding, want] : cases) {
    auto y = testing::RunSingleOp(testing::ParseOp(Op("bilinear", padding, 0)), {x, g});
    ASSERT_TRUE(y.ok()) << padding << ": " << y.status();
    EXPECT_TRUE(AllClose((*y)[0], F32({1, 1, 1, 4}, want), 1e-6, 1e-6)) << padding;
  }
  // align_corners 1 reflects at the edge pixels' centers 0 and 2 (x_pix = g + 1):
  // g -1.5 -> -0.5 -> 0.5 -> 1.5; g 2 -> 3 -> 1 -> 2.
  auto y = testing::RunSingleOp(testing::ParseOp(Op("bilinear", "reflection", 1)),
                                {x, F32({1, 1, 2, 2}, {-1.5, 0, 2, 0})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({1, 1, 1, 2}, {1.5, 2}), 1e-6, 1e-6));
}

TEST(GridSample, NearestRoundsHalvesToEven) {
  // x_pix = g + 0.5 (align_corners 0):
  //   (-0.5, -0.5) -> (0, 0): 1
  //   (0, 0) -> (0.5, 0.5): halves round to even 0 -> 1 (half up would read 4)
  //   (0.5, 0) -> (1, 0.5): row 0 -> 2
  //   (1, 1) -> (1.5, 1.5): rounds to 2, outside -> zeros 0, border (clamped to 1, 1) 4
  //   (0.2, 0.6) -> (0.7, 1.1) -> (1, 1): 4
  //   (-0.2, 0.6) -> (0.3, 1.1) -> (0, 1): 3
  const Tensor g = F32({1, 2, 3, 2}, {-0.5, -0.5, 0, 0, 0.5, 0, 1, 1, 0.2, 0.6, -0.2, 0.6});
  auto y = testing::RunSingleOp(testing::ParseOp(Op("nearest", "zeros", 0)), {Image(), g});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({1, 1, 2, 3}, {1, 1, 2, 0, 4, 3}), 0, 0));
  y = testing::RunSingleOp(testing::ParseOp(Op("nearest", "border", 0)), {Image(), g});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({1, 1, 2, 3}, {1, 1, 2, 4, 4, 3}), 0, 0));
}

TEST(GridSample, BicubicOnARow) {
  // X = [1, 2, 4, 8] as one row: y = 0 exactly, so the row weights are
  // (0, 1, 0, 0). x_pix = 2 g + 1.5. Cubic weights (A = -0.75) of the taps
  // floor(x) - 1 .. floor(x) + 2:
  //   t 0.5:  (-0.09375, 0.59375, 0.59375, -0.09375)
  //   t 0.75: (-0.03515625, 0.26171875, 0.87890625, -0.10546875)
  //   g 0 -> x 1.5, taps 0..3: -0.09375 + 1.1875 + 2.375 - 0.75 = 2.71875
  //   g -0.25 -> x 1, t 0: pixel 1 alone -> 2
  //   g -0.5 -> x 0.5, taps -1..2: zeros drops tap -1: 0.59375 + 1.1875 - 0.375 = 1.40625;
  //     border and reflection read pixel 0 for tap -1: 1.40625 - 0.09375 = 1.3125
  //   g -1 -> x -0.5, taps -2..1: zeros: 0.59375 * 1 - 0.09375 * 2 = 0.40625;
  //     border: taps -2, -1 read pixel 0: (-0.09375 + 0.59375 + 0.59375) - 0.1875 = 0.90625;
  //     reflection (at -0.5): -2 -> 1, -1 -> 0: -0.1875 + 0.59375 + 0.59375 - 0.1875 = 0.8125
  //   g 0.125 -> x 1.75, taps 0..3: -0.03515625 + 0.5234375 + 3.515625 - 0.84375 = 3.16015625
  const Tensor x = F32({1, 1, 1, 4}, {1, 2, 4, 8});
  const Tensor g = F32({1, 1, 5, 2}, {0, 0, -0.25, 0, -0.5, 0, -1, 0, 0.125, 0});
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"zeros", {2.71875f, 2, 1.40625f, 0.40625f, 3.16015625f}},
      {"border", {2.71875f, 2, 1.3125f, 0.90625f, 3.16015625f}},
      {"reflection", {2.71875f, 2, 1.3125f, 0.8125f, 3.16015625f}}};
  for (const auto& [padding, want] : cases) {
    auto y = testing::RunSingleOp(testing::ParseOp(Op("bicubic", padding, 0)), {x, g});
    ASSERT_TRUE(y.ok()) << padding << ": " << y.status();
    EXPECT_TRUE(AllClose((*y)[0], F32({1, 1, 1, 5}, want), 1e-6, 1e-6)) << padding;
  }
}

TEST(GridSample, BatchesChannelsAndDtypes) {
  // N = 2, C = 2: image n0 = [[1, 2], [3, 4]] and 10x that; n1 = [[5, 6],
  // [7, 8]] and 10x. n0 samples (0, 0) (the mean), n1 (-0.5, -0.5) (pixel 0)
  // and (0.5, 0.5) (pixel 3).
  const std::vector<double> xv = {1, 2, 3, 4, 10, 20, 30, 40, 5, 6, 7, 8, 50, 60, 70, 80};
  const std::vector<double> gv = {0, 0, 0, 0, -0.5, -0.5, 0.5, 0.5};
  for (DataType dt : kFloatTypes) {
    auto y = testing::RunSingleOp(testing::ParseOp(Op("bilinear", "zeros", 0)),
                                  {Make(dt, {2, 2, 2, 2}, xv), Make(dt, {2, 1, 2, 2}, gv)});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(AllClose((*y)[0], Make(dt, {2, 2, 1, 2}, {2.5, 2.5, 25, 25, 5, 8, 50, 80}), Tol(dt), Tol(dt)))
        << DataTypeName(dt);
  }
  // The schema infers Y [N, C, H_out, W_out].
  ExpectInferredShapes(ParseOp(Op("bicubic", "border", 1)),
                       {RandomTensor(DataType::kFloat32, {2, 3, 4, 5}, 1),
                        RandomTensor(DataType::kFloat32, {2, 6, 7, 2}, 2)});
  // A float64 grid for float32 X.
  auto y = testing::RunSingleOp(testing::ParseOp(Op("bilinear", "zeros", 0)),
                                {Image(), Make(DataType::kFloat64, {1, 1, 1, 2}, {0, 0})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({1, 1, 1, 1}, {2.5}), 0, 0));
}

TEST(GridSample, NaNPointGivesNaN) {
  for (const char* padding : {"zeros", "border", "reflection"}) {
    for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
      auto y = testing::RunSingleOp(testing::ParseOp(Op(mode, padding, 0)),
                                    {Image(), F32({1, 1, 2, 2}, {NAN, 0, -0.5, -0.5})});
      ASSERT_TRUE(y.ok()) << y.status();
      EXPECT_TRUE(std::isnan((*y)[0].data<float>()[0])) << mode << " " << padding;
      EXPECT_EQ((*y)[0].data<float>()[1], 1.0f) << mode << " " << padding;
    }
  }
}

TEST(GridSample, BadAttributesAndShapesAreErrors) {
  ExpectError(ParseOp(Op("linear", "zeros", 0)), {Image(), F32({1, 1, 1, 2}, {0, 0})},
              "attribute 'mode' must be bilinear, nearest or bicubic; found 'linear'");
  ExpectError(ParseOp(Op("bilinear", "mirror", 0)), {Image(), F32({1, 1, 1, 2}, {0, 0})},
              "attribute 'padding_mode' must be zeros, border or reflection; found 'mirror'");
  ExpectError(ParseOp(Op("bilinear", "zeros", 2)), {Image(), F32({1, 1, 1, 2}, {0, 0})},
              "attribute 'align_corners' must be 0 or 1; found 2");
  ExpectError(ParseOp(Op("bilinear", "zeros", 0)), {Image(), F32({1, 1, 1, 3}, {0, 0, 0})},
              "input 'grid' must be [N, H_out, W_out, 2]; found [1, 1, 1, 3]");
  ExpectError(ParseOp(Op("bilinear", "zeros", 0)), {Image(), F32({2, 1, 1, 2}, {0, 0, 0, 0})},
              "input 'grid' must have X's batch size 1 as its dim 0; found [2, 1, 1, 2]");
  ExpectError(ParseOp(Op("bilinear", "zeros", 0)),
              {F32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), F32({1, 1, 1, 2}, {0, 0})},
              "input 'X' must be 4-D [N, C, H_in, W_in]; found [2, 2, 2]");
}

}  // namespace
}  // namespace loom
