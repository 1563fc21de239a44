// The gradients of LSTMUnit and GRUUnit (cell_unit_gradients.cc): their
// gradient makers and LSTMUnitGradient / GRUUnitGradient kernels against
// central finite differences in float64 (both gate orders, forget_bias,
// [1, N, D] states, seq_lengths with entries past their end, drop_states 0
// and 1), a loss that reads only one of LSTMUnit's outputs (the other's
// gradient absent), and the float32 kernels against the float64 ones.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/autodiff/backward.h"
#include "core/net.h"
#include "testing/gradient_check.h"
#include "testing/op_runner.h"
#include "core/workspace.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using testing::CheckGradient;
using testing::GradientCheckOptions;
using testing::ParseOp;
using testing::RandomTensor;

constexpr int64_t kN = 3, kD = 2;

Registry* RnnRegistry() { return testing::CpuRegistryWith("plugins/rnn/libloom_rnn.so"); }

Tensor F64(Shape dims, uint32_t seed) { return RandomTensor(DataType::kFloat64, std::move(dims), seed, -1.5, 1.5); }

// Lengths {5, 2, 3} at timestep 2: entry 1 is past its end (2 >= 2), the
// others inside.
Tensor Lengths() { return Tensor::FromVector<int32_t>({kN}, {5, 2, 3}); }
Tensor Timestep() { return Tensor::FromVector<int32_t>({}, {2}); }

// The state shape: [N, D] or, with a leading window dim, [1, N, D].
Shape StateShape(bool leading) { return leading ? Shape{1, kN, kD} : Shape{kN, kD}; }
Shape GatesShape(bool leading, int64_t k) { return leading ? Shape{1, kN, k * kD} : Shape{kN, k * kD}; }

std::string LstmOpText(const std::string& order, float forget_bias, int drop_states, bool lengths) {
  return absl::StrCat(R"(type: "LSTMUnit" input: "h" input: "c" input: "g" )",
                      lengths ? R"(input: "len" input: "t" )" : "", R"(output: "h1" output: "c1" )",
                      R"(arg { name: "gate_order" s: ")", order, R"(" } arg { name: "forget_bias" f: )", forget_bias,
                      R"( } arg { name: "drop_states" i: )", drop_states, " }");
}

std::string GruOpText(int drop_states, bool lengths) {
  return absl::StrCat(R"(type: "GRUUnit" input: "h" input: "g" )", lengths ? R"(input: "len" input: "t" )" : "",
                      R"(output: "h1" arg { name: "drop_states" i: )", drop_states, " }");
}

TEST(CellUnitGradientTest, SchemasHaveGradientMakers) {
  Registry* r = RnnRegistry();
  for (const char* type : {"LSTMUnit", "GRUUnit"}) {
    ASSERT_NE(r->FindSchema(type), nullptr) << type;
    EXPECT_NE(r->FindSchema(type)->gradient, nullptr) << type;
  }
  EXPECT_NE(r->FindSchema("LSTMUnitGradient"), nullptr);
  EXPECT_NE(r->FindSchema("GRUUnitGradient"), nullptr);
}

TEST(CellUnitGradientTest, LstmUnitMatchesFiniteDifferences) {
  GradientCheckOptions only_floats;
  only_floats.inputs = {0, 1, 2};  // hidden_prev, cell_prev, gates; not seq_lengths, timestep
  uint32_t seed = 100;
  for (const std::string order : {"ifog", "iofg"}) {
    for (float forget_bias : {0.0f, 0.75f}) {
      for (bool lengths : {false, true}) {
        for (int drop : {0, 1}) {
          if (!lengths && drop) continue;  // drop_states only matters past a sequence's end
          for (bool leading : {false, true}) {
            const OperatorDef op = ParseOp(LstmOpText(order, forget_bias, drop, lengths));
            std::vector<Tensor> in = {F64(StateShape(leading), ++seed), F64(StateShape(leading), ++seed),
                                      F64(GatesShape(leading, 4), ++seed)};
            if (lengths) {
              in.push_back(Lengths());
              in.push_back(Timestep());
            }
            EXPECT_TRUE(CheckGradient(op, in, RnnRegistry(), only_floats))
                << "gate_order " << order << ", forget_bias " << forget_bias << ", lengths " << lengths
                << ", drop_states " << drop << ", leading dim " << leading;
          }
        }
      }
    }
  }
}

