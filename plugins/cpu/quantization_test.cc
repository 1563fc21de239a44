// The quantization kernels (quantization.cc, quantized_matmul_conv.cc)
// against hand-computed values (rounding half to even, saturation, per-axis
// parameters) and against plain reference loops written here from ONNX's
// definitions (zero points per row, column and channel, batch broadcast,
// groups, strides, padding, bias); errors name the parameter.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

template <typename T>
Tensor Vec(Shape dims, std::vector<T> v) {
  return Tensor::FromVector<T>(std::move(dims), v);
}

std::vector<Tensor> Outputs(const std::string& text, const std::vector<Tensor>& inputs) {
  auto out = testing::RunSingleOp(testing::ParseOp(text), inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<Tensor>();
}

// ---- QuantizeLinear / DequantizeLinear ---------------------------------------------------
TEST(QuantizeLinear, RoundsHalfToEvenAndSaturates) {
  // x / 1 rounded half to even, + zero point 0, saturated to int8.
  Tensor y = Run1(testing::ParseOp(R"(type: "QuantizeLinear" input: "x" input: "s" input: "z" output: "y")"),
                  {F32({8}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 126.6f, 300.0f, -300.0f}), F32({}, {1.0f}),
                   Vec<int8_t>({}, {0})});
  EXPECT_TRUE(SameTensor(y, Vec<int8_t>({8}, {0, 2, 2, 0, -2, 127, 127, -128})));
  // No zero point: uint8 with zero point 0; negative values saturate to 0.
  y = Run1(testing::ParseOp(R"(type: "QuantizeLinear" input: "x" input: "s" output: "y")"),
           {F32({4}, {-1.0f, 0.3f, 1.0f, 600.0f}), F32({}, {0.5f})});
  EXPECT_TRUE(SameTensor(y, Vec<uint8_t>({4}, {0, 1, 2, 255})));
}

TEST(QuantizeLinear, PerAxisScalesAndZeroPoints) {
  // x [2, 3], axis 1: column c uses scale s[c] and zero point z[c].
  const Tensor x = F32({2, 3}, {1.0f, 2.0f, 4.0f, -1.0f, -2.0f, -4.0f});
  Tensor y = Run1(testing::ParseOp(R"(type: "QuantizeLinear" input: "x" input: "s" input: "z" output: "y")"),
                  {x, F32({3}, {1.0f, 2.0f, 4.0f}), Vec<uint8_t>({3}, {0, 10, 20})});
  // 1/1+0, 2/2+10, 4/4+20; -1/1+0 -> 0 (saturated), -2/2+10, -4/4+20.
  EXPECT_TRUE(SameTensor(y, Vec<uint8_t>({2, 3}, {1, 11, 21, 0, 9, 19})));
  // axis 0 with a [2] scale: row r uses s[r].
  y = Run1(testing::ParseOp(R"(type: "QuantizeLinear" input: "x" input: "s" input: "z" output: "y")" + IntArg("axis", 0)),
           {x, F32({2}, {1.0f, 0.5f}), Vec<int8_t>({2}, {0, -1})});
  EXPECT_TRUE(SameTensor(y, Vec<int8_t>({2, 3}, {1, 2, 4, -3, -5, -9})));
}

TEST(DequantizeLinear, InvertsPerAxisAndTakesInt32) {
  Tensor y = Run1(testing::ParseOp(R"(type: "DequantizeLinear" input: "x" input: "s" input: "z" output: "y")"),
                  {Vec<uint8_t>({2, 3}, {1, 11, 21, 0, 9, 19}), F32({3}, {1.0f, 2.0f, 4.0f}),
                   Vec<uint8_t>({3}, {0, 10, 20})});
  EXPECT_TRUE(SameTensor(y, F32({2, 3}, {1.0f, 2.0f, 4.0f, 0.0f, -2.0f, -4.0f})));
  y = Run1(testing::ParseOp(R"(type: "DequantizeLinear" input: "x" input: "s" output: "y")"),
           {Vec<int32_t>({3}, {-7, 0, 100000}), F32({}, {0.25f})});
  EXPECT_TRUE(SameTensor(y, F32({3}, {-1.75f, 0.0f, 25000.0f})));
}

TEST(QuantizeLinear, ErrorsNameTheParameter) {
  ExpectError(testing::ParseOp(R"(type: "QuantizeLinear" input: "x" input: "s" output: "y")"),
              {F32({2, 3}, {0, 0, 0, 0, 0, 0}), F32({2}, {1, 1})}, {"scale", "X.dim(axis) = 3", "[2]"});
  ExpectError(testing::ParseOp(R"(type: "QuantizeLinear" input: "x" input: "s" input: "z" output: "y")"),
              {F32({3}, {0, 0, 0}), F32({}, {1}), Vec<uint8_t>({2}, {0, 0})}, "zero point's shape");
  ExpectError(testing::ParseOp(R"(type: "DequantizeLinear" input: "x" input: "s" input: "z" output: "y")"),
              {Vec<uint8_t>({1}, {0}), F32({}, {1}), Vec<int8_t>({}, {0})},
              "type constraint T is already bound to uint8");
}

