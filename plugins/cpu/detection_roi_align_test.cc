// RoiAlign-16 (detection_roi_align.cc) against hand-worked bins on the
// feature map X[y][x] = 10 y + x (4 x 4), which bilinear interpolation
// reproduces exactly inside the map, so a point's value is 10 y + x:
// avg and max, both coordinate transformation modes, fixed and adaptive
// sampling, the legacy 1-pixel minimum, points at and past the edges,
// batches and channels, the float dtypes; bad inputs name what is wrong.
#include <cmath>
#include <string>
#include <vector>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

std::vector<float> Ramp(float add = 0, float sign = 1) {
  std::vector<float> v;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) v.push_back(sign * (10.0f * y + x + add));
  return v;
}

Tensor Map1() { return F32({1, 1, 4, 4}, Ramp()); }

std::string Op(const std::string& mode, const std::string& ctm, int64_t out_h, int64_t out_w, int64_t ratio) {
  return R"(type: "RoiAlign" input: "x" input: "rois" input: "b" output: "y" arg { name: "mode" s: ")" + mode +
         R"(" } arg { name: "coordinate_transformation_mode" s: ")" + ctm + R"(" })" + IntArg("output_height", out_h) +
         IntArg("output_width", out_w) + IntArg("sampling_ratio", ratio);
}

Tensor Roi(const std::string& op, const Tensor& x, const Tensor& rois, std::vector<int64_t> batch) {
  return Run1(ParseOp(op), {x, rois, I64(std::move(batch))});
}

TEST(RoiAlign, AvgAndMaxBothModes) {
  // Region (x1, y1, x2, y2) = (0, 0, 2, 2), one bin, sampling_ratio 2.
  // output_half_pixel: no shift, points at 0.5 and 1.5 per axis -> values
  // 5.5, 6.5, 15.5, 16.5: avg 11, max 16.5.
  const Tensor rois = F32({1, 4}, {0, 0, 2, 2});
  EXPECT_TRUE(AllClose(Roi(Op("avg", "output_half_pixel", 1, 1, 2), Map1(), rois, {0}), F32({1, 1, 1, 1}, {11}),
                       1e-6, 1e-6));
  // Max of the interpolated values (ONNX Runtime's max of the weighted
  // corner pixels would give 0.25 * 22 = 5.5 here).
  EXPECT_TRUE(AllClose(Roi(Op("max", "output_half_pixel", 1, 1, 2), Map1(), rois, {0}), F32({1, 1, 1, 1}, {16.5}),
                       1e-6, 1e-6));
  // half_pixel shifts by -0.5: points at 0 and 1 -> values 0, 1, 10, 11:
  // avg 5.5, max 11.
  EXPECT_TRUE(AllClose(Roi(Op("avg", "half_pixel", 1, 1, 2), Map1(), rois, {0}), F32({1, 1, 1, 1}, {5.5}), 1e-6,
                       1e-6));
  EXPECT_TRUE(AllClose(Roi(Op("max", "half_pixel", 1, 1, 2), Map1(), rois, {0}), F32({1, 1, 1, 1}, {11}), 1e-6,
                       1e-6));
  // The defaults: mode avg, half_pixel (opset 16), 1 x 1 output, sampling
  // ratio 0: ceil(2 / 1) = 2 points per axis, as above -> 5.5.
  EXPECT_TRUE(AllClose(Roi(R"(type: "RoiAlign" input: "x" input: "rois" input: "b" output: "y")", Map1(), rois, {0}),
                       F32({1, 1, 1, 1}, {5.5}), 1e-6, 1e-6));
}

