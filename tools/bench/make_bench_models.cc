// Writes the side-by-side benchmark's ONNX models and inputs (see
// tools/bench/bench.sh and BENCHMARKS.md) into OUT_DIR:
//   mlp.onnx          4 Gemm layers of 1024 (Relu between), X [64, 1024]
//   lstm4.onnx        4 stacked ONNX LSTM nodes, hidden 512, X [50, 32, 512]
//   resnet18.onnx     ResNet-18's layer shapes (Conv with bias + Relu,
//                     residual Add, no BatchNormalization), X [1, 3, 224, 224]
//   resnet18_b8.onnx  the same layers and weights at batch 8, X [8, 3, 224, 224]
//   mobilenet.onnx    depthwise-separable conv net (MobileNet-v1 shapes), X [1, 3, 224, 224]
// For each model M: M.X.pb (Loom TensorProto, for loom_run) and M.X.bin
// (raw little-endian float32, for ONNX Runtime), the same values.
// Weights are deterministic (fixed-seed LCG, He-scaled), not trained.
//
//   make_bench_models OUT_DIR
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "core/tensor.h"
#include "onnx/onnx_pb.h"

namespace {

uint32_t g_state = 12345u;
float Uniform() {
  g_state = g_state * 1664525u + 1013904223u;
  return static_cast<float>((g_state >> 8) * (1.0 / 16777216.0) * 2.0 - 1.0);
}

struct Builder {
  onnx::ModelProto model;
  onnx::GraphProto* g;
  int counter = 0;

