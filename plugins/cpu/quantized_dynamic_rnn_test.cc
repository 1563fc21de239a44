// DynamicQuantizeLSTM and DynamicQuantizeGRU (quantized_dynamic_rnn.cc)
// against reference loops written here from their definitions (ops/rnn.cc):
// X and each step's H_{t-1} (GRU without linear_before_reset: r * H_{t-1}
// too) quantized as DynamicQuantizeLinear-11, int32 products rescaled by
// the weights' column scale, then by the operand's scale, then the cells
// (LSTM gates iofc with peepholes; GRU gates zrh); both directions,
// sequence_lens, initial states. The references run the kernels' cell rows
// (rnn_cell_rows.h: vector math, whose last-bit rounding a quantized H
// would carry into every later step), which are themselves checked against
// ONNX's formulas in double. Errors name the input or attribute.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/semantics/quantization.h"
#include "plugins/cpu/kernel_test_util.h"
#include "plugins/cpu/rnn_cell_rows.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

const char kOp[] = R"(type: "DynamicQuantizeLSTM" domain: "loom" input: "x" input: "w" input: "r" input: "b"
                      input: "lens" input: "h0" input: "c0" input: "p" input: "ws" input: "wz" input: "rs" input: "rz"
                      output: "y" output: "y_h" output: "y_c" arg { name: "direction" s: "bidirectional" }
                      arg { name: "hidden_size" i: 5 })";

// out [M, G] = the definition's rescaled integer product of a [M, K] and b [K, G].
void Product(const float* a, int64_t M, int64_t K, const int8_t* b, int64_t G, const float* scale, float* out) {
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < M * K; ++i) {
    lo = std::min(lo, a[i]);
    hi = std::max(hi, a[i]);
  }
  const semantics::DynamicQuantParams p = semantics::DynamicUint8Params(lo, hi);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t g = 0; g < G; ++g) {
      int32_t acc = 0;
      for (int64_t k = 0; k < K; ++k) {
        const int32_t q = p.scale == 0 ? 0 : semantics::QuantizeValue<uint8_t>(a[m * K + k], p.scale, p.zero_point);
        acc += (q - p.zero_point) * b[k * G + g];
      }
      out[m * G + g] = static_cast<float>(acc) * scale[g] * p.scale;
    }
  }
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

TEST(LstmCellRow, IsOnnxLstmsCellWithPeepholes) {
  const int64_t H = 21;  // vector lanes and a scalar tail
  const Tensor g = RandomTensor(DataType::kFloat32, {4 * H}, 11, -4.0, 4.0);
  const Tensor p = RandomTensor(DataType::kFloat32, {3 * H}, 12, -1.0, 1.0);
  const Tensor c0 = RandomTensor(DataType::kFloat32, {H}, 13, -2.0, 2.0);
  std::vector<float> gates(g.data<float>(), g.data<float>() + 4 * H), c(c0.data<float>(), c0.data<float>() + H), h(H),
      tmp(2 * H);
  cpu::LstmCellRow(gates.data(), p.data<float>(), H, c.data(), h.data(), tmp.data());
  for (int64_t k = 0; k < H; ++k) {
    auto in = [&](int64_t j) { return static_cast<double>(g.data<float>()[j * H + k]); };
    const double cp = c0.data<float>()[k], pi = p.data<float>()[k], po = p.data<float>()[H + k], pf = p.data<float>()[2 * H + k];
    const double ct = Sigmoid(in(2) + pf * cp) * cp + Sigmoid(in(0) + pi * cp) * std::tanh(in(3));
    const double ht = Sigmoid(in(1) + po * ct) * std::tanh(ct);
    EXPECT_NEAR(c[k], ct, 2e-6 * (1 + std::fabs(ct))) << k;
    EXPECT_NEAR(h[k], ht, 2e-6) << k;
  }
}

