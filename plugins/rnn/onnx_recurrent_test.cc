// The two kernels of ONNX LSTM, GRU and RNN agree: the step-net expansion
// (engine STEPNET, rnn plugin) against the CPU plugin's kernel (engine DNNL:
// oneDNN, or its plain loops for what oneDNN lacks: clip, custom
// activations, mixed sequence_lens, ...), on random inputs: every
// direction, layout 0 and 1, sequence_lens whose largest value is below T,
// peepholes, clip, input_forget, every ONNX activation,
// linear_before_reset. Plus hand-computed values and error cases of the
// STEPNET kernels.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/net.h"
#include "core/plugin_loader.h"
#include "core/workspace.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

Registry* RnnRegistry() { return testing::CpuRegistryWith("plugins/rnn/libloom_rnn.so"); }

struct Case {
  std::string op;         // LSTM, GRU or RNN
  std::string direction;  // forward, reverse, bidirectional
  int layout = 0;
  bool bias = true, initial = true;
  std::vector<int32_t> lens;  // sequence_lens ([N] = 3 entries), none when empty
  std::string extra;          // more attributes (op text)
  bool peepholes = false;     // LSTM input P

  std::string Describe() const {
    std::string l;
    for (int32_t v : lens) l += std::to_string(v) + " ";
    return op + " " + direction + " layout " + std::to_string(layout) + (bias ? " B" : "") + (initial ? " initial" : "") +
           " lens [" + l + "]" + (peepholes ? " P " : " ") + extra;
  }
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.Describe(); }

constexpr int64_t kT = 7, kN = 3, kI = 4, kH = 5;

// The op text of case c (engine appended by the caller).
std::string OpText(const Case& c) {
  const bool lstm = c.op == "LSTM";
  std::string t = "type: \"" + c.op + "\" name: \"rnn\" input: \"X\" input: \"W\" input: \"R\" input: \"" +
                  std::string(c.bias ? "B" : "") + "\" input: \"" + (c.lens.empty() ? "" : "L") + "\" input: \"" +
                  (c.initial ? "H0" : "") + "\"";
  if (lstm) t += std::string(" input: \"") + (c.initial ? "C0" : "") + "\" input: \"" + (c.peepholes ? "P" : "") + "\"";
  t += " output: \"Y\" output: \"Yh\"";
  if (lstm) t += " output: \"Yc\"";
  t += " arg { name: \"hidden_size\" i: " + std::to_string(kH) + " } arg { name: \"direction\" s: \"" + c.direction +
       "\" } arg { name: \"layout\" i: " + std::to_string(c.layout) + " } " + c.extra;
  return t;
}

std::vector<Tensor> Inputs(const Case& c) {
  const int64_t D = c.direction == "bidirectional" ? 2 : 1;
  const int64_t G = c.op == "LSTM" ? 4 : (c.op == "GRU" ? 3 : 1);
  const Shape state = c.layout ? Shape{kN, D, kH} : Shape{D, kN, kH};
  return {
      testing::RandomTensor(DataType::kFloat32, c.layout ? Shape{kN, kT, kI} : Shape{kT, kN, kI}, 1),
      testing::RandomTensor(DataType::kFloat32, {D, G * kH, kI}, 2, -0.5, 0.5),
      testing::RandomTensor(DataType::kFloat32, {D, G * kH, kH}, 3, -0.5, 0.5),
      c.bias ? testing::RandomTensor(DataType::kFloat32, {D, 2 * G * kH}, 4, -0.2, 0.2) : Tensor(),
      c.lens.empty() ? Tensor() : Tensor::FromVector<int32_t>({kN}, c.lens),
      c.initial ? testing::RandomTensor(DataType::kFloat32, state, 5) : Tensor(),
      c.initial ? testing::RandomTensor(DataType::kFloat32, state, 6) : Tensor(),
      c.peepholes ? testing::RandomTensor(DataType::kFloat32, {D, 3 * kH}, 7, -0.5, 0.5) : Tensor(),
  };
}