TEST(RoiAlign, BinsAdaptiveSamplingAndMinimumSize) {
  // (0, 0, 4, 2) into 2 x 2 bins, one point each, output_half_pixel: rows
  // at 0.5 and 1.5, columns at 1 and 3 -> [[6, 8], [16, 18]].
  EXPECT_TRUE(AllClose(Roi(Op("avg", "output_half_pixel", 2, 2, 1), Map1(), F32({1, 4}, {0, 0, 4, 2}), {0}),
                       F32({1, 1, 2, 2}, {6, 8, 16, 18}), 1e-6, 1e-6));
  // sampling_ratio 0 on (0, 0, 3, 3): ceil(3 / 1) = 3 points per axis at
  // 0.5, 1.5, 2.5, mean at the center (1.5, 1.5) -> 16.5; max at (2.5, 2.5) -> 27.5.
  EXPECT_TRUE(AllClose(Roi(Op("avg", "output_half_pixel", 1, 1, 0), Map1(), F32({1, 4}, {0, 0, 3, 3}), {0}),
                       F32({1, 1, 1, 1}, {16.5}), 1e-6, 1e-6));
  EXPECT_TRUE(AllClose(Roi(Op("max", "output_half_pixel", 1, 1, 0), Map1(), F32({1, 4}, {0, 0, 3, 3}), {0}),
                       F32({1, 1, 1, 1}, {27.5}), 1e-6, 1e-6));
  // A point region (1, 1, 1, 1): output_half_pixel makes it 1 x 1 pixel,
  // point at 1.5 -> 16.5; half_pixel keeps it a point at 0.5 -> 5.5.
  EXPECT_TRUE(AllClose(Roi(Op("avg", "output_half_pixel", 1, 1, 1), Map1(), F32({1, 4}, {1, 1, 1, 1}), {0}),
                       F32({1, 1, 1, 1}, {16.5}), 1e-6, 1e-6));
  EXPECT_TRUE(AllClose(Roi(Op("avg", "half_pixel", 1, 1, 1), Map1(), F32({1, 4}, {1, 1, 1, 1}), {0}),
                       F32({1, 1, 1, 1}, {5.5}), 1e-6, 1e-6));
  // spatial_scale 0.5 halves (0, 0, 4, 4) to (0, 0, 2, 2): 11 as in the first test.
  EXPECT_TRUE(AllClose(Roi(Op("avg", "output_half_pixel", 1, 1, 2) + FloatArg("spatial_scale", 0.5), Map1(),
                           F32({1, 4}, {0, 0, 4, 4}), {0}),
                       F32({1, 1, 1, 1}, {11}), 1e-6, 1e-6));
}

TEST(RoiAlign, PointsAtAndPastTheEdges) {
  // One point per region at the row 0.5 (output_half_pixel, rows 0..1):
  //   x 4.5..6.5 -> point 5.5 > W = 4: reads 0
  //   x 3..4 -> point 3.5 in (3, 4]: reads the last column 3 -> 5 + 3 = 8
  //   x -1.5..-0.5 -> point -1 exactly: clamped to 0 -> 5
  //   x -1.7..-0.7 -> point -1.2 < -1: reads 0
  const Tensor rois = F32({4, 4}, {4.5, 0, 6.5, 1, 3, 0, 4, 1, -1.5, 0, -0.5, 1, -1.7, 0, -0.7, 1});
  EXPECT_TRUE(AllClose(Roi(Op("avg", "output_half_pixel", 1, 1, 1), Map1(), rois, {0, 0, 0, 0}),
                       F32({4, 1, 1, 1}, {0, 8, 5, 0}), 1e-6, 1e-6));
  // Max includes a point outside as 0: on -X (values <= 0) the region
  // x 3..5 (sampling_ratio 0: points 3.5 and 4.5, the second outside) has
  // max(-(5 + 3), 0) = 0.
  EXPECT_TRUE(AllClose(Roi(Op("max", "output_half_pixel", 1, 1, 0), F32({1, 1, 4, 4}, Ramp(0, -1)),
                           F32({1, 4}, {3, 0, 5, 1}), {0}),
                       F32({1, 1, 1, 1}, {0}), 1e-6, 1e-6));
}

