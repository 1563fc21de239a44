// RecurrentNetwork LSTMs built with the builder against the same LSTM
// unrolled by hand into one flat net, for 1, 2 and 4 layers, T = 1 and 37,
// forward and reverse, with the sequential and the threaded executor.
#include <cmath>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/buffer_pool.h"
#include "core/plugin_api/api_table.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"
#include "plugins/rnn/builder.h"

namespace loom {
namespace {

constexpr int kN = 3, kI = 5, kH = 4;

Registry* RnnRegistry() { return testing::CpuRegistryWith("plugins/rnn/libloom_rnn.so"); }

// Puts X [T, N, I], weights and initial states of `layers` layers into ws.
std::vector<rnn::LstmWeights> SetupLstm(Workspace* ws, int T, int layers) {
  ws->SetBlob("X", testing::RandomTensor(DataType::kFloat32, {T, kN, kI}, 1));
  std::vector<rnn::LstmWeights> w;
  for (int l = 0; l < layers; ++l) {
    rnn::LstmWeights lw{absl::StrCat("W", l), absl::StrCat("R", l), absl::StrCat("B", l)};
    ws->SetBlob(lw.w, testing::RandomTensor(DataType::kFloat32, {l == 0 ? kI : kH, 4 * kH}, 10 + l, -0.5, 0.5));
    ws->SetBlob(lw.r, testing::RandomTensor(DataType::kFloat32, {kH, 4 * kH}, 20 + l, -0.5, 0.5));
    ws->SetBlob(lw.b, testing::RandomTensor(DataType::kFloat32, {4 * kH}, 30 + l, -0.2, 0.2));
    ws->SetBlob(absl::StrCat("h0_", l), testing::RandomTensor(DataType::kFloat32, {1, kN, kH}, 40 + l));
    ws->SetBlob(absl::StrCat("c0_", l), testing::RandomTensor(DataType::kFloat32, {1, kN, kH}, 50 + l));
    w.push_back(lw);
  }
  return w;
}

// The same LSTM as a flat net: timestep k reads row (reverse ? T-1-k : k) of
// X (fed as separate blobs x_<row>), layer by layer.
NetDef Unrolled(int T, int layers, bool reverse, Workspace* ws) {
  const Tensor* X = ws->GetBlob("X");
  NetDef net;
  net.set_name("unrolled");
  for (int t = 0; t < T; ++t) {
    auto row = X->Slice(t, t + 1);
    ws->SetBlob(absl::StrCat("x_", t), *row->Clone());
  }
  for (int k = 0; k < T; ++k) {
    int row = reverse ? T - 1 - k : k;
    for (int l = 0; l < layers; ++l) {
      std::string below = l == 0 ? absl::StrCat("x_", row) : absl::StrCat("h_", l - 1, "_", k + 1);
      std::string hp = k == 0 ? absl::StrCat("h0_", l) : absl::StrCat("h_", l, "_", k);
      std::string cp = k == 0 ? absl::StrCat("c0_", l) : absl::StrCat("c_", l, "_", k);
      rnn::AddLstmCell(&net, absl::StrCat("t", k, "l", l, "_"), below, hp, cp,
                       {absl::StrCat("W", l), absl::StrCat("R", l), absl::StrCat("B", l)}, absl::StrCat("h_", l, "_", k + 1),
                       absl::StrCat("c_", l, "_", k + 1));
    }
  }
  return net;
}

void ExpectSameFloats(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.num_elements(), b.num_elements()) << what << ": " << a.DebugString() << " vs " << b.DebugString();
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    ASSERT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-6) << what << " element " << i;
  }
}

class RecurrentLstmTest : public ::testing::TestWithParam<std::tuple<int, int, bool, bool>> {};

