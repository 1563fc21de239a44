// ONNX LSTM, GRU and RNN kernels against a naive reference of the ONNX
// formulas (written here, in double, time-major), on random inputs.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

struct Config {
  std::string op = "LSTM";
  std::string direction = "forward";
  int64_t T = 5, N = 3, I = 4, H = 6;
  bool bias = true, h0 = true, c0 = true, peep = false;
  int lbr = 0;
  int layout = 0;
  std::vector<int32_t> lens;  // empty: no sequence_lens input
  std::string act = "";       // RNN activation ("" = default Tanh); "LeakyRelu" uses alpha 0.1
  double clip = 0;            // 0: no clip
  bool input_forget = false;
  bool want_y = true;
  DataType dt = DataType::kFloat32;

  int64_t D() const { return direction == "bidirectional" ? 2 : 1; }
  int64_t G() const { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }
  std::string Describe() const {
    std::string s = op + " " + direction + " T" + std::to_string(T) + " N" + std::to_string(N) + " I" + std::to_string(I) +
                    " H" + std::to_string(H) + (bias ? " B" : "") + (h0 ? " h0" : "") + (c0 ? " c0" : "") +
                    (peep ? " P" : "") + " lbr" + std::to_string(lbr) + " layout" + std::to_string(layout) + " act=" + act +
                    " clip=" + std::to_string(clip) + (input_forget ? " input_forget" : "") + " " + DataTypeName(dt);
    for (int32_t l : lens) s += " len" + std::to_string(l);
    return s;
  }
};

Tensor FromDoubles(DataType dt, const Shape& shape, const std::vector<double>& v) {
  if (dt == DataType::kFloat64) return Tensor::FromVector<double>(shape, v);
  return Tensor::FromVector<float>(shape, std::vector<float>(v.begin(), v.end()));
}

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// Time-major reference outputs: Y [T, D, N, H], Y_h and Y_c [D, N, H].
struct Ref {
  std::vector<double> y, yh, yc;
};