// Runs `op` with W, R, B and P (inputs 1, 2, 3, 7) as initializers (blobs
// of the workspace, not net inputs): the STEPNET kernel's constant-weights
// path, whose nets pack the weights once. *fills: the packed copies the
// net's store made (core/packed_constants.h).
absl::StatusOr<std::vector<Tensor>> RunWithConstantWeights(const OperatorDef& op, const std::vector<Tensor>& inputs,
                                                           int64_t* fills) {
  Workspace ws;
  NetDef net;
  net.set_name("constant_weights");
  *net.add_op() = op;
  for (int i = 0; i < op.input_size() && i < static_cast<int>(inputs.size()); ++i) {
    if (op.input(i).empty()) continue;
    ws.SetBlob(op.input(i), inputs[i]);
    if (i != 1 && i != 2 && i != 3 && i != 7) net.add_external_input(op.input(i));
  }
  for (const std::string& o : op.output()) net.add_external_output(o);
  auto n = Net::Create(net, &ws, RnnRegistry());
  if (!n.ok()) return n.status();
  for (int run = 0; run < 2; ++run) {  // the second run reuses the packed copies
    if (absl::Status s = (*n)->Run(); !s.ok()) return s;
  }
  *fills = (*n)->scope().packed_constants->fills();
  std::vector<Tensor> out;
  for (const std::string& o : op.output()) out.push_back(*ws.GetBlob(o));
  return out;
}

class OnnxRecurrentAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(OnnxRecurrentAgreement, StepNetMatchesDnnlKernel) {
  const Case c = GetParam();
  SCOPED_TRACE(c.Describe());
  std::vector<Tensor> in = Inputs(c);
  if (c.op != "LSTM") in.resize(6);
  const std::string op = OpText(c);
  auto dnnl = testing::RunSingleOp(testing::ParseOp(op + " engine: \"DNNL\""), in, RnnRegistry());
  ASSERT_TRUE(dnnl.ok()) << dnnl.status();
  auto stepnet = testing::RunSingleOp(testing::ParseOp(op + " engine: \"STEPNET\""), in, RnnRegistry());
  ASSERT_TRUE(stepnet.ok()) << stepnet.status();
  ASSERT_EQ(stepnet->size(), dnnl->size());
  for (size_t k = 0; k < dnnl->size(); ++k) EXPECT_TRUE(testing::AllClose((*stepnet)[k], (*dnnl)[k], 1e-4, 1e-5)) << "output " << k;
  // Past an entry's end Y is zero (checked on the STEPNET output directly:
  // it must not merely agree, it must hold).
  if (!c.lens.empty()) {
    const Tensor& y = (*stepnet)[0];
    const int64_t D = c.direction == "bidirectional" ? 2 : 1;
    for (int64_t b = 0; b < kN; ++b) {
      for (int64_t t = c.lens[b]; t < kT; ++t) {
        for (int64_t d = 0; d < D; ++d) {
          for (int64_t h = 0; h < kH; ++h) {
            int64_t i = (c.layout ? (b * kT + t) * D + d : (t * D + d) * kN + b) * kH + h;
            ASSERT_EQ(y.data<float>()[i], 0.0f) << "Y at t " << t << " batch " << b;
          }
        }
      }
    }
  }
  // A second run on the same kernel objects reuses the expanded net.
  auto again = testing::RunSingleOp(testing::ParseOp(op + " engine: \"STEPNET\""), in, RnnRegistry());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(testing::AllClose((*again)[0], (*stepnet)[0], 0, 0));
  // Initializer weights: packed once, the same results. At most one packed
  // copy per FC weight of the nets (the hoisted input projection's W, and
  // R, or GRU's Rzr and Rh, per direction), not one per timestep.
  int64_t fills = -1;
  auto constant = RunWithConstantWeights(testing::ParseOp(op + " engine: \"STEPNET\""), in, &fills);
  ASSERT_TRUE(constant.ok()) << constant.status();
  for (size_t k = 0; k < dnnl->size(); ++k) EXPECT_TRUE(testing::AllClose((*constant)[k], (*dnnl)[k], 1e-4, 1e-5)) << "output " << k;
  const int64_t D = c.direction == "bidirectional" ? 2 : 1;
  EXPECT_LE(fills, (c.op == "GRU" ? 3 : 2) * D);
}

