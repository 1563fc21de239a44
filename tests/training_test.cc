// End to end: an MLP (Gemm, Relu, Gemm, SoftmaxCrossEntropyLoss) made
// trainable with AddBackward and AddOptimizer (Momentum as PyTorch's SGD
// with momentum, with and without clipping by global norm), trained for 20
// steps in float64, against the same training written out by hand here
// (forward, backward, clipping and update in plain loops): every parameter
// and every step's loss agree to 1e-9. Checkpoints resume bitwise; the
// learning-rate schedules give their formulas' values.
#include <cmath>
#include <string>
#include <vector>

#include <filesystem>

#include "core/autodiff/backward.h"
#include "core/autodiff/checkpoint.h"
#include "core/autodiff/optimizer.h"
#include "core/net.h"
#include "testing/op_runner.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

constexpr int kN = 8, kI = 4, kH = 5, kC = 3, kSteps = 20;
// The learning rate (a float32 input) and momentum (a float attribute) as
// the net sees them.
constexpr double kRate = static_cast<double>(0.1f), kMomentum = static_cast<double>(0.9f);

using Matrix = std::vector<double>;  // row-major

void AddInit(NetDef* net, const std::string& name, const std::vector<int64_t>& dims, const Matrix& v) {
  TensorProto* t = net->add_initializer();
  t->set_name(name);
  t->set_data_type(11);  // float64
  for (int64_t d : dims) t->add_dims(d);
  for (double x : v) t->add_double_data(x);
}

Matrix Values(const Tensor& t) { return Matrix(t.data<double>(), t.data<double>() + t.num_elements()); }

struct Params {
  Matrix w1, b1, w2, b2;
};

// One SGD-with-momentum step of the MLP by hand, the gradients clipped to
// global norm `max_norm` first when > 0; returns the loss before it.
double HandStep(const Matrix& x, const std::vector<int64_t>& y, Params* p, Params* v, double max_norm = 0) {
  Matrix h(kN * kH), logits(kN * kC), dlogits(kN * kC), dh(kN * kH);
  for (int n = 0; n < kN; ++n) {
    for (int j = 0; j < kH; ++j) {
      double s = p->b1[j];
      for (int i = 0; i < kI; ++i) s += x[n * kI + i] * p->w1[i * kH + j];
      h[n * kH + j] = std::max(0.0, s);
    }
    for (int c = 0; c < kC; ++c) {
      double s = p->b2[c];
      for (int j = 0; j < kH; ++j) s += h[n * kH + j] * p->w2[j * kC + c];
      logits[n * kC + c] = s;
    }
  }
  double loss = 0;
  for (int n = 0; n < kN; ++n) {
    double mx = logits[n * kC];
    for (int c = 1; c < kC; ++c) mx = std::max(mx, logits[n * kC + c]);
    double z = 0;
    for (int c = 0; c < kC; ++c) z += std::exp(logits[n * kC + c] - mx);
    loss += -(logits[n * kC + y[n]] - mx - std::log(z)) / kN;
    for (int c = 0; c < kC; ++c) {
      dlogits[n * kC + c] = (std::exp(logits[n * kC + c] - mx) / z - (c == y[n] ? 1.0 : 0.0)) / kN;
    }
  }
  Params g{Matrix(kI * kH, 0), Matrix(kH, 0), Matrix(kH * kC, 0), Matrix(kC, 0)};
  for (int n = 0; n < kN; ++n) {
    for (int c = 0; c < kC; ++c) {
      g.b2[c] += dlogits[n * kC + c];
      for (int j = 0; j < kH; ++j) g.w2[j * kC + c] += h[n * kH + j] * dlogits[n * kC + c];
    }
    for (int j = 0; j < kH; ++j) {
      double s = 0;
      for (int c = 0; c < kC; ++c) s += dlogits[n * kC + c] * p->w2[j * kC + c];
      dh[n * kH + j] = h[n * kH + j] > 0 ? s : 0;
      g.b1[j] += dh[n * kH + j];
      for (int i = 0; i < kI; ++i) g.w1[i * kH + j] += x[n * kI + i] * dh[n * kH + j];
    }
  }
  if (max_norm > 0) {
    double sq = 0;
    for (const Matrix* m : {&g.w1, &g.b1, &g.w2, &g.b2}) {
      for (double e : *m) sq += e * e;
    }
    const double scale = std::min(1.0, max_norm / (std::sqrt(sq) + 1e-6));
    for (Matrix* m : {&g.w1, &g.b1, &g.w2, &g.b2}) {
      for (double& e : *m) e *= scale;
    }
  }
  auto update = [](Matrix* w, Matrix* vel, const Matrix& grad) {
    for (size_t i = 0; i < w->size(); ++i) {
      (*vel)[i] = kMomentum * (*vel)[i] + grad[i];
      (*w)[i] -= kRate * (*vel)[i];
    }
  };
  update(&p->w1, &v->w1, g.w1);
  update(&p->b1, &v->b1, g.b1);
  update(&p->w2, &v->w2, g.w2);
  update(&p->b2, &v->b2, g.b2);
  return loss;
}