// ---- DynamicQuantizeLinear ---------------------------------------------------------------
TEST(DynamicQuantizeLinear, KnownParametersAndAllZeros) {
  // ONNX's example: range [-3, 2] -> scale 5 / 255, zero point round(3 / scale) = 153.
  std::vector<Tensor> out = Outputs(R"(type: "DynamicQuantizeLinear" input: "x" output: "y" output: "s" output: "z")",
                                    {F32({6}, {0, 2, -3, -2.5f, 1.34f, 0.5f})});
  ASSERT_EQ(out.size(), 3u);
  const float scale = static_cast<float>(5.0 / 255.0);
  EXPECT_EQ(out[1].data<float>()[0], scale);
  EXPECT_EQ(out[2].data<uint8_t>()[0], 153);
  std::vector<uint8_t> expected;
  for (float v : {0.0f, 2.0f, -3.0f, -2.5f, 1.34f, 0.5f}) {
    expected.push_back(static_cast<uint8_t>(std::fmin(255.0f, std::fmax(0.0f, std::nearbyint(v / scale) + 153.0f))));
  }
  EXPECT_TRUE(SameTensor(out[0], Vec<uint8_t>({6}, expected)));
  // All zeros: scale 0, zero point 0, y 0 (no division by zero).
  out = Outputs(R"(type: "DynamicQuantizeLinear" input: "x" output: "y" output: "s" output: "z")",
                {F32({3}, {0, 0, 0})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].data<float>()[0], 0.0f);
  EXPECT_EQ(out[2].data<uint8_t>()[0], 0);
  EXPECT_TRUE(SameTensor(out[0], Vec<uint8_t>({3}, {0, 0, 0})));
}

// ---- MatMulInteger / QLinearMatMul -------------------------------------------------------
// (A - za[row]) x (B - zb[col]) for A [batch, M, K] and one B [K, N].
std::vector<int32_t> NaiveMatMul(const std::vector<int32_t>& a, const std::vector<int32_t>& b, int64_t batch,
                                 int64_t M, int64_t K, int64_t N, const std::vector<int32_t>& za,
                                 const std::vector<int32_t>& zb) {
  std::vector<int32_t> y(static_cast<size_t>(batch * M * N));
  for (int64_t t = 0; t < batch; ++t) {
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n) {
        int32_t s = 0;
        for (int64_t k = 0; k < K; ++k) s += (a[(t * M + m) * K + k] - za[m]) * (b[k * N + n] - zb[n]);
        y[(t * M + m) * N + n] = s;
      }
    }
  }
  return y;
}

TEST(MatMulInteger, PerRowAndColumnZeroPointsWithBatchBroadcast) {
  const int64_t T = 2, M = 3, K = 4, N = 5;
  std::vector<uint8_t> a8;
  std::vector<int8_t> b8;
  std::vector<int32_t> a, b;
  for (int64_t i = 0; i < T * M * K; ++i) a8.push_back(static_cast<uint8_t>((i * 37 + 11) % 256));
  for (int64_t i = 0; i < K * N; ++i) b8.push_back(static_cast<int8_t>((i * 53 + 7) % 256 - 128));
  a.assign(a8.begin(), a8.end());
  b.assign(b8.begin(), b8.end());
  const std::vector<uint8_t> za8 = {3, 128, 250};
  const std::vector<int8_t> zb8 = {-5, 0, 7, 127, -128};
  Tensor y = Run1(testing::ParseOp(R"(type: "MatMulInteger" input: "a" input: "b" input: "za" input: "zb" output: "y")"),
                  {Vec<uint8_t>({T, M, K}, a8), Vec<int8_t>({K, N}, b8), Vec<uint8_t>({M}, za8),
                   Vec<int8_t>({N}, zb8)});
  EXPECT_TRUE(SameTensor(y, Vec<int32_t>({T, M, N}, NaiveMatMul(a, b, T, M, K, N, {za8.begin(), za8.end()},
                                                                 {zb8.begin(), zb8.end()}))));
  // No zero points: plain int32 products.
  y = Run1(testing::ParseOp(R"(type: "MatMulInteger" input: "a" input: "b" output: "y")"),
           {Vec<uint8_t>({T, M, K}, a8), Vec<int8_t>({K, N}, b8)});
  EXPECT_TRUE(SameTensor(y, Vec<int32_t>({T, M, N}, NaiveMatMul(a, b, T, M, K, N, {0, 0, 0}, {0, 0, 0, 0, 0}))));
  ExpectError(testing::ParseOp(R"(type: "MatMulInteger" input: "a" input: "b" input: "za" output: "y")"),
              {Vec<uint8_t>({T, M, K}, a8), Vec<int8_t>({K, N}, b8), Vec<uint8_t>({2}, {0, 0})},
              {"a_zero_point has 2 elements", "one per row"});
}

