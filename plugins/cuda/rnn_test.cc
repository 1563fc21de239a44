// CUDA LSTM, GRU and RNN (cuDNN, plugins/cuda/rnn.cc) against the CPU
// kernel (plugins/cpu/rnn.cc) on random inputs: every direction, both
// layouts, with and without B / initial states / Y, sequence_lens (mixed,
// all below T), float32 and float64, plus the errors (bad shapes, bad
// lengths) and the attribute combinations cuDNN lacks (UNIMPLEMENTED).
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "plugins/cuda/cuda_test_util.h"

namespace loom {
namespace {

using testing::ExpectCudaMatchesCpu;
using testing::ParseOp;
using testing::RandomTensor;
using testing::RunOnCuda;

struct Config {
  std::string op = "LSTM";
  std::string direction = "forward";
  std::string act;  // "" = default; for RNN "Tanh" or "Relu"
  int64_t T = 5, N = 3, I = 4, H = 6;
  int layout = 0;
  bool bias = true, h0 = true, c0 = true, want_y = true, hidden_attr = true;
  std::vector<int32_t> lens;  // empty = absent
  DataType dt = DataType::kFloat32;

  int64_t D() const { return direction == "bidirectional" ? 2 : 1; }
  int64_t G() const { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }
  std::string Describe() const {
    std::string s = op + " " + direction + " layout " + std::to_string(layout) + " T" + std::to_string(T) + " N" +
                    std::to_string(N) + " I" + std::to_string(I) + " H" + std::to_string(H);
    if (!act.empty()) s += " act " + act;
    s += bias ? " B" : " noB";
    s += h0 ? " h0" : "";
    s += c0 ? " c0" : "";
    s += want_y ? " Y" : " noY";
    if (!lens.empty()) {
      s += " lens";
      for (int32_t l : lens) s += " " + std::to_string(l);
    }
    if (dt == DataType::kFloat64) s += " f64";
    return s;
  }
};

std::string OpText(const Config& c) {
  const bool lstm = c.op == "LSTM";
  std::string text = "type: \"" + c.op + "\" input: \"X\" input: \"W\" input: \"R\"";
  text += std::string(" input: \"") + (c.bias ? "B" : "") + "\"";
  text += std::string(" input: \"") + (c.lens.empty() ? "" : "sequence_lens") + "\"";
  text += std::string(" input: \"") + (c.h0 ? "initial_h" : "") + "\"";
  if (lstm) text += std::string(" input: \"") + (c.c0 ? "initial_c" : "") + "\"";
  text += std::string(" output: \"") + (c.want_y ? "Y" : "") + "\" output: \"Y_h\"";
  if (lstm) text += " output: \"Y_c\"";
  text += " arg { name: \"direction\" s: \"" + c.direction + "\" }";
  if (c.hidden_attr) text += " arg { name: \"hidden_size\" i: " + std::to_string(c.H) + " }";
  if (c.layout) text += " arg { name: \"layout\" i: 1 }";
  if (c.op == "GRU") text += " arg { name: \"linear_before_reset\" i: 1 }";
  if (!c.act.empty()) text += " arg { name: \"activations\" strings: \"" + c.act + "\" }";
  return text;
}

std::vector<Tensor> Inputs(const Config& c, uint32_t seed) {
  const int64_t T = c.T, N = c.N, I = c.I, H = c.H, D = c.D(), G = c.G();
  const Shape x_shape = c.layout ? Shape{N, T, I} : Shape{T, N, I};
  const Shape s_shape = c.layout ? Shape{N, D, H} : Shape{D, N, H};
  std::vector<Tensor> in = {RandomTensor(c.dt, x_shape, seed),
                            RandomTensor(c.dt, {D, G * H, I}, seed + 1, -0.6, 0.6),
                            RandomTensor(c.dt, {D, G * H, H}, seed + 2, -0.6, 0.6),
                            RandomTensor(c.dt, {D, 2 * G * H}, seed + 3, -0.5, 0.5),
                            Tensor::FromVector<int32_t>({N}, c.lens),
                            RandomTensor(c.dt, s_shape, seed + 4)};
  if (c.op == "LSTM") in.push_back(RandomTensor(c.dt, s_shape, seed + 5));
  return in;
}

void Check(const Config& c, uint32_t seed = 1) {
  SCOPED_TRACE(c.Describe());
  const bool f64 = c.dt == DataType::kFloat64;
  ExpectCudaMatchesCpu(ParseOp(OpText(c)), Inputs(c, seed), f64 ? 1e-9 : 1e-4, f64 ? 1e-10 : 1e-4);
}

// Every direction and layout with: all optional inputs; none of them; mixed
// lengths (some == T); lengths all below T; only the states requested.
std::vector<Config> Variants(const std::string& op, const std::string& act = "") {
  std::vector<Config> out;
  for (const char* dir : {"forward", "reverse", "bidirectional"}) {
    for (int layout : {0, 1}) {
      Config c;
      c.op = op;
      c.act = act;
      c.direction = dir;
      c.layout = layout;
      out.push_back(c);
      Config none = c;
      none.bias = none.h0 = none.c0 = false;
      none.hidden_attr = false;
      out.push_back(none);
      Config mixed = c;
      mixed.lens = {5, 2, 4};
      out.push_back(mixed);
      Config below = c;
      below.lens = {2, 4, 1};  // max(lens) < T: Y is zero from step 4 on
      below.c0 = false;
      out.push_back(below);
      Config states = below;
      states.want_y = false;
      states.h0 = false;
      out.push_back(states);
    }
  }
  return out;
}

TEST(CudaRnnTest, LstmMatchesCpu) {
  LOOM_SKIP_WITHOUT_GPU();
  for (const Config& c : Variants("LSTM")) Check(c);
}

TEST(CudaRnnTest, GruLinearBeforeResetMatchesCpu) {
  LOOM_SKIP_WITHOUT_GPU();
  for (const Config& c : Variants("GRU")) Check(c);
}

TEST(CudaRnnTest, RnnTanhAndReluMatchCpu) {
  LOOM_SKIP_WITHOUT_GPU();
  for (const Config& c : Variants("RNN")) Check(c);
  for (const Config& c : Variants("RNN", "Relu")) Check(c);
  Config c;
  c.op = "RNN";
  c.act = "tanh";  // names are case-insensitive
  Check(c);
}

TEST(CudaRnnTest, LargerShapes) {
  LOOM_SKIP_WITHOUT_GPU();
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    for (const char* dir : {"forward", "reverse", "bidirectional"}) {
      for (int layout : {0, 1}) {
        Config c;
        c.op = op;
        c.direction = dir;
        c.layout = layout;
        c.T = 9;
        c.N = 5;
        c.I = 24;
        c.H = 32;
        c.lens = {9, 3, 7, 1, 8};
        Check(c, 11);
      }
    }
  }
}

TEST(CudaRnnTest, Float64MatchesCpu) {
  LOOM_SKIP_WITHOUT_GPU();
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    for (const char* dir : {"forward", "reverse", "bidirectional"}) {
      Config c;
      c.op = op;
      c.direction = dir;
      c.dt = DataType::kFloat64;
      Check(c, 21);
      c.layout = 1;
      c.lens = {4, 1, 2};
      Check(c, 22);
    }
  }
}