const std::vector<int32_t> kShort = {5, 4, 2};    // largest below T = 7
const std::vector<int32_t> kMixed = {7, 3, 1};    // one full length
const std::vector<int32_t> kUniform = {6, 6, 6};  // one length below T
const std::string kLbr = "arg { name: \"linear_before_reset\" i: 1 }";

INSTANTIATE_TEST_SUITE_P(
    Lstm, OnnxRecurrentAgreement,
    ::testing::Values(
        Case{"LSTM", "forward"}, Case{"LSTM", "reverse"}, Case{"LSTM", "bidirectional"},
        Case{"LSTM", "forward", 0, false, false}, Case{"LSTM", "forward", 0, true, true, kShort},
        Case{"LSTM", "reverse", 0, true, false, kShort}, Case{"LSTM", "bidirectional", 1, true, true, kShort},
        Case{"LSTM", "forward", 1, true, true, kUniform}, Case{"LSTM", "reverse", 0, true, true, kMixed},
        // Peepholes, clip, input_forget: the standard-op cell.
        Case{"LSTM", "forward", 0, true, true, {}, "", true}, Case{"LSTM", "bidirectional", 1, true, true, kShort, "", true},
        Case{"LSTM", "reverse", 0, true, true, kShort, "arg { name: \"clip\" f: 0.3 }", true},
        Case{"LSTM", "forward", 0, true, true, kMixed, "arg { name: \"input_forget\" i: 1 }"},
        // Non-default activations, with alpha/beta consumed in order.
        Case{"LSTM", "forward", 0, true, true, kShort,
             "arg { name: \"activations\" strings: \"HardSigmoid\" strings: \"Affine\" strings: \"ScaledTanh\" } "
             "arg { name: \"activation_alpha\" floats: 0.3 floats: 0.7 floats: 1.5 } "
             "arg { name: \"activation_beta\" floats: 0.4 floats: 0.1 floats: 0.8 }"},
        Case{"LSTM", "bidirectional", 0, true, true, {},
             "arg { name: \"activations\" strings: \"Sigmoid\" strings: \"Softsign\" strings: \"Elu\" "
             "strings: \"HardSigmoid\" strings: \"LeakyRelu\" strings: \"Softplus\" } "
             "arg { name: \"activation_alpha\" floats: 0.5 floats: 0.25 floats: 0.1 }",
             true}));

INSTANTIATE_TEST_SUITE_P(
    Gru, OnnxRecurrentAgreement,
    ::testing::Values(
        Case{"GRU", "forward"}, Case{"GRU", "reverse"}, Case{"GRU", "bidirectional"}, Case{"GRU", "forward", 0, false, false},
        Case{"GRU", "forward", 0, true, true, kShort}, Case{"GRU", "reverse", 0, true, true, kShort},
        Case{"GRU", "bidirectional", 0, true, false, kShort}, Case{"GRU", "forward", 1, true, true},
        Case{"GRU", "reverse", 1, true, true, kMixed}, Case{"GRU", "bidirectional", 1, true, true, kShort},
        Case{"GRU", "forward", 1, true, true, kUniform},
        // linear_before_reset = 1.
        Case{"GRU", "forward", 0, true, true, {}, kLbr}, Case{"GRU", "reverse", 1, true, true, kShort, kLbr},
        Case{"GRU", "bidirectional", 0, false, false, kShort, kLbr}, Case{"GRU", "bidirectional", 1, true, true, kMixed, kLbr},
        // Clip and other activations: the standard-op cell.
        Case{"GRU", "forward", 0, true, true, kShort, "arg { name: \"clip\" f: 0.25 }"},
        Case{"GRU", "bidirectional", 1, true, true, kShort,
             kLbr + " arg { name: \"activations\" strings: \"Relu\" strings: \"ThresholdedRelu\" strings: \"Sigmoid\" "
                    "strings: \"Affine\" } arg { name: \"activation_alpha\" floats: 0.05 floats: 0.8 } "
                    "arg { name: \"activation_beta\" floats: -0.1 }"},
        Case{"GRU", "reverse", 0, true, true, {},
             "arg { name: \"activations\" strings: \"hardsigmoid\" strings: \"SOFTSIGN\" }"}));

