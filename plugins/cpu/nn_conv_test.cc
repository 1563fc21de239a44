// Conv (oneDNN convolution) against a naive loop on random inputs.
#include <string>
#include <vector>

#include "core/net.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

struct ConvCase {
  std::string name;
  Shape x, w;
  int64_t group = 1;
  std::vector<int64_t> strides, dilations, pads;  // empty: attribute absent
  std::string auto_pad = "NOTSET";
  bool bias = true;
  bool kernel_shape_attr = false;
};

// gtest prints a failing case by its name.
void PrintTo(const ConvCase& c, std::ostream* os) { *os << c.name; }

// Naive ONNX Conv: output size and padding computed from the attributes
// here, then a direct sum over the window of each output.
Tensor ConvRef(const ConvCase& c, const Tensor& x, const Tensor& w, const Tensor& b) {
  const size_t n = c.x.size() - 2;
  const int64_t N = c.x[0], C = c.x[1], M = c.w[0], G = c.group, Cg = C / G, Mg = M / G;
  std::vector<int64_t> in(c.x.begin() + 2, c.x.end()), k(c.w.begin() + 2, c.w.end());
  const std::vector<int64_t> s = OnesIfEmpty(c.strides, n), d = OnesIfEmpty(c.dilations, n);
  std::vector<int64_t> pb(n, 0), pe(n, 0), out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t ek = (k[i] - 1) * d[i] + 1;
    if (SamePads(c.auto_pad, in[i], ek, s[i], &out[i], &pb[i], &pe[i])) continue;
    if (c.auto_pad == "VALID") {
      out[i] = (in[i] - ek) / s[i] + 1;
    } else {
      const int64_t b0 = c.pads.empty() ? 0 : c.pads[i], e0 = c.pads.empty() ? 0 : c.pads[n + i];
      pb[i] = b0;
      out[i] = (in[i] + b0 + e0 - ek) / s[i] + 1;
    }
  }
  Shape ys = {N, M};
  ys.insert(ys.end(), out.begin(), out.end());
  Tensor y = Tensor::Zeros(DataType::kFloat32, ys);
  const auto in3 = To3(in, 1), k3 = To3(k, 1), s3 = To3(s, 1), d3 = To3(d, 1), pb3 = To3(pb, 0), out3 = To3(out, 1);
  const float* xp = x.data<float>();
  const float* wp = w.data<float>();
  float* yp = y.data<float>();
  for (int64_t nn = 0; nn < N; ++nn) {
    for (int64_t m = 0; m < M; ++m) {
      const int64_t g = m / Mg;
      for (int64_t o0 = 0; o0 < out3[0]; ++o0) {
        for (int64_t o1 = 0; o1 < out3[1]; ++o1) {
          for (int64_t o2 = 0; o2 < out3[2]; ++o2) {
            double acc = c.bias ? b.data<float>()[m] : 0.0;
            for (int64_t ci = 0; ci < Cg; ++ci) {
              for (int64_t j0 = 0; j0 < k3[0]; ++j0) {
                for (int64_t j1 = 0; j1 < k3[1]; ++j1) {
                  for (int64_t j2 = 0; j2 < k3[2]; ++j2) {
                    const int64_t i0 = o0 * s3[0] - pb3[0] + j0 * d3[0], i1 = o1 * s3[1] - pb3[1] + j1 * d3[1],
                                  i2 = o2 * s3[2] - pb3[2] + j2 * d3[2];
                    if (i0 < 0 || i0 >= in3[0] || i1 < 0 || i1 >= in3[1] || i2 < 0 || i2 >= in3[2]) continue;
                    const int64_t xi = (((nn * C + g * Cg + ci) * in3[0] + i0) * in3[1] + i1) * in3[2] + i2;
                    const int64_t wi = (((m * Cg + ci) * k3[0] + j0) * k3[1] + j1) * k3[2] + j2;
                    acc += double(xp[xi]) * wp[wi];
                  }
                }
              }
            }
            *yp++ = static_cast<float>(acc);
          }
        }
      }
    }
  }
  return y;
}

OperatorDef ConvOp(const ConvCase& c) {
  std::string text = "type: \"Conv\" name: \"conv\" input: \"X\" input: \"W\" ";
  text += c.bias ? "input: \"B\" " : "";
  text += "output: \"Y\" arg { name: \"group\" i: " + std::to_string(c.group) + " } ";
  text += "arg { name: \"auto_pad\" s: \"" + c.auto_pad + "\" } ";
  text += IntsArg("strides", c.strides) + IntsArg("dilations", c.dilations) + IntsArg("pads", c.pads);
  if (c.kernel_shape_attr) text += IntsArg("kernel_shape", {c.w.begin() + 2, c.w.end()});
  return ParseOp(text);
}

class ConvTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvTest, MatchesReference) {
  const ConvCase& c = GetParam();
  Tensor x = RandomTensor(DataType::kFloat32, c.x, 1), w = RandomTensor(DataType::kFloat32, c.w, 2);
  Tensor b = RandomTensor(DataType::kFloat32, {c.w[0]}, 3);
  auto out = RunSingleOp(ConvOp(c), {x, w, b});
  ASSERT_TRUE(out.ok()) << out.status();
  Tensor expected = ConvRef(c, x, w, b);
  ASSERT_EQ((*out)[0].dims(), expected.dims());
  EXPECT_TRUE(AllClose((*out)[0], expected, 1e-4, 1e-5));
  ExpectInferredShapes(ConvOp(c), {x, w, b});
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ConvTest,
    ::testing::Values(
        ConvCase{"conv1d", {2, 3, 10}, {4, 3, 3}, 1, {2}, {}, {1, 2}},
        ConvCase{"conv1d_nobias", {1, 2, 7}, {3, 2, 2}, 1, {}, {}, {}, "NOTSET", false},
        ConvCase{"group2", {2, 4, 7, 6}, {6, 2, 3, 3}, 2, {}, {}, {1, 1, 1, 1}},
        ConvCase{"depthwise", {1, 5, 8, 8}, {5, 1, 3, 3}, 5, {}, {}, {1, 1, 1, 1}},
        ConvCase{"depthwise_multiplier", {2, 3, 6, 5}, {6, 1, 3, 2}, 3, {1, 2}, {}, {0, 1, 2, 0}},
        // 1-D depthwise convs run as 2-D with H = 1 (Silero VAD's 258 x 24).
        ConvCase{"depthwise_1d", {2, 258, 24}, {258, 1, 5}, 258, {}, {}, {2, 2}},
        ConvCase{"depthwise_1d_strided_dilated", {1, 16, 13}, {16, 1, 3}, 16, {2}, {2}, {1, 2}, "NOTSET", false},
        ConvCase{"depthwise_1d_multiplier", {1, 4, 9}, {8, 1, 3}, 4, {}, {}, {}, "SAME_UPPER"},
        ConvCase{"dilation2", {1, 3, 9, 9}, {2, 3, 3, 3}, 1, {}, {2, 2}, {}, "NOTSET", false},
        ConvCase{"stride2", {2, 3, 9, 8}, {4, 3, 3, 3}, 1, {2, 2}, {}, {1, 1, 1, 1}},
        ConvCase{"asymmetric_pads", {1, 2, 6, 7}, {3, 2, 3, 3}, 1, {}, {}, {0, 1, 2, 0}},
        ConvCase{"stride_not_dividing", {1, 2, 8, 7}, {2, 2, 3, 2}, 1, {3, 2}, {}, {0, 0, 0, 0}},
        ConvCase{"same_upper", {1, 2, 7, 8}, {3, 2, 4, 4}, 1, {2, 2}, {}, {}, "SAME_UPPER"},
        ConvCase{"same_lower", {1, 2, 7, 8}, {3, 2, 4, 4}, 1, {2, 2}, {}, {}, "SAME_LOWER"},
        ConvCase{"same_upper_dilated", {1, 2, 9, 6}, {2, 2, 3, 2}, 1, {}, {2, 3}, {}, "SAME_UPPER"},
        ConvCase{"valid", {1, 3, 8, 9}, {2, 3, 3, 4}, 1, {2, 1}, {}, {5, 5, 5, 5}, "VALID"},
        ConvCase{"conv3d", {1, 2, 5, 6, 4}, {3, 2, 3, 2, 3}, 1, {1, 2, 1}, {}, {1, 0, 1, 1, 1, 0}},
        ConvCase{"conv3d_group_dilated", {2, 4, 6, 5, 7}, {4, 2, 2, 2, 3}, 2, {}, {2, 1, 2}, {}, "NOTSET", false},
        ConvCase{"kernel_shape_attr", {1, 3, 6, 6}, {2, 3, 3, 3}, 1, {}, {}, {1, 1, 1, 1}, "NOTSET", true, true},
        ConvCase{"pointwise", {2, 8, 5, 5}, {4, 8, 1, 1}},
        ConvCase{"larger", {2, 16, 20, 20}, {32, 16, 3, 3}, 1, {}, {}, {1, 1, 1, 1}},
        ConvCase{"batch0", {0, 3, 5, 5}, {2, 3, 3, 3}}),
    [](const ::testing::TestParamInfo<ConvCase>& info) { return info.param.name; });