// The ONNX formulas, one step at a time (opset 14, layout 0).
Ref Reference(const Config& c, const std::vector<double>& X, const std::vector<double>& W, const std::vector<double>& R,
              const std::vector<double>& B, const std::vector<double>& H0, const std::vector<double>& C0,
              const std::vector<double>& P) {
  const int64_t T = c.T, N = c.N, I = c.I, H = c.H, D = c.D(), G = c.G();
  auto clip = [&](double v) { return c.clip > 0 ? std::max(-c.clip, std::min(c.clip, v)) : v; };
  std::function<double(double)> rnn_act = [](double v) { return std::tanh(v); };
  if (c.act == "Relu") rnn_act = [](double v) { return v > 0 ? v : 0.0; };
  if (c.act == "Sigmoid") rnn_act = Sigmoid;
  if (c.act == "LeakyRelu") rnn_act = [](double v) { return v < 0 ? 0.1 * v : v; };
  Ref ref;
  ref.y.assign(T * D * N * H, 0.0);
  ref.yh.assign(D * N * H, 0.0);
  ref.yc.assign(D * N * H, 0.0);
  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = c.direction == "reverse" || d == 1;
    // dot(row k of W or R for direction d, v)
    auto wx = [&](int64_t k, const double* v) {
      double s = B.empty() ? 0.0 : B[d * 2 * G * H + k];
      for (int64_t i = 0; i < I; ++i) s += W[(d * G * H + k) * I + i] * v[i];
      return s;
    };
    auto rh = [&](int64_t k, const std::vector<double>& v) {
      double s = B.empty() ? 0.0 : B[d * 2 * G * H + G * H + k];
      for (int64_t i = 0; i < H; ++i) s += R[(d * G * H + k) * H + i] * v[i];
      return s;
    };
    for (int64_t n = 0; n < N; ++n) {
      std::vector<double> h(H, 0.0), cs(H, 0.0);
      for (int64_t j = 0; j < H; ++j) {
        if (!H0.empty()) h[j] = H0[(d * N + n) * H + j];
        if (!C0.empty()) cs[j] = C0[(d * N + n) * H + j];
      }
      const int64_t len = c.lens.empty() ? T : c.lens[n];
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = reverse ? len - 1 - s : s;
        const double* x = &X[(t * N + n) * I];
        std::vector<double> hn(H);
        if (c.op == "LSTM") {
          for (int64_t j = 0; j < H; ++j) {
            const double pi = P.empty() ? 0 : P[d * 3 * H + j], po = P.empty() ? 0 : P[d * 3 * H + H + j],
                         pf = P.empty() ? 0 : P[d * 3 * H + 2 * H + j];
            double i_g = Sigmoid(clip(wx(j, x) + rh(j, h) + pi * cs[j]));
            double f_g = c.input_forget ? 1 - i_g : Sigmoid(clip(wx(2 * H + j, x) + rh(2 * H + j, h) + pf * cs[j]));
            double c_g = std::tanh(clip(wx(3 * H + j, x) + rh(3 * H + j, h)));
            double c_new = f_g * cs[j] + i_g * c_g;
            double o_g = Sigmoid(clip(wx(H + j, x) + rh(H + j, h) + po * c_new));
            hn[j] = o_g * std::tanh(c_new);
            cs[j] = c_new;  // cs[j] is not read again this step
          }
        } else if (c.op == "GRU") {
          std::vector<double> z(H), r(H), rhv(H);
          for (int64_t j = 0; j < H; ++j) {
            z[j] = Sigmoid(clip(wx(j, x) + rh(j, h)));
            r[j] = Sigmoid(clip(wx(H + j, x) + rh(H + j, h)));
            rhv[j] = r[j] * h[j];
          }
          for (int64_t j = 0; j < H; ++j) {
            double pre = c.lbr ? wx(2 * H + j, x) + r[j] * rh(2 * H + j, h) : wx(2 * H + j, x) + rh(2 * H + j, rhv);
            hn[j] = (1 - z[j]) * std::tanh(clip(pre)) + z[j] * h[j];
          }
        } else {
          for (int64_t j = 0; j < H; ++j) hn[j] = rnn_act(clip(wx(j, x) + rh(j, h)));
        }
        h = hn;
        for (int64_t j = 0; j < H; ++j) ref.y[((t * D + d) * N + n) * H + j] = h[j];
      }
      for (int64_t j = 0; j < H; ++j) {
        ref.yh[(d * N + n) * H + j] = h[j];
        ref.yc[(d * N + n) * H + j] = cs[j];
      }
    }
  }
  return ref;
}

// [A, B, rest] -> [B, A, rest] for flat data.
std::vector<double> Swap01(const std::vector<double>& v, int64_t a, int64_t b, int64_t rest) {
  std::vector<double> out(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < rest; ++k) out[(j * a + i) * rest + k] = v[(i * b + j) * rest + k];
  return out;
}