INSTANTIATE_TEST_SUITE_P(
    Rnn, OnnxRecurrentAgreement,
    ::testing::Values(
        Case{"RNN", "forward"}, Case{"RNN", "reverse"}, Case{"RNN", "bidirectional"}, Case{"RNN", "forward", 0, false, false},
        Case{"RNN", "forward", 0, true, true, kShort}, Case{"RNN", "reverse", 0, true, true, kShort},
        Case{"RNN", "bidirectional", 0, true, false, kShort}, Case{"RNN", "forward", 1, true, true, kMixed},
        Case{"RNN", "reverse", 1, true, true, kShort}, Case{"RNN", "bidirectional", 1, true, true, kShort},
        Case{"RNN", "forward", 0, true, true, kUniform}, Case{"RNN", "bidirectional", 1, true, true, kUniform},
        Case{"RNN", "forward", 0, true, true, kShort, "arg { name: \"activations\" strings: \"Relu\" }"},
        Case{"RNN", "reverse", 1, true, true, kShort, "arg { name: \"activations\" strings: \"Sigmoid\" }"},
        Case{"RNN", "bidirectional", 0, true, true, kShort,
             "arg { name: \"activations\" strings: \"Relu\" strings: \"Tanh\" } arg { name: \"clip\" f: 0.5 }"},
        Case{"RNN", "forward", 0, true, true, {},
             "arg { name: \"activations\" strings: \"ScaledTanh\" } arg { name: \"activation_alpha\" floats: 1.7 } "
             "arg { name: \"activation_beta\" floats: 0.6 }"},
        Case{"RNN", "bidirectional", 0, true, true, kShort,
             "arg { name: \"activations\" strings: \"LeakyRelu\" strings: \"Elu\" } "
             "arg { name: \"activation_alpha\" floats: 0.2 floats: 0.9 }"},
        Case{"RNN", "reverse", 0, true, true, kMixed, "arg { name: \"activations\" strings: \"Softplus\" }"},
        Case{"RNN", "forward", 1, true, true, kShort,
             "arg { name: \"activations\" strings: \"ThresholdedRelu\" } arg { name: \"activation_alpha\" floats: 0.1 }"}));

// Zero-size dims: T = 0 (Y empty, Y_h/Y_c the initial states), N = 0 and
// I = 0 (only the recurrent term), both kernels alike.
TEST(OnnxRecurrentStepNet, ZeroSizeDimsAgree) {
  struct Dims { int64_t T, N, I; };
  for (const std::string op : {"LSTM", "GRU", "RNN"}) {
    for (const Dims dims : {Dims{0, 2, 3}, Dims{3, 0, 3}, Dims{3, 2, 0}}) {
      SCOPED_TRACE(op + " T " + std::to_string(dims.T) + " N " + std::to_string(dims.N) + " I " + std::to_string(dims.I));
      const int64_t G = op == "LSTM" ? 4 : (op == "GRU" ? 3 : 1), H = 2, D = 2;
      std::vector<Tensor> in = {testing::RandomTensor(DataType::kFloat32, {dims.T, dims.N, dims.I}, 1),
                                testing::RandomTensor(DataType::kFloat32, {D, G * H, dims.I}, 2),
                                testing::RandomTensor(DataType::kFloat32, {D, G * H, H}, 3),
                                testing::RandomTensor(DataType::kFloat32, {D, 2 * G * H}, 4),
                                Tensor(),
                                testing::RandomTensor(DataType::kFloat32, {D, dims.N, H}, 5),
                                testing::RandomTensor(DataType::kFloat32, {D, dims.N, H}, 6)};
      const bool lstm = op == "LSTM";
      if (!lstm) in.resize(6);
      const std::string text = "type: \"" + op + "\" input: \"X\" input: \"W\" input: \"R\" input: \"B\" input: \"\" "
                               "input: \"H0\"" + (lstm ? " input: \"C0\"" : "") + " output: \"Y\" output: \"Yh\"" +
                               (lstm ? " output: \"Yc\"" : "") + " arg { name: \"direction\" s: \"bidirectional\" }";
      auto dnnl = testing::RunSingleOp(testing::ParseOp(text + " engine: \"DNNL\""), in, RnnRegistry());
      ASSERT_TRUE(dnnl.ok()) << dnnl.status();
      auto stepnet = testing::RunSingleOp(testing::ParseOp(text + " engine: \"STEPNET\""), in, RnnRegistry());
      ASSERT_TRUE(stepnet.ok()) << stepnet.status();
      for (size_t k = 0; k < dnnl->size(); ++k) EXPECT_TRUE(testing::AllClose((*stepnet)[k], (*dnnl)[k], 1e-4, 1e-5)) << "output " << k;
      if (dims.T == 0) {
        EXPECT_TRUE(testing::AllClose((*stepnet)[1], in[5], 0, 0)) << "Y_h = initial_h";
      }
    }
  }
}