// The kernel reorders W into oneDNN's layout once and reuses it: new values
// written into the same buffer between runs must still be used.
TEST(ConvWeightsTest, NewWeightValuesInTheSameBufferAreUsed) {
  ConvCase c{"rerun", {1, 8, 9, 9}, {16, 8, 3, 3}, 1, {}, {}, {1, 1, 1, 1}};
  Tensor x = RandomTensor(DataType::kFloat32, c.x, 1), w = RandomTensor(DataType::kFloat32, c.w, 2);
  Tensor b = RandomTensor(DataType::kFloat32, {c.w[0]}, 3);
  Workspace ws;
  ws.SetBlob("X", x);
  ws.SetBlob("W", w);
  ws.SetBlob("B", b);
  NetDef def;
  for (const char* in : {"X", "W", "B"}) def.add_external_input(in);
  *def.add_op() = ConvOp(c);
  auto net = Net::Create(def, &ws, testing::CpuRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_TRUE(AllClose(*ws.GetBlob("Y"), ConvRef(c, x, w, b), 1e-4, 1e-5));
  Tensor* wb = ws.GetBlob("W");
  for (int64_t i = 0; i < wb->num_elements(); ++i) wb->data<float>()[i] *= -0.5f;
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_TRUE(AllClose(*ws.GetBlob("Y"), ConvRef(c, x, *wb, b), 1e-4, 1e-5));
}

TEST(ConvKnownTest, SumOf2x2Windows) {
  // 3x3 input 1..9, a 2x2 kernel of ones and bias 0.5: window sums + 0.5.
  Tensor x = Tensor::FromVector<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor w = Tensor::FromVector<float>({1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor b = Tensor::FromVector<float>({1}, {0.5f});
  auto out = RunSingleOp(ParseOp("type: \"Conv\" input: \"X\" input: \"W\" input: \"B\" output: \"Y\""), {x, w, b});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 1, 2, 2}, {12.5f, 16.5f, 24.5f, 28.5f})));
}

TEST(ConvKnownTest, NoInputChannelsGivesBias) {
  ConvCase c{"c0", {1, 0, 4, 4}, {2, 0, 3, 3}, 1, {}, {}, {1, 1, 1, 1}};
  Tensor b = Tensor::FromVector<float>({2}, {1.5f, -2.0f});
  auto out = RunSingleOp(ConvOp(c), {Tensor::Zeros(DataType::kFloat32, c.x), Tensor::Zeros(DataType::kFloat32, c.w), b});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].dims(), (Shape{1, 2, 4, 4}));
  for (int i = 0; i < 32; ++i) EXPECT_EQ((*out)[0].data<float>()[i], i < 16 ? 1.5f : -2.0f) << i;
}

// NCHW [N, C, H, W] <-> nChw16c [N, C / 16, H, W, 16] for NchwcConv.
Tensor Blocked16(const Tensor& x, bool to_blocked) {
  const Shape& d = x.dims();
  const int64_t N = d[0], C = to_blocked ? d[1] : d[1] * 16, H = d[2], W = d[3];
  Tensor y = Tensor::Zeros(DataType::kFloat32, to_blocked ? Shape{N, C / 16, H, W, 16} : Shape{N, C, H, W});
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      for (int64_t hw = 0; hw < H * W; ++hw) {
        const int64_t plain = (n * C + c) * H * W + hw, blocked = ((n * (C / 16) + c / 16) * H * W + hw) * 16 + c % 16;
        if (to_blocked) {
          y.data<float>()[blocked] = x.data<float>()[plain];
        } else {
          y.data<float>()[plain] = x.data<float>()[blocked];
        }
      }
    }
  }
  return y;
}

// NchwcConv's algorithm "winograd" (oneDNN's Winograd kernels, 3x3 stride 1
// on nChw16c; direct where the CPU has none) computes the conv of the naive
// reference within Winograd's rounding, "direct" within direct's; another
// value is an error naming the op and the attribute.
TEST(NchwcConvTest, WinogradAndDirectMatchReference) {
  ConvCase c{"wino", {2, 32, 9, 8}, {48, 32, 3, 3}, 1, {}, {}, {1, 1, 1, 1}};
  const Tensor x = RandomTensor(DataType::kFloat32, c.x, 61), w = RandomTensor(DataType::kFloat32, c.w, 62, -0.5, 0.5);
  const Tensor b = RandomTensor(DataType::kFloat32, {48}, 63);
  const Tensor ref = ConvRef(c, x, w, b);
  auto op = [&](const std::string& algorithm) {
    return ParseOp("type: \"NchwcConv\" name: \"conv\" input: \"X\" input: \"W\" input: \"B\" output: \"Y\" "
                   "arg { name: \"block\" i: 16 } arg { name: \"algorithm\" s: \"" + algorithm + "\" } " +
                   IntsArg("pads", c.pads));
  };
  for (const char* algorithm : {"winograd", "direct"}) {
    auto out = RunSingleOp(op(algorithm), {Blocked16(x, true), w, b});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ((*out)[0].dims(), (Shape{2, 3, 9, 8, 16}));
    const double tol = std::string(algorithm) == "winograd" ? 1e-4 : 1e-5;
    EXPECT_TRUE(AllClose(Blocked16((*out)[0], false), ref, tol, tol)) << algorithm;
  }
  auto bad = RunSingleOp(op("fft"), {Blocked16(x, true), w, b});
  ASSERT_FALSE(bad.ok());
  const std::string m(bad.status().message());
  EXPECT_NE(m.find("conv"), std::string::npos) << m;
  EXPECT_NE(m.find("algorithm"), std::string::npos) << m;
  EXPECT_NE(m.find("fft"), std::string::npos) << m;
}