TEST(RoiAlign, BatchesChannelsAndDtypes) {
  // X[n][c] = (c ? -1 : 1) * (10 y + x + 100 n). Region (0, 0, 2, 2),
  // output_half_pixel, sampling_ratio 2: points (0.5|1.5, 0.5|1.5).
  // Region 0 on image 1: avg 111 and -111; max 116.5 and -105.5.
  // Region 1 on image 0: avg 11 and -11; max 16.5 and -5.5.
  std::vector<double> xv;
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 2; ++c)
      for (float v : Ramp(100.0f * n, c ? -1 : 1)) xv.push_back(v);
  for (DataType dt : kFloatTypes) {
    const Tensor x = Make(dt, {2, 2, 4, 4}, xv), rois = Make(dt, {2, 4}, {0, 0, 2, 2, 0, 0, 2, 2});
    // float16 and bfloat16 keep 3 and 2 significant digits of 111.
    const double tol = dt == DataType::kBFloat16 ? 1e-2 : Tol(dt);
    EXPECT_TRUE(AllClose(Roi(Op("avg", "output_half_pixel", 1, 1, 2), x, rois, {1, 0}),
                         Make(dt, {2, 2, 1, 1}, {111, -111, 11, -11}), tol, tol))
        << DataTypeName(dt);
    EXPECT_TRUE(AllClose(Roi(Op("max", "output_half_pixel", 1, 1, 2), x, rois, {1, 0}),
                         Make(dt, {2, 2, 1, 1}, {116.5, -105.5, 16.5, -5.5}), tol, tol))
        << DataTypeName(dt);
  }
}

TEST(RoiAlign, InferredShape) {
  // Y [num_rois, C, output_height, output_width].
  ExpectInferredShapes(ParseOp(Op("max", "half_pixel", 2, 3, 0)),
                       {RandomTensor(DataType::kFloat32, {2, 3, 5, 6}, 1), F32({2, 4}, {0, 0, 3, 3, 1, 1, 4, 2}),
                        I64({1, 0})});
}

TEST(RoiAlign, NonFiniteRegionGivesNaN) {
  const Tensor y = Roi(Op("avg", "half_pixel", 1, 2, 1), Map1(), F32({2, 4}, {0, 0, NAN, 2, 0, 0, 2, 2}), {0, 0});
  ASSERT_EQ(y.num_elements(), 4);
  EXPECT_TRUE(std::isnan(y.data<float>()[0]) && std::isnan(y.data<float>()[1]));
  // Region 1, half_pixel, 1 x 2 bins of one point: (0.5, 0) and (0.5, 1) -> 5, 6.
  EXPECT_FLOAT_EQ(y.data<float>()[2], 5);
  EXPECT_FLOAT_EQ(y.data<float>()[3], 6);
}

TEST(RoiAlign, BadInputsAndAttributesAreErrors) {
  const Tensor rois = F32({1, 4}, {0, 0, 2, 2});
  ExpectError(ParseOp(Op("avg", "half_pixel", 1, 1, 1)), {F32({2, 1, 4, 4}, std::vector<float>(32, 0)), rois, I64({2})},
              "batch_indices[0] = 2 is outside [0, 2)");
  ExpectError(ParseOp(Op("avg", "half_pixel", 1, 1, 1)), {Map1(), F32({1, 5}, {0, 0, 2, 2, 0}), I64({0})},
              "input 'rois' must be [num_rois, 4]; found [1, 5]");
  ExpectError(ParseOp(Op("avg", "half_pixel", 1, 1, 1)), {Map1(), rois, I64({0, 0})},
              "input 'batch_indices' must be [num_rois] = [1]; found [2]");
  ExpectError(ParseOp(Op("mean", "half_pixel", 1, 1, 1)), {Map1(), rois, I64({0})},
              "attribute 'mode' must be avg or max; found 'mean'");
  ExpectError(ParseOp(Op("avg", "align_corners", 1, 1, 1)), {Map1(), rois, I64({0})},
              "attribute 'coordinate_transformation_mode' must be half_pixel or output_half_pixel; found "
              "'align_corners'");
  ExpectError(ParseOp(Op("avg", "half_pixel", 0, 1, 1)), {Map1(), rois, I64({0})},
              "'output_height' and 'output_width' must be >= 1; found 0 and 1");
  ExpectError(ParseOp(Op("avg", "half_pixel", 1, 1, -1)), {Map1(), rois, I64({0})},
              "attribute 'sampling_ratio' must be in [0, 1048576]; found -1");
}

}  // namespace
}  // namespace loom