TEST(QLinearMatMul, RequantizesWithPerColumnScales) {
  const int64_t M = 2, K = 3, N = 2;
  const std::vector<int8_t> a8 = {-100, 5, 60, 127, -128, 0};
  const std::vector<uint8_t> b8 = {0, 255, 128, 3, 77, 200};
  const float sa = 0.02f, sy = 0.05f;
  const std::vector<float> sb = {0.01f, 0.03f};
  const int32_t za = -3, yz = 10;
  const std::vector<int32_t> zb = {128, 100};
  std::vector<int32_t> acc = NaiveMatMul({a8.begin(), a8.end()}, {b8.begin(), b8.end()}, 1, M, K, N, {za, za}, zb);
  std::vector<int8_t> expected;
  for (int64_t i = 0; i < M * N; ++i) {
    const double r = std::nearbyint(acc[i] * (static_cast<double>(sa) * sb[i % N] / sy)) + yz;
    expected.push_back(static_cast<int8_t>(std::fmin(127.0, std::fmax(-128.0, r))));
  }
  Tensor y = Run1(testing::ParseOp(R"(type: "QLinearMatMul" input: "a" input: "as" input: "az" input: "b" input: "bs"
                                      input: "bz" input: "ys" input: "yz" output: "y")"),
                  {Vec<int8_t>({M, K}, a8), F32({}, {sa}), Vec<int8_t>({}, {static_cast<int8_t>(za)}),
                   Vec<uint8_t>({K, N}, b8), F32({N}, sb), Vec<uint8_t>({N}, {128, 100}), F32({}, {sy}),
                   Vec<int8_t>({}, {static_cast<int8_t>(yz)})});
  EXPECT_TRUE(SameTensor(y, Vec<int8_t>({M, N}, expected)));
}

// ---- ConvInteger / QLinearConv -----------------------------------------------------------
// 2-D convolution of (x - zx) with (w - zw[m]) + bias, groups, stride, pads.
std::vector<int32_t> NaiveConv(const std::vector<int32_t>& x, const std::vector<int32_t>& w, int64_t N, int64_t C,
                               int64_t H, int64_t W, int64_t M, int64_t kh, int64_t kw, int64_t G, int64_t stride,
                               int64_t pad, int32_t zx, const std::vector<int32_t>& zw, const std::vector<int32_t>& bias,
                               int64_t* OH, int64_t* OW) {
  *OH = (H + 2 * pad - kh) / stride + 1;
  *OW = (W + 2 * pad - kw) / stride + 1;
  const int64_t cg = C / G, mg = M / G;
  std::vector<int32_t> y(static_cast<size_t>(N * M * *OH * *OW));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t oh = 0; oh < *OH; ++oh) {
        for (int64_t ow = 0; ow < *OW; ++ow) {
          int32_t s = bias.empty() ? 0 : bias[m];
          for (int64_t c = 0; c < cg; ++c) {
            for (int64_t i = 0; i < kh; ++i) {
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t h = oh * stride - pad + i, v = ow * stride - pad + j;
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                const int64_t ci = (m / mg) * cg + c;
                s += (x[((n * C + ci) * H + h) * W + v] - zx) * (w[((m * cg + c) * kh + i) * kw + j] - zw[m]);
              }
            }
          }
          y[((n * M + m) * *OH + oh) * *OW + ow] = s;
        }
      }
    }
  }
  return y;
}

// Per-channel W zero points run the reference loops; zero ones oneDNN's
// int8 convolution (u8 or s8 X): both against the naive sums.
TEST(ConvInteger, GroupsStridesPadsAndZeroPointsOnBothPaths) {
  const int64_t N = 2, C = 4, H = 5, W = 6, M = 6, kh = 3, kw = 2, G = 2;
  std::vector<uint8_t> x8;
  std::vector<int8_t> w8;
  for (int64_t i = 0; i < N * C * H * W; ++i) x8.push_back(static_cast<uint8_t>((i * 29 + 3) % 256));
  for (int64_t i = 0; i < M * (C / G) * kh * kw; ++i) w8.push_back(static_cast<int8_t>((i * 41 + 9) % 256 - 128));
  const std::string op = R"(type: "ConvInteger" input: "x" input: "w" input: "zx" input: "zw" output: "y"
                            arg { name: "group" i: 2 } arg { name: "strides" ints: 2 ints: 2 }
                            arg { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 })";
  for (const std::vector<int8_t>& zw8 : {std::vector<int8_t>{0, 1, -2, 3, -4, 5}, std::vector<int8_t>(6, 0)}) {
    int64_t OH = 0, OW = 0;
    std::vector<int32_t> expected = NaiveConv({x8.begin(), x8.end()}, {w8.begin(), w8.end()}, N, C, H, W, M, kh, kw, G,
                                              2, 1, 17, {zw8.begin(), zw8.end()}, {}, &OH, &OW);
    Tensor y = Run1(testing::ParseOp(op), {Vec<uint8_t>({N, C, H, W}, x8), Vec<int8_t>({M, C / G, kh, kw}, w8),
                                           Vec<uint8_t>({}, {17}), Vec<int8_t>({M}, zw8)});
    EXPECT_TRUE(SameTensor(y, Vec<int32_t>({N, M, OH, OW}, expected))) << "W zero point " << int{zw8[1]};
    // s8 X with a negative zero point.
    std::vector<int8_t> xs8(x8.size());
    for (size_t i = 0; i < x8.size(); ++i) xs8[i] = static_cast<int8_t>(x8[i] - 128);
    expected = NaiveConv({xs8.begin(), xs8.end()}, {w8.begin(), w8.end()}, N, C, H, W, M, kh, kw, G, 2, 1, -5,
                         {zw8.begin(), zw8.end()}, {}, &OH, &OW);
    y = Run1(testing::ParseOp(op), {Vec<int8_t>({N, C, H, W}, xs8), Vec<int8_t>({M, C / G, kh, kw}, w8),
                                    Vec<int8_t>({}, {-5}), Vec<int8_t>({M}, zw8)});
    EXPECT_TRUE(SameTensor(y, Vec<int32_t>({N, M, OH, OW}, expected))) << "s8 X, W zero point " << int{zw8[1]};
  }
}

