// Resize and Upsample against naive references on random inputs: Resize as
// a direct, non-separable sum over the product of per-axis taps chosen the
// way ONNX's reference does (the n nearest indices of the edge-padded axis).
// Known values from the ONNX operator docs, dtypes, zero-size dims and
// error cases.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/net.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// Runs `op` with its inputs as workspace blobs that are not external
// inputs (constants at planning, like initializers) and expects the schema's
// inferred output shape to be the produced one.
void ExpectInferredWithConstants(const OperatorDef& op, const std::vector<Tensor>& inputs) {
  Workspace ws;
  NetDef net;
  net.set_name("constant_inputs");
  *net.add_op() = op;
  for (int i = 0; i < op.input_size(); ++i) {
    if (!op.input(i).empty()) ws.SetBlob(op.input(i), inputs[i]);
  }
  net.add_external_output(op.output(0));
  auto n = Net::Create(net, &ws, testing::CpuRegistry());
  ASSERT_TRUE(n.ok()) << n.status();
  ASSERT_TRUE((*n)->Run().ok());
  const PlanStep& step = (*n)->last_plan()->steps()[0];
  ASSERT_TRUE(step.inferred_shapes[0].has_value()) << op.ShortDebugString() << ": no inferred shape";
  EXPECT_EQ(*step.inferred_shapes[0], ws.GetBlob(op.output(0))->dims()) << op.ShortDebugString();
}

// ---------------------------------------------------------------- Resize

struct ResizeCfg {
  std::string mode = "nearest", ctm = "half_pixel", nearest_mode = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
};

