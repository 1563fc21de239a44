// RecurrentNetworkGradient: stacked LSTMs built as RecurrentNetwork ops
// (forward_only = 0) against central finite differences in float64, for 1
// and 2 layers, with and without sequence lengths shorter than T, forward
// and reverse; the sequential and threaded timestep executors giving
// identical gradients; and the errors.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/autodiff/backward.h"
#include "core/buffer_pool.h"
#include "core/net.h"
#include "testing/gradient_check.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"
#include "plugins/rnn/builder.h"

namespace loom {
namespace {

constexpr int kT = 4, kN = 3, kI = 2, kH = 3;

Registry* RnnRegistry() { return testing::CpuRegistryWith("plugins/rnn/libloom_rnn.so"); }

Tensor D(Shape dims, uint32_t seed, double lo = -0.8, double hi = 0.8) {
  return testing::RandomTensor(DataType::kFloat64, std::move(dims), seed, lo, hi);
}

struct Lstm {
  OperatorDef op;
  std::vector<Tensor> inputs;  // in op.input order
};

// A stacked LSTM over X [T, N, I] with random float64 weights and initial
// states; seq_lengths (int32 [N]) when `lengths` is given.
Lstm MakeLstm(int layers, bool reverse, bool threaded, const std::vector<int32_t>& lengths, bool forward_only = false) {
  std::vector<rnn::LstmWeights> w;
  std::vector<std::string> h0, c0;
  std::map<std::string, Tensor> blobs;
  blobs["X"] = D({kT, kN, kI}, 1);
  for (int l = 0; l < layers; ++l) {
    rnn::LstmWeights lw{absl::StrCat("W", l), absl::StrCat("R", l), absl::StrCat("B", l)};
    blobs[lw.w] = D({l == 0 ? kI : kH, 4 * kH}, 10 + l);
    blobs[lw.r] = D({kH, 4 * kH}, 20 + l);
    blobs[lw.b] = D({4 * kH}, 30 + l, -0.3, 0.3);
    h0.push_back(absl::StrCat("h0_", l));
    c0.push_back(absl::StrCat("c0_", l));
    blobs[h0.back()] = D({1, kN, kH}, 40 + l);
    blobs[c0.back()] = D({1, kN, kH}, 50 + l);
    w.push_back(lw);
  }
  if (!lengths.empty()) blobs["lengths"] = Tensor::FromVector<int32_t>({kN}, lengths);
  auto op = rnn::BuildStackedLstm("lstm", "X", w, h0, c0, "y", reverse, threaded, 2, 2, /*fused=*/true, forward_only,
                                  lengths.empty() ? "" : "lengths");
  EXPECT_TRUE(op.ok()) << op.status();
  Lstm out{*op, {}};
  for (const std::string& in : op->input()) out.inputs.push_back(*blobs.at(in).Clone());
  return out;
}

class RecurrentGradientCheck : public ::testing::TestWithParam<std::tuple<int, bool, bool>> {};

// Every float input (X, initial states, W, R, B) against central
// differences; every output (states, the all-steps and last-step aliases)
// in the loss.
TEST_P(RecurrentGradientCheck, MatchesFiniteDifferences) {
  const auto [layers, with_lengths, reverse] = GetParam();
  const std::vector<int32_t> lengths = with_lengths ? std::vector<int32_t>{kT, 2, 3} : std::vector<int32_t>{};
  const Lstm lstm = MakeLstm(layers, reverse, /*threaded=*/false, lengths);
  EXPECT_TRUE(testing::CheckGradient(lstm.op, lstm.inputs, RnnRegistry()));
}

INSTANTIATE_TEST_SUITE_P(LayersLengthsDirection, RecurrentGradientCheck,
                         ::testing::Combine(::testing::Values(1, 2), ::testing::Bool(), ::testing::Bool()));

// Forward + backward of `lstm` with loss sum(y_all), the gradients of every
// float input; *high_water (if given) gets the net's pool high water.
std::map<std::string, Tensor> Gradients(const Lstm& lstm, size_t* high_water = nullptr) {
  NetDef net;
  net.set_name("train");
  *net.add_op() = lstm.op;
  OperatorDef* loss = net.add_op();
  loss->set_type("ReduceSum");
  loss->add_input("y_all");
  loss->add_output("loss");
  Workspace ws;
  BackwardOptions bo;
  for (size_t i = 0; i < lstm.inputs.size(); ++i) {
    net.add_external_input(lstm.op.input(i));
    ws.SetBlob(lstm.op.input(i), *lstm.inputs[i].Clone());
    if (lstm.inputs[i].dtype() == DataType::kFloat64) bo.wrt.push_back(lstm.op.input(i));
  }
  auto r = AddBackward(*RnnRegistry(), {"loss"}, bo, &net);
  EXPECT_TRUE(r.ok()) << r.status();
  auto n = Net::Create(net, &ws, RnnRegistry());
  EXPECT_TRUE(n.ok()) << n.status();
  std::map<std::string, Tensor> out;
  if (!n.ok() || !r.ok()) return out;
  for (int run = 0; run < 2; ++run) {  // the second run reuses the step workspaces and nets
    absl::Status s = (*n)->Run();
    EXPECT_TRUE(s.ok()) << s;
  }
  for (const auto& [x, g] : r->gradients) out[x] = *ws.GetBlob(g)->Clone();
  if (high_water != nullptr) *high_water = (*n)->pool().high_water_bytes();
  return out;
}

// The threaded timestep executor (wavefront) gives the sequential one's
// gradients bit for bit: parameter gradients are summed in reverse time
// order either way.
TEST(RecurrentNetworkGradientTest, ThreadedAndSequentialExecutorsAgreeExactly) {
  for (int layers : {1, 2}) {
    const auto seq = Gradients(MakeLstm(layers, false, /*threaded=*/false, {kT, 1, 3}));
    const auto thr = Gradients(MakeLstm(layers, false, /*threaded=*/true, {kT, 1, 3}));
    ASSERT_EQ(seq.size(), thr.size());
    ASSERT_FALSE(seq.empty());
    for (const auto& [x, g] : seq) {
      const Tensor& h = thr.at(x);
      ASSERT_EQ(g.num_elements(), h.num_elements()) << x;
      for (int64_t i = 0; i < g.num_elements(); ++i) {
        ASSERT_EQ(g.data<double>()[i], h.data<double>()[i]) << layers << " layers, " << x << " element " << i;
      }
    }
  }
}

// `lstm` with recompute_blobs_on_backward = `blobs`.
Lstm Recomputing(Lstm lstm, const std::vector<std::string>& blobs) {
  Argument* a = lstm.op.add_arg();
  a->set_name("recompute_blobs_on_backward");
  for (const std::string& b : blobs) a->add_strings(b);
  return lstm;
}

// Each layer's gate pre-activations (MatMul, Add, Add: what LSTMUnit
// reads) not kept per timestep but recomputed by the backward step net.
std::vector<std::string> GateBlobs(int layers) {
  std::vector<std::string> out;
  for (int l = 0; l < layers; ++l) {
    for (const char* b : {"xw", "hr", "sum", "gates"}) out.push_back(absl::StrCat("l", l, "_", b));
  }
  return out;
}

// recompute_blobs_on_backward (Caffe2's recurrent.py): the gradients are
// the same, bit for bit, on both executors, and check against finite
// differences.
TEST(RecurrentNetworkGradientTest, RecomputedBlobsGiveTheSameGradients) {
  for (int layers : {1, 2}) {
    for (bool threaded : {false, true}) {
      const Lstm lstm = MakeLstm(layers, false, threaded, {kT, 1, 3});
      const auto kept = Gradients(lstm);
      const auto recomputed = Gradients(Recomputing(lstm, GateBlobs(layers)));
      ASSERT_EQ(kept.size(), recomputed.size());
      ASSERT_FALSE(kept.empty());
      for (const auto& [x, g] : kept) {
        const Tensor& h = recomputed.at(x);
        ASSERT_EQ(g.num_elements(), h.num_elements()) << x;
        for (int64_t i = 0; i < g.num_elements(); ++i) {
          ASSERT_EQ(g.data<double>()[i], h.data<double>()[i]) << layers << " layers, " << x << " element " << i;
        }
      }
    }
  }
  const Lstm lstm = Recomputing(MakeLstm(2, true, false, {kT, 2, 3}), GateBlobs(2));
  EXPECT_TRUE(testing::CheckGradient(lstm.op, lstm.inputs, RnnRegistry()));
}

// What the backward pass finds kept: the pool's bytes in use right after
// the forward op (the training net cut after it, so nothing else holds
// memory) are fewer by about T gate tensors per layer.
TEST(RecurrentNetworkGradientTest, RecomputedBlobsAreNotKeptPerTimestep) {
  auto held_after_forward = [](const Lstm& lstm) -> size_t {
    NetDef net;
    *net.add_op() = lstm.op;
    Workspace ws;
    for (size_t i = 0; i < lstm.inputs.size(); ++i) {
      net.add_external_input(lstm.op.input(i));
      ws.SetBlob(lstm.op.input(i), *lstm.inputs[i].Clone());
    }
    auto n = Net::Create(net, &ws, RnnRegistry());
    EXPECT_TRUE(n.ok()) << n.status();
    if (!n.ok()) return 0;
    EXPECT_TRUE((*n)->Run().ok());
    return (*n)->pool().in_use_bytes();
  };
  const Lstm lstm = MakeLstm(1, false, false, {});
  const size_t kept = held_after_forward(lstm);
  const size_t recomputed = held_after_forward(Recomputing(lstm, GateBlobs(1)));
  // Four [1, N, 4H] float64 blobs per timestep (pool buckets: 64 bytes and up).
  const size_t gates = 4 * kT * BufferPool::BucketSize(kN * 4 * kH * sizeof(double));
  EXPECT_EQ(kept - recomputed, gates) << "kept " << kept << ", recomputed " << recomputed;
}

// And over the whole training step: the backward step net writes the
// recomputed blobs itself, so they go back to the pool after each backward
// timestep too (none is pinned): the step's peak is lower.
TEST(RecurrentNetworkGradientTest, RecomputingLowersTheTrainingStepsPeak) {
  auto peak = [](const Lstm& lstm) {
    size_t high_water = 0;
    Gradients(lstm, &high_water);
    return high_water;
  };
  const Lstm lstm = MakeLstm(1, false, false, {});
  const size_t kept = peak(lstm), recomputed = peak(Recomputing(lstm, GateBlobs(1)));
  // At least half of the T x 4 gate blobs kept fewer at the peak (the
  // backward timesteps hold their recomputed ones briefly).
  const size_t gates = 4 * kT * BufferPool::BucketSize(kN * 4 * kH * sizeof(double));
  EXPECT_LE(recomputed + gates / 2, kept) << "kept " << kept << ", recomputed " << recomputed;
}

TEST(RecurrentNetworkGradientTest, RecomputeListsAreChecked) {
  for (const auto& [blobs, expected] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"no_such_blob"}, "no step-net op writes"}, {{"h0_next"}, "not listed"}}) {
    const Lstm lstm = Recomputing(MakeLstm(1, false, false, {}), blobs);
    NetDef net;
    *net.add_op() = lstm.op;
    for (const std::string& in : lstm.op.input()) net.add_external_input(in);
    BackwardOptions bo;
    bo.wrt = {"W0"};
    auto r = AddBackward(*RnnRegistry(), {"y_all"}, bo, &net);
    ASSERT_FALSE(r.ok()) << blobs[0];
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
    EXPECT_NE(std::string(r.status().message()).find(expected), std::string::npos) << r.status();
  }
}

TEST(RecurrentNetworkGradientTest, ForwardOnlyOpsAndMissingForwardRunsAreRefused) {
  const Lstm lstm = MakeLstm(1, false, false, {}, /*forward_only=*/true);
  NetDef net;
  *net.add_op() = lstm.op;
  for (const std::string& in : lstm.op.input()) net.add_external_input(in);
  BackwardOptions bo;
  bo.wrt = {"W0"};
  auto r = AddBackward(*RnnRegistry(), {"y_all"}, bo, &net);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << r.status();
  EXPECT_NE(std::string(r.status().message()).find("forward_only"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace loom