TEST(QLinearConv, BiasAndPerChannelScales) {
  const int64_t N = 1, C = 2, H = 4, W = 4, M = 3, k = 3;
  std::vector<uint8_t> x8;
  std::vector<int8_t> w8;
  for (int64_t i = 0; i < N * C * H * W; ++i) x8.push_back(static_cast<uint8_t>((i * 13 + 100) % 256));
  for (int64_t i = 0; i < M * C * k * k; ++i) w8.push_back(static_cast<int8_t>((i * 7) % 64 - 32));
  const std::vector<int32_t> bias = {-500, 0, 1234};
  const std::vector<float> sw = {0.01f, 0.02f, 0.005f};
  const float sx = 0.03f;
  int64_t OH = 0, OW = 0;
  std::vector<int32_t> acc = NaiveConv({x8.begin(), x8.end()}, {w8.begin(), w8.end()}, N, C, H, W, M, k, k, 1, 1, 1,
                                       128, {0, 0, 0}, bias, &OH, &OW);
  // y_scale 0.2 keeps most outputs in range; 0.001 saturates most of them
  // both ways (the requantization's integer clamps).
  for (const float sy : {0.2f, 0.001f}) {
    std::vector<uint8_t> expected;
    for (size_t i = 0; i < acc.size(); ++i) {
      const int64_t m = static_cast<int64_t>(i) / (OH * OW) % M;
      const double r = std::nearbyint(acc[i] * (static_cast<double>(sw[m]) * sx / sy)) + 60;
      expected.push_back(static_cast<uint8_t>(std::fmin(255.0, std::fmax(0.0, r))));
    }
    Tensor y = Run1(testing::ParseOp(R"(type: "QLinearConv" input: "x" input: "xs" input: "xz" input: "w" input: "ws"
                                        input: "wz" input: "ys" input: "yz" input: "b" output: "y"
                                        arg { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 })"),
                    {Vec<uint8_t>({N, C, H, W}, x8), F32({}, {sx}), Vec<uint8_t>({}, {128}),
                     Vec<int8_t>({M, C, k, k}, w8), F32({M}, sw), Vec<int8_t>({M}, {0, 0, 0}), F32({}, {sy}),
                     Vec<uint8_t>({}, {60}), Vec<int32_t>({M}, bias)});
    EXPECT_TRUE(SameTensor(y, Vec<uint8_t>({N, M, OH, OW}, expected))) << "y_scale " << sy;
  }
  const float sy = 0.2f;
  ExpectError(testing::ParseOp(R"(type: "QLinearConv" input: "x" input: "xs" input: "xz" input: "w" input: "ws"
                                  input: "wz" input: "ys" input: "yz" output: "y")"),
              {Vec<uint8_t>({N, C, H, W}, x8), F32({}, {sx}), Vec<uint8_t>({}, {128}), Vec<int8_t>({M, C, k, k}, w8),
               F32({2}, {1, 1}), Vec<int8_t>({}, {0}), F32({}, {sy}), Vec<uint8_t>({}, {60})},
              {"w_scale has 2 elements", "output channel"});
  ExpectError(testing::ParseOp(R"(type: "QLinearConv" input: "x" input: "xs" input: "xz" input: "w" input: "ws"
                                  input: "wz" input: "ys" input: "yz" output: "y")"),
              {Vec<uint8_t>({N, C, H, W}, x8), F32({}, {sx}), Vec<uint8_t>({}, {128}), Vec<int8_t>({M, C, k, k}, w8),
               F32({M}, sw), Vec<int8_t>({M}, {0, 0, 0}), F32({}, {0.0f}), Vec<uint8_t>({}, {60})},
              {"y_scale must be a positive finite scale"});
}