Matrix Random(int n, uint32_t seed) { return Values(testing::RandomTensor(DataType::kFloat64, {n}, seed, -0.5, 0.5)); }

Params InitialParams() { return Params{Random(kI * kH, 1), Random(kH, 2), Random(kH * kC, 3), Random(kC, 4)}; }

// The MLP with its backward pass and `opt`'s update appended.
NetDef TrainingNet(const Params& p, const OptimizerOptions& opt) {
  NetDef net;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    name: "mlp" external_input: "x" external_input: "y" external_output: "loss"
    op { type: "Gemm" input: "x" input: "W1" input: "b1" output: "a1" }
    op { type: "Relu" input: "a1" output: "h" }
    op { type: "Gemm" input: "h" input: "W2" input: "b2" output: "logits" }
    op { type: "SoftmaxCrossEntropyLoss" input: "logits" input: "y" output: "loss" }
  )pb", &net));
  AddInit(&net, "W1", {kI, kH}, p.w1);
  AddInit(&net, "b1", {kH}, p.b1);
  AddInit(&net, "W2", {kH, kC}, p.w2);
  AddInit(&net, "b2", {kC}, p.b2);
  auto backward = AddBackward(*testing::CpuRegistry(), {"loss"}, {}, &net);
  EXPECT_TRUE(backward.ok()) << backward.status();
  EXPECT_EQ(backward->gradients.size(), 4u);
  absl::Status s = AddOptimizer(*backward, opt, &net);
  EXPECT_TRUE(s.ok()) << s;
  return net;
}

OptimizerOptions SgdMomentum(double max_norm = 0) {
  OptimizerOptions opt;
  Argument alpha;
  alpha.set_name("alpha");
  alpha.set_f(static_cast<float>(kMomentum));
  opt.attributes = {alpha};
  opt.max_gradient_norm = max_norm;
  return opt;
}

const std::vector<int64_t> kLabels = {0, 1, 2, 1, 0, 2, 2, 1};

// x, y and the learning rate in a workspace.
void Feed(Workspace* ws) {
  ws->SetBlob("x", Tensor::FromVector<double>({kN, kI}, Random(kN * kI, 5)));
  ws->SetBlob("y", Tensor::FromVector<int64_t>({kN}, kLabels));
  ws->SetBlob("learning_rate", Tensor::FromVector<float>({}, {static_cast<float>(kRate)}));
}

// Runs steps [from, to) and returns their losses.
std::vector<double> Train(Net* net, Workspace* ws, int from, int to) {
  std::vector<double> losses;
  for (int step = from; step < to; ++step) {
    ws->SetBlob("step", Tensor::FromVector<int64_t>({}, {step}));
    absl::Status s = net->Run();
    EXPECT_TRUE(s.ok()) << s;
    losses.push_back(ws->GetBlob("loss")->data<double>()[0]);
  }
  return losses;
}

