// Writes the default model that loom_run runs with no arguments: a small
// image classifier (Conv-BatchNormalization-Relu-MaxPool, Conv-Relu,
// GlobalAveragePool, Flatten, Gemm, Softmax) on float32 [1, 3, 32, 32] NCHW,
// with deterministic He-initialized weights (so it is checkable, not
// trained): output "prob" is float32 [1, 10] and sums to 1.
//
//   make_default_model OUT.pb
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "core/proto/loom.pb.h"
#include "core/proto_io.h"

namespace {

uint32_t g_state = 20261130u;
float Uniform() {  // [-1, 1)
  g_state = g_state * 1664525u + 1013904223u;
  return static_cast<float>((g_state >> 8) * (1.0 / 16777216.0) * 2.0 - 1.0);
}

loom::TensorProto Weights(const std::string& name, std::vector<int64_t> dims, float scale, float offset = 0) {
  loom::TensorProto t;
  t.set_name(name);
  t.set_data_type(1);
  int64_t n = 1;
  for (int64_t d : dims) {
    t.add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t.add_float_data(offset + scale * Uniform());
  return t;
}

loom::OperatorDef* Op(loom::NetDef* net, const std::string& type, const std::string& name,
                      std::vector<std::string> in, std::vector<std::string> out) {
  loom::OperatorDef* op = net->add_op();
  op->set_type(type);
  op->set_name(name);
  for (auto& i : in) op->add_input(i);
  for (auto& o : out) op->add_output(o);
  return op;
}

void Ints(loom::OperatorDef* op, const std::string& name, std::vector<int64_t> v) {
  loom::Argument* a = op->add_arg();
  a->set_name(name);
  for (int64_t x : v) a->add_ints(x);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_default_model OUT.pb\n";
    return 2;
  }
  loom::NetDef net;
  net.set_name("default_cnn");
  net.add_external_input("image");
  net.add_external_output("prob");
  loom::Argument* shape = net.add_arg();
  shape->set_name("input_shape.image");
  for (int64_t d : {1, 3, 32, 32}) shape->add_ints(d);

  *net.add_initializer() = Weights("conv1_w", {16, 3, 3, 3}, std::sqrt(6.0f / 27));
  *net.add_initializer() = Weights("conv1_b", {16}, 0.1f);
  *net.add_initializer() = Weights("bn1_scale", {16}, 0.2f, 1.0f);
  *net.add_initializer() = Weights("bn1_bias", {16}, 0.1f);
  *net.add_initializer() = Weights("bn1_mean", {16}, 0.1f);
  *net.add_initializer() = Weights("bn1_var", {16}, 0.2f, 1.0f);
  *net.add_initializer() = Weights("conv2_w", {32, 16, 3, 3}, std::sqrt(6.0f / 144));
  *net.add_initializer() = Weights("conv2_b", {32}, 0.1f);
  *net.add_initializer() = Weights("fc_w", {10, 32}, std::sqrt(6.0f / 32));
  *net.add_initializer() = Weights("fc_b", {10}, 0.1f);

  auto* c1 = Op(&net, "Conv", "conv1", {"image", "conv1_w", "conv1_b"}, {"c1"});
  Ints(c1, "kernel_shape", {3, 3});
  Ints(c1, "pads", {1, 1, 1, 1});
  Op(&net, "BatchNormalization", "bn1", {"c1", "bn1_scale", "bn1_bias", "bn1_mean", "bn1_var"}, {"b1"});
  Op(&net, "Relu", "relu1", {"b1"}, {"r1"});
  auto* p1 = Op(&net, "MaxPool", "pool1", {"r1"}, {"p1"});
  Ints(p1, "kernel_shape", {2, 2});
  Ints(p1, "strides", {2, 2});
  auto* c2 = Op(&net, "Conv", "conv2", {"p1", "conv2_w", "conv2_b"}, {"c2"});
  Ints(c2, "kernel_shape", {3, 3});
  Ints(c2, "pads", {1, 1, 1, 1});
  Op(&net, "Relu", "relu2", {"c2"}, {"r2"});
  Op(&net, "GlobalAveragePool", "gap", {"r2"}, {"g"});
  Op(&net, "Flatten", "flatten", {"g"}, {"f"});
  auto* fc = Op(&net, "Gemm", "fc", {"f", "fc_w", "fc_b"}, {"logits"});
  loom::Argument* tb = fc->add_arg();
  tb->set_name("transB");
  tb->set_i(1);
  Op(&net, "Softmax", "softmax", {"logits"}, {"prob"});

  absl::Status s = loom::WriteNetDef(net, argv[1]);
  if (!s.ok()) {
    std::cerr << s << "\n";
    return 1;
  }
  return 0;
}