TEST_P(RecurrentLstmTest, MatchesHandUnrolledNet) {
  auto [layers, T, reverse, threaded] = GetParam();
  Workspace ws;
  std::vector<rnn::LstmWeights> w = SetupLstm(&ws, T, layers);
  std::vector<std::string> h0, c0;
  for (int l = 0; l < layers; ++l) {
    h0.push_back(absl::StrCat("h0_", l));
    c0.push_back(absl::StrCat("c0_", l));
  }
  auto op = rnn::BuildStackedLstm("lstm", "X", w, h0, c0, "Y", reverse, threaded, 2, 3);
  ASSERT_TRUE(op.ok()) << op.status();
  NetDef net;
  net.set_name("rnn");
  *net.add_op() = *op;
  net.add_external_input("X");
  auto rnn_net = Net::Create(net, &ws, RnnRegistry());
  ASSERT_TRUE(rnn_net.ok()) << rnn_net.status();
  for (int run = 0; run < 2; ++run) ASSERT_TRUE((*rnn_net)->Run().ok()) << (*rnn_net)->Run();  // step workspaces reused

  NetDef flat = Unrolled(T, layers, reverse, &ws);
  auto flat_net = Net::Create(flat, &ws, RnnRegistry());
  ASSERT_TRUE(flat_net.ok()) << flat_net.status();
  ASSERT_TRUE((*flat_net)->Run().ok());

  const Tensor* all = ws.GetBlob("Y_all");
  ASSERT_EQ(all->dims(), (Shape{T, 1, kN, kH}));
  for (int k = 0; k < T; ++k) {
    ExpectSameFloats(*all->Slice(k, k + 1), *ws.GetBlob(absl::StrCat("h_", layers - 1, "_", k + 1)), absl::StrCat("Y_all row ", k));
  }
  ExpectSameFloats(*ws.GetBlob("Y_last"), *ws.GetBlob(absl::StrCat("h_", layers - 1, "_", T)), "Y_last");
  for (int l = 0; l < layers; ++l) {
    const Tensor* c = ws.GetBlob(absl::StrCat("Y_c", l));
    ASSERT_EQ(c->dims(), (Shape{T + 1, 1, kN, kH}));
    ExpectSameFloats(*c->Slice(0, 1), *ws.GetBlob(absl::StrCat("c0_", l)), "c row 0 = initial");
    ExpectSameFloats(*c->Slice(T, T + 1), *ws.GetBlob(absl::StrCat("c_", l, "_", T)), "final cell");
  }
}

INSTANTIATE_TEST_SUITE_P(LayersStepsDirectionExecutor, RecurrentLstmTest,
                         ::testing::Combine(::testing::Values(1, 2, 4), ::testing::Values(1, 37), ::testing::Bool(),
                                            ::testing::Bool()));

// gate_order names where i, f, o, g sit: ONNX's order ("iofg") on gates
// permuted from Caffe2's gives the same h and c; a bad order is refused.
TEST(RecurrentNetworkTest, LstmUnitGateOrder) {
  const int64_t N = 3, D = 2;
  Tensor h = testing::RandomTensor(DataType::kFloat32, {N, D}, 1), c = testing::RandomTensor(DataType::kFloat32, {N, D}, 2);
  Tensor caffe2 = testing::RandomTensor(DataType::kFloat32, {N, 4 * D}, 3, -2, 2);
  Tensor onnx = Tensor::Zeros(DataType::kFloat32, {N, 4 * D});
  const int from[4] = {0, 2, 1, 3};  // ONNX block k holds Caffe2 block from[k] (i, o, f, g)
  for (int64_t n = 0; n < N; ++n) {
    for (int k = 0; k < 4; ++k) {
      for (int64_t j = 0; j < D; ++j) onnx.data<float>()[n * 4 * D + k * D + j] = caffe2.data<float>()[n * 4 * D + from[k] * D + j];
    }
  }
  auto unit = [](const std::string& order) {
    return testing::ParseOp(R"(type: "LSTMUnit" input: "h" input: "c" input: "g" output: "h1" output: "c1" arg { name: "gate_order" s: ")" +
                            order + R"(" } arg { name: "forget_bias" f: 0.5 })");
  };
  auto a = testing::RunSingleOp(unit("ifog"), {h, c, caffe2}, RnnRegistry());
  auto b = testing::RunSingleOp(unit("iofg"), {h, c, onnx}, RnnRegistry());
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << " " << b.status();
  EXPECT_TRUE(testing::AllClose((*b)[0], (*a)[0], 0, 0));
  EXPECT_TRUE(testing::AllClose((*b)[1], (*a)[1], 0, 0));
  auto bad = testing::RunSingleOp(unit("iffg"), {h, c, caffe2}, RnnRegistry());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("gate_order must order the letters i, f, o, g"), std::string::npos) << bad.status();
}

