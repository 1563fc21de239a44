// The GRU and plain RNN cell builders (AddGruCell, AddRnnCell) inside a
// RecurrentNetwork built with BuildRecurrentNetwork, against the cell
// formulas computed in plain loops (double) on random inputs, and on
// values worked out by hand.
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "core/net.h"
#include "core/plugin_loader.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"
#include "plugins/rnn/builder.h"

namespace loom {
namespace {

Registry* RnnRegistry() { return testing::CpuRegistryWith("plugins/rnn/libloom_rnn.so"); }

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Runs a one-state RecurrentNetwork over X with `cell` (reads x_t, h_prev and
// `params`, writes h_next) and returns the state tensor [T+1, 1, N, H].
Tensor RunCell(Workspace* ws, const NetDef& cell, const std::vector<std::string>& params, bool reverse, bool threaded) {
  rnn::RecurrentNetSpec spec;
  spec.name = "cell_rnn";
  spec.cell_net = cell;
  spec.inputs.push_back({"X", "x_t"});
  spec.states.push_back({"Hs", "h0", "h_prev", "h_next"});
  spec.params = params;
  spec.reverse = reverse;
  spec.use_threaded_executor = threaded;
  auto op = rnn::BuildRecurrentNetwork(spec);
  EXPECT_TRUE(op.ok()) << op.status();
  if (!op.ok()) return Tensor();
  NetDef net;
  net.set_name("outer");
  *net.add_op() = *op;
  net.add_external_input("X");
  auto n = Net::Create(net, ws, RnnRegistry());
  EXPECT_TRUE(n.ok()) << n.status();
  if (!n.ok()) return Tensor();
  absl::Status s = (*n)->Run();
  EXPECT_TRUE(s.ok()) << s;
  return *ws->GetBlob("Hs");
}

// Compares rows 1..T of `states` [T+1, 1, N, H] with `want` [T][N][H],
// where want[k] is the state after the k-th step run.
void ExpectStates(const Tensor& states, const std::vector<std::vector<std::vector<double>>>& want, double tol) {
  const int64_t T = static_cast<int64_t>(want.size()), N = static_cast<int64_t>(want[0].size()),
                H = static_cast<int64_t>(want[0][0].size());
  ASSERT_EQ(states.dims(), (Shape{T + 1, 1, N, H}));
  for (int64_t k = 0; k < T; ++k) {
    for (int64_t b = 0; b < N; ++b) {
      for (int64_t j = 0; j < H; ++j) {
        EXPECT_NEAR(states.data<float>()[((k + 1) * N + b) * H + j], want[k][b][j], tol) << "step " << k << " batch " << b << " unit " << j;
      }
    }
  }
}

constexpr int kT = 6, kN = 3, kI = 4, kH = 3;

// want[k][b][j]: the state after step k of batch entry b, unit j.
using States = std::vector<std::vector<std::vector<double>>>;
States NoStates() { return States(kT, std::vector<std::vector<double>>(kN, std::vector<double>(kH))); }

double ElementOf(const Tensor& t, int64_t i) { return static_cast<double>(t.data<float>()[i]); }

// A random float32 blob `name` (testing::RandomTensor's values) set in `ws`.
Tensor SetRandom(Workspace* ws, const std::string& name, Shape dims, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  Tensor t = testing::RandomTensor(DataType::kFloat32, std::move(dims), seed, lo, hi);
  ws->SetBlob(name, t);
  return t;
}

// (linear_before_reset, fused, reverse, threaded)
class GruCellTest : public ::testing::TestWithParam<std::tuple<bool, bool, bool, bool>> {};

TEST_P(GruCellTest, MatchesLoopReference) {
  auto [lbr, fused, reverse, threaded] = GetParam();
  Workspace ws;
  const Tensor X = SetRandom(&ws, "X", {kT, kN, kI}, 1);
  const Tensor W = SetRandom(&ws, "W", {kI, 3 * kH}, 2, -0.6, 0.6);
  const Tensor Rrz = SetRandom(&ws, "Rrz", {kH, 2 * kH}, 3, -0.6, 0.6);
  const Tensor Rn = SetRandom(&ws, "Rn", {kH, kH}, 4, -0.6, 0.6);
  const Tensor B = SetRandom(&ws, "B", {3 * kH}, 5, -0.3, 0.3);
  const Tensor Bn = SetRandom(&ws, "Bn", {kH}, 6, -0.3, 0.3);
  const Tensor H0 = SetRandom(&ws, "h0", {1, kN, kH}, 7);
  NetDef cell;
  rnn::AddGruCell(&cell, "g_", "x_t", "h_prev", {"W", "Rrz", "Rn", "B", "Bn"}, "h_next", lbr, fused);
  Tensor states = RunCell(&ws, cell, {"W", "Rrz", "Rn", "B", "Bn"}, reverse, threaded);

  auto f = ElementOf;
  States want = NoStates();
  for (int b = 0; b < kN; ++b) {
    std::vector<double> h(kH);
    for (int j = 0; j < kH; ++j) h[j] = f(H0, b * kH + j);
    for (int k = 0; k < kT; ++k) {
      const int t = reverse ? kT - 1 - k : k;
      std::vector<double> xw(3 * kH), hrz(2 * kH, 0.0), r(kH), hn(kH);
      for (int j = 0; j < 3 * kH; ++j) {
        xw[j] = f(B, j);
        for (int i = 0; i < kI; ++i) xw[j] += f(X, (t * kN + b) * kI + i) * f(W, i * 3 * kH + j);
      }
      for (int j = 0; j < 2 * kH; ++j) {
        for (int i = 0; i < kH; ++i) hrz[j] += h[i] * f(Rrz, i * 2 * kH + j);
      }
      for (int j = 0; j < kH; ++j) r[j] = Sigmoid(xw[j] + hrz[j]);
      for (int j = 0; j < kH; ++j) {
        double rec = 0;
        for (int i = 0; i < kH; ++i) rec += (lbr ? h[i] : r[i] * h[i]) * f(Rn, i * kH + j);
        rec = lbr ? r[j] * (rec + f(Bn, j)) : rec + f(Bn, j);
        const double z = Sigmoid(xw[kH + j] + hrz[kH + j]), n = std::tanh(xw[2 * kH + j] + rec);
        hn[j] = (1 - z) * n + z * h[j];
      }
      h = hn;
      want[k][b] = h;
    }
  }
  ExpectStates(states, want, 2e-6);
}

INSTANTIATE_TEST_SUITE_P(LbrFusedReverseThreaded, GruCellTest,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(), ::testing::Bool(), ::testing::Bool()));

// (relu, reverse)
class RnnCellTest : public ::testing::TestWithParam<std::tuple<bool, bool>> {};

TEST_P(RnnCellTest, MatchesLoopReference) {
  auto [relu, reverse] = GetParam();
  Workspace ws;
  const Tensor X = SetRandom(&ws, "X", {kT, kN, kI}, 11);
  const Tensor W = SetRandom(&ws, "W", {kI, kH}, 12, -0.6, 0.6);
  const Tensor R = SetRandom(&ws, "R", {kH, kH}, 13, -0.6, 0.6);
  const Tensor B = SetRandom(&ws, "B", {kH}, 14, -0.3, 0.3);
  const Tensor H0 = SetRandom(&ws, "h0", {1, kN, kH}, 15);
  NetDef cell;
  rnn::AddRnnCell(&cell, "r_", "x_t", "h_prev", {"W", "R", "B"}, "h_next",
                  relu ? rnn::RnnActivation::kRelu : rnn::RnnActivation::kTanh);
  Tensor states = RunCell(&ws, cell, {"W", "R", "B"}, reverse, true);

  auto f = ElementOf;
  States want = NoStates();
  int positives = 0, negatives = 0;  // Relu must see both signs to be tested
  for (int b = 0; b < kN; ++b) {
    std::vector<double> h(kH);
    for (int j = 0; j < kH; ++j) h[j] = f(H0, b * kH + j);
    for (int k = 0; k < kT; ++k) {
      const int t = reverse ? kT - 1 - k : k;
      std::vector<double> hn(kH);
      for (int j = 0; j < kH; ++j) {
        double pre = f(B, j);
        for (int i = 0; i < kI; ++i) pre += f(X, (t * kN + b) * kI + i) * f(W, i * kH + j);
        for (int i = 0; i < kH; ++i) pre += h[i] * f(R, i * kH + j);
        (pre > 0 ? positives : negatives)++;
        hn[j] = relu ? std::max(pre, 0.0) : std::tanh(pre);
      }
      h = hn;
      want[k][b] = h;
    }
  }
  EXPECT_GT(positives, 0);
  EXPECT_GT(negatives, 0);
  ExpectStates(states, want, 2e-6);
}

INSTANTIATE_TEST_SUITE_P(ActivationReverse, RnnCellTest, ::testing::Combine(::testing::Bool(), ::testing::Bool()));

// By hand, I = H = N = 1.
TEST(CellBuilderTest, KnownValues) {
  // GRU, one step: only the candidate's input weight is 1, x = 1, h0 = 0.5:
  // r = z = 0.5, n = tanh(1), h = 0.5 tanh(1) + 0.5 * 0.5.
  for (bool fused : {true, false}) {
    Workspace ws;
    ws.SetBlob("X", Tensor::FromVector<float>({1, 1, 1}, {1}));
    ws.SetBlob("W", Tensor::FromVector<float>({1, 3}, {0, 0, 1}));
    ws.SetBlob("Rrz", Tensor::FromVector<float>({1, 2}, {0, 0}));
    ws.SetBlob("Rn", Tensor::FromVector<float>({1, 1}, {0}));
    ws.SetBlob("B", Tensor::FromVector<float>({3}, {0, 0, 0}));
    ws.SetBlob("Bn", Tensor::FromVector<float>({1}, {0}));
    ws.SetBlob("h0", Tensor::FromVector<float>({1, 1, 1}, {0.5f}));
    NetDef cell;
    rnn::AddGruCell(&cell, "g_", "x_t", "h_prev", {"W", "Rrz", "Rn", "B", "Bn"}, "h_next", false, fused);
    Tensor s = RunCell(&ws, cell, {"W", "Rrz", "Rn", "B", "Bn"}, false, false);
    ASSERT_EQ(s.num_elements(), 2);
    EXPECT_NEAR(s.data<float>()[1], 0.5 * std::tanh(1.0) + 0.25, 1e-6) << "fused " << fused;
  }
  // RNN, W = 2, R = -1, B = 0.5, h0 = 3, x = (1, 2):
  // Relu: h1 = relu(2 - 3 + 0.5) = 0, h2 = relu(4 - 0 + 0.5) = 4.5.
  // Tanh: h1 = tanh(-0.5), h2 = tanh(4 + tanh(0.5) + 0.5).
  for (bool relu : {true, false}) {
    Workspace ws;
    ws.SetBlob("X", Tensor::FromVector<float>({2, 1, 1}, {1, 2}));
    ws.SetBlob("W", Tensor::FromVector<float>({1, 1}, {2}));
    ws.SetBlob("R", Tensor::FromVector<float>({1, 1}, {-1}));
    ws.SetBlob("B", Tensor::FromVector<float>({1}, {0.5f}));
    ws.SetBlob("h0", Tensor::FromVector<float>({1, 1, 1}, {3}));
    NetDef cell;
    rnn::AddRnnCell(&cell, "r_", "x_t", "h_prev", {"W", "R", "B"}, "h_next",
                    relu ? rnn::RnnActivation::kRelu : rnn::RnnActivation::kTanh);
    Tensor s = RunCell(&ws, cell, {"W", "R", "B"}, false, false);
    ASSERT_EQ(s.num_elements(), 3);
    EXPECT_NEAR(s.data<float>()[1], relu ? 0.0 : std::tanh(-0.5), 1e-6);
    EXPECT_NEAR(s.data<float>()[2], relu ? 4.5 : std::tanh(4.5 + std::tanh(0.5)), 1e-6);
  }
}

// The builder's cell check sees the GRU cell's weights: leaving one out of
// the params names it.
TEST(CellBuilderTest, UndeclaredGruWeightIsNamed) {
  rnn::RecurrentNetSpec spec;
  spec.name = "gru";
  rnn::AddGruCell(&spec.cell_net, "g_", "x_t", "h_prev", {"W", "Rrz", "Rn", "B", "Bn"}, "h_next");
  spec.inputs.push_back({"X", "x_t"});
  spec.states.push_back({"Hs", "h0", "h_prev", "h_next"});
  spec.params = {"W", "Rrz", "B", "Bn"};
  auto op = rnn::BuildRecurrentNetwork(spec);
  ASSERT_FALSE(op.ok());
  EXPECT_NE(op.status().message().find("'Rn'"), std::string::npos) << op.status();
}

}  // namespace
}  // namespace loom