// The requantize form inside oneDNN (W zero points 0) on a depthwise
// stride-2 convolution and a dense one, u8 and s8 outputs with non-zero
// zero points: each output exactly ONNX Runtime's rule (the multiplier
// x_scale * w_scale / y_scale in float32 operations, the float32 product
// rounded half to even, then the zero point), hence within one step of the
// double-precision rule of the reference loops, and nearly all exactly on
// it.
TEST(QLinearConv, RequantizedInsideOneDnnAsOnnxRuntime) {
  const int64_t N = 2, C = 8, H = 9, W = 7, k = 3;
  std::vector<uint8_t> x8;
  for (int64_t i = 0; i < N * C * H * W; ++i) x8.push_back(static_cast<uint8_t>((i * 37 + 11) % 256));
  for (const int64_t G : {int64_t{1}, C}) {
    const int64_t M = G == 1 ? 5 : C, cg = C / G;
    std::vector<int8_t> w8;
    for (int64_t i = 0; i < M * cg * k * k; ++i) w8.push_back(static_cast<int8_t>((i * 53 + G) % 255 - 127));
    std::vector<float> sw;
    std::vector<int32_t> bias;
    for (int64_t m = 0; m < M; ++m) {
      sw.push_back(0.002f + 0.0007f * static_cast<float>(m));
      bias.push_back(static_cast<int32_t>(m * 977 % 4000) - 2000);
    }
    const float sx = 0.1f, sy = 0.05f;
    // Zero points 0 (X after a Relu, u8 Y before one) build oneDNN's
    // kernels without zero-point handling: both kinds run.
    const uint8_t xz = G == 1 ? 9 : 0;
    int64_t OH = 0, OW = 0;
    const std::vector<int32_t> acc = NaiveConv({x8.begin(), x8.end()}, {w8.begin(), w8.end()}, N, C, H, W, M, k, k,
                                               G, 2, 1, xz, std::vector<int32_t>(M, 0), bias, &OH, &OW);
    for (const bool s8 : {false, true}) {
      const int32_t yz = s8 ? -7 : (G == 1 ? 31 : 0), lo = s8 ? -128 : 0, hi = s8 ? 127 : 255;
      std::vector<double> expected, ort;
      for (size_t i = 0; i < acc.size(); ++i) {
        const int64_t m = static_cast<int64_t>(i) / (OH * OW) % M;
        expected.push_back(std::fmin(hi, std::fmax(lo, std::nearbyint(acc[i] * (double{sw[m]} * sx / sy)) + yz)));
        const float scale = sx * sw[m] / sy;
        ort.push_back(std::fmin(hi, std::fmax(lo, std::nearbyint(static_cast<float>(acc[i]) * scale) + yz)));
      }
      const std::string op = R"(type: "QLinearConv" input: "x" input: "xs" input: "xz" input: "w" input: "ws"
                                input: "wz" input: "ys" input: "yz" input: "b" output: "y"
                                arg { name: "strides" ints: 2 ints: 2 } arg { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 }
                                arg { name: "group" i: )" + std::to_string(G) + " }";
      Tensor yzt = s8 ? Vec<int8_t>({}, {static_cast<int8_t>(yz)}) : Vec<uint8_t>({}, {static_cast<uint8_t>(yz)});
      Tensor y = Run1(testing::ParseOp(op), {Vec<uint8_t>({N, C, H, W}, x8), F32({}, {sx}), Vec<uint8_t>({}, {xz}),
                                             Vec<int8_t>({M, cg, k, k}, w8), F32({M}, sw), Vec<int8_t>({M}, std::vector<int8_t>(M, 0)),
                                             F32({}, {sy}), yzt, Vec<int32_t>({M}, bias)});
      ASSERT_EQ(y.num_elements(), static_cast<int64_t>(expected.size()));
      int64_t off = 0, saturated = 0;
      for (int64_t i = 0; i < y.num_elements(); ++i) {
        const double got = s8 ? y.data<int8_t>()[i] : y.data<uint8_t>()[i];
        EXPECT_EQ(got, ort[i]) << "group " << G << " element " << i;
        EXPECT_LE(std::fabs(got - expected[i]), 1.0) << "group " << G << " element " << i;
        off += got != expected[i];
        saturated += expected[i] == lo || expected[i] == hi;
      }
      EXPECT_LE(off, y.num_elements() / 100) << "group " << G;
      EXPECT_GT(saturated, 0) << "group " << G << ": the test should reach the saturation";
    }
  }
}

// Two requantizations of ResNet-18's int8 model (tools/bench: conv16, output
// channels 5 and 45) whose products land within float rounding of .5:
// -85379 * scale = -39.499996 and 53022 * scale = 24.500004. ONNX rounds
// them (to -39 and 25) and then adds y's zero point 134; ONNX Runtime 1.30
// gives 95 and 159. oneDNN alone adds the zero point in float before its
// rounding (94.5 and 158.5, to even: 94 and 158), so the kernel rounds in a
// post-op first. 1x1 convolutions of x = 100 with W = 1 and the bias making
// the accumulators; the scales are the model's.
TEST(QLinearConv, RoundsBeforeAddingTheZeroPointAsOnnxRuntime) {
  const float sx = 0.020816758275032043f, sy = 0.03614138439297676f;
  const std::vector<float> sw = {0.0008032258483581245f, 0.0008022352703846991f};
  const std::vector<int32_t> bias = {-85379 - 100, 53022 - 100};
  Tensor y = Run1(testing::ParseOp(R"(type: "QLinearConv" input: "x" input: "xs" input: "xz" input: "w" input: "ws"
                                      input: "wz" input: "ys" input: "yz" input: "b" output: "y")"),
                  {Vec<uint8_t>({1, 1, 1, 1}, {100}), F32({}, {sx}), Vec<uint8_t>({}, {0}),
                   Vec<int8_t>({2, 1, 1, 1}, {1, 1}), F32({2}, sw), Vec<int8_t>({2}, {0, 0}), F32({}, {sy}),
                   Vec<uint8_t>({}, {134}), Vec<int32_t>({2}, bias)});
  EXPECT_TRUE(SameTensor(y, Vec<uint8_t>({1, 2, 1, 1}, {95, 159})));
}

