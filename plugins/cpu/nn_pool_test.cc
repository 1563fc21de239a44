// MaxPool, AveragePool (oneDNN pooling), MaxPool's Indices, and the global
// pools against naive loops on random inputs.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/net.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

struct PoolCase {
  std::string name;
  bool max;  // MaxPool, else AveragePool
  Shape x;
  std::vector<int64_t> kernel, strides, pads, dilations;  // empty: attribute absent
  std::string auto_pad = "NOTSET";
  bool ceil_mode = false;
  bool count_include_pad = false;
};

// gtest prints a failing case by its name.
void PrintTo(const PoolCase& c, std::ostream* os) { *os << c.name; }

// Naive ONNX pooling, Y and (for MaxPool) the row-major flat index of each
// maximum. The averaging divisor counts the taps inside X
// (count_include_pad = 0) or inside X and its explicit padding (1); in
// ceil_mode the last window must start before the end padding.
void PoolRef(const PoolCase& c, const Tensor& x, Tensor* y, Tensor* indices) {
  const size_t n = c.x.size() - 2;
  const int64_t planes = c.x[0] * c.x[1];
  std::vector<int64_t> in(c.x.begin() + 2, c.x.end()), k = c.kernel;
  const std::vector<int64_t> s = OnesIfEmpty(c.strides, n), d = OnesIfEmpty(c.dilations, n);
  std::vector<int64_t> pb(n, 0), pe(n, 0), out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t ek = (k[i] - 1) * d[i] + 1;
    if (!SamePads(c.auto_pad, in[i], ek, s[i], &out[i], &pb[i], &pe[i])) {
      if (!c.pads.empty() && c.auto_pad == "NOTSET") {
        pb[i] = c.pads[i];
        pe[i] = c.pads[n + i];
      }
      const double span = static_cast<double>(in[i] + pb[i] + pe[i] - ek) / s[i];
      out[i] = static_cast<int64_t>(c.ceil_mode ? std::ceil(span) : std::floor(span)) + 1;
      if (c.ceil_mode && (out[i] - 1) * s[i] >= in[i] + pb[i]) --out[i];
    }
  }
  Shape ys = {c.x[0], c.x[1]};
  ys.insert(ys.end(), out.begin(), out.end());
  *y = Tensor::Zeros(DataType::kFloat32, ys);
  *indices = Tensor::Zeros(DataType::kInt64, ys);
  const auto in3 = To3(in, 1), k3 = To3(k, 1), s3 = To3(s, 1), d3 = To3(d, 1), pb3 = To3(pb, 0), pe3 = To3(pe, 0),
             out3 = To3(out, 1);
  const int64_t in_plane = in3[0] * in3[1] * in3[2];
  float* yp = y->data<float>();
  int64_t* ip = indices->data<int64_t>();
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t o0 = 0; o0 < out3[0]; ++o0) {
      for (int64_t o1 = 0; o1 < out3[1]; ++o1) {
        for (int64_t o2 = 0; o2 < out3[2]; ++o2) {
          double sum = 0, best = -std::numeric_limits<double>::infinity();
          int64_t inside = 0, padded = 0, best_at = -1;
          for (int64_t j0 = 0; j0 < k3[0]; ++j0) {
            for (int64_t j1 = 0; j1 < k3[1]; ++j1) {
              for (int64_t j2 = 0; j2 < k3[2]; ++j2) {
                const int64_t i[3] = {o0 * s3[0] - pb3[0] + j0 * d3[0], o1 * s3[1] - pb3[1] + j1 * d3[1],
                                      o2 * s3[2] - pb3[2] + j2 * d3[2]};
                bool in_x = true, in_padded = true;
                for (int a = 0; a < 3; ++a) {
                  in_x = in_x && i[a] >= 0 && i[a] < in3[a];
                  in_padded = in_padded && i[a] < in3[a] + pe3[a];
                }
                padded += in_padded;
                if (!in_x) continue;
                const int64_t at = (i[0] * in3[1] + i[1]) * in3[2] + i[2];
                const double v = x.ElementAsDouble(p * in_plane + at);
                ++inside;
                sum += v;
                if (v > best) {
                  best = v;
                  best_at = at;
                }
              }
            }
          }
          *yp++ = static_cast<float>(c.max ? best : sum / (c.count_include_pad ? padded : inside));
          *ip++ = p * in_plane + best_at;
        }
      }
    }
  }
}