// One axis of ONNX's reference interpolate_1d_with_x: the taps (clamped
// source indices, weights) of output index x, or false for extrapolation.
bool RefTaps(const ResizeCfg& c, int64_t in, double scale, double out_width, double roi0, double roi1, int64_t x,
             std::vector<std::pair<int64_t, double>>* taps) {
  double xo;
  if (c.ctm == "align_corners") {
    xo = out_width == 1 ? 0 : x * (in - 1) / (out_width - 1);
  } else if (c.ctm == "asymmetric") {
    xo = x / scale;
  } else if (c.ctm == "tf_crop_and_resize") {
    xo = (out_width == 1 ? (roi1 - roi0) * (in - 1) / 2 : x * (roi1 - roi0) * (in - 1) / (out_width - 1)) +
         roi0 * (in - 1);
    if (xo < 0 || xo > in - 1) return false;
  } else if (c.ctm == "pytorch_half_pixel") {
    xo = out_width == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  } else if (c.ctm == "tf_half_pixel_for_nn") {
    xo = (x + 0.5) / scale;
  } else {
    xo = (x + 0.5) / scale - 0.5;
  }
  const double ratio = xo == std::floor(xo) ? 1.0 : xo - std::floor(xo);
  std::vector<double> coeffs;
  if (c.mode == "nearest") {
    if (ratio == 1.0) {
      coeffs = {0, 1};
    } else if (c.nearest_mode == "round_prefer_floor") {
      coeffs = {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0};
    } else if (c.nearest_mode == "round_prefer_ceil") {
      coeffs = {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
    } else if (c.nearest_mode == "floor") {
      coeffs = {1, 0};
    } else {
      coeffs = {0, 1};
    }
  } else if (c.mode == "linear") {
    coeffs = {1 - ratio, ratio};
  } else {
    const double A = c.cubic_a, r = ratio;
    coeffs = {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
              ((A + 2) * r - (A + 3)) * r * r + 1,
              ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1,
              ((A * ((1 - r) + 1) - 5 * A) * ((1 - r) + 1) + 8 * A) * ((1 - r) + 1) - 4 * A};
  }
  // The n nearest indices of the edge-padded axis, ties to the smaller.
  const int64_t n = coeffs.size(), pad = (n + 1) / 2;
  std::vector<int64_t> cand;
  for (int64_t i = -pad; i < in + pad; ++i) cand.push_back(i);
  std::stable_sort(cand.begin(), cand.end(), [&](int64_t a, int64_t b) { return std::abs(xo - a) < std::abs(xo - b); });
  cand.resize(n);
  std::sort(cand.begin(), cand.end());
  if (c.exclude_outside) {
    double sum = 0;
    for (int64_t t = 0; t < n; ++t) {
      if (cand[t] < 0 || cand[t] >= in) coeffs[t] = 0;
      sum += coeffs[t];
    }
    for (double& v : coeffs) v /= sum;
  }
  taps->clear();
  for (int64_t t = 0; t < n; ++t) taps->push_back({std::min(std::max<int64_t>(cand[t], 0), in - 1), coeffs[t]});
  return true;
}

// Resize by the definition: every output element is the sum over the
// product of its per-axis taps. `scales` or `sizes` (one empty).
Tensor NaiveResize(const ResizeCfg& c, const Tensor& x, const std::vector<float>& scales,
                   const std::vector<int64_t>& sizes, const std::vector<float>& roi = {}) {
  const Shape xs = x.dims();
  const size_t r = xs.size();
  Shape ys(r);
  std::vector<double> sc(r), width(r);
  for (size_t k = 0; k < r; ++k) {
    if (sizes.empty()) {
      sc[k] = scales[k];
      const double extent = c.ctm == "tf_crop_and_resize" ? roi[r + k] - roi[k] : 1.0;
      ys[k] = static_cast<int64_t>(std::floor(xs[k] * extent * sc[k]));
      width[k] = c.ctm == "tf_crop_and_resize" ? xs[k] * extent * sc[k] : xs[k] * sc[k];
    } else {
      ys[k] = sizes[k];
      sc[k] = static_cast<double>(sizes[k]) / xs[k];
      width[k] = sizes[k];
    }
  }
  Tensor y = Tensor::Zeros(x.dtype(), ys);
  std::vector<std::vector<std::pair<int64_t, double>>> taps(r);
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    const Shape yi = Unravel(i, ys);
    bool extrap = false;
    for (size_t k = 0; k < r; ++k) {
      const double r0 = roi.empty() ? 0 : roi[k], r1 = roi.empty() ? 1 : roi[r + k];
      if (!RefTaps(c, xs[k], sc[k], width[k], r0, r1, yi[k], &taps[k])) extrap = true;
    }
    double v = c.extrapolation;
    if (!extrap) {
      v = 0;
      int64_t combos = 1;
      for (auto& t : taps) combos *= t.size();
      for (int64_t m = 0; m < combos; ++m) {
        int64_t rem = m, flat = 0;
        double wgt = 1;
        for (size_t k = 0; k < r; ++k) {
          const auto& tp = taps[k][rem % taps[k].size()];
          rem /= taps[k].size();
          flat = flat * xs[k] + tp.first;
          wgt *= tp.second;
        }
        if (wgt != 0) v += wgt * x.ElementAsDouble(flat);
      }
    }
    if (x.dtype() == DataType::kFloat32) {
      y.data<float>()[i] = static_cast<float>(v);
    } else if (x.dtype() == DataType::kFloat64) {
      y.data<double>()[i] = v;
    } else if (x.dtype() == DataType::kUInt8) {
      y.data<uint8_t>()[i] = static_cast<uint8_t>(std::min(255.0, std::max(0.0, std::nearbyint(v))));
    } else if (x.dtype() == DataType::kInt64) {
      y.data<int64_t>()[i] = static_cast<int64_t>(std::nearbyint(v));
    }
  }
  return y;
}

std::string ResizeText(const ResizeCfg& c) {
  std::string t = R"(type: "Resize" input: "x" input: "roi" input: "scales" input: "sizes" output: "y" )";
  t += "arg { name: \"mode\" s: \"" + c.mode + "\" } ";
  t += "arg { name: \"coordinate_transformation_mode\" s: \"" + c.ctm + "\" } ";
  t += "arg { name: \"nearest_mode\" s: \"" + c.nearest_mode + "\" } ";
  t += "arg { name: \"cubic_coeff_a\" f: " + std::to_string(c.cubic_a) + " } ";
  t += "arg { name: \"exclude_outside\" i: " + std::to_string(c.exclude_outside ? 1 : 0) + " } ";
  t += "arg { name: \"extrapolation_value\" f: " + std::to_string(c.extrapolation) + " } ";
  return t;
}