TEST(RecurrentNetworkTest, FusedAndStandardOpCellsAgree) {
  Workspace ws;
  std::vector<rnn::LstmWeights> w = SetupLstm(&ws, 6, 2);
  auto fused = rnn::BuildStackedLstm("f", "X", w, {"h0_0", "h0_1"}, {"c0_0", "c0_1"}, "F", false, true);
  auto plain = rnn::BuildStackedLstm("p", "X", w, {"h0_0", "h0_1"}, {"c0_0", "c0_1"}, "P", false, false, 2, 2, false);
  ASSERT_TRUE(fused.ok() && plain.ok());
  NetDef net;
  *net.add_op() = *fused;
  *net.add_op() = *plain;
  net.add_external_input("X");
  auto n = Net::Create(net, &ws, RnnRegistry());
  ASSERT_TRUE(n.ok()) << n.status();
  ASSERT_TRUE((*n)->Run().ok());
  EXPECT_TRUE(testing::AllClose(*ws.GetBlob("F_all"), *ws.GetBlob("P_all"), 1e-5, 1e-6));
}

// Forward only, a timestep's intermediates (the standard-op cell's gates)
// go back to the net's pool when the timestep is done (PlanTimestepMemory):
// after a run the pool holds only the op's outputs (the state tensors,
// [T+1, ...]) and each step workspace's int32 `timestep` scalar, and the
// intermediates held at once are bounded by the timesteps in flight, not
// by T. T = 1 measures one timestep's intermediates.
TEST(RecurrentNetworkTest, TimestepIntermediatesGoBackToThePool) {
  for (bool threaded : {false, true}) {
    const int max_parallel = 2;
    struct Measured {
      size_t held_after = 0;  // pool bytes in use after the run, less the op's outputs
      size_t peak = 0;        // high water less what is in use after the run
    };
    auto measure = [&](int T) {
      Workspace ws;
      std::vector<rnn::LstmWeights> w = SetupLstm(&ws, T, 1);
      auto op = rnn::BuildStackedLstm("p", "X", w, {"h0_0"}, {"c0_0"}, "P", false, threaded, 2, max_parallel, false);
      EXPECT_TRUE(op.ok()) << op.status();
      NetDef net;
      *net.add_op() = *op;
      net.add_external_input("X");
      auto n = Net::Create(net, &ws, RnnRegistry());
      EXPECT_TRUE(n.ok()) << n.status();
      for (int run = 0; run < 2; ++run) EXPECT_TRUE((*n)->Run().ok());
      size_t outputs = 0;
      for (const std::string& o : op->output()) {
        const Tensor* t = ws.GetBlob(o);
        if (t != nullptr && !t->is_alias() && t->nbytes() > 0) outputs += BufferPool::BucketSize(t->nbytes());
      }
      const BufferPool& pool = (*n)->pool();
      return Measured{pool.in_use_bytes() - outputs, pool.high_water_bytes() - pool.in_use_bytes()};
    };
    const Measured one = measure(1), many = measure(40);
    ASSERT_GT(one.peak, 0u) << "threaded " << threaded;
    EXPECT_EQ(many.held_after, 40 * BufferPool::BucketSize(sizeof(int32_t))) << "threaded " << threaded;
    EXPECT_LE(many.peak, (threaded ? max_parallel : 1) * one.peak)
        << "threaded " << threaded << ": T = 40 held " << many.peak << " bytes of intermediates at once; one timestep's are "
        << one.peak;
  }
}