// Runs the kernel on random inputs and compares every output.
void CheckConfig(const Config& c, uint32_t seed = 1) {
  SCOPED_TRACE(c.Describe());
  const int64_t T = c.T, N = c.N, I = c.I, H = c.H, D = c.D(), G = c.G();
  const bool lstm = c.op == "LSTM";
  Tensor X = RandomTensor(c.dt, {T, N, I}, seed);
  Tensor W = RandomTensor(c.dt, {D, G * H, I}, seed + 1, -0.6, 0.6);
  Tensor R = RandomTensor(c.dt, {D, G * H, H}, seed + 2, -0.6, 0.6);
  Tensor B = RandomTensor(c.dt, {D, 2 * G * H}, seed + 3, -0.5, 0.5);
  Tensor H0 = RandomTensor(c.dt, {D, N, H}, seed + 4);
  Tensor C0 = RandomTensor(c.dt, {D, N, H}, seed + 5);
  Tensor P = RandomTensor(c.dt, {D, 3 * H}, seed + 6);
  std::vector<double> none;
  Ref ref = Reference(c, Values(X), Values(W), Values(R), c.bias ? Values(B) : none, c.h0 ? Values(H0) : none,
                      lstm && c.c0 ? Values(C0) : none, lstm && c.peep ? Values(P) : none);

  std::string text = "type: \"" + c.op + "\" input: \"X\" input: \"W\" input: \"R\"";
  text += std::string(" input: \"") + (c.bias ? "B" : "") + "\"";
  text += std::string(" input: \"") + (c.lens.empty() ? "" : "sequence_lens") + "\"";
  text += std::string(" input: \"") + (c.h0 ? "initial_h" : "") + "\"";
  if (lstm) {
    text += std::string(" input: \"") + (c.c0 ? "initial_c" : "") + "\"";
    text += std::string(" input: \"") + (c.peep ? "P" : "") + "\"";
  }
  text += std::string(" output: \"") + (c.want_y ? "Y" : "") + "\" output: \"Y_h\"";
  if (lstm) text += " output: \"Y_c\"";
  text += " arg { name: \"direction\" s: \"" + c.direction + "\" }";
  text += " arg { name: \"hidden_size\" i: " + std::to_string(H) + " }";
  if (c.layout) text += " arg { name: \"layout\" i: 1 }";
  if (c.op == "GRU") text += " arg { name: \"linear_before_reset\" i: " + std::to_string(c.lbr) + " }";
  if (c.clip > 0) text += " arg { name: \"clip\" f: " + std::to_string(c.clip) + " }";
  if (c.input_forget) text += " arg { name: \"input_forget\" i: 1 }";
  if (!c.act.empty()) {
    text += " arg { name: \"activations\" strings: \"" + c.act + "\"";
    if (D == 2) text += " strings: \"" + c.act + "\"";
    text += " }";
    if (c.act == "LeakyRelu") text += " arg { name: \"activation_alpha\" floats: 0.1 floats: 0.1 }";
  }
  OperatorDef op = ParseOp(text);

  // Layout 1 feeds batch-major X and states and expects batch-major outputs.
  Tensor Xin = X, H0in = H0, C0in = C0;
  if (c.layout) {
    Xin = FromDoubles(c.dt, {N, T, I}, Swap01(Values(X), T, N, I));
    H0in = FromDoubles(c.dt, {N, D, H}, Swap01(Values(H0), D, N, H));
    C0in = FromDoubles(c.dt, {N, D, H}, Swap01(Values(C0), D, N, H));
  }
  std::vector<Tensor> inputs = {Xin, W, R, B, Tensor::FromVector<int32_t>({N}, c.lens), H0in};
  if (lstm) {
    inputs.push_back(C0in);
    inputs.push_back(P);
  }
  auto out = RunSingleOp(op, inputs);
  ASSERT_TRUE(out.ok()) << out.status();

  Shape y_shape = {T, D, N, H}, s_shape = {D, N, H};
  std::vector<double> y = ref.y, yh = ref.yh, yc = ref.yc;
  if (c.layout) {
    y_shape = {N, T, D, H};
    s_shape = {N, D, H};
    y = Swap01(ref.y, T * D, N, H);  // [T*D, N, H] -> [N, T*D, H] == [N, T, D, H]
    yh = Swap01(ref.yh, D, N, H);
    yc = Swap01(ref.yc, D, N, H);
  }
  const double rtol = 1e-4, atol = c.dt == DataType::kFloat64 ? 1e-9 : 2e-5;
  if (c.want_y) {
    EXPECT_TRUE(AllClose((*out)[0], FromDoubles(c.dt, y_shape, y), rtol, atol)) << "Y";
  }
  EXPECT_TRUE(AllClose((*out)[1], FromDoubles(c.dt, s_shape, yh), rtol, atol)) << "Y_h";
  if (lstm) {
    EXPECT_TRUE(AllClose((*out)[2], FromDoubles(c.dt, s_shape, yc), rtol, atol)) << "Y_c";
  }
}