Tensor Empty() { return Tensor::Zeros(DataType::kFloat32, {0}); }
Tensor Floats(std::vector<float> v) { return F32({static_cast<int64_t>(v.size())}, v); }

TEST(Resize, MatchesNaiveEveryModeAndTransform) {
  const std::vector<std::string> modes = {"nearest", "linear", "cubic"};
  const std::vector<std::string> ctms = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                                         "tf_half_pixel_for_nn"};
  const std::vector<std::string> nmodes = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  struct Geo { Shape x; std::vector<float> scales; std::vector<int64_t> sizes; };
  const std::vector<Geo> geos = {
      {{1, 2, 4, 5}, {1, 1, 2.0f, 1.5f}, {}},   // upsample by scales
      {{1, 1, 6, 7}, {1, 1, 0.6f, 0.5f}, {}},   // downsample by scales
      {{2, 3, 5}, {}, {2, 3, 8}},               // sizes, 3-D, last axis only
      {{1, 1, 4, 4}, {}, {1, 1, 3, 1}},         // sizes down to 1
      {{3, 4}, {}, {7, 2}},                     // rank 2, both axes
      // Channels-last (the last axis kept whole: rows of the last two axes).
      {{1, 4, 5, 3}, {1, 2.0f, 1.5f, 1}, {}},
      {{1, 6, 7, 2}, {1, 0.6f, 0.5f, 1}, {}},
      {{2, 5, 3}, {}, {3, 8, 3}},
  };
  uint32_t seed = 10;
  for (const std::string& mode : modes) {
    for (const std::string& ctm : ctms) {
      for (size_t ni = 0; ni < (mode == "nearest" ? nmodes.size() : 1); ++ni) {
        for (int ex = 0; ex < (mode == "cubic" ? 2 : 1); ++ex) {
          ResizeCfg c;
          c.mode = mode;
          c.ctm = ctm;
          c.nearest_mode = nmodes[ni];
          c.exclude_outside = ex != 0;
          if (ex) c.cubic_a = -0.5;
          for (const Geo& g : geos) {
            Tensor x = RandomTensor(DataType::kFloat32, g.x, seed++);
            Tensor y = Run1(ParseOp(ResizeText(c)),
                            {x, Empty(), g.scales.empty() ? Empty() : Floats(g.scales),
                             g.sizes.empty() ? I64({}) : I64(g.sizes)});
            EXPECT_TRUE(AllClose(y, NaiveResize(c, x, g.scales, g.sizes), 1e-5, 1e-5)) << ResizeText(c);
          }
        }
      }
    }
  }
}

TEST(Resize, TfCropAndResizeMatchesNaive) {
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    ResizeCfg c;
    c.mode = mode;
    c.ctm = "tf_crop_and_resize";
    c.extrapolation = 10;
    const std::vector<float> roi = {0, 0, 0.4f, -0.2f, 1, 1, 1.3f, 0.7f};  // partly outside X
    Tensor x = RandomTensor(DataType::kFloat32, {1, 2, 4, 5}, 7);
    Tensor y = Run1(ParseOp(ResizeText(c)), {x, Floats(roi), Empty(), I64({1, 2, 3, 6})});
    EXPECT_TRUE(AllClose(y, NaiveResize(c, x, {}, {1, 2, 3, 6}, roi), 1e-5, 1e-5)) << mode;
    // By scales the output is floor(D * (end - start) * scale).
    Tensor y2 = Run1(ParseOp(ResizeText(c)), {x, Floats(roi), Floats({1, 1, 2, 2}), I64({})});
    EXPECT_TRUE(AllClose(y2, NaiveResize(c, x, {1, 1, 2, 2}, {}, roi), 1e-5, 1e-5)) << mode;
  }
}

