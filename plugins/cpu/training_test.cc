// The optimizers (ONNX ai.onnx.preview.training Adagrad, Momentum, Adam)
// against the ONNX formulas evaluated here in double, several tensors at
// once, and updating a parameter in place in a net (outputs named like
// the inputs), as a training net does. The ONNX conformance suite checks
// them against ONNX's own expected data too (test_adagrad, test_momentum,
// test_nesterov_momentum, test_adam, ...).
#include <cmath>
#include <string>

#include "core/net.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"
#include "google/protobuf/text_format.h"

namespace loom {
namespace {

using testing::AllClose;
using testing::CpuRegistry;
using testing::ParseOp;
using testing::RunSingleOp;

Tensor Scalar(double r) { return Tensor::FromVector<double>({}, {r}); }
Tensor Step(int64_t t) { return Tensor::FromVector<int64_t>({}, {t}); }

TEST(OptimizerTest, MomentumStandardAndNesterovTwoTensors) {
  for (const char* mode : {"standard", "nesterov"}) {
    const OperatorDef op = ParseOp(std::string(R"(type: "Momentum" domain: "ai.onnx.preview.training"
        input: "R" input: "T" input: "X1" input: "X2" input: "G1" input: "G2" input: "V1" input: "V2"
        output: "X1n" output: "X2n" output: "V1n" output: "V2n"
        arg { name: "alpha" f: 0.9 } arg { name: "beta" f: 0.5 } arg { name: "norm_coefficient" f: 0.01 }
        arg { name: "mode" s: ")") + mode + "\" }");
    const std::vector<double> x1 = {1, -2}, x2 = {0.5}, g1 = {0.1, 0.2}, g2 = {-0.3}, v1 = {0.01, 0.02}, v2 = {0.5};
    auto out = RunSingleOp(op, {Scalar(0.1), Step(3), Tensor::FromVector<double>({2}, x1), Tensor::FromVector<double>({1}, x2),
                                Tensor::FromVector<double>({2}, g1), Tensor::FromVector<double>({1}, g2),
                                Tensor::FromVector<double>({2}, v1), Tensor::FromVector<double>({1}, v2)}, CpuRegistry());
    ASSERT_TRUE(out.ok()) << out.status();
    auto expect = [&](double x, double g, double v, double* xn, double* vn) {
      const double gr = 0.01 * x + g;
      *vn = 0.9 * v + 0.5 * gr;  // T > 0: beta applies
      *xn = std::string(mode) == "standard" ? x - 0.1 * *vn : x - 0.1 * (gr + 0.9 * *vn);
    };
    double xn, vn;
    for (int i = 0; i < 2; ++i) {
      expect(x1[i], g1[i], v1[i], &xn, &vn);
      EXPECT_NEAR((*out)[0].data<double>()[i], xn, 1e-7) << mode;  // float attributes
      EXPECT_NEAR((*out)[2].data<double>()[i], vn, 1e-7) << mode;  // float attributes
    }
    expect(x2[0], g2[0], v2[0], &xn, &vn);
    EXPECT_NEAR((*out)[1].data<double>()[0], xn, 1e-7) << mode;  // float attributes
    EXPECT_NEAR((*out)[3].data<double>()[0], vn, 1e-7) << mode;  // float attributes
  }
}

TEST(OptimizerTest, AdamAndAdagradFormulas) {
  const OperatorDef adam = ParseOp(R"(type: "Adam" input: "R" input: "T" input: "X" input: "G" input: "V" input: "H"
      output: "Xn" output: "Vn" output: "Hn" arg { name: "alpha" f: 0.8 } arg { name: "beta" f: 0.9 }
      arg { name: "epsilon" f: 0.001 } arg { name: "norm_coefficient" f: 0.1 } arg { name: "norm_coefficient_post" f: 0.01 })");
  auto a = RunSingleOp(adam, {Scalar(0.05), Step(2), Tensor::FromVector<double>({1}, {2.0}), Tensor::FromVector<double>({1}, {-1.0}),
                              Tensor::FromVector<double>({1}, {0.5}), Tensor::FromVector<double>({1}, {0.25})}, CpuRegistry());
  ASSERT_TRUE(a.ok()) << a.status();
  const double g = 0.1 * 2 - 1, v = 0.8 * 0.5 + 0.2 * g, h = 0.9 * 0.25 + 0.1 * g * g;
  const double r = 0.05 * std::sqrt(1 - std::pow(0.9, 2)) / (1 - std::pow(0.8, 2));
  EXPECT_NEAR((*a)[0].data<double>()[0], 0.99 * (2 - r * v / (std::sqrt(h) + 0.001)), 1e-7);
  EXPECT_NEAR((*a)[1].data<double>()[0], v, 1e-7);
  EXPECT_NEAR((*a)[2].data<double>()[0], h, 1e-7);

  const OperatorDef adagrad = ParseOp(R"(type: "Adagrad" input: "R" input: "T" input: "X" input: "G" input: "H"
      output: "Xn" output: "Hn" arg { name: "decay_factor" f: 0.5 } arg { name: "epsilon" f: 0.001 })");
  auto d = RunSingleOp(adagrad, {Scalar(0.1), Step(4), Tensor::FromVector<double>({1}, {1.0}), Tensor::FromVector<double>({1}, {0.5}),
                                 Tensor::FromVector<double>({1}, {2.0})}, CpuRegistry());
  ASSERT_TRUE(d.ok()) << d.status();
  const double hn = 2 + 0.25, rn = 0.1 / (1 + 4 * 0.5);
  EXPECT_NEAR((*d)[0].data<double>()[0], 1 - rn * 0.5 / (std::sqrt(hn) + 0.001), 1e-7);
  EXPECT_NEAR((*d)[1].data<double>()[0], hn, 1e-7);
}

// W and V updated in place (Caffe2 style): three steps equal three steps
// through separate blobs.
TEST(OptimizerTest, UpdatesInPlaceInANet) {
  NetDef net;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    name: "step" external_input: "R" external_input: "T" external_input: "G" external_output: "W"
    op { type: "Momentum" input: "R" input: "T" input: "W" input: "G" input: "V" output: "W" output: "V"
         arg { name: "alpha" f: 0.9 } arg { name: "beta" f: 1 } arg { name: "norm_coefficient" f: 0 }
         arg { name: "mode" s: "standard" } }
  )pb", &net));
  Workspace ws;
  ws.SetBlob("R", Tensor::FromVector<float>({}, {0.1f}));
  ws.SetBlob("T", Step(1));
  ws.SetBlob("W", Tensor::FromVector<float>({2}, {1, 2}));
  ws.SetBlob("V", Tensor::FromVector<float>({2}, {0, 0}));
  ws.SetBlob("G", Tensor::FromVector<float>({2}, {1, -1}));
  auto n = Net::Create(net, &ws, CpuRegistry());
  ASSERT_TRUE(n.ok()) << n.status();
  double w[2] = {1, 2}, v[2] = {0, 0}, g[2] = {1, -1};
  for (int step = 0; step < 3; ++step) {
    ASSERT_TRUE((*n)->Run().ok()) << (*n)->Run();
    for (int i = 0; i < 2; ++i) {
      v[i] = 0.9 * v[i] + g[i];
      w[i] -= 0.1 * v[i];
    }
  }
  EXPECT_TRUE(AllClose(*ws.GetBlob("W"), Tensor::FromVector<float>({2}, {static_cast<float>(w[0]), static_cast<float>(w[1])}),
                       1e-6, 1e-6));
  EXPECT_TRUE(AllClose(*ws.GetBlob("V"), Tensor::FromVector<float>({2}, {static_cast<float>(v[0]), static_cast<float>(v[1])}),
                       1e-6, 1e-6));
}

}  // namespace
}  // namespace loom