OperatorDef PoolOp(const PoolCase& c, bool with_indices = false, int storage_order = 0) {
  std::string text = std::string("type: \"") + (c.max ? "MaxPool" : "AveragePool") + "\" name: \"pool\" input: \"X\" output: \"Y\" ";
  if (with_indices) text += "output: \"I\" arg { name: \"storage_order\" i: " + std::to_string(storage_order) + " } ";
  text += "arg { name: \"auto_pad\" s: \"" + c.auto_pad + "\" } ";
  text += IntsArg("kernel_shape", c.kernel) + IntsArg("strides", c.strides) + IntsArg("pads", c.pads) +
          IntsArg("dilations", c.dilations);
  if (c.ceil_mode) text += "arg { name: \"ceil_mode\" i: 1 } ";
  if (c.count_include_pad) text += "arg { name: \"count_include_pad\" i: 1 } ";
  return ParseOp(text);
}

class PoolTest : public ::testing::TestWithParam<PoolCase> {};

TEST_P(PoolTest, MatchesReference) {
  const PoolCase& c = GetParam();
  Tensor x = RandomTensor(DataType::kFloat32, c.x, 7, -2, 2), y, indices;
  PoolRef(c, x, &y, &indices);
  auto out = RunSingleOp(PoolOp(c), {x});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].dims(), y.dims());
  EXPECT_TRUE(AllClose((*out)[0], y, 1e-5, 1e-6));
  ExpectInferredShapes(PoolOp(c), {x});
}

// MaxPool's Indices output (a direct loop in the kernel) with both storage
// orders.
class MaxPoolIndicesTest : public ::testing::TestWithParam<PoolCase> {};