// [N, C, H, W] -> [N, H, W, C] of a uint8 tensor's values.
std::vector<uint8_t> ToNhwc(const std::vector<uint8_t>& v, int64_t N, int64_t C, int64_t H, int64_t W) {
  std::vector<uint8_t> out(v.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) out[((n * H + h) * W + w) * C + c] = v[((n * C + c) * H + h) * W + w];
  return out;
}

// NhwcQLinearConv (Loom's domain) is QLinearConv on channels-last tensors:
// the same values, transposed, for a dense and a depthwise convolution.
TEST(NhwcQLinearConv, IsQLinearConvChannelsLast) {
  const int64_t N = 1, C = 8, H = 7, W = 6;
  std::vector<uint8_t> x8;
  for (int64_t i = 0; i < N * C * H * W; ++i) x8.push_back(static_cast<uint8_t>((i * 31 + 7) % 256));
  for (const int64_t G : {int64_t{1}, C}) {
    const int64_t M = G == 1 ? 16 : C;
    std::vector<int8_t> w8;
    for (int64_t i = 0; i < M * (C / G) * 9; ++i) w8.push_back(static_cast<int8_t>((i * 29 + 3) % 255 - 127));
    std::vector<float> sw(static_cast<size_t>(M), 0.003f);
    const std::string args = R"( input: "x" input: "xs" input: "xz" input: "w" input: "ws" input: "wz" input: "ys"
                                 input: "yz" output: "y" arg { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 }
                                 arg { name: "group" i: )" + std::to_string(G) + " }";
    auto inputs = [&](Tensor x) {
      return std::vector<Tensor>{x, F32({}, {0.05f}), Vec<uint8_t>({}, {3}), Vec<int8_t>({M, C / G, 3, 3}, w8),
                                 F32({M}, sw), Vec<int8_t>({M}, std::vector<int8_t>(M, 0)), F32({}, {0.04f}),
                                 Vec<uint8_t>({}, {10})};
    };
    Tensor plain = Run1(testing::ParseOp(R"(type: "QLinearConv")" + args), inputs(Vec<uint8_t>({N, C, H, W}, x8)));
    Tensor nhwc = Run1(testing::ParseOp(R"(type: "NhwcQLinearConv" domain: "loom")" + args),
                       inputs(Vec<uint8_t>({N, H, W, C}, ToNhwc(x8, N, C, H, W))));
    const std::vector<uint8_t> p(plain.data<uint8_t>(), plain.data<uint8_t>() + plain.num_elements());
    EXPECT_TRUE(SameTensor(nhwc, Vec<uint8_t>({N, H, W, M}, ToNhwc(p, N, M, H, W)))) << "group " << G;
  }
}

// ---- QLinearAdd (Loom's domain) ------------------------------------------------------------
TEST(QLinearAdd, HandComputedBroadcastAndSaturation) {
  // A [2, 3] with scale 0.5, zero point 10; B [3] with scale 0.25, zero
  // point 0; C scale 1, zero point 100: C = (A - 10) * 0.5 + B * 0.25 + 100.
  const std::string op = R"(type: "QLinearAdd" domain: "loom" input: "a" input: "as" input: "az" input: "b"
                            input: "bs" input: "bz" input: "cs" input: "cz" output: "c")";
  Tensor c = Run1(testing::ParseOp(op),
                  {Vec<uint8_t>({2, 3}, {10, 12, 255, 0, 11, 13}), F32({}, {0.5f}), Vec<uint8_t>({}, {10}),
                   Vec<uint8_t>({3}, {0, 2, 200}), F32({}, {0.25f}), Vec<uint8_t>({}, {0}), F32({}, {1.0f}),
                   Vec<uint8_t>({}, {100})});
  // Row 0: 100 + 0 + 0, 100 + 1 + 0.5 = 101.5 -> 102 (half to even), 100 +
  // 122.5 + 50 -> 255 (saturated). Row 1: 100 - 5 + 0 = 95, 100 + 0.5 + 0.5
  // = 101, 100 + 1.5 + 50 = 151.5 -> 152.
  EXPECT_TRUE(SameTensor(c, Vec<uint8_t>({2, 3}, {100, 102, 255, 95, 101, 152})));
  // int8, both saturations.
  c = Run1(testing::ParseOp(op), {Vec<int8_t>({3}, {100, -100, 1}), F32({}, {1.0f}), Vec<int8_t>({}, {0}),
                                  Vec<int8_t>({3}, {100, -100, 2}), F32({}, {1.0f}), Vec<int8_t>({}, {0}),
                                  F32({}, {1.0f}), Vec<int8_t>({}, {-1})});
  EXPECT_TRUE(SameTensor(c, Vec<int8_t>({3}, {127, -128, 2})));
  ExpectError(testing::ParseOp(op),
              {Vec<uint8_t>({2, 3}, {0, 0, 0, 0, 0, 0}), F32({}, {1.0f}), Vec<uint8_t>({}, {0}), Vec<uint8_t>({2}, {0, 0}),
               F32({}, {1.0f}), Vec<uint8_t>({}, {0}), F32({}, {1.0f}), Vec<uint8_t>({}, {0})},
              {"A [2, 3] and B [2] do not broadcast"});
  ExpectError(testing::ParseOp(op),
              {Vec<uint8_t>({2}, {0, 0}), F32({}, {1.0f}), Vec<uint8_t>({}, {0}), Vec<uint8_t>({2}, {0, 0}),
               F32({}, {1.0f}), Vec<uint8_t>({}, {0}), F32({}, {0.0f}), Vec<uint8_t>({}, {0})},
              {"C_scale must be a positive finite scale"});
}