TEST(Resize, IntegerDtypesAndNearestExactness) {
  ResizeCfg c;
  Tensor x = RandomTensor(DataType::kUInt8, {1, 3, 4, 4}, 3, 0, 255);
  Tensor y = Run1(ParseOp(ResizeText(c)), {x, Empty(), Floats({1, 1, 1.5f, 0.75f}), I64({})});
  EXPECT_TRUE(AllClose(y, NaiveResize(c, x, {1, 1, 1.5f, 0.75f}, {}), 0, 0));
  c.mode = "linear";
  Tensor y2 = Run1(ParseOp(ResizeText(c)), {x, Empty(), Empty(), I64({1, 3, 7, 3})});
  EXPECT_TRUE(AllClose(y2, NaiveResize(c, x, {}, {1, 3, 7, 3}), 0, 1.0));  // rounding of .5 may differ
  c.mode = "cubic";
  Tensor xd = RandomTensor(DataType::kFloat64, {2, 5, 3}, 4);
  Tensor yd = Run1(ParseOp(ResizeText(c)), {xd, Empty(), Floats({1, 1.7f, 2}), I64({})});
  EXPECT_TRUE(AllClose(yd, NaiveResize(c, xd, {1, 1.7f, 2}, {}), 1e-12, 1e-12));
  // int64 values beyond double's 53-bit mantissa survive nearest exactly.
  const int64_t big = (int64_t{1} << 60) + 1;
  Tensor xi = Tensor::FromVector<int64_t>({2}, {big, -big});
  Tensor yi = Run1(ParseOp(R"(type: "Resize" input: "x" input: "" input: "s" output: "y")"), {xi, Tensor(), Floats({2})});
  ASSERT_EQ(yi.dims(), Shape({4}));
  EXPECT_EQ(yi.data<int64_t>()[0], big);
  EXPECT_EQ(yi.data<int64_t>()[3], -big);
}