// NchwcConv of a plain X [N, C, H, W] (an image stem, as the importer makes
// it) writes nChw16c Y equal to the naive reference: for 3 input channels
// (oneDNN reads the plain X itself) and for 32 (its kernel for a plain X of
// so many channels is slow: X is reordered to its blocked layout first).
TEST(NchwcConvTest, PlainInputMatchesReference) {
  for (const ConvCase& c : {ConvCase{"stem", {2, 3, 11, 10}, {32, 3, 3, 3}, 1, {2, 2}, {}, {1, 1, 1, 1}},
                            ConvCase{"wide", {1, 32, 7, 6}, {16, 32, 3, 3}, 1, {}, {}, {1, 1, 1, 1}}}) {
    const Tensor x = RandomTensor(DataType::kFloat32, c.x, 71), w = RandomTensor(DataType::kFloat32, c.w, 72, -0.5, 0.5);
    const Tensor b = RandomTensor(DataType::kFloat32, {c.w[0]}, 73);
    auto out = RunSingleOp(ParseOp("type: \"NchwcConv\" input: \"X\" input: \"W\" input: \"B\" output: \"Y\" "
                                   "arg { name: \"block\" i: 16 } " + IntsArg("strides", c.strides.empty() ? std::vector<int64_t>{1, 1} : c.strides) +
                                   " " + IntsArg("pads", c.pads)),
                           {x, w, b});
    ASSERT_TRUE(out.ok()) << c.name << ": " << out.status();
    const Tensor ref = ConvRef(c, x, w, b);
    ASSERT_EQ((*out)[0].dims(), (Shape{ref.dims()[0], ref.dims()[1] / 16, ref.dims()[2], ref.dims()[3], 16})) << c.name;
    EXPECT_TRUE(AllClose(Blocked16((*out)[0], false), ref, 1e-5, 1e-5)) << c.name;
  }
}

TEST(ConvErrorTest, BadShapesNameTheOp) {
  auto check = [](const ConvCase& c, const Shape& bias_shape, const std::string& part) {
    auto out = RunSingleOp(ConvOp(c), {RandomTensor(DataType::kFloat32, c.x, 1), RandomTensor(DataType::kFloat32, c.w, 2),
                                       RandomTensor(DataType::kFloat32, bias_shape, 3)});
    ASSERT_FALSE(out.ok()) << c.name;
    const std::string m(out.status().message());
    EXPECT_NE(m.find("Conv"), std::string::npos) << m;
    EXPECT_NE(m.find(part), std::string::npos) << m;
  };
  // W has 2 input channels; X has 3.
  check({"channels", {1, 3, 5, 5}, {4, 2, 3, 3}}, {4}, "W[1]");
  // group 2 does not divide C = 3.
  check({"group", {1, 3, 5, 5}, {4, 1, 3, 3}, 2}, {4}, "group");
  // Bias of the wrong size.
  check({"bias", {1, 3, 5, 5}, {4, 3, 3, 3}}, {3}, "input B");
  // Input smaller than the kernel.
  check({"small", {1, 3, 2, 5}, {4, 3, 3, 3}}, {4}, "smaller than the window");
  // W of another rank.
  check({"rank", {1, 3, 5, 5}, {4, 3, 3}}, {4}, "rank");
  // pads of the wrong length.
  check({"pads", {1, 3, 5, 5}, {4, 3, 3, 3}, 1, {}, {}, {1, 1}}, {4}, "pads");
  // kernel_shape that disagrees with W.
  ConvCase ks{"kernel_shape", {1, 3, 5, 5}, {4, 3, 3, 3}};
  auto out = RunSingleOp(ParseOp("type: \"Conv\" input: \"X\" input: \"W\" output: \"Y\" " + IntsArg("kernel_shape", {2, 2})),
                         {RandomTensor(DataType::kFloat32, ks.x, 1), RandomTensor(DataType::kFloat32, ks.w, 2)});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string(out.status().message()).find("kernel_shape"), std::string::npos) << out.status();
}

}  // namespace
}  // namespace loom