TEST(CellUnitGradientTest, GruUnitMatchesFiniteDifferences) {
  GradientCheckOptions only_floats;
  only_floats.inputs = {0, 1};  // hidden_prev, gates
  uint32_t seed = 200;
  for (bool lengths : {false, true}) {
    for (int drop : {0, 1}) {
      if (!lengths && drop) continue;
      for (bool leading : {false, true}) {
        const OperatorDef op = ParseOp(GruOpText(drop, lengths));
        std::vector<Tensor> in = {F64(StateShape(leading), ++seed), F64(GatesShape(leading, 3), ++seed)};
        if (lengths) {
          in.push_back(Lengths());
          in.push_back(Timestep());
        }
        EXPECT_TRUE(CheckGradient(op, in, RnnRegistry(), only_floats))
            << "lengths " << lengths << ", drop_states " << drop << ", leading dim " << leading;
      }
    }
  }
}

// A loss that reads only output `k` of `op`: L = sum(Y_k * R). The
// backward net gets no gradient for the other outputs (their GO is empty);
// the gradients of inputs `checked` must still match finite differences.
// Returns the gradient op the maker emitted (for inspection).
OperatorDef CheckOneOutput(const OperatorDef& op, const std::vector<Tensor>& inputs, int k,
                           const std::vector<int>& checked) {
  NetDef net;
  net.set_name("one_output");
  *net.add_op() = op;
  Workspace ws;
  for (int i = 0; i < op.input_size(); ++i) {
    net.add_external_input(op.input(i));
    ws.SetBlob(op.input(i), *inputs[i].Clone());
  }
  auto fwd = testing::RunSingleOp(op, inputs, RnnRegistry());
  EXPECT_TRUE(fwd.ok()) << fwd.status();
  if (!fwd.ok()) return {};
  net.add_external_input("R");
  ws.SetBlob("R", RandomTensor(DataType::kFloat64, (*fwd)[k].dims(), 77, -1, 1));
  *net.add_op() = ParseOp(absl::StrCat(R"(type: "Mul" input: ")", op.output(k), R"(" input: "R" output: "p")"));
  *net.add_op() = ParseOp(R"(type: "ReduceSum" input: "p" output: "loss" arg { name: "keepdims" i: 0 })");
  net.add_external_output("loss");
  BackwardOptions bo;
  for (int i : checked) bo.wrt.push_back(op.input(i));
  auto backward = AddBackward(*RnnRegistry(), {"loss"}, bo, &net);
  EXPECT_TRUE(backward.ok()) << backward.status();
  if (!backward.ok()) return {};
  OperatorDef grad_op;
  for (const OperatorDef& o : net.op()) {
    if (o.type() == op.type() + "Gradient") grad_op = o;
  }
  NetOptions no;
  no.num_threads = 1;
  auto n = Net::Create(net, &ws, RnnRegistry(), no);
  EXPECT_TRUE(n.ok()) << n.status();
  if (!n.ok()) return grad_op;
  auto loss = [&]() {
    absl::Status s = (*n)->Run();
    EXPECT_TRUE(s.ok()) << s;
    const Tensor* l = ws.GetBlob("loss");
    return s.ok() && l != nullptr ? l->data<double>()[0] : std::nan("");
  };
  loss();
  for (int i : checked) {
    Tensor analytic = *ws.GetBlob(backward->gradients.at(op.input(i)))->Clone();
    Tensor* x = ws.GetBlob(op.input(i));
    EXPECT_EQ(analytic.dims(), x->dims());
    if (analytic.dims() != x->dims()) return grad_op;
    double worst = 0;
    for (int64_t e = 0; e < x->num_elements(); ++e) {
      double& v = x->data<double>()[e];
      const double saved = v, eps = 1e-6;
      v = saved + eps;
      const double plus = loss();
      v = saved - eps;
      const double minus = loss();
      v = saved;
      const double numeric = (plus - minus) / (2 * eps);
      worst = std::max(worst, std::abs(analytic.data<double>()[e] - numeric) / std::max(1.0, std::abs(numeric)));
    }
    EXPECT_LE(worst, 1e-6) << "input " << i << " '" << op.input(i) << "', loss on output " << k;
  }
  return grad_op;
}