// Two STEPNET LSTMs in one net, one after the other: each kernel hands
// its nested net's projection XW and states H, C back after its run
// (Tensor_Release), into the enclosing net's pool (NetScope::pool), and
// the second layer takes the same buffers. So the pool's high water is one
// layer's set, not two, and the outputs still match the DNNL kernel's run
// after run (the links are aliased again each run).
TEST(OnnxRecurrentStepNet, StackedLayersShareOneSetOfBuffers) {
  constexpr int64_t T = 20, N = 4, I = 8, H = 16;
  Workspace ws;
  NetDef net;
  net.set_name("two_layers");
  net.add_external_input("X");
  for (int layer = 0; layer < 2; ++layer) {
    const std::string l = std::to_string(layer);
    *net.add_op() = testing::ParseOp("type: \"LSTM\" name: \"lstm" + l + "\" input: \"X\" input: \"W" + l +
                                     "\" input: \"R" + l + "\" input: \"B" + l + "\" output: \"Y" + l +
                                     "\" engine: \"STEPNET\" arg { name: \"hidden_size\" i: " + std::to_string(H) + " }");
    ws.SetBlob("W" + l, testing::RandomTensor(DataType::kFloat32, {1, 4 * H, I}, 10 + layer, -0.5, 0.5));
    ws.SetBlob("R" + l, testing::RandomTensor(DataType::kFloat32, {1, 4 * H, H}, 20 + layer, -0.5, 0.5));
    ws.SetBlob("B" + l, testing::RandomTensor(DataType::kFloat32, {1, 8 * H}, 30 + layer, -0.2, 0.2));
    net.add_external_output("Y" + l);
  }
  ws.SetBlob("X", testing::RandomTensor(DataType::kFloat32, {T, N, I}, 1));
  auto n = Net::Create(net, &ws, RnnRegistry());
  ASSERT_TRUE(n.ok()) << n.status();
  for (int run = 0; run < 3; ++run) {
    ws.SetBlob("X", testing::RandomTensor(DataType::kFloat32, {T, N, I}, 100 + run));
    ASSERT_TRUE((*n)->Run().ok());
    for (int layer = 0; layer < 2; ++layer) {
      const std::string l = std::to_string(layer);
      auto dnnl = testing::RunSingleOp(
          testing::ParseOp("type: \"LSTM\" input: \"X\" input: \"W\" input: \"R\" input: \"B\" output: \"Y\" "
                           "engine: \"DNNL\" arg { name: \"hidden_size\" i: " + std::to_string(H) + " }"),
          {*ws.GetBlob("X"), *ws.GetBlob("W" + l), *ws.GetBlob("R" + l), *ws.GetBlob("B" + l)}, RnnRegistry());
      ASSERT_TRUE(dnnl.ok()) << dnnl.status();
      EXPECT_TRUE(testing::AllClose(*ws.GetBlob("Y" + l), (*dnnl)[0], 1e-4, 1e-5)) << "run " << run << " layer " << layer;
    }
  }
  const size_t xw = T * N * 4 * H * sizeof(float), state = (T + 1) * N * H * sizeof(float);
  const size_t one_layer = xw + 2 * state, y = T * N * H * sizeof(float);
  const size_t high_water = (*n)->pool().high_water_bytes();
  // The nested nets draw from the enclosing net's pool ...
  EXPECT_GE(high_water, one_layer);
  // ... and the second layer takes the first one's buffers (each layer
  // holding its own would be 2 * one_layer before the outputs Y0, Y1).
  EXPECT_LT(high_water, one_layer + one_layer / 2 + 2 * y) << "one layer's set: " << one_layer << " bytes";
}

