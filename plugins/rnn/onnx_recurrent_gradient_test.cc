// The gradients of ONNX LSTM, GRU and RNN (onnx_recurrent_gradient.cc,
// through the step nets) against central finite differences in float64:
// directions, layouts, sequence_lens shorter than T, initial states,
// peepholes, clip, input_forget, linear_before_reset and non-default
// activations; the graph the gradient differentiates
// (onnx_recurrent_graph.h), run forward in float64 by engine STEPNET,
// against the CPU plugin's naive float64 reference and the float32
// kernels; and float32 training nets against float64 ones.
#include <algorithm>
#include <map>
#include <memory>
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

constexpr int kT = 4, kN = 3, kI = 2, kH = 3;

Registry* RnnRegistry() { return testing::CpuRegistryWith("plugins/rnn/libloom_rnn.so"); }

struct Config {
  std::string cell = "LSTM";
  std::string direction = "forward";
  int layout = 0;
  bool bias = true, lens = false, initial = true, peepholes = false, input_forget = false;
  float clip = 0;  // 0: none
  int linear_before_reset = 0;
  std::vector<std::string> activations;  // empty: ONNX's defaults
  std::vector<float> alphas, betas;
  bool all_outputs = true;  // else Y_h only

  std::string Name() const {
    return absl::StrCat(cell, " ", direction, " layout ", layout, bias ? "" : " no B", lens ? " sequence_lens" : "",
                        initial ? "" : " no initial states", peepholes ? " P" : "", input_forget ? " input_forget" : "",
                        clip > 0 ? " clip" : "", linear_before_reset ? " linear_before_reset" : "",
                        activations.empty() ? "" : " " + activations.front() + "...", all_outputs ? "" : " Y_h only");
  }
};

struct Case {
  OperatorDef op;
  std::vector<Tensor> inputs;  // in op.input order; float64
};

Tensor D(Shape dims, uint32_t seed, double lo = -0.7, double hi = 0.7) {
  return testing::RandomTensor(DataType::kFloat64, std::move(dims), seed, lo, hi);
}

Case Make(const Config& c) {
  const int G = c.cell == "LSTM" ? 4 : c.cell == "GRU" ? 3 : 1;
  const int64_t Dn = c.direction == "bidirectional" ? 2 : 1;
  const bool lstm = c.cell == "LSTM";
  Case k;
  k.op.set_type(c.cell);
  k.op.set_name("rnn");
  auto arg_i = [&](const std::string& n, int64_t v) { Argument* a = k.op.add_arg(); a->set_name(n); a->set_i(v); };
  arg_i("hidden_size", kH);
  arg_i("layout", c.layout);
  Argument* dir = k.op.add_arg();
  dir->set_name("direction");
  dir->set_s(c.direction);
  if (c.clip > 0) {
    Argument* a = k.op.add_arg();
    a->set_name("clip");
    a->set_f(c.clip);
  }
  if (c.input_forget) arg_i("input_forget", 1);
  if (c.linear_before_reset) arg_i("linear_before_reset", 1);
  if (!c.activations.empty()) {
    Argument* a = k.op.add_arg();
    a->set_name("activations");
    for (const std::string& s : c.activations) a->add_strings(s);
  }
  auto floats = [&](const std::string& n, const std::vector<float>& v) {
    if (v.empty()) return;
    Argument* a = k.op.add_arg();
    a->set_name(n);
    for (float f : v) a->add_floats(f);
  };
  floats("activation_alpha", c.alphas);
  floats("activation_beta", c.betas);
  auto input = [&](const std::string& name, Tensor t) {
    k.op.add_input(name);
    k.inputs.push_back(std::move(t));
  };
  input("X", D(c.layout ? Shape{kN, kT, kI} : Shape{kT, kN, kI}, 1, -1, 1));
  input("W", D({Dn, G * kH, kI}, 2));
  input("R", D({Dn, G * kH, kH}, 3));
  input(c.bias ? "B" : "", c.bias ? D({Dn, 2 * G * kH}, 4, -0.3, 0.3) : Tensor());
  input(c.lens ? "L" : "", c.lens ? Tensor::FromVector<int32_t>({kN}, {kT, 2, 3}) : Tensor());
  const Shape state = c.layout ? Shape{kN, Dn, kH} : Shape{Dn, kN, kH};
  input(c.initial ? "h0" : "", c.initial ? D(state, 5) : Tensor());
  if (lstm) input(c.initial ? "c0" : "", c.initial ? D(state, 6) : Tensor());
  if (lstm && c.peepholes) input("P", D({Dn, 3 * kH}, 7));
  // Trailing absent inputs go.
  while (k.op.input_size() > 0 && k.op.input(k.op.input_size() - 1).empty()) {
    k.op.mutable_input()->RemoveLast();
    k.inputs.pop_back();
  }
  k.op.add_output(c.all_outputs ? "Y" : "");
  k.op.add_output("Y_h");
  if (lstm && c.all_outputs) k.op.add_output("Y_c");
  return k;
}