TEST(CudaRnnTest, ZeroSizes) {
  LOOM_SKIP_WITHOUT_GPU();
  Config c;  // T = 0: empty Y, Y_h/Y_c are the initial states
  c.T = 0;
  Check(c);
  c.h0 = c.c0 = false;  // ... or zeros
  Check(c);
  Config n;  // N = 0: every output empty
  n.N = 0;
  n.direction = "bidirectional";
  Check(n);
}

absl::Status RunCase(const Config& c, std::vector<Tensor> inputs, const std::string& extra_args = "") {
  auto r = RunOnCuda(ParseOp(OpText(c) + extra_args), inputs);
  return r.status();
}

TEST(CudaRnnTest, BadShapesAndLengthsAreErrors) {
  LOOM_SKIP_WITHOUT_GPU();
  Config c;
  std::vector<Tensor> in = Inputs(c, 3);
  in[1] = RandomTensor(DataType::kFloat32, {1, 4 * c.H, c.I + 1}, 4);  // W with the wrong input size
  absl::Status s = RunCase(c, in);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;

  in = Inputs(c, 3);
  in[5] = RandomTensor(DataType::kFloat32, {2, c.N, c.H}, 5);  // initial_h for two directions
  s = RunCase(c, in);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;

  Config hidden = c;  // hidden_size disagrees with R
  hidden.hidden_attr = false;
  s = RunCase(hidden, Inputs(c, 3), " arg { name: \"hidden_size\" i: 7 }");
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;

  for (std::vector<int32_t> lens : {std::vector<int32_t>{0, 2, 3}, std::vector<int32_t>{1, 6, 3}}) {
    Config l = c;
    l.lens = lens;
    s = RunCase(l, Inputs(l, 3));
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  }
  Config l = c;  // sequence_lens of the wrong length
  l.lens = {1, 2, 3};
  in = Inputs(l, 3);
  in[4] = Tensor::FromVector<int32_t>({2}, {1, 2});
  s = RunCase(l, in);
  EXPECT_FALSE(s.ok());
}