// Hand-computed: I = H = 1, N = 1, T = 2, W = 0.5, R = 2, Wb = 0.25, Rb = 0;
// x = (1, -2), h0 = 0.5.
TEST(OnnxRecurrentStepNet, KnownValues) {
  const std::vector<Tensor> rnn_in = {
      Tensor::FromVector<float>({2, 1, 1}, {1, -2}),  Tensor::FromVector<float>({1, 1, 1}, {0.5f}),
      Tensor::FromVector<float>({1, 1, 1}, {2}),      Tensor::FromVector<float>({1, 2}, {0.25f, 0}),
      Tensor(),                                       Tensor::FromVector<float>({1, 1, 1}, {0.5f})};
  // Affine 3x + 1: h1 = 3 (0.5 + 1 + 0.25) + 1 = 6.25; h2 = 3 (-1 + 12.5 + 0.25) + 1 = 36.25.
  auto out = testing::RunSingleOp(testing::ParseOp(R"(type: "RNN" input: "X" input: "W" input: "R" input: "B" input: ""
      input: "H0" output: "Y" output: "Yh" engine: "STEPNET" arg { name: "activations" strings: "Affine" }
      arg { name: "activation_alpha" floats: 3 } arg { name: "activation_beta" floats: 1 })"),
                                  rnn_in, RnnRegistry());
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].dims(), (Shape{2, 1, 1, 1}));
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[0], 6.25f);
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[1], 36.25f);
  EXPECT_FLOAT_EQ((*out)[1].data<float>()[0], 36.25f);
  // Relu with clip 1: h1 = clip(1.75) = 1; h2 = relu(clip(-1 + 2 + 0.25)) = 1.
  out = testing::RunSingleOp(testing::ParseOp(R"(type: "RNN" input: "X" input: "W" input: "R" input: "B" input: ""
      input: "H0" output: "Y" engine: "STEPNET" arg { name: "activations" strings: "Relu" } arg { name: "clip" f: 1 })"),
                             rnn_in, RnnRegistry());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[0], 1.0f);
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[1], 1.0f);

  // GRU, one step, H = 1, all weights 0 except Wh = 1 (gate h), x = 1:
  // z = r = sigmoid(0) = 0.5, n = tanh(1), h = 0.5 tanh(1) + 0.5 h0.
  auto gru = testing::RunSingleOp(testing::ParseOp(R"(type: "GRU" input: "X" input: "W" input: "R" input: "" input: ""
      input: "H0" output: "Y" engine: "STEPNET")"),
                                  {Tensor::FromVector<float>({1, 1, 1}, {1}), Tensor::FromVector<float>({1, 3, 1}, {0, 0, 1}),
                                   Tensor::FromVector<float>({1, 3, 1}, {0, 0, 0}), Tensor(), Tensor(),
                                   Tensor::FromVector<float>({1, 1, 1}, {0.5f})},
                                  RnnRegistry());
  ASSERT_TRUE(gru.ok()) << gru.status();
  EXPECT_NEAR((*gru)[0].data<float>()[0], 0.5 * std::tanh(1.0) + 0.25, 1e-6);

  // LSTM, one step, H = 1, weights 0 except Wc = 1, x = 1, c0 = 2, P = (1, 0, 0):
  // i = sigmoid(Pi c0) = sigmoid(2), f = o = 0.5, c = 0.5 * 2 + sigmoid(2) tanh(1),
  // h = 0.5 tanh(c).
  auto lstm = testing::RunSingleOp(
      testing::ParseOp(R"(type: "LSTM" input: "X" input: "W" input: "R" input: "" input: "" input: "" input: "C0"
      input: "P" output: "Y" output: "Yh" output: "Yc" engine: "STEPNET")"),
      {Tensor::FromVector<float>({1, 1, 1}, {1}), Tensor::FromVector<float>({1, 4, 1}, {0, 0, 0, 1}),
       Tensor::FromVector<float>({1, 4, 1}, {0, 0, 0, 0}), Tensor(), Tensor(), Tensor(),
       Tensor::FromVector<float>({1, 1, 1}, {2}), Tensor::FromVector<float>({1, 3}, {1, 0, 0})},
      RnnRegistry());
  ASSERT_TRUE(lstm.ok()) << lstm.status();
  const double c = 1.0 + std::tanh(1.0) / (1.0 + std::exp(-2.0));
  EXPECT_NEAR((*lstm)[2].data<float>()[0], c, 1e-6);
  EXPECT_NEAR((*lstm)[1].data<float>()[0], 0.5 * std::tanh(c), 1e-6);
}