  explicit Builder(const std::string& name) {
    model.set_ir_version(8);
    model.set_producer_name("loom make_bench_models");
    auto* op = model.add_opset_import();
    op->set_domain("");
    op->set_version(14);
    g = model.mutable_graph();
    g->set_name(name);
  }
  std::string Name(const std::string& p) { return p + std::to_string(counter++); }
  std::string Weight(const std::string& p, std::vector<int64_t> dims, float scale) {
    onnx::TensorProto* t = g->add_initializer();
    std::string name = Name(p);
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      n *= d;
    }
    std::string raw(static_cast<size_t>(n) * 4, '\0');
    for (int64_t i = 0; i < n; ++i) {
      float v = scale * Uniform();
      std::memcpy(&raw[static_cast<size_t>(i) * 4], &v, 4);
    }
    t->set_raw_data(raw);
    return name;
  }
  std::string Ints(const std::string& p, std::vector<int64_t> v) {
    onnx::TensorProto* t = g->add_initializer();
    std::string name = Name(p);
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v) t->add_int64_data(x);
    return name;
  }
  onnx::NodeProto* Node(const std::string& type, std::vector<std::string> in, std::vector<std::string> out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(type);
    n->set_name(Name(type));
    for (auto& i : in) n->add_input(i);
    for (auto& o : out) n->add_output(o);
    return n;
  }
  std::string Op(const std::string& type, std::vector<std::string> in) {
    std::string out = Name(type + "_out");
    Node(type, std::move(in), {out});
    return out;
  }
  static void IntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void IntsAttr(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  void Io(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  std::string Conv(const std::string& x, int64_t cin, int64_t cout, int64_t k, int64_t stride, int64_t group, bool relu) {
    std::string w = Weight("W", {cout, cin / group, k, k}, std::sqrt(6.0f / (cin / group * k * k)));
    std::string b = Weight("B", {cout}, 0.05f);
    std::string out = Name("conv");
    onnx::NodeProto* n = Node("Conv", {x, w, b}, {out});
    IntsAttr(n, "kernel_shape", {k, k});
    IntsAttr(n, "strides", {stride, stride});
    IntsAttr(n, "pads", {k / 2, k / 2, k / 2, k / 2});
    IntAttr(n, "group", group);
    return relu ? Op("Relu", {out}) : out;
  }
};

bool Write(const Builder& b, const std::string& dir, const std::vector<int64_t>& in_dims) {
  {
    std::ofstream out(dir + "/" + b.g->name() + ".onnx", std::ios::binary);
    if (!b.model.SerializeToOstream(&out)) return false;
  }
  loom::Tensor x = loom::Tensor::Zeros(loom::DataType::kFloat32, in_dims);
  for (int64_t i = 0; i < x.num_elements(); ++i) x.data<float>()[i] = Uniform();
  std::ofstream raw(dir + "/" + b.g->name() + ".X.bin", std::ios::binary);
  raw.write(static_cast<const char*>(x.raw_data()), static_cast<std::streamsize>(x.nbytes()));
  return raw && loom::WriteTensorProto(loom::TensorToProto(x, "X"), dir + "/" + b.g->name() + ".X.pb").ok();
}

// ResNet-18's layer shapes at batch N, written as NAME.onnx (+ inputs).
bool ResNet18(const std::string& dir, const std::string& name, int64_t n) {
  Builder b(name);
  std::string x = b.Conv("X", 3, 64, 7, 2, 1, true);
  std::string p = b.Name("pool");
  onnx::NodeProto* mp = b.Node("MaxPool", {x}, {p});
  Builder::IntsAttr(mp, "kernel_shape", {3, 3});
  Builder::IntsAttr(mp, "strides", {2, 2});
  Builder::IntsAttr(mp, "pads", {1, 1, 1, 1});
  x = p;
  int64_t c = 64;
  for (int64_t stage = 0; stage < 4; ++stage) {
    int64_t cout = 64 << stage;
    for (int block = 0; block < 2; ++block) {
      int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
      std::string y = b.Conv(x, c, cout, 3, stride, 1, true);
      y = b.Conv(y, cout, cout, 3, 1, 1, false);
      std::string shortcut = (stride != 1 || c != cout) ? b.Conv(x, c, cout, 1, stride, 1, false) : x;
      x = b.Op("Relu", {b.Op("Add", {y, shortcut})});
      c = cout;
    }
  }
  std::string gap = b.Op("GlobalAveragePool", {x});
  std::string flat = b.Op("Flatten", {gap});
  std::string w = b.Weight("W", {1000, 512}, std::sqrt(6.0f / 512)), bias = b.Weight("B", {1000}, 0.05f);
  onnx::NodeProto* fc = b.Node("Gemm", {flat, w, bias}, {"Y"});
  Builder::IntAttr(fc, "transB", 1);
  b.Io(b.g->add_input(), "X", {n, 3, 224, 224});
  b.Io(b.g->add_output(), "Y", {n, 1000});
  return Write(b, dir, {n, 3, 224, 224});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_bench_models OUT_DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = true;
  {
    Builder b("mlp");
    std::string h = "X";
    for (int l = 0; l < 4; ++l) {
      std::string w = b.Weight("W", {1024, 1024}, std::sqrt(6.0f / 1024)), bias = b.Weight("B", {1024}, 0.05f);
      std::string out = l == 3 ? "Y" : b.Name("fc");
      onnx::NodeProto* n = b.Node("Gemm", {h, w, bias}, {out});
      Builder::IntAttr(n, "transB", 1);
      h = l == 3 ? out : b.Op("Relu", {out});
    }
    b.Io(b.g->add_input(), "X", {64, 1024});
    b.Io(b.g->add_output(), "Y", {64, 1024});
    ok = ok && Write(b, dir, {64, 1024});
  }
  {
    Builder b("lstm4");
    const int64_t T = 50, N = 32, H = 512;
    std::string h = "X";
    for (int l = 0; l < 4; ++l) {
      std::string w = b.Weight("W", {1, 4 * H, H}, 0.05f), r = b.Weight("R", {1, 4 * H, H}, 0.05f),
                  bias = b.Weight("B", {1, 8 * H}, 0.05f);
      std::string y = b.Name("y");
      onnx::NodeProto* n = b.Node("LSTM", {h, w, r, bias}, {y});
      Builder::IntAttr(n, "hidden_size", H);
      std::string out = l == 3 ? "Y" : b.Name("seq");
      b.Node("Squeeze", {y, b.Ints("axes", {1})}, {out});
      h = out;
    }
    b.Io(b.g->add_input(), "X", {T, N, H});
    b.Io(b.g->add_output(), "Y", {T, N, H});
    ok = ok && Write(b, dir, {T, N, H});
  }
  const uint32_t resnet_seed = g_state;
  ok = ok && ResNet18(dir, "resnet18", 1);
  {
    Builder b("mobilenet");
    std::string x = b.Conv("X", 3, 32, 3, 2, 1, true);
    const int64_t blocks[][2] = {{64, 1}, {128, 2}, {128, 1}, {256, 2}, {256, 1}, {512, 2}, {512, 1},
                                 {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1}};
    int64_t c = 32;
    for (const auto& blk : blocks) {
      x = b.Conv(x, c, c, 3, blk[1], c, true);  // depthwise
      x = b.Conv(x, c, blk[0], 1, 1, 1, true);  // pointwise
      c = blk[0];
    }
    std::string flat = b.Op("Flatten", {b.Op("GlobalAveragePool", {x})});
    std::string w = b.Weight("W", {1000, 1024}, std::sqrt(6.0f / 1024)), bias = b.Weight("B", {1000}, 0.05f);
    onnx::NodeProto* fc = b.Node("Gemm", {flat, w, bias}, {"Y"});
    Builder::IntAttr(fc, "transB", 1);
    b.Io(b.g->add_input(), "X", {1, 3, 224, 224});
    b.Io(b.g->add_output(), "Y", {1, 1000});
    ok = ok && Write(b, dir, {1, 3, 224, 224});
  }
  // Last, from resnet18's seed: the same weights as resnet18 (and its input
  // as the first image), and the models above stay as they were.
  g_state = resnet_seed;
  ok = ok && ResNet18(dir, "resnet18_b8", 8);
  if (!ok) {
    std::cerr << "make_bench_models: cannot write to " << dir << "\n";
    return 1;
  }
  std::cout << "wrote mlp, lstm4, resnet18, resnet18_b8, mobilenet to " << dir << "\n";
  return 0;
}