TEST(DynamicQuantizeLSTM, MatchesTheDefinition) {
  const int64_t T = 6, N = 3, I = 7, H = 5, G = 4 * H, D = 2;
  const Tensor x = RandomTensor(DataType::kFloat32, {T, N, I}, 1, -2.0, 2.0);
  const Tensor w = Cast(DataType::kInt8, RandomTensor(DataType::kFloat32, {D, I, G}, 2, -127, 127));
  const Tensor r = Cast(DataType::kInt8, RandomTensor(DataType::kFloat32, {D, H, G}, 3, -127, 127));
  const Tensor b = RandomTensor(DataType::kFloat32, {D, 8 * H}, 4, -0.5, 0.5);
  const Tensor lens = Tensor::FromVector<int32_t>({N}, {6, 4, 1});
  const Tensor h0 = RandomTensor(DataType::kFloat32, {D, N, H}, 5, -0.5, 0.5);
  const Tensor c0 = RandomTensor(DataType::kFloat32, {D, N, H}, 6, -0.5, 0.5);
  const Tensor p = RandomTensor(DataType::kFloat32, {D, 3 * H}, 7, -0.3, 0.3);
  const Tensor ws = RandomTensor(DataType::kFloat32, {D, G}, 8, 0.001, 0.004);
  const Tensor rs = RandomTensor(DataType::kFloat32, {D, G}, 9, 0.002, 0.006);
  const Tensor zeros = Tensor::Zeros(DataType::kInt8, {D, G});
  auto out = testing::RunSingleOp(testing::ParseOp(kOp), {x, w, r, b, lens, h0, c0, p, ws, zeros, rs, zeros});
  ASSERT_TRUE(out.ok()) << out.status();

  Tensor y = Tensor::Zeros(DataType::kFloat32, {T, D, N, H}), y_h = Tensor::Zeros(DataType::kFloat32, {D, N, H});
  Tensor y_c = Tensor::Zeros(DataType::kFloat32, {D, N, H});
  for (int64_t d = 0; d < D; ++d) {
    std::vector<float> gx(T * N * G), gh(N * G), h(h0.data<float>() + d * N * H, h0.data<float>() + (d + 1) * N * H);
    std::vector<float> c(c0.data<float>() + d * N * H, c0.data<float>() + (d + 1) * N * H);
    Product(x.data<float>(), T * N, I, w.data<int8_t>() + d * I * G, G, ws.data<float>() + d * G, gx.data());
    const float* bd = b.data<float>() + d * 8 * H;
    const float* pd = p.data<float>() + d * 3 * H;
    for (int64_t s = 0; s < T; ++s) {
      Product(h.data(), N, H, r.data<int8_t>() + d * H * G, G, rs.data<float>() + d * G, gh.data());
      for (int64_t n = 0; n < N; ++n) {
        const int64_t len = lens.data<int32_t>()[n];
        if (s >= len) continue;
        const int64_t t = d == 1 ? len - 1 - s : s;
        std::vector<float> gates(G), tmp(2 * H);
        for (int64_t j = 0; j < G; ++j) gates[j] = gx[(t * N + n) * G + j] + gh[n * G + j] + (bd[j] + bd[G + j]);
        cpu::LstmCellRow(gates.data(), pd, H, &c[n * H], &h[n * H], tmp.data());
        std::copy(&h[n * H], &h[n * H] + H, y.data<float>() + ((t * D + d) * N + n) * H);
      }
    }
    std::copy(h.begin(), h.end(), y_h.data<float>() + d * N * H);
    std::copy(c.begin(), c.end(), y_c.data<float>() + d * N * H);
  }
  EXPECT_TRUE(AllClose((*out)[0], y, 0, 0));
  EXPECT_TRUE(AllClose((*out)[1], y_h, 0, 0));
  EXPECT_TRUE(AllClose((*out)[2], y_c, 0, 0));
}