std::vector<Config> Configs() {
  std::vector<Config> out;
  for (const char* cell : {"LSTM", "GRU", "RNN"}) {
    Config c;
    c.cell = cell;
    out.push_back(c);  // the defaults: LSTM and GRU fused
    Config bi = c;
    bi.direction = "bidirectional";
    bi.lens = true;
    out.push_back(bi);
    Config rev = c;
    rev.direction = "reverse";
    rev.layout = 1;
    rev.lens = true;
    rev.initial = false;
    rev.bias = false;
    out.push_back(rev);
    Config last = bi;
    last.all_outputs = false;
    out.push_back(last);
  }
  Config lstm;  // the standard-op cell: peepholes, clip, input_forget, other activations
  lstm.peepholes = true;
  lstm.clip = 2.5f;
  lstm.input_forget = true;
  lstm.lens = true;
  lstm.direction = "bidirectional";
  lstm.activations = {"HardSigmoid", "Softsign", "Affine", "Sigmoid", "ScaledTanh", "Elu"};
  lstm.alphas = {0.3f, 0.7f, 1.2f, 0.9f};
  lstm.betas = {0.4f, 0.1f, 0.8f};
  out.push_back(lstm);
  Config gru;
  gru.cell = "GRU";
  gru.linear_before_reset = 1;
  gru.lens = true;
  gru.clip = 3.0f;
  gru.activations = {"Sigmoid", "LeakyRelu"};
  gru.alphas = {0.1f};
  out.push_back(gru);
  Config gru_lbr = gru;
  gru_lbr.clip = 0;
  gru_lbr.activations.clear();
  gru_lbr.alphas.clear();
  out.push_back(gru_lbr);  // fused with linear_before_reset
  Config rnn;
  rnn.cell = "RNN";
  rnn.lens = true;
  rnn.activations = {"ThresholdedRelu"};
  rnn.alphas = {0.05f};
  out.push_back(rnn);
  Config rnn2 = rnn;
  rnn2.activations = {"Softplus"};
  rnn2.alphas.clear();
  rnn2.layout = 1;
  out.push_back(rnn2);
  return out;
}

TEST(OnnxRecurrentGradient, MatchesFiniteDifferences) {
  Registry* r = RnnRegistry();
  for (const Config& c : Configs()) {
    Case k = Make(c);
    EXPECT_TRUE(testing::CheckGradient(k.op, k.inputs, r)) << c.Name();
  }
}

// The float64 graph (engine STEPNET in float64) computes what the CPU
// plugin's naive float64 reference computes (the engine the
// finite-difference checks run forward on), and the float32 kernels agree
// with both to float32 precision.
TEST(OnnxRecurrentGradient, Float64GraphMatchesTheOtherKernels) {
  Registry* r = RnnRegistry();
  auto worst_diff = [](const Tensor& a, const Tensor& b) {
    double worst = 0;
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      const double y = b.dtype() == DataType::kFloat32 ? static_cast<double>(b.data<float>()[i]) : b.data<double>()[i];
      worst = std::max(worst, std::abs(a.data<double>()[i] - y));
    }
    return worst;
  };
  for (const Config& c : Configs()) {
    Case k = Make(c);
    OperatorDef graph_op = k.op;
    graph_op.set_engine("STEPNET");
    absl::StatusOr<std::vector<Tensor>> graph = testing::RunSingleOp(graph_op, k.inputs, r);
    ASSERT_TRUE(graph.ok()) << c.Name() << ": " << graph.status();
    std::vector<Tensor> in32;
    for (const Tensor& t : k.inputs) {
      if (t.dtype() != DataType::kFloat64) {
        in32.push_back(*t.Clone());
        continue;
      }
      Tensor f = Tensor::Zeros(DataType::kFloat32, t.dims());
      for (int64_t i = 0; i < t.num_elements(); ++i) f.data<float>()[i] = static_cast<float>(t.data<double>()[i]);
      in32.push_back(std::move(f));
    }
    struct Run {
      const char* what;
      const std::vector<Tensor>* inputs;
      const char* engine;
      double tolerance;
    };
    for (const Run& run : {Run{"float64 reference", &k.inputs, "", 1e-12}, Run{"float32 STEPNET", &in32, "STEPNET", 2e-6},
                           Run{"float32 default engine", &in32, "", 2e-6}}) {
      OperatorDef op = k.op;
      op.set_engine(run.engine);
      absl::StatusOr<std::vector<Tensor>> other = testing::RunSingleOp(op, *run.inputs, r);
      ASSERT_TRUE(other.ok()) << c.Name() << " " << run.what << ": " << other.status();
      for (size_t o = 0; o < graph->size(); ++o) {
        if (op.output(o).empty()) continue;
        ASSERT_EQ((*graph)[o].dims(), (*other)[o].dims()) << c.Name() << " " << run.what << " output " << o;
        EXPECT_LT(worst_diff((*graph)[o], (*other)[o]), run.tolerance) << c.Name() << " " << run.what << " output " << o;
      }
    }
  }
}