TEST(CellUnitGradientTest, LstmUnitWithOneOutputGradientAbsent) {
  for (int k : {0, 1}) {
    for (int drop : {0, 1}) {
      const OperatorDef op = ParseOp(LstmOpText("iofg", 0.5f, drop, /*lengths=*/true));
      const std::vector<Tensor> in = {F64({1, kN, kD}, 300 + k), F64({1, kN, kD}, 310 + k), F64({1, kN, 4 * kD}, 320 + k),
                                      Lengths(), Timestep()};
      const OperatorDef g = CheckOneOutput(op, in, k, {0, 1, 2});
      ASSERT_EQ(g.type(), "LSTMUnitGradient");
      ASSERT_EQ(g.input_size(), 9);
      // The absent output gradient is an empty input; the present one is named.
      EXPECT_TRUE(g.input(7 + (1 - k)).empty()) << g.DebugString();
      EXPECT_FALSE(g.input(7 + k).empty()) << g.DebugString();
      // LSTMUnit's arguments came along.
      bool order = false, bias = false;
      for (const Argument& a : g.arg()) {
        order = order || (a.name() == "gate_order" && a.s() == "iofg");
        bias = bias || (a.name() == "forget_bias" && a.f() == 0.5f);
      }
      EXPECT_TRUE(order && bias) << g.DebugString();
    }
  }
}

TEST(CellUnitGradientTest, GruUnitGradientOpReadsItsInputs) {
  const OperatorDef op = ParseOp(GruOpText(1, /*lengths=*/true));
  const OperatorDef g = CheckOneOutput(op, {F64({kN, kD}, 400), F64({kN, 3 * kD}, 401), Lengths(), Timestep()}, 0, {0, 1});
  ASSERT_EQ(g.type(), "GRUUnitGradient");
  ASSERT_EQ(g.input_size(), 6);
  EXPECT_EQ(g.input(2), "len");
  EXPECT_EQ(g.input(3), "t");
  EXPECT_EQ(g.input(4), "h1");
}

Tensor ToF32(const Tensor& t) {
  Tensor out = Tensor::Zeros(DataType::kFloat32, t.dims());
  for (int64_t i = 0; i < t.num_elements(); ++i) out.data<float>()[i] = static_cast<float>(t.data<double>()[i]);
  return out;
}