std::vector<Config> Variants(const std::string& op) {
  std::vector<Config> out;
  for (const char* dir : {"forward", "reverse", "bidirectional"}) {
    Config c;
    c.op = op;
    c.direction = dir;
    out.push_back(c);  // B, initial states
    c.bias = c.h0 = c.c0 = false;
    out.push_back(c);  // none of them
    c.bias = true;
    c.layout = 1;
    out.push_back(c);  // batch-major
    c.layout = 0;
    c.h0 = c.c0 = true;
    c.lens = {3, 3, 3};
    out.push_back(c);  // one length below T (oneDNN on a shorter sequence)
    c.lens = {5, 2, 4};
    out.push_back(c);  // mixed lengths
    c.lens = {2, 4, 1};
    out.push_back(c);  // mixed lengths, all below T
    c.layout = 1;
    out.push_back(c);  // mixed lengths, batch-major
    c.lens.clear();
    c.layout = 0;
    c.want_y = false;
    out.push_back(c);  // only the states
    c.want_y = true;
    c.clip = 0.7;
    out.push_back(c);  // clip (loops)
    c.clip = 0;
    c.dt = DataType::kFloat64;
    out.push_back(c);  // float64 (loops)
  }
  return out;
}

TEST(LstmTest, MatchesReference) {
  for (Config c : Variants("LSTM")) CheckConfig(c);
  Config c;
  for (const char* dir : {"forward", "reverse", "bidirectional"}) {
    c.direction = dir;
    c.peep = true;
    CheckConfig(c);  // peepholes
    c.lens = {1, 5, 3};
    CheckConfig(c);  // peepholes, mixed lengths
    c.lens.clear();
    c.peep = false;
    c.input_forget = true;
    CheckConfig(c);  // coupled input and forget gates (loops)
    c.input_forget = false;
  }
}

TEST(GruTest, MatchesReference) {
  for (int lbr : {0, 1}) {
    for (Config c : Variants("GRU")) {
      c.lbr = lbr;
      CheckConfig(c);
    }
  }
}

TEST(RnnTest, MatchesReference) {
  for (Config c : Variants("RNN")) CheckConfig(c);
  for (const char* act : {"Tanh", "Relu", "Sigmoid", "LeakyRelu"}) {
    for (const char* dir : {"forward", "bidirectional"}) {
      Config c;
      c.op = "RNN";
      c.direction = dir;
      c.act = act;
      CheckConfig(c);
    }
  }
}

TEST(RnnFamilyTest, OddSizes) {
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    Config c;
    c.op = op;
    c.direction = "bidirectional";
    c.T = 1, c.N = 1, c.I = 1, c.H = 1;
    CheckConfig(c);
    c.T = 7, c.N = 9, c.I = 17, c.H = 33;  // sizes off oneDNN's vector widths
    CheckConfig(c, 5);
    c.T = 3, c.N = 0;  // empty batch
    CheckConfig(c);
  }
}

// Hand-computed values.
TEST(RnnFamilyTest, KnownValues) {
  // RNN, tanh: Y = tanh(2 * 0.5 + 0 * h0) = tanh(1).
  OperatorDef rnn = ParseOp("type: \"RNN\" input: \"X\" input: \"W\" input: \"R\" output: \"Y\" output: \"Y_h\"");
  auto out = RunSingleOp(rnn, {Tensor::FromVector<float>({1, 1, 1}, {0.5f}), Tensor::FromVector<float>({1, 1, 1}, {2.0f}),
                               Tensor::FromVector<float>({1, 1, 1}, {0.0f})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 1, 1, 1}, {0.7615941559557649f})));
  EXPECT_TRUE(AllClose((*out)[1], Tensor::FromVector<float>({1, 1, 1}, {0.7615941559557649f})));

  // LSTM with zero weights and C0 = 1: every gate is sigmoid(0) = 0.5 and the
  // candidate tanh(0) = 0, so C = 0.5 and H = 0.5 * tanh(0.5).
  OperatorDef lstm = ParseOp(
      "type: \"LSTM\" input: \"X\" input: \"W\" input: \"R\" input: \"\" input: \"\" input: \"\" input: \"c0\" "
      "output: \"\" output: \"Y_h\" output: \"Y_c\"");
  out = RunSingleOp(lstm, {Tensor::FromVector<float>({1, 1, 1}, {3.0f}), Tensor::Zeros(DataType::kFloat32, {1, 4, 1}),
                           Tensor::Zeros(DataType::kFloat32, {1, 4, 1}), Tensor(), Tensor(), Tensor(),
                           Tensor::FromVector<float>({1, 1, 1}, {1.0f})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[1], Tensor::FromVector<float>({1, 1, 1}, {0.23105857863000487f})));
  EXPECT_TRUE(AllClose((*out)[2], Tensor::FromVector<float>({1, 1, 1}, {0.5f})));

  // GRU with zero weights: z = 0.5, h = tanh(0) = 0, so H = 0.5 * H0.
  OperatorDef gru = ParseOp(
      "type: \"GRU\" input: \"X\" input: \"W\" input: \"R\" input: \"\" input: \"\" input: \"h0\" output: \"Y\"");
  out = RunSingleOp(gru, {Tensor::FromVector<float>({2, 1, 1}, {3.0f, -1.0f}), Tensor::Zeros(DataType::kFloat32, {1, 3, 1}),
                          Tensor::Zeros(DataType::kFloat32, {1, 3, 1}), Tensor(), Tensor(),
                          Tensor::FromVector<float>({1, 1, 1}, {0.8f})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({2, 1, 1, 1}, {0.4f, 0.2f})));
}