TEST(CudaRnnTest, UnsupportedAttributesAreUnimplemented) {
  LOOM_SKIP_WITHOUT_GPU();
  struct Case {
    Config c;
    std::string args, names;
  };
  Config gru;
  gru.op = "GRU";
  Config rnn;
  rnn.op = "RNN";
  Config lstm;
  std::vector<Case> cases = {
      {lstm, " arg { name: \"clip\" f: 0.5 }", "clip"},
      {lstm, " arg { name: \"input_forget\" i: 1 }", "input_forget"},
      {lstm, " arg { name: \"activations\" strings: \"Sigmoid\" strings: \"Tanh\" strings: \"Relu\" }", "activations"},
      {rnn, " arg { name: \"activations\" strings: \"Sigmoid\" }", "activations"},
  };
  for (const Case& k : cases) {
    absl::Status s = RunCase(k.c, Inputs(k.c, 3), k.args);
    EXPECT_TRUE(absl::IsUnimplemented(s)) << k.names << ": " << s;
    EXPECT_NE(std::string(s.message()).find(k.names), std::string::npos) << s;
  }
  // GRU with linear_before_reset = 0 (OpText sets 1; build the text here).
  std::string text = OpText(gru);
  const std::string lbr1 = "arg { name: \"linear_before_reset\" i: 1 }";
  text.replace(text.find(lbr1), lbr1.size(), "arg { name: \"linear_before_reset\" i: 0 }");
  auto r = RunOnCuda(ParseOp(text), Inputs(gru, 3));
  EXPECT_TRUE(absl::IsUnimplemented(r.status())) << r.status();
  EXPECT_NE(std::string(r.status().message()).find("linear_before_reset"), std::string::npos) << r.status();

  // Peepholes: input P named.
  std::string ptext = OpText(lstm);
  ptext.replace(ptext.find(" output:"), 0, " input: \"P\"");
  std::vector<Tensor> pin = Inputs(lstm, 3);
  pin.push_back(RandomTensor(DataType::kFloat32, {1, 3 * lstm.H}, 9));
  r = RunOnCuda(ParseOp(ptext), pin);
  EXPECT_TRUE(absl::IsUnimplemented(r.status())) << r.status();

  // Invalid values stay INVALID_ARGUMENT, as on CPU.
  r = RunOnCuda(ParseOp(OpText(rnn) + " arg { name: \"activations\" strings: \"NoSuchFn\" }"), Inputs(rnn, 3));
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
}

}  // namespace
}  // namespace loom