// Runs `op` (engine STEPNET, extra attributes `attrs`) on one-direction
// inputs X [4, 2, 3], W, R with H = 2, where `replace` overrides input
// k (3 = B and 4 = sequence_lens are absent unless given), and expects an
// error whose message contains `want`.
void ExpectError(const std::string& op, const std::string& attrs, std::map<int, Tensor> replace, const std::string& want) {
  const int64_t G = op == "LSTM" ? 4 : (op == "GRU" ? 3 : 1);
  std::vector<Tensor> in = {testing::RandomTensor(DataType::kFloat32, {4, 2, 3}, 1),
                            testing::RandomTensor(DataType::kFloat32, {1, G * 2, 3}, 2),
                            testing::RandomTensor(DataType::kFloat32, {1, G * 2, 2}, 3), Tensor(), Tensor()};
  for (auto& [k, t] : replace) in[k] = t;
  const std::string text = "type: \"" + op + "\" name: \"bad\" input: \"X\" input: \"W\" input: \"R\" input: \"" +
                           (replace.count(3) ? "B" : "") + "\" input: \"" + (replace.count(4) ? "L" : "") +
                           "\" output: \"Y\" engine: \"STEPNET\" " + attrs;
  auto out = testing::RunSingleOp(testing::ParseOp(text), in, RnnRegistry());
  ASSERT_FALSE(out.ok()) << text;
  EXPECT_NE(out.status().message().find(want), std::string::npos) << out.status();
}

TEST(OnnxRecurrentStepNet, Errors) {
  ExpectError("LSTM", "", {{4, Tensor::FromVector<int32_t>({2}, {4, 0})}}, "sequence_lens[1] = 0");
  ExpectError("GRU", "", {{4, Tensor::FromVector<int32_t>({2}, {5, 1})}}, "sequence_lens[0] = 5");
  ExpectError("RNN", "", {{4, Tensor::FromVector<int32_t>({3}, {1, 1, 1})}}, "sequence_lens must be an int32 vector of batch_size 2");
  ExpectError("RNN", "arg { name: \"activations\" strings: \"Swish\" }", {}, "unknown activation 'Swish'");
  ExpectError("GRU", "arg { name: \"activations\" strings: \"Sigmoid\" }", {}, "activations needs 2 entries");
  ExpectError("LSTM", "arg { name: \"clip\" f: -1 }", {}, "clip must be positive");
  ExpectError("GRU", "", {{1, testing::RandomTensor(DataType::kFloat32, {1, 5, 3}, 2)}}, "W must have shape [1, 6, 3]");
  ExpectError("RNN", "", {{3, testing::RandomTensor(DataType::kFloat32, {1, 3}, 2)}}, "B must have shape [1, 4]");
  ExpectError("RNN", "arg { name: \"hidden_size\" i: 3 }", {}, "hidden_size is 3");
  ExpectError("LSTM", "arg { name: \"direction\" s: \"sideways\" }", {}, "direction must be forward, reverse or bidirectional; found 'sideways'");
}

}  // namespace
}  // namespace loom