TEST(RnnFamilyTest, Errors) {
  const Tensor X = RandomTensor(DataType::kFloat32, {4, 2, 3}, 1);
  const Tensor W = RandomTensor(DataType::kFloat32, {1, 20, 3}, 2);
  const Tensor R = RandomTensor(DataType::kFloat32, {1, 20, 5}, 3);
  OperatorDef op = ParseOp(
      "type: \"LSTM\" input: \"X\" input: \"W\" input: \"R\" input: \"\" input: \"sequence_lens\" output: \"Y\"");
  // A zero length names its batch entry.
  auto out = RunSingleOp(op, {X, W, R, Tensor(), Tensor::FromVector<int32_t>({2}, {4, 0})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string(out.status().message()).find("sequence_lens[1]"), std::string::npos) << out.status();
  // A length above seq_length.
  out = RunSingleOp(op, {X, W, R, Tensor(), Tensor::FromVector<int32_t>({2}, {5, 1})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string(out.status().message()).find("sequence_lens[0]"), std::string::npos) << out.status();
  // Wrong sequence_lens size.
  EXPECT_FALSE(RunSingleOp(op, {X, W, R, Tensor(), Tensor::FromVector<int32_t>({3}, {1, 1, 1})}).ok());
  // W with the wrong input size.
  OperatorDef plain = ParseOp("type: \"LSTM\" input: \"X\" input: \"W\" input: \"R\" output: \"Y\"");
  EXPECT_FALSE(RunSingleOp(plain, {X, RandomTensor(DataType::kFloat32, {1, 20, 4}, 2), R}).ok());
  // R whose rows are not 4 * hidden.
  EXPECT_FALSE(RunSingleOp(plain, {X, W, RandomTensor(DataType::kFloat32, {1, 19, 5}, 3)}).ok());
  // hidden_size disagreeing with R.
  OperatorDef hs = ParseOp(
      "type: \"LSTM\" input: \"X\" input: \"W\" input: \"R\" output: \"Y\" arg { name: \"hidden_size\" i: 4 }");
  EXPECT_FALSE(RunSingleOp(hs, {X, W, R}).ok());
  // X of rank 2.
  EXPECT_FALSE(RunSingleOp(plain, {RandomTensor(DataType::kFloat32, {4, 3}, 1), W, R}).ok());
  // An unknown activation.
  OperatorDef bad_act = ParseOp(
      "type: \"RNN\" input: \"X\" input: \"W\" input: \"R\" output: \"Y\" arg { name: \"activations\" strings: \"Cube\" }");
  EXPECT_FALSE(RunSingleOp(bad_act, {X, RandomTensor(DataType::kFloat32, {1, 5, 3}, 2), RandomTensor(DataType::kFloat32, {1, 5, 5}, 3)}).ok());
  // Bidirectional with one direction's weights.
  OperatorDef bi = ParseOp(
      "type: \"GRU\" input: \"X\" input: \"W\" input: \"R\" output: \"Y\" arg { name: \"direction\" s: \"bidirectional\" }");
  EXPECT_FALSE(RunSingleOp(bi, {X, RandomTensor(DataType::kFloat32, {1, 15, 3}, 2), RandomTensor(DataType::kFloat32, {1, 15, 5}, 3)}).ok());
}

}  // namespace
}  // namespace loom