// One residual Add of ResNet-18's int8 model (tools/bench: conv76 + conv80):
// A 175 (zero point 136), B 170 (135), exact sum 112.5000172. ONNX Runtime
// 1.30's kernel (MLAS, AVX2 FMA: the constant zc - (ka * za + kb * zb) with
// one fused multiply-add, then B's and A's terms fused in) gives 113; the
// unfused sum rounds to 112.49999 and gives 112. 40 elements: the vector
// loop and its tail.
TEST(QLinearAdd, RoundsAsOnnxRuntime) {
  const std::string op = R"(type: "QLinearAdd" domain: "loom" input: "a" input: "as" input: "az" input: "b"
                            input: "bs" input: "bz" input: "cs" input: "cz" output: "c")";
  Tensor c = Run1(testing::ParseOp(op), {Vec<uint8_t>({40}, std::vector<uint8_t>(40, 175)), F32({}, {0.24436064064502716f}),
                                         Vec<uint8_t>({}, {136}), Vec<uint8_t>({40}, std::vector<uint8_t>(40, 170)),
                                         F32({}, {0.25060316920280457f}), Vec<uint8_t>({}, {135}),
                                         F32({}, {0.1626770943403244f}), Vec<uint8_t>({}, {0})});
  EXPECT_TRUE(SameTensor(c, Vec<uint8_t>({40}, std::vector<uint8_t>(40, 113))));
}

// ---- QLinearLookup (Loom's domain) ---------------------------------------------------------
TEST(QLinearLookup, IndexesByValueMinusLowest) {
  const std::string op = R"(type: "QLinearLookup" domain: "loom" input: "x" input: "t" output: "y")";
  // table[i] = 255 - i: uint8 X maps to 255 - x; int8 X to 255 - (x + 128).
  std::vector<uint8_t> table(256);
  for (int i = 0; i < 256; ++i) table[static_cast<size_t>(i)] = static_cast<uint8_t>(255 - i);
  // 150 elements: two 64-element blocks (the AVX-512 VBMI path, where the
  // CPU has it) and a tail of 22 (the byte loop).
  std::vector<int8_t> x(150);
  std::vector<uint8_t> want(150);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 256) - 128);
    want[i] = static_cast<uint8_t>(255 - (x[i] + 128));
  }
  Tensor y = Run1(testing::ParseOp(op), {Vec<int8_t>({3, 50}, x), Vec<uint8_t>({256}, table)});
  EXPECT_TRUE(SameTensor(y, Vec<uint8_t>({3, 50}, want)));
  std::vector<int8_t> signed_table(256);
  for (int i = 0; i < 256; ++i) signed_table[static_cast<size_t>(i)] = static_cast<int8_t>(i / 2 - 64);
  y = Run1(testing::ParseOp(op), {Vec<uint8_t>({4}, {0, 1, 200, 255}), Vec<int8_t>({256}, signed_table)});
  EXPECT_TRUE(SameTensor(y, Vec<int8_t>({4}, {-64, -64, 36, 63})));
  // A float32 table gives float32 Y: table[i] = i * 0.5 - 1 on int8 X.
  std::vector<float> float_table(256);
  for (int i = 0; i < 256; ++i) float_table[static_cast<size_t>(i)] = static_cast<float>(i) * 0.5f - 1.0f;
  std::vector<float> want_float(x.size());
  for (size_t i = 0; i < x.size(); ++i) want_float[i] = static_cast<float>(x[i] + 128) * 0.5f - 1.0f;
  y = Run1(testing::ParseOp(op), {Vec<int8_t>({150}, x), F32({256}, float_table)});
  EXPECT_TRUE(SameTensor(y, F32({150}, want_float)));
  ExpectError(testing::ParseOp(op), {Vec<uint8_t>({1}, {0}), Vec<uint8_t>({255}, std::vector<uint8_t>(255))},
              {"table must have 256 elements"});
}

