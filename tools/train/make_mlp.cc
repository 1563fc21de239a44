// make_mlp: writes a trainable MLP as a Loom NetDef, the model loom_train's
// README example trains. Inputs x [N, sizes[0]] float32 and y [N] int64
// (class indices); per layer Gemm(h, W [in, out], b [out]) and Relu (not
// after the last); outputs logits [N, sizes.back()] and loss, the mean
// SoftmaxCrossEntropyLoss. Weights and biases start uniform in
// [-1/sqrt(in), 1/sqrt(in)] (PyTorch nn.Linear's default), from --seed.
//
//   make_mlp --sizes 64,64,10 --out mlp.pb [--seed 1]
#include <cmath>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "core/proto_io.h"

ABSL_FLAG(std::vector<std::string>, sizes, (std::vector<std::string>{"64", "64", "10"}),
          "Layer widths, input first, classes last.");
ABSL_FLAG(std::string, out, "", "Where to write the NetDef (.pb binary, .pbtxt text).");
ABSL_FLAG(int, seed, 1, "Seed of the initial weights.");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  std::vector<int64_t> sizes;
  for (const std::string& s : absl::GetFlag(FLAGS_sizes)) sizes.push_back(std::stoll(s));
  if (sizes.size() < 2 || absl::GetFlag(FLAGS_out).empty()) {
    std::cerr << "make_mlp: need --sizes with at least two widths and --out\n";
    return 2;
  }
  loom::NetDef net;
  net.set_name("mlp");
  net.add_external_input("x");
  net.add_external_input("y");
  std::mt19937 rng(static_cast<uint32_t>(absl::GetFlag(FLAGS_seed)));
  std::string h = "x";
  for (size_t l = 0; l + 1 < sizes.size(); ++l) {
    const int64_t in = sizes[l], out = sizes[l + 1];
    std::uniform_real_distribution<float> u(-1.0f / std::sqrt(static_cast<float>(in)), 1.0f / std::sqrt(static_cast<float>(in)));
    const std::string w = absl::StrCat("W", l), b = absl::StrCat("b", l);
    for (const auto& [name, dims] : std::vector<std::pair<std::string, std::vector<int64_t>>>{{w, {in, out}}, {b, {out}}}) {
      loom::TensorProto* t = net.add_initializer();
      t->set_name(name);
      t->set_data_type(1);  // float32
      int64_t n = 1;
      for (int64_t d : dims) {
        t->add_dims(d);
        n *= d;
      }
      for (int64_t i = 0; i < n; ++i) t->add_float_data(u(rng));
    }
    const bool last = l + 2 == sizes.size();
    const std::string a = last ? "logits" : absl::StrCat("a", l);
    loom::OperatorDef* gemm = net.add_op();
    gemm->set_type("Gemm");
    gemm->add_input(h);
    gemm->add_input(w);
    gemm->add_input(b);
    gemm->add_output(a);
    h = a;
    if (!last) {
      loom::OperatorDef* relu = net.add_op();
      relu->set_type("Relu");
      relu->add_input(a);
      h = absl::StrCat("h", l);
      relu->add_output(h);
    }
  }
  loom::OperatorDef* loss = net.add_op();
  loss->set_type("SoftmaxCrossEntropyLoss");
  loss->add_input("logits");
  loss->add_input("y");
  loss->add_output("loss");
  net.add_external_output("loss");
  net.add_external_output("logits");
  absl::Status s = loom::WriteNetDef(net, absl::GetFlag(FLAGS_out));
  if (!s.ok()) {
    std::cerr << "make_mlp: " << s << "\n";
    return 1;
  }
  std::cout << "make_mlp: wrote " << absl::GetFlag(FLAGS_out) << "\n";
  return 0;
}