TEST(GruRows, AreOnnxGrusGatesAndOutput) {
  const int64_t H = 19;
  const Tensor g = RandomTensor(DataType::kFloat32, {2 * H}, 14, -4.0, 4.0);
  const Tensor hc0 = RandomTensor(DataType::kFloat32, {H}, 15, -3.0, 3.0);
  const Tensor h0 = RandomTensor(DataType::kFloat32, {H}, 16, -1.0, 1.0);
  std::vector<float> zr(g.data<float>(), g.data<float>() + 2 * H), tmp(2 * H), hc(hc0.data<float>(), hc0.data<float>() + H),
      h(h0.data<float>(), h0.data<float>() + H);
  cpu::GruGatesRow(zr.data(), H, tmp.data());
  cpu::GruOutputRow(zr.data(), hc.data(), H, h.data());
  for (int64_t k = 0; k < 2 * H; ++k) EXPECT_NEAR(zr[k], Sigmoid(g.data<float>()[k]), 2e-7) << k;
  for (int64_t k = 0; k < H; ++k) {
    const double z = Sigmoid(g.data<float>()[k]);
    EXPECT_NEAR(h[k], (1 - z) * std::tanh(static_cast<double>(hc0.data<float>()[k])) + z * h0.data<float>()[k], 2e-6) << k;
  }
}

// DynamicQuantizeGRU, both directions, sequence_lens, initial_h, with and
// without linear_before_reset, against the reference loop.
TEST(DynamicQuantizeGRU, MatchesTheDefinition) {
  const int64_t T = 5, N = 3, I = 6, H = 4, G = 3 * H, D = 2;
  const Tensor x = RandomTensor(DataType::kFloat32, {T, N, I}, 21, -2.0, 2.0);
  const Tensor w = Cast(DataType::kInt8, RandomTensor(DataType::kFloat32, {D, I, G}, 22, -127, 127));
  const Tensor r = Cast(DataType::kInt8, RandomTensor(DataType::kFloat32, {D, H, G}, 23, -127, 127));
  const Tensor b = RandomTensor(DataType::kFloat32, {D, 6 * H}, 24, -0.5, 0.5);
  const Tensor lens = Tensor::FromVector<int32_t>({N}, {5, 2, 4});
  const Tensor h0 = RandomTensor(DataType::kFloat32, {D, N, H}, 25, -0.5, 0.5);
  const Tensor ws = RandomTensor(DataType::kFloat32, {D, G}, 26, 0.001, 0.004);
  const Tensor rs = RandomTensor(DataType::kFloat32, {D, G}, 27, 0.002, 0.006);
  const Tensor zeros = Tensor::Zeros(DataType::kInt8, {D, G});
  for (int lbr : {0, 1}) {
    SCOPED_TRACE("linear_before_reset " + std::to_string(lbr));
    auto out = testing::RunSingleOp(
        testing::ParseOp(R"(type: "DynamicQuantizeGRU" domain: "loom" input: "x" input: "w" input: "r" input: "b"
            input: "lens" input: "h0" input: "ws" input: "wz" input: "rs" input: "rz" output: "y" output: "y_h"
            arg { name: "direction" s: "bidirectional" } arg { name: "linear_before_reset" i: )" + std::to_string(lbr) + " }"),
        {x, w, r, b, lens, h0, ws, zeros, rs, zeros});
    ASSERT_TRUE(out.ok()) << out.status();
    Tensor y = Tensor::Zeros(DataType::kFloat32, {T, D, N, H}), y_h = Tensor::Zeros(DataType::kFloat32, {D, N, H});
    for (int64_t d = 0; d < D; ++d) {
      // R's columns as the kernel splits them: all (lbr 1), or z, r | h.
      const int64_t rc = lbr ? G : 2 * H;
      std::vector<int8_t> r_first(H * rc), r_h(H * H);
      std::vector<float> rs_first(rc), rs_h(H);
      const int8_t* rd = r.data<int8_t>() + d * H * G;
      for (int64_t k = 0; k < H; ++k) {
        for (int64_t j = 0; j < rc; ++j) r_first[k * rc + j] = rd[k * G + j];
        for (int64_t j = 0; j < H; ++j) r_h[k * H + j] = rd[k * G + 2 * H + j];
      }
      for (int64_t j = 0; j < rc; ++j) rs_first[j] = rs.data<float>()[d * G + j];
      for (int64_t j = 0; j < H; ++j) rs_h[j] = rs.data<float>()[d * G + 2 * H + j];
      std::vector<float> gx(T * N * G), gh(N * rc), ghh(N * H), rh(N * H), tmp(2 * H), hc(H);
      std::vector<float> h(h0.data<float>() + d * N * H, h0.data<float>() + (d + 1) * N * H);
      Product(x.data<float>(), T * N, I, w.data<int8_t>() + d * I * G, G, ws.data<float>() + d * G, gx.data());
      const float* wb = b.data<float>() + d * 6 * H;
      const float* rb = wb + G;
      for (int64_t s = 0; s < T; ++s) {
        Product(h.data(), N, H, r_first.data(), rc, rs_first.data(), gh.data());
        for (int64_t n = 0; n < N; ++n) {
          const int64_t len = lens.data<int32_t>()[n];
          if (s >= len) continue;
          const int64_t t = d == 1 ? len - 1 - s : s;
          for (int64_t k = 0; k < 2 * H; ++k) gh[n * rc + k] = gx[(t * N + n) * G + k] + gh[n * rc + k] + (wb[k] + rb[k]);
          cpu::GruGatesRow(&gh[n * rc], H, tmp.data());
          for (int64_t k = 0; k < H; ++k) rh[n * H + k] = gh[n * rc + H + k] * h[n * H + k];
        }
        if (!lbr) Product(rh.data(), N, H, r_h.data(), H, rs_h.data(), ghh.data());
        for (int64_t n = 0; n < N; ++n) {
          const int64_t len = lens.data<int32_t>()[n];
          if (s >= len) continue;
          const int64_t t = d == 1 ? len - 1 - s : s;
          const float* gxh = &gx[(t * N + n) * G + 2 * H];
          for (int64_t k = 0; k < H; ++k) {
            hc[k] = lbr ? gxh[k] + wb[2 * H + k] + gh[n * rc + H + k] * (gh[n * rc + 2 * H + k] + rb[2 * H + k])
                        : gxh[k] + ghh[n * H + k] + (rb[2 * H + k] + wb[2 * H + k]);
          }
          cpu::GruOutputRow(&gh[n * rc], hc.data(), H, &h[n * H]);
          std::copy(&h[n * H], &h[n * H] + H, y.data<float>() + ((t * D + d) * N + n) * H);
        }
      }
      std::copy(h.begin(), h.end(), y_h.data<float>() + d * N * H);
    }
    EXPECT_TRUE(AllClose((*out)[0], y, 0, 0));
    EXPECT_TRUE(AllClose((*out)[1], y_h, 0, 0));
  }
}