TEST(TrainingTest, MlpWithMomentumMatchesTrainingByHand) {
  for (double max_norm : {0.0, 0.05}) {
    Params p = InitialParams();
    NetDef net = TrainingNet(p, SgdMomentum(max_norm));
    Workspace ws;
    Feed(&ws);
    const Matrix x = Random(kN * kI, 5);
    const std::vector<int64_t>& y = kLabels;
    auto n = Net::Create(net, &ws, testing::CpuRegistry());
    ASSERT_TRUE(n.ok()) << n.status();
    Params v{Matrix(kI * kH, 0), Matrix(kH, 0), Matrix(kH * kC, 0), Matrix(kC, 0)};
    double first = 0, last = 0;
    for (int step = 0; step < kSteps; ++step) {
      ws.SetBlob("step", Tensor::FromVector<int64_t>({}, {step}));
      ASSERT_TRUE((*n)->Run().ok()) << (*n)->Run();
      const double expected_loss = HandStep(x, y, &p, &v, max_norm);
      ASSERT_NEAR(ws.GetBlob("loss")->data<double>()[0], expected_loss, 1e-9) << "step " << step << " max_norm " << max_norm;
      (step == 0 ? first : last) = expected_loss;
    }
    EXPECT_LT(last, first * (max_norm > 0 ? 0.99 : 0.8)) << "the loss should fall; max_norm " << max_norm;
    auto close = [](const Matrix& a, const Matrix& b, const char* what) {
      for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-9) << what << "[" << i << "]";
    };
    close(Values(*ws.GetBlob("W1")), p.w1, "W1");
    close(Values(*ws.GetBlob("b1")), p.b1, "b1");
    close(Values(*ws.GetBlob("W2")), p.w2, "W2");
    close(Values(*ws.GetBlob("b2")), p.b2, "b2");
  }
}

// Adam for 6 steps, a checkpoint of the parameters and Adam's states, 4 more
// steps; a fresh net loaded from the checkpoint takes the same 4 steps to
// the same losses, bitwise. A save interrupted between its two renames
// leaves the checkpoint at `dir.old`, where Load finds it.
TEST(TrainingTest, ResumingFromACheckpointReproducesTheNextLossesBitwise) {
  OptimizerOptions adam;
  adam.type = "Adam";
  const NetDef net = TrainingNet(InitialParams(), adam);
  std::vector<std::string> state;
  for (const TensorProto& t : net.initializer()) state.push_back(t.name());  // W1..b2 and their _adam_v/_adam_h
  ASSERT_EQ(state.size(), 12u);
  const std::string dir = ::testing::TempDir() + "/ckpt";
  Workspace ws;
  Feed(&ws);
  auto a = Net::Create(net, &ws, testing::CpuRegistry());
  ASSERT_TRUE(a.ok()) << a.status();
  Train(a->get(), &ws, 0, 6);
  ASSERT_TRUE(SaveCheckpoint(ws, state, dir).ok());
  const std::vector<double> expected = Train(a->get(), &ws, 6, 10);

  Workspace resumed;
  Feed(&resumed);
  auto b = Net::Create(net, &resumed, testing::CpuRegistry());  // initializers as at step 0...
  ASSERT_TRUE(b.ok()) << b.status();
  std::vector<std::string> loaded;
  ASSERT_TRUE(LoadCheckpoint(dir, &resumed, &loaded).ok());  // ... then the checkpoint's values
  EXPECT_EQ(loaded.size(), 12u);
  const std::vector<double> got = Train(b->get(), &resumed, 6, 10);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], expected[i]) << "step " << 6 + i;

  std::filesystem::rename(dir, dir + ".old");  // as if a save stopped between its renames
  Workspace again;
  EXPECT_TRUE(LoadCheckpoint(dir, &again).ok());
  EXPECT_NE(again.GetBlob("W1_adam_h"), nullptr);
  EXPECT_EQ(LoadCheckpoint(dir + "_none", &again).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(SaveCheckpoint(ws, {"nope"}, dir).code(), absl::StatusCode::kInvalidArgument);
}

TEST(TrainingTest, LearningRateSchedules) {
  LearningRateSchedule s;
  s.base = 0.5;
  EXPECT_DOUBLE_EQ(s.At(7), 0.5);
  s.kind = LearningRateSchedule::Kind::kStep;
  s.gamma = 0.1;
  s.step_size = 3;
  EXPECT_DOUBLE_EQ(s.At(2), 0.5);
  EXPECT_DOUBLE_EQ(s.At(3), 0.05);
  EXPECT_DOUBLE_EQ(s.At(7), 0.5 * 0.1 * 0.1);
  s.kind = LearningRateSchedule::Kind::kExponential;
  s.gamma = 0.9;
  EXPECT_DOUBLE_EQ(s.At(2), 0.5 * 0.81);
}

}  // namespace
}  // namespace loom