TEST(RecurrentNetworkTest, LstmUnitKnownValuesAndSequenceLengths) {
  // One unit, D = 1: gates (i, f, o, g) = (0, 0, 0, 0): i = f = o = 0.5, g = 0.
  // c = 0.5 * c_prev = 1, h = 0.5 * tanh(1).
  OperatorDef op = testing::ParseOp(R"(type: "LSTMUnit" input: "h" input: "c" input: "g" input: "len" input: "t"
                                       output: "h1" output: "c1")");
  Tensor h = Tensor::FromVector<float>({2, 1}, {0.3f, 0.3f});
  Tensor c = Tensor::FromVector<float>({2, 1}, {2.0f, 2.0f});
  Tensor g = Tensor::FromVector<float>({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0});
  Tensor len = Tensor::FromVector<int32_t>({2}, {5, 3});
  Tensor t = Tensor::FromVector<int32_t>({}, {3});
  auto out = testing::RunSingleOp(op, {h, c, g, len, t}, RnnRegistry());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FLOAT_EQ((*out)[1].data<float>()[0], 1.0f);
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[0], 0.5f * std::tanh(1.0f));
  // Entry 1 has length 3 <= timestep 3: its state is carried over.
  EXPECT_FLOAT_EQ((*out)[1].data<float>()[1], 2.0f);
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[1], 0.3f);
  auto bad = testing::RunSingleOp(testing::ParseOp(R"(type: "LSTMUnit" input: "h" input: "c" input: "g" output: "a" output: "b")"),
                                  {h, c, Tensor::FromVector<float>({2, 3}, {0, 0, 0, 0, 0, 0})}, RnnRegistry());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("gates [..., N, 4D]"), std::string::npos) << bad.status();
}

// Two nets, each with a threaded RecurrentNetwork, run at the same time from
// two threads: each op owns its timestep executor (no process-wide pool or
// lock), both give the results of a run alone, and the executors are freed
// with their nets (nothing grows across runs).
TEST(RecurrentNetworkTest, TwoNetsRunConcurrentlyAndReleaseTheirExecutors) {
  const int base = LiveTimestepExecutors();
  constexpr int kT = 9, kLayers = 2, kRuns = 20;
  struct Instance {
    Workspace ws;
    std::unique_ptr<Net> net;
    Tensor alone;
  };
  Instance inst[2];
  for (int i = 0; i < 2; ++i) {
    std::vector<rnn::LstmWeights> w = SetupLstm(&inst[i].ws, kT, kLayers);
    // Different inputs per net, so a mixed-up state would show.
    inst[i].ws.SetBlob("X", testing::RandomTensor(DataType::kFloat32, {kT, kN, kI}, 100 + i));
    auto op = rnn::BuildStackedLstm("lstm", "X", w, {"h0_0", "h0_1"}, {"c0_0", "c0_1"}, "Y", false, true, 2, 3);
    ASSERT_TRUE(op.ok()) << op.status();
    NetDef def;
    def.set_name(absl::StrCat("rnn", i));
    *def.add_op() = *op;
    def.add_external_input("X");
    auto n = Net::Create(def, &inst[i].ws, RnnRegistry());
    ASSERT_TRUE(n.ok()) << n.status();
    inst[i].net = *std::move(n);
    ASSERT_TRUE(inst[i].net->Run().ok());
    inst[i].alone = *inst[i].ws.GetBlob("Y_all")->Clone();
  }
  EXPECT_EQ(LiveTimestepExecutors(), base + 2);
  absl::Status status[2];
  bool same[2] = {true, true};
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] {
      for (int r = 0; r < kRuns && status[i].ok(); ++r) {
        status[i] = inst[i].net->Run();
        same[i] = same[i] && testing::AllClose(*inst[i].ws.GetBlob("Y_all"), inst[i].alone, 0, 0);
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(status[i].ok()) << status[i];
    EXPECT_TRUE(same[i]) << "net " << i << " differs from its run alone";
  }
  EXPECT_EQ(LiveTimestepExecutors(), base + 2) << "runs made executors";
  inst[0].net.reset();
  inst[1].net.reset();
  EXPECT_EQ(LiveTimestepExecutors(), base);
}

TEST(RecurrentNetworkTest, BuilderChecksTheCellNet) {
  rnn::RecurrentNetSpec spec;
  spec.name = "r";
  spec.inputs.push_back({"X", "x_t"});
  spec.states.push_back({"h", "h0", "h_prev", "h_next"});
  OperatorDef* op = spec.cell_net.add_op();
  op->set_type("Add");
  op->set_name("a");
  op->add_input("x_t");
  op->add_input("undeclared_weight");
  op->add_output("h_next");
  auto r = rnn::BuildRecurrentNetwork(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'undeclared_weight'"), std::string::npos) << r.status();
  spec.params.push_back("undeclared_weight");
  EXPECT_TRUE(rnn::BuildRecurrentNetwork(spec).ok());
  spec.states.push_back({"c", "c0", "c_prev", "c_next"});
  r = rnn::BuildRecurrentNetwork(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("state 'c' is not linked"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace loom