// Runs the forward op on float64 `in`, then its gradient op on float64 and
// on the same values in float32 (output gradients dY random, `absent_go`
// left out), and compares: float32 within 1e-5 of float64. Returns the
// float64 gradients.
std::vector<Tensor> CompareFloat32(const std::string& forward_text, const std::string& grad_type, int num_outputs,
                                   std::vector<Tensor> in, int absent_go = -1) {
  const OperatorDef fwd = ParseOp(forward_text);
  auto y = testing::RunSingleOp(fwd, in, RnnRegistry());
  EXPECT_TRUE(y.ok()) << y.status();
  if (!y.ok()) return {};
  OperatorDef grad;
  grad.set_type(grad_type);
  *grad.mutable_arg() = fwd.arg();
  std::vector<Tensor> gin;
  for (int i = 0; i < fwd.input_size(); ++i) {
    grad.add_input(fwd.input(i));
    gin.push_back(*in[i].Clone());
  }
  // Absent seq_lengths/timestep: empty names (the gradient op's fixed slots).
  const int state_inputs = num_outputs == 2 ? 3 : 2;
  while (grad.input_size() < state_inputs + 2) {
    grad.add_input("");
    gin.emplace_back();
  }
  for (int k = 0; k < num_outputs; ++k) {
    grad.add_input(absl::StrCat("y", k));
    gin.push_back(*(*y)[k].Clone());
  }
  for (int k = 0; k < num_outputs; ++k) {
    grad.add_input(k == absent_go ? "" : absl::StrCat("dy", k));
    gin.push_back(k == absent_go ? Tensor() : RandomTensor(DataType::kFloat64, (*y)[k].dims(), 500 + k, -1, 1));
  }
  for (int i = 0; i < state_inputs; ++i) grad.add_output(absl::StrCat("dx", i));
  auto g64 = testing::RunSingleOp(grad, gin, RnnRegistry());
  EXPECT_TRUE(g64.ok()) << g64.status();
  if (!g64.ok()) return {};
  std::vector<Tensor> gin32;
  for (const Tensor& t : gin) gin32.push_back(t.dtype() == DataType::kFloat64 ? ToF32(t) : *t.Clone());
  auto g32 = testing::RunSingleOp(grad, gin32, RnnRegistry());
  EXPECT_TRUE(g32.ok()) << g32.status();
  if (!g32.ok()) return {};
  for (int i = 0; i < state_inputs; ++i) {
    EXPECT_EQ((*g32)[i].dtype(), DataType::kFloat32);
    EXPECT_TRUE(testing::AllClose((*g32)[i], ToF32((*g64)[i]), 1e-5, 1e-5)) << grad_type << " output " << i;
  }
  return std::move(*g64);
}

TEST(CellUnitGradientTest, Float32KernelsMatchFloat64) {
  for (int drop : {0, 1}) {
    for (int absent : {-1, 0, 1}) {
      CompareFloat32(LstmOpText("ifog", 1.0f, drop, true), "LSTMUnitGradient", 2,
                     {F64({1, kN, kD}, 600), F64({1, kN, kD}, 601), F64({1, kN, 4 * kD}, 602), Lengths(), Timestep()},
                     absent);
    }
    CompareFloat32(GruOpText(drop, true), "GRUUnitGradient", 1,
                   {F64({1, kN, kD}, 610), F64({1, kN, 3 * kD}, 611), Lengths(), Timestep()});
  }
  // Without seq_lengths (the gradient op's slots 3, 4 empty).
  CompareFloat32(LstmOpText("iofg", 0.0f, 0, false), "LSTMUnitGradient", 2,
                 {F64({kN, kD}, 620), F64({kN, kD}, 621), F64({kN, 4 * kD}, 622)});
  CompareFloat32(GruOpText(0, false), "GRUUnitGradient", 1, {F64({kN, kD}, 630), F64({kN, 3 * kD}, 631)});
}

// A step as large as a real model's (N = 32, D = 512: the rows are split
// over the op's threads, and the ISA clone the CPU picks runs): LSTMUnit
// and its gradient in float32 against float64, entries past their end
// included.
TEST(CellUnitGradientTest, LargeStepsMatchFloat64) {
  const int64_t n = 32, d = 512;
  std::vector<int32_t> lens(n);
  for (int64_t b = 0; b < n; ++b) lens[b] = static_cast<int32_t>(1 + b % 4);  // timestep 2: a quarter inside
  const std::vector<Tensor> in = {F64({1, n, d}, 800), F64({1, n, d}, 801), F64({1, n, 4 * d}, 802),
                                  Tensor::FromVector<int32_t>({n}, lens), Timestep()};
  const OperatorDef fwd = ParseOp(LstmOpText("iofg", 1.0f, 0, true));
  auto y64 = testing::RunSingleOp(fwd, in, RnnRegistry());
  ASSERT_TRUE(y64.ok()) << y64.status();
  std::vector<Tensor> in32;
  for (const Tensor& t : in) in32.push_back(t.dtype() == DataType::kFloat64 ? ToF32(t) : *t.Clone());
  auto y32 = testing::RunSingleOp(fwd, in32, RnnRegistry());
  ASSERT_TRUE(y32.ok()) << y32.status();
  for (int k = 0; k < 2; ++k) EXPECT_TRUE(testing::AllClose((*y32)[k], ToF32((*y64)[k]), 1e-5, 1e-5)) << "output " << k;
  CompareFloat32(LstmOpText("iofg", 1.0f, 0, true), "LSTMUnitGradient", 2, in);
}