TEST_P(MaxPoolIndicesTest, MatchesReference) {
  const PoolCase& c = GetParam();
  Tensor x = RandomTensor(DataType::kFloat32, c.x, 8, -2, 2), y, indices;
  PoolRef(c, x, &y, &indices);
  for (int order = 0; order < 2; ++order) {
    auto out = RunSingleOp(PoolOp(c, true, order), {x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(AllClose((*out)[0], y, 1e-6, 0));
    Tensor expected = indices;
    if (order == 1) {
      // Column-major over the spatial dims: re-express each row-major index.
      const std::vector<int64_t> in(c.x.begin() + 2, c.x.end());
      int64_t plane = 1;
      for (int64_t v : in) plane *= v;
      expected = Tensor::Zeros(DataType::kInt64, indices.dims());
      for (int64_t e = 0; e < indices.num_elements(); ++e) {
        int64_t flat = indices.data<int64_t>()[e], rem = flat % plane, col = 0, stride = plane;
        for (size_t a = 0; a < in.size(); ++a) {  // row-major digits, outermost first
          stride /= in[a];
          const int64_t digit = rem / stride;
          rem %= stride;
          int64_t cstride = 1;
          for (size_t b = 0; b < a; ++b) cstride *= in[b];
          col += digit * cstride;
        }
        expected.data<int64_t>()[e] = flat - flat % plane + col;
      }
    }
    EXPECT_TRUE(AllClose((*out)[1], expected, 0, 0)) << "storage_order " << order;
  }
  ExpectInferredShapes(PoolOp(c, true), {x});
}

std::vector<PoolCase> AllCases() {
  return {
      PoolCase{"max2d", true, {2, 3, 7, 6}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      PoolCase{"max2d_ceil", true, {1, 2, 6, 7}, {3, 2}, {2, 2}, {}, {}, "NOTSET", true},
      PoolCase{"max2d_ceil_pads", true, {1, 2, 6, 6}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true},
      PoolCase{"max2d_dilation", true, {1, 2, 8, 9}, {2, 3}, {1, 2}, {}, {2, 2}},
      PoolCase{"max2d_same_upper", true, {1, 2, 7, 8}, {2, 3}, {1, 2}, {}, {}, "SAME_UPPER"},
      PoolCase{"max2d_same_lower", true, {1, 2, 7, 8}, {2, 3}, {1, 2}, {}, {}, "SAME_LOWER"},
      PoolCase{"max2d_asym_pads", true, {2, 2, 5, 6}, {2, 3}, {}, {1, 0, 0, 2}},
      PoolCase{"max1d", true, {2, 3, 11}, {3}, {2}, {1, 0}},
      PoolCase{"max3d", true, {1, 2, 5, 6, 4}, {2, 3, 2}, {1, 2, 2}, {1, 0, 1, 0, 1, 1}},
      PoolCase{"avg2d_exclude", false, {2, 3, 7, 6}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      PoolCase{"avg2d_include", false, {2, 3, 7, 6}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", false, true},
      PoolCase{"avg2d_ceil_exclude", false, {1, 2, 6, 6}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true, false},
      PoolCase{"avg2d_ceil_include", false, {1, 2, 6, 6}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true, true},
      PoolCase{"avg2d_ceil_no_pads", false, {1, 2, 5, 7}, {2, 3}, {2, 2}, {}, {}, "NOTSET", true, true},
      // ceil_mode would start a last window in the end padding: dropped.
      PoolCase{"avg2d_ceil_dropped_window", false, {1, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true, true},
      PoolCase{"max2d_ceil_dropped_window", true, {1, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true},
      PoolCase{"avg2d_same_upper_include", false, {1, 2, 7, 8}, {2, 3}, {1, 2}, {}, {}, "SAME_UPPER", false, true},
      PoolCase{"avg2d_same_lower", false, {1, 2, 7, 8}, {2, 3}, {1, 2}, {}, {}, "SAME_LOWER"},
      PoolCase{"avg2d_same_lower_include", false, {1, 2, 7, 8}, {2, 3}, {1, 2}, {}, {}, "SAME_LOWER", false, true},
      PoolCase{"avg2d_dilation", false, {1, 2, 9, 8}, {2, 2}, {2, 1}, {1, 1, 1, 1}, {2, 3}, "NOTSET", false, true},
      PoolCase{"avg2d_valid", false, {1, 2, 9, 8}, {3, 2}, {2, 2}, {}, {}, "VALID"},
      PoolCase{"avg1d_ceil_include", false, {2, 2, 10}, {4}, {3}, {2, 1}, {}, "NOTSET", true, true},
      // More channels than one oneDNN block (8), not a multiple of it: float
      // data is pooled on the channel-blocked layout.
      PoolCase{"max2d_19_channels", true, {2, 19, 9, 10}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      PoolCase{"avg2d_19_channels_ceil", false, {2, 19, 9, 10}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true, true},
      PoolCase{"max3d_11_channels", true, {1, 11, 4, 5, 6}, {2, 2, 2}, {2, 2, 2}},
      PoolCase{"avg3d", false, {1, 2, 5, 6, 4}, {2, 3, 2}, {1, 2, 2}, {1, 0, 1, 0, 1, 1}, {}, "NOTSET", true, true},
      PoolCase{"avg_larger", false, {4, 16, 32, 32}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, "NOTSET", true, true},
      PoolCase{"max_batch0", true, {0, 3, 5, 5}, {2, 2}}};
}

std::vector<PoolCase> MaxPoolCases() {
  std::vector<PoolCase> r;
  for (const PoolCase& c : AllCases()) {
    if (c.max) r.push_back(c);
  }
  return r;
}

std::string CaseName(const ::testing::TestParamInfo<PoolCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Cases, PoolTest, ::testing::ValuesIn(AllCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Cases, MaxPoolIndicesTest, ::testing::ValuesIn(MaxPoolCases()), CaseName);

TEST(PoolKnownTest, TwoByTwoWindows) {
  // 4x4 input 1..16, 2x2 windows with stride 2.
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i + 1);
  Tensor x = Tensor::FromVector<float>({1, 1, 4, 4}, v);
  const std::string attrs = IntsArg("kernel_shape", {2, 2}) + IntsArg("strides", {2, 2});
  auto mx = RunSingleOp(ParseOp("type: \"MaxPool\" input: \"X\" output: \"Y\" output: \"I\" " + attrs), {x});
  ASSERT_TRUE(mx.ok()) << mx.status();
  EXPECT_TRUE(AllClose((*mx)[0], Tensor::FromVector<float>({1, 1, 2, 2}, {6, 8, 14, 16})));
  EXPECT_TRUE(AllClose((*mx)[1], Tensor::FromVector<int64_t>({1, 1, 2, 2}, {5, 7, 13, 15})));
  auto avg = RunSingleOp(ParseOp("type: \"AveragePool\" input: \"X\" output: \"Y\" " + attrs), {x});
  ASSERT_TRUE(avg.ok()) << avg.status();
  EXPECT_TRUE(AllClose((*avg)[0], Tensor::FromVector<float>({1, 1, 2, 2}, {3.5f, 5.5f, 11.5f, 13.5f})));
  // 3x3 windows, pads 1, count_include_pad: the corner window holds 1, 2, 5, 6 and five pad zeros.
  auto inc = RunSingleOp(ParseOp("type: \"AveragePool\" input: \"X\" output: \"Y\" " + IntsArg("kernel_shape", {3, 3}) +
                                 IntsArg("pads", {1, 1, 1, 1}) + "arg { name: \"count_include_pad\" i: 1 }"),
                         {x});
  ASSERT_TRUE(inc.ok()) << inc.status();
  EXPECT_FLOAT_EQ((*inc)[0].data<float>()[0], 14.0f / 9.0f);
}

TEST(PoolKnownTest, MaxPoolInt8AndUint8) {
  const OperatorDef op = ParseOp("type: \"MaxPool\" input: \"X\" output: \"Y\" " + IntsArg("kernel_shape", {2}) +
                                 IntsArg("strides", {1}) + IntsArg("pads", {1, 1}));
  auto s8 = RunSingleOp(op, {Tensor::FromVector<int8_t>({1, 1, 4}, {-5, -100, 7, -128})});
  ASSERT_TRUE(s8.ok()) << s8.status();
  EXPECT_TRUE(AllClose((*s8)[0], Tensor::FromVector<int8_t>({1, 1, 5}, {-5, -5, 7, 7, -128})));
  auto u8 = RunSingleOp(op, {Tensor::FromVector<uint8_t>({1, 1, 4}, {5, 200, 7, 255})});
  ASSERT_TRUE(u8.ok()) << u8.status();
  EXPECT_TRUE(AllClose((*u8)[0], Tensor::FromVector<uint8_t>({1, 1, 5}, {5, 200, 200, 255, 255})));
}

// 2-D int8 / uint8 pooling (the int8 QDQ path's MaxPool, pooled
// channels-last by oneDNN's int8 kernel): the float32 MaxPool's result on
// the same values, exactly.
TEST(PoolKnownTest, MaxPool2dInt8IsTheFloatResult) {
  const OperatorDef op = ParseOp("type: \"MaxPool\" input: \"X\" output: \"Y\" " + IntsArg("kernel_shape", {3, 3}) +
                                 IntsArg("strides", {2, 2}) + IntsArg("pads", {1, 1, 1, 1}));
  const Shape xs = {2, 5, 9, 8};
  std::vector<uint8_t> u;
  std::vector<int8_t> s;
  std::vector<float> fu, fs;
  for (int64_t i = 0; i < 2 * 5 * 9 * 8; ++i) {
    u.push_back(static_cast<uint8_t>((i * 73 + 19) % 256));
    s.push_back(static_cast<int8_t>(u.back() - 128));
    fu.push_back(u.back());
    fs.push_back(s.back());
  }
  auto ref_u = RunSingleOp(op, {Tensor::FromVector<float>(xs, fu)});
  auto ref_s = RunSingleOp(op, {Tensor::FromVector<float>(xs, fs)});
  auto got_u = RunSingleOp(op, {Tensor::FromVector<uint8_t>(xs, u)});
  auto got_s = RunSingleOp(op, {Tensor::FromVector<int8_t>(xs, s)});
  ASSERT_TRUE(ref_u.ok() && ref_s.ok() && got_u.ok() && got_s.ok());
  const Tensor &ru = (*ref_u)[0], &rs = (*ref_s)[0], &gu = (*got_u)[0], &gs = (*got_s)[0];
  ASSERT_EQ(gu.dims(), (Shape{2, 5, 5, 4}));
  ASSERT_EQ(gs.dims(), gu.dims());
  for (int64_t i = 0; i < gu.num_elements(); ++i) {
    EXPECT_EQ(float{gu.data<uint8_t>()[i]}, ru.data<float>()[i]) << i;
    EXPECT_EQ(float{gs.data<int8_t>()[i]}, rs.data<float>()[i]) << i;
  }
}

// NhwcMaxPool (Loom's domain) is int8 MaxPool on channels-last tensors.
TEST(PoolKnownTest, NhwcMaxPoolIsMaxPoolChannelsLast) {
  const int64_t N = 2, C = 5, H = 9, W = 8;
  std::vector<uint8_t> x, xt(static_cast<size_t>(N * C * H * W));
  for (int64_t i = 0; i < N * C * H * W; ++i) x.push_back(static_cast<uint8_t>((i * 73 + 19) % 256));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) xt[((n * H + h) * W + w) * C + c] = x[((n * C + c) * H + h) * W + w];
  const std::string args = " input: \"X\" output: \"Y\" " + IntsArg("kernel_shape", {3, 3}) + IntsArg("strides", {2, 2}) +
                           IntsArg("pads", {1, 1, 1, 1});
  auto plain = RunSingleOp(ParseOp("type: \"MaxPool\"" + args), {Tensor::FromVector<uint8_t>({N, C, H, W}, x)});
  auto nhwc = RunSingleOp(ParseOp("type: \"NhwcMaxPool\" domain: \"loom\"" + args),
                          {Tensor::FromVector<uint8_t>({N, H, W, C}, xt)});
  ASSERT_TRUE(plain.ok() && nhwc.ok()) << plain.status() << nhwc.status();
  const Tensor &p = (*plain)[0], &t = (*nhwc)[0];
  ASSERT_EQ(t.dims(), (Shape{N, 5, 4, C}));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < 5; ++h)
        for (int64_t w = 0; w < 4; ++w)
          EXPECT_EQ(t.data<uint8_t>()[((n * 5 + h) * 4 + w) * C + c], p.data<uint8_t>()[((n * C + c) * 5 + h) * 4 + w]);
}

TEST(PoolErrorTest, BadInputsNameTheOp) {
  auto check = [](const std::string& text, const Shape& x, const std::string& part) {
    auto out = RunSingleOp(ParseOp(text), {RandomTensor(DataType::kFloat32, x, 1)});
    ASSERT_FALSE(out.ok()) << text;
    const std::string m(out.status().message());
    EXPECT_NE(m.find("Pool"), std::string::npos) << m;
    EXPECT_NE(m.find(part), std::string::npos) << m;
  };
  check("type: \"MaxPool\" input: \"X\" output: \"Y\"", {1, 2, 4, 4}, "kernel_shape");
  check("type: \"AveragePool\" input: \"X\" output: \"Y\" " + IntsArg("kernel_shape", {2, 2}), {4, 4}, "input X");
  check("type: \"AveragePool\" input: \"X\" output: \"Y\" " + IntsArg("kernel_shape", {2}), {1, 2, 4, 4}, "kernel_shape");
  check("type: \"MaxPool\" input: \"X\" output: \"Y\" " + IntsArg("kernel_shape", {2, 2}) + IntsArg("pads", {1, 1, 1}),
        {1, 2, 4, 4}, "pads");
  check("type: \"MaxPool\" input: \"X\" output: \"Y\" " + IntsArg("kernel_shape", {5, 2}), {1, 2, 4, 4},
        "smaller than the window");
  check("type: \"MaxPool\" input: \"X\" output: \"Y\" " + IntsArg("kernel_shape", {2, 2}) + IntsArg("strides", {0, 1}),
        {1, 2, 4, 4}, "strides");
}

// float64 (plain loops) pools what float32 (oneDNN) does: padding, strides,
// ceil_mode, count_include_pad.
TEST(PoolTest, Float64MatchesFloat32) {
  const Tensor x = RandomTensor(DataType::kFloat64, {2, 3, 7, 6}, 9);
  Tensor x32 = Tensor::Zeros(DataType::kFloat32, x.dims());
  for (int64_t i = 0; i < x.num_elements(); ++i) x32.data<float>()[i] = static_cast<float>(x.data<double>()[i]);
  const std::string window = IntsArg("kernel_shape", {3, 2}) + IntsArg("strides", {2, 2}) + IntsArg("pads", {1, 0, 1, 1}) +
                             " arg { name: \"ceil_mode\" i: 1 }";
  for (const std::string& op : {"type: \"MaxPool\" input: \"X\" output: \"Y\" " + window,
                                "type: \"AveragePool\" input: \"X\" output: \"Y\" " + window,
                                "type: \"AveragePool\" input: \"X\" output: \"Y\" arg { name: \"count_include_pad\" i: 1 } " + window}) {
    auto y64 = RunSingleOp(ParseOp(op), {x});
    auto y32 = RunSingleOp(ParseOp(op), {x32});
    ASSERT_TRUE(y64.ok() && y32.ok()) << op << ": " << y64.status() << " " << y32.status();
    ASSERT_EQ((*y64)[0].dims(), (*y32)[0].dims()) << op;
    for (int64_t i = 0; i < (*y32)[0].num_elements(); ++i) {
      EXPECT_NEAR((*y64)[0].data<double>()[i], (*y32)[0].data<float>()[i], 1e-5) << op << " at " << i;
    }
  }
}

// Global pools: mean / max over all spatial dims.
TEST(GlobalPoolTest, MatchesReference) {
  for (const Shape& xs : {Shape{2, 3, 4, 5}, Shape{2, 3, 7}, Shape{1, 2, 3, 2, 4}, Shape{3, 4}, Shape{0, 3, 2, 2},
                          Shape{2, 64, 56, 56}}) {
    Tensor x = RandomTensor(DataType::kFloat32, xs, 3, -3, 3);
    Shape ys(xs.size(), 1);
    ys[0] = xs[0];
    ys[1] = xs[1];
    Tensor avg = Tensor::Zeros(DataType::kFloat32, ys), mx = Tensor::Zeros(DataType::kFloat32, ys);
    const int64_t planes = xs[0] * xs[1], size = planes ? x.num_elements() / planes : 0;
    for (int64_t p = 0; p < planes; ++p) {
      double sum = 0, best = -INFINITY;
      for (int64_t i = 0; i < size; ++i) {
        sum += x.data<float>()[p * size + i];
        best = std::max<double>(best, x.data<float>()[p * size + i]);
      }
      avg.data<float>()[p] = static_cast<float>(sum / size);
      mx.data<float>()[p] = static_cast<float>(best);
    }
    auto a = RunSingleOp(ParseOp("type: \"GlobalAveragePool\" input: \"X\" output: \"Y\""), {x});
    auto m = RunSingleOp(ParseOp("type: \"GlobalMaxPool\" input: \"X\" output: \"Y\""), {x});
    ASSERT_TRUE(a.ok() && m.ok()) << ShapeToString(xs);
    ExpectInferredShapes(ParseOp("type: \"GlobalAveragePool\" input: \"X\" output: \"Y\""), {x});
    EXPECT_TRUE(AllClose((*a)[0], avg, 1e-5, 1e-6)) << ShapeToString(xs);
    EXPECT_TRUE(AllClose((*m)[0], mx, 0, 0)) << ShapeToString(xs);
  }
  // Known values, and an error for a rank-1 input.
  auto a = RunSingleOp(ParseOp("type: \"GlobalAveragePool\" input: \"X\" output: \"Y\""),
                       {Tensor::FromVector<float>({1, 2, 2}, {1, 2, 3, 5})});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(AllClose((*a)[0], Tensor::FromVector<float>({1, 2, 1}, {1.5f, 4.0f})));
  auto bad = RunSingleOp(ParseOp("type: \"GlobalMaxPool\" input: \"X\" output: \"Y\""), {RandomTensor(DataType::kFloat32, {5}, 1)});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("GlobalMaxPool"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace loom