// Training in float32: the forward op runs on its fastest kernel (oneDNN's
// where it applies) and the gradient through the step nets; the gradients
// equal the float64 ones to float32 precision.
TEST(OnnxRecurrentGradient, Float32TrainingNetMatchesFloat64) {
  Registry* r = RnnRegistry();
  for (const Config& c : Configs()) {
    Case k = Make(c);
    std::map<DataType, std::map<std::string, Tensor>> grads;
    for (DataType dt : {DataType::kFloat64, DataType::kFloat32}) {
      NetDef net;
      *net.add_op() = k.op;
      Workspace ws;
      BackwardOptions bo;
      for (int i = 0; i < k.op.input_size(); ++i) {
        const std::string& name = k.op.input(i);
        if (name.empty()) continue;
        net.add_external_input(name);
        const Tensor& t = k.inputs[i];
        if (t.dtype() != DataType::kFloat64) {
          ws.SetBlob(name, *t.Clone());
          continue;
        }
        bo.wrt.push_back(name);
        Tensor v = Tensor::Zeros(dt, t.dims());
        for (int64_t e = 0; e < t.num_elements(); ++e) {
          if (dt == DataType::kFloat32) v.data<float>()[e] = static_cast<float>(t.data<double>()[e]);
          else v.data<double>()[e] = t.data<double>()[e];
        }
        ws.SetBlob(name, std::move(v));
      }
      // loss = sum(Y_h) + sum(Y) (the outputs the op has).
      OperatorDef* sum = net.add_op();
      sum->set_type("ReduceSum");
      sum->add_input("Y_h");
      sum->add_output("loss_h");
      Argument* keep = sum->add_arg();
      keep->set_name("keepdims");
      keep->set_i(0);
      std::vector<std::string> losses = {"loss_h"};
      if (c.all_outputs) {
        OperatorDef* sy = net.add_op();
        *sy = *sum;
        sy->set_input(0, "Y");
        sy->set_output(0, "loss_y");
        losses.push_back("loss_y");
      }
      absl::StatusOr<BackwardResult> b = AddBackward(*r, losses, bo, &net);
      ASSERT_TRUE(b.ok()) << c.Name() << ": " << b.status();
      absl::StatusOr<std::unique_ptr<Net>> n = Net::Create(net, &ws, r, NetOptions());
      ASSERT_TRUE(n.ok()) << c.Name() << ": " << n.status();
      ASSERT_TRUE((*n)->Run().ok()) << c.Name();
      for (const auto& [x, g] : b->gradients) grads[dt][x] = *ws.GetBlob(g)->Clone();
    }
    ASSERT_EQ(grads[DataType::kFloat32].size(), grads[DataType::kFloat64].size()) << c.Name();
    for (const auto& [x, g64] : grads[DataType::kFloat64]) {
      const Tensor& g32 = grads[DataType::kFloat32].at(x);
      ASSERT_EQ(g32.dims(), g64.dims()) << c.Name() << " " << x;
      double worst = 0;
      for (int64_t e = 0; e < g64.num_elements(); ++e) {
        const double a = g64.data<double>()[e];
        worst = std::max(worst, std::abs(a - static_cast<double>(g32.data<float>()[e])) / std::max(1.0, std::abs(a)));
      }
      EXPECT_LT(worst, 1e-5) << c.Name() << " gradient of " << x;
    }
  }
}

}  // namespace
}  // namespace loom