// ---- QLinearGlobalAveragePool (Loom's domain) -------------------------------------------------
TEST(QLinearGlobalAveragePool, HandComputedPlanarAndChannelsLast) {
  const std::string op = R"(type: "QLinearGlobalAveragePool" domain: "loom" input: "x" input: "xs" input: "xz"
                            input: "ys" input: "yz" output: "y")";
  // X [1, 2, 2, 2], zero point 10, scale 0.5; Y scale 0.25, zero point 3:
  // channel 0 (10, 11, 12, 13): mean - 10 = 1.5 -> 0.75 / 0.25 = 3 -> 6;
  // channel 1 (0, 0, 250, 250): 115 * 2 = 230 + 3 -> 233.
  const std::vector<uint8_t> planar = {10, 11, 12, 13, 0, 0, 250, 250};
  auto params = [](Tensor x) {
    return std::vector<Tensor>{x, F32({}, {0.5f}), Vec<uint8_t>({}, {10}), F32({}, {0.25f}), Vec<uint8_t>({}, {3})};
  };
  Tensor y = Run1(testing::ParseOp(op), params(Vec<uint8_t>({1, 2, 2, 2}, planar)));
  EXPECT_TRUE(SameTensor(y, Vec<uint8_t>({1, 2, 1, 1}, {6, 233})));
  // The same channels-last: X [1, 2, 2, 2] as [N, H, W, C].
  const std::vector<uint8_t> nhwc = {10, 0, 11, 0, 12, 250, 13, 250};
  y = Run1(testing::ParseOp(op + R"( arg { name: "channels_last" i: 1 })"), params(Vec<uint8_t>({1, 2, 2, 2}, nhwc)));
  EXPECT_TRUE(SameTensor(y, Vec<uint8_t>({1, 1, 1, 2}, {6, 233})));
  // A mean on .5 rounds half to even, and int8 saturates: x (-128, -127)
  // mean -127.5 at scale 1 / 1 -> -128 (even); (127, 127) + 5 -> 127.
  y = Run1(testing::ParseOp(op), {Vec<int8_t>({1, 2, 2}, {-128, -127, 127, 127}), F32({}, {1.0f}),
                                  Vec<int8_t>({}, {0}), F32({}, {1.0f}), Vec<int8_t>({}, {5})});
  EXPECT_TRUE(SameTensor(y, Vec<int8_t>({1, 2, 1}, {-123, 127})));
  ExpectError(testing::ParseOp(op), params(Vec<uint8_t>({2, 2}, {0, 0, 0, 0})), {"X must have rank >= 3"});
}

// ---- QLinearFloatMul (Loom's domain) ---------------------------------------------------------
TEST(QLinearFloatMul, HandComputedGates) {
  const std::string op = R"(type: "QLinearFloatMul" domain: "loom" input: "a" input: "as" input: "az" input: "b"
                            input: "cs" input: "cz" output: "c")";
  // C = (A - 4) * 0.5 * B / 0.25 + 1 = (A - 4) * B * 2 + 1.
  auto run = [&](Tensor a, Tensor b) {
    return Run1(testing::ParseOp(op),
                {a, F32({}, {0.5f}), Vec<uint8_t>({}, {4}), b, F32({}, {0.25f}), Vec<uint8_t>({}, {1})});
  };
  const std::vector<uint8_t> a = {4, 5, 6, 7, 8, 9, 10, 200};
  // Planar gate [1, 2, 1, 1] on A [1, 2, 2, 2]: channel 0 by 0.5, channel 1
  // by 0.25: A - 4 = 4, 5, 6, 196 gives 2, 2.5 (rounds to even 2), 3, 98,
  // plus the zero point.
  Tensor c = run(Vec<uint8_t>({1, 2, 2, 2}, a), F32({1, 2, 1, 1}, {0.5f, 0.25f}));
  EXPECT_TRUE(SameTensor(c, Vec<uint8_t>({1, 2, 2, 2}, {1, 2, 3, 4, 3, 3, 4, 99})));
  // Channels-last gate [1, 1, 1, 2] on A [1, 2, 2, 2]: even elements by
  // 0.5, odd by 0.25: 0, 0.5, 2, 1.5, 4, 2.5, 6, 98 round (half to even) to 0, 0, 2, 2,
  // 4, 2, 6, 98, plus the zero point.
  c = run(Vec<uint8_t>({1, 2, 2, 2}, a), F32({1, 1, 1, 2}, {0.5f, 0.25f}));
  EXPECT_TRUE(SameTensor(c, Vec<uint8_t>({1, 2, 2, 2}, {1, 1, 3, 3, 5, 3, 7, 99})));
  // Numpy's general broadcast (B [2, 1] against A [4]) and saturation.
  c = run(Vec<uint8_t>({4}, {4, 5, 100, 0}), F32({2, 1}, {1.0f, -1.0f}));
  EXPECT_TRUE(SameTensor(c, Vec<uint8_t>({2, 4}, {1, 3, 193, 0, 1, 0, 0, 9})));
  ExpectError(testing::ParseOp(op),
              {Vec<uint8_t>({2}, {0, 0}), F32({}, {1.0f}), Vec<uint8_t>({}, {0}), Vec<uint8_t>({2}, {0, 0}),
               F32({}, {1.0f}), Vec<uint8_t>({}, {0})},
              {"(B) must be float32, found uint8"});
}

}  // namespace
}  // namespace loom