// Past a sequence's end (entry 1): drop_states = 0 passes the state
// gradients straight through, drop_states = 1 zeroes them; the gates get
// zeros either way. Inside (entry 0) LSTM's dh_prev is 0.
TEST(CellUnitGradientTest, MaskedEntriesPassThroughOrDrop) {
  for (int drop : {0, 1}) {
    const std::vector<Tensor> lstm =
        CompareFloat32(LstmOpText("ifog", 0.0f, drop, true), "LSTMUnitGradient", 2,
                       {F64({kN, kD}, 700), F64({kN, kD}, 701), F64({kN, 4 * kD}, 702), Lengths(), Timestep()});
    ASSERT_EQ(lstm.size(), 3u);
    const Tensor dh = RandomTensor(DataType::kFloat64, {kN, kD}, 500, -1, 1);
    const Tensor dc = RandomTensor(DataType::kFloat64, {kN, kD}, 501, -1, 1);
    for (int64_t k = 0; k < kD; ++k) {
      const int64_t e = 1 * kD + k;
      EXPECT_EQ(lstm[0].data<double>()[e], drop ? 0.0 : dh.data<double>()[e]);
      EXPECT_EQ(lstm[1].data<double>()[e], drop ? 0.0 : dc.data<double>()[e]);
      EXPECT_EQ(lstm[0].data<double>()[k], 0.0);  // entry 0, inside
      for (int64_t j = 0; j < 4; ++j) EXPECT_EQ(lstm[2].data<double>()[1 * 4 * kD + j * kD + k], 0.0);
    }
    const std::vector<Tensor> gru = CompareFloat32(GruOpText(drop, true), "GRUUnitGradient", 1,
                                                   {F64({kN, kD}, 710), F64({kN, 3 * kD}, 711), Lengths(), Timestep()});
    ASSERT_EQ(gru.size(), 2u);
    for (int64_t k = 0; k < kD; ++k) {
      EXPECT_EQ(gru[0].data<double>()[kD + k], drop ? 0.0 : dh.data<double>()[kD + k]);
      for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(gru[1].data<double>()[1 * 3 * kD + j * kD + k], 0.0);
      EXPECT_EQ(gru[1].data<double>()[k], 0.0);  // entry 0's reset gate: no gradient from the unit
    }
  }
}

TEST(CellUnitGradientTest, Errors) {
  // A gates tensor of the wrong width is named.
  const OperatorDef grad = ParseOp(R"(type: "GRUUnitGradient" input: "h" input: "g" input: "" input: "" input: "y"
                                      input: "dy" output: "dh" output: "dg")");
  auto bad = testing::RunSingleOp(grad, {F64({kN, kD}, 1), F64({kN, 4 * kD}, 2), Tensor(), Tensor(), F64({kN, kD}, 3),
                                         F64({kN, kD}, 4)},
                                  RnnRegistry());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("gates [..., N, 3D]"), std::string::npos) << bad.status();
  // An output gradient of the wrong shape is named.
  auto bad_dy = testing::RunSingleOp(grad, {F64({kN, kD}, 1), F64({kN, 3 * kD}, 2), Tensor(), Tensor(), F64({kN, kD}, 3),
                                            F64({kN, kD + 1}, 4)},
                                     RnnRegistry());
  ASSERT_FALSE(bad_dy.ok());
  EXPECT_NE(bad_dy.status().message().find("hidden_t_grad"), std::string::npos) << bad_dy.status();
}

}  // namespace
}  // namespace loom