// Values from ONNX's Resize doc / backend test cases.
TEST(Resize, KnownValues) {
  const Tensor x22 = F32({1, 1, 2, 2}, {1, 2, 3, 4});
  // test_resize_upsample_scales_nearest: scales [1, 1, 2, 3].
  Tensor y = Run1(ParseOp(R"(type: "Resize" input: "x" input: "" input: "s" output: "y")"),
                  {x22, Tensor(), Floats({1, 1, 2, 3})});
  EXPECT_TRUE(AllClose(y, F32({1, 1, 4, 6}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4})));
  // Shape inference from the scales / sizes values.
  ExpectInferredWithConstants(ParseOp(R"(type: "Resize" input: "x" input: "" input: "s" output: "y")"),
                              {x22, Tensor(), Floats({1, 1, 2, 1.5f})});
  ExpectInferredWithConstants(ParseOp(ResizeText(ResizeCfg())), {x22, Empty(), Empty(), I64({1, 2, 3, 1})});
  ExpectInferredWithConstants(ParseOp(R"(type: "Resize" input: "x" input: "s" output: "y")"),
                              {x22, Floats({1, 1, 0.6f, 2})});
  ExpectInferredWithConstants(ParseOp(R"(type: "Upsample" input: "x" input: "s" output: "y")"),
                              {x22, Floats({1, 2, 2, 3})});
  // test_resize_downsample_scales_linear_align_corners: X 2x4 of 1..8, scales 0.6.
  Tensor x24 = F32({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  ResizeCfg c;
  c.mode = "linear";
  c.ctm = "align_corners";
  Tensor y2 = Run1(ParseOp(ResizeText(c)), {x24, Empty(), Floats({1, 1, 0.6f, 0.6f}), I64({})});
  EXPECT_TRUE(AllClose(y2, F32({1, 1, 1, 2}, {1, 3.142857f}), 1e-5, 1e-5));
  // test_resize_downsample_scales_linear (half_pixel): [2.6666665, 4.3333331].
  c.ctm = "half_pixel";
  Tensor y3 = Run1(ParseOp(ResizeText(c)), {x24, Empty(), Floats({1, 1, 0.6f, 0.6f}), I64({})});
  EXPECT_TRUE(AllClose(y3, F32({1, 1, 1, 2}, {2.6666665f, 4.3333331f}), 1e-5, 1e-5));
  // Resize-10 form Resize(X, scales), nearest asymmetric upsample of [1, 2].
  Tensor y4 = Run1(ParseOp(R"(type: "Resize" input: "x" input: "s" output: "y"
                              arg { name: "coordinate_transformation_mode" s: "asymmetric" }
                              arg { name: "nearest_mode" s: "floor" })"),
                   {F32({2}, {1, 2}), Floats({2})});
  EXPECT_TRUE(AllClose(y4, F32({4}, {1, 1, 2, 2})));
  // Nearest rounding modes on a 4 -> 8 half_pixel upsample: x_ori = j/2 - 0.25.
  const Tensor x4 = F32({4}, {10, 20, 30, 40});
  const std::vector<std::pair<std::string, std::vector<float>>> want = {
      {"round_prefer_floor", {10, 10, 20, 20, 30, 30, 40, 40}},
      {"round_prefer_ceil", {10, 10, 20, 20, 30, 30, 40, 40}},
      {"floor", {10, 10, 10, 20, 20, 30, 30, 40}},
      {"ceil", {10, 20, 20, 30, 30, 40, 40, 40}}};
  for (const auto& w : want) {
    ResizeCfg m;
    m.nearest_mode = w.first;
    Tensor ym = Run1(ParseOp(ResizeText(m)), {x4, Empty(), Empty(), I64({8})});
    EXPECT_TRUE(AllClose(ym, F32({8}, w.second))) << w.first;
  }
  // Ties: asymmetric 2 -> 4 gives x_ori = j / 2, so j = 1 and 3 sit at .5.
  for (const auto& w : std::vector<std::pair<std::string, std::vector<float>>>{
           {"round_prefer_floor", {10, 10, 20, 20}}, {"round_prefer_ceil", {10, 20, 20, 20}}}) {
    ResizeCfg m;
    m.ctm = "asymmetric";
    m.nearest_mode = w.first;
    Tensor ym = Run1(ParseOp(ResizeText(m)), {F32({2}, {10, 20}), Empty(), Empty(), I64({4})});
    EXPECT_TRUE(AllClose(ym, F32({4}, w.second))) << w.first;
  }
}

TEST(Resize, ZeroSizeAndErrors) {
  ResizeCfg c;
  const OperatorDef op = ParseOp(ResizeText(c));
  Tensor y = Run1(op, {Tensor::Zeros(DataType::kFloat32, {0, 3}), Empty(), Floats({2, 2}), I64({})});
  EXPECT_EQ(y.dims(), Shape({0, 6}));
  Tensor x = RandomTensor(DataType::kFloat32, {2, 3}, 1);
  ExpectError(op, {x, Empty(), Floats({2, 2}), I64({4, 6})}, "exactly one of scales and sizes");
  ExpectError(op, {x, Empty(), Empty(), I64({})}, "exactly one of scales and sizes");
  ExpectError(op, {x, Empty(), Floats({2, 2, 2}), I64({})}, "2 values");
  ExpectError(op, {x, Empty(), Floats({2, -1}), I64({})}, "> 0");
  ExpectError(op, {x, Empty(), Empty(), I64({4, -6})}, ">= 0");
  ExpectError(op, {Tensor::Zeros(DataType::kFloat32, {0, 3}), Empty(), Empty(), I64({2, 3})}, "empty X");
  ResizeCfg crop;
  crop.ctm = "tf_crop_and_resize";
  ExpectError(ParseOp(ResizeText(crop)), {x, Floats({0, 1}), Empty(), I64({2, 2})}, "roi");
  ResizeCfg bad;
  bad.nearest_mode = "nearestest";
  ExpectError(ParseOp(ResizeText(bad)), {x, Empty(), Floats({2, 2}), I64({})}, "nearest_mode");
  bad = ResizeCfg();
  bad.ctm = "sideways";
  ExpectError(ParseOp(ResizeText(bad)), {x, Empty(), Floats({2, 2}), I64({})}, "coordinate_transformation_mode");
  bad = ResizeCfg();
  bad.mode = "area";
  ExpectError(ParseOp(ResizeText(bad)), {x, Empty(), Floats({2, 2}), I64({})}, "mode");
}

// ---------------------------------------------------------------- Upsample

TEST(Upsample, KnownValuesAndReference) {
  // ONNX's Upsample doc: nearest, scales [1, 1, 2, 3].
  const Tensor x22 = F32({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor y = Run1(ParseOp(R"(type: "Upsample" input: "x" input: "s" output: "y")"), {x22, Floats({1, 1, 2, 3})});
  EXPECT_TRUE(AllClose(y, F32({1, 1, 4, 6}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4})));
  // Upsample-7 doc: linear, scales [1, 1, 2, 4] (asymmetric coordinates).
  Tensor y2 = Run1(ParseOp(R"(type: "Upsample" input: "x" output: "y" arg { name: "mode" s: "linear" }
                              arg { name: "scales" floats: 1 floats: 1 floats: 2 floats: 4 })"),
                   {x22});
  EXPECT_TRUE(AllClose(y2, F32({1, 1, 4, 8}, {1, 1.25, 1.5, 1.75, 2, 2, 2, 2, 2, 2.25, 2.5, 2.75, 3, 3, 3, 3,
                                              3, 3.25, 3.5, 3.75, 4, 4, 4, 4, 3, 3.25, 3.5, 3.75, 4, 4, 4, 4})));
  // Random: linear equals Resize's asymmetric linear; bool nearest repeats.
  ResizeCfg c;
  c.mode = "linear";
  c.ctm = "asymmetric";
  Tensor x = RandomTensor(DataType::kFloat32, {2, 3, 4}, 5);
  Tensor y3 = Run1(ParseOp(R"(type: "Upsample" input: "x" input: "s" output: "y" arg { name: "mode" s: "linear" })"),
                   {x, Floats({1, 2.5f, 1.5f})});
  EXPECT_TRUE(AllClose(y3, NaiveResize(c, x, {1, 2.5f, 1.5f}, {}), 1e-5, 1e-6));
  Tensor xb = Tensor::FromVector<bool>({2}, {true, false});
  Tensor yb = Run1(ParseOp(R"(type: "Upsample" input: "x" input: "s" output: "y")"), {xb, Floats({2})});
  ASSERT_EQ(yb.dims(), Shape({4}));
  EXPECT_TRUE(yb.data<bool>()[1] && !yb.data<bool>()[2]);
  ExpectError(ParseOp(R"(type: "Upsample" input: "x" input: "s" output: "y" arg { name: "mode" s: "cubic" })"),
              {x, Floats({1, 2, 2})}, "mode");
  ExpectError(ParseOp(R"(type: "Upsample" input: "x" input: "s" output: "y")"), {x, Floats({1, 2})}, "3 values");
}

TEST(Upsample, InfiniteScalesAreErrors) {
  // inf has no output dim: from the Upsample-7 attribute (shape inference),
  // the scales input (the kernel) and Resize's scales input; 0 * inf is NaN.
  const Tensor x = RandomTensor(DataType::kFloat32, {2, 3}, 5);
  ExpectError(ParseOp(R"(type: "Upsample" input: "x" output: "y" arg { name: "scales" floats: [1, inf] })"), {x},
              {"Upsample", "attribute 'scales'", "finite", "inf"});
  ExpectError(ParseOp(R"(type: "Upsample" input: "x" input: "s" output: "y")"), {x, Floats({INFINITY, 1})},
              {"Upsample", "scales", "finite", "inf", "axis 0"});
  ExpectError(ParseOp(R"(type: "Upsample" input: "x" input: "s" output: "y")"),
              {Tensor::Zeros(DataType::kFloat32, {0, 3}), Floats({INFINITY, 1})}, {"Upsample", "scales", "inf"});
  ResizeCfg c;
  ExpectError(ParseOp(ResizeText(c)), {x, Empty(), Floats({2, INFINITY}), I64({})},
              {"Resize", "scales", "finite", "inf", "axis 1"});
  // 1e30 * 3 is finite but past int64.
  ExpectError(ParseOp(ResizeText(c)), {x, Empty(), Floats({1, 1e30f}), I64({})}, {"Resize", "scales", "2^63"});
}

}  // namespace
}  // namespace loom
