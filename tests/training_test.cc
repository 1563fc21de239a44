// End to end: an MLP (Gemm, Relu, Gemm, SoftmaxCrossEntropyLoss) made
// trainable with AddBackward and AddOptimizer (Momentum as PyTorch's SGD
// with momentum), trained for 20 steps in float64, against the same
// training written out by hand here (forward, backward and update in plain
// loops): every parameter and every step's loss agree to 1e-9.
#include <cmath>
#include <string>
#include <vector>

#include "core/autodiff/backward.h"
#include "core/autodiff/optimizer.h"
#include "core/net.h"
#include "core/testing/op_runner.h"
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

// One SGD-with-momentum step of the MLP by hand; returns the loss before it.
double HandStep(const Matrix& x, const std::vector<int64_t>& y, Params* p, Params* v) {
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

TEST(TrainingTest, MlpWithMomentumMatchesTrainingByHand) {
  NetDef net;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    name: "mlp" external_input: "x" external_input: "y" external_output: "loss"
    op { type: "Gemm" input: "x" input: "W1" input: "b1" output: "a1" }
    op { type: "Relu" input: "a1" output: "h" }
    op { type: "Gemm" input: "h" input: "W2" input: "b2" output: "logits" }
    op { type: "SoftmaxCrossEntropyLoss" input: "logits" input: "y" output: "loss" }
  )pb", &net));
  auto random = [](int n, uint32_t seed) { return Values(testing::RandomTensor(DataType::kFloat64, {n}, seed, -0.5, 0.5)); };
  Params p{random(kI * kH, 1), random(kH, 2), random(kH * kC, 3), random(kC, 4)};
  AddInit(&net, "W1", {kI, kH}, p.w1);
  AddInit(&net, "b1", {kH}, p.b1);
  AddInit(&net, "W2", {kH, kC}, p.w2);
  AddInit(&net, "b2", {kC}, p.b2);
  auto backward = AddBackward(*testing::CpuRegistry(), {"loss"}, {}, &net);
  ASSERT_TRUE(backward.ok()) << backward.status();
  EXPECT_EQ(backward->gradients.size(), 4u);
  OptimizerOptions opt;
  Argument alpha;
  alpha.set_name("alpha");
  alpha.set_f(static_cast<float>(kMomentum));
  opt.attributes = {alpha};
  ASSERT_TRUE(AddOptimizer(*backward, opt, &net).ok());

  Workspace ws;
  const Matrix x = random(kN * kI, 5);
  const std::vector<int64_t> y = {0, 1, 2, 1, 0, 2, 2, 1};
  ws.SetBlob("x", Tensor::FromVector<double>({kN, kI}, x));
  ws.SetBlob("y", Tensor::FromVector<int64_t>({kN}, y));
  ws.SetBlob("learning_rate", Tensor::FromVector<float>({}, {static_cast<float>(kRate)}));
  auto n = Net::Create(net, &ws, testing::CpuRegistry());
  ASSERT_TRUE(n.ok()) << n.status();
  Params v{Matrix(kI * kH, 0), Matrix(kH, 0), Matrix(kH * kC, 0), Matrix(kC, 0)};
  double first = 0, last = 0;
  for (int step = 0; step < kSteps; ++step) {
    ws.SetBlob("step", Tensor::FromVector<int64_t>({}, {step}));
    ASSERT_TRUE((*n)->Run().ok()) << (*n)->Run();
    const double expected_loss = HandStep(x, y, &p, &v);
    ASSERT_NEAR(ws.GetBlob("loss")->data<double>()[0], expected_loss, 1e-9) << "step " << step;
    (step == 0 ? first : last) = expected_loss;
  }
  EXPECT_LT(last, first * 0.8) << "the loss should fall";
  auto close = [](const Matrix& a, const Matrix& b, const char* what) {
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-9) << what << "[" << i << "]";
  };
  close(Values(*ws.GetBlob("W1")), p.w1, "W1");
  close(Values(*ws.GetBlob("b1")), p.b1, "b1");
  close(Values(*ws.GetBlob("W2")), p.w2, "W2");
  close(Values(*ws.GetBlob("b2")), p.b2, "b2");
}

}  // namespace
}  // namespace loom