TEST(DynamicQuantizeLSTM, ErrorsNameWhatIsNotImplementedOrWrong) {
  const Tensor x = RandomTensor(DataType::kFloat32, {2, 1, 3}, 1);
  const Tensor w = Tensor::Zeros(DataType::kInt8, {1, 3, 8}), r = Tensor::Zeros(DataType::kInt8, {1, 2, 8});
  const Tensor s = F32({1}, {0.01f}), z = Tensor::Zeros(DataType::kInt8, {1});
  const std::string inputs = R"(type: "DynamicQuantizeLSTM" domain: "loom" input: "x" input: "w" input: "r" input: ""
      input: "" input: "" input: "" input: "" input: "ws" input: "wz" input: "rs" input: "rz" output: "y")";
  auto message = [&](const std::string& extra, const Tensor& wz) {
    auto y = testing::RunSingleOp(testing::ParseOp(inputs + extra), {x, w, r, Tensor(), Tensor(), Tensor(), Tensor(),
                                                                      Tensor(), s, wz, s, z});
    return y.ok() ? std::string("OK") : y.status().ToString();
  };
  EXPECT_EQ(message("", z), "OK");
  EXPECT_NE(message(R"( arg { name: "clip" f: 3 })", z).find("clip is not implemented"), std::string::npos);
  EXPECT_NE(message(R"( arg { name: "activations" strings: "Relu" strings: "Tanh" strings: "Tanh" })", z)
                .find("found Relu"), std::string::npos);
  EXPECT_NE(message("", Tensor::FromVector<int8_t>({1}, {2})).find("W_zero_point must be 0"), std::string::npos);
  EXPECT_NE(message(R"( arg { name: "hidden_size" i: 3 })", z).find("with H = hidden_size 3"), std::string::npos);
}

}  // namespace
}  // namespace loom
