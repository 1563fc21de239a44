// Writes seed inputs for the fuzz targets from the project's own models:
//   make_seeds OUT_DIR [NETDEF...]
// OUT_DIR/netdef_text/*.pbtxt and OUT_DIR/netdef_binary/*.pb: a few small
// nets built here (Relu, Conv+Relu, Gemm, Reshape with a shape initializer)
// and every NETDEF given (e.g. bazel-bin/tools/models/default_cnn.pb);
// OUT_DIR/tensor_proto/*: their initializers as tensor_proto inputs (a 0
// byte, then a serialized loom.TensorProto), those of at most 64 KiB.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "google/protobuf/text_format.h"

namespace {

const char* const kNets[] = {
    R"(name: "relu" op { type: "Relu" input: "x" output: "y" } external_input: "x" external_output: "y")",
    R"(name: "conv"
op { type: "Conv" input: "x" input: "w" input: "b" output: "c"
     arg { name: "kernel_shape" ints: 3 ints: 3 } arg { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 } }
op { type: "Relu" input: "c" output: "y" }
initializer { name: "w" dims: 2 dims: 1 dims: 3 dims: 3 data_type: 1
  float_data: [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0] }
initializer { name: "b" dims: 2 data_type: 1 float_data: [0.5, -0.5] }
external_input: "x" external_output: "y")",
    R"(name: "gemm"
op { type: "Gemm" input: "a" input: "b" output: "y" arg { name: "transB" i: 1 } arg { name: "alpha" f: 0.5 } }
initializer { name: "b" dims: 2 dims: 2 data_type: 1 float_data: [1, 2, 3, 4] }
external_input: "a" external_output: "y")",
    R"(name: "reshape"
op { type: "Reshape" input: "x" input: "s" output: "r" }
op { type: "Softmax" input: "r" output: "y" arg { name: "axis" i: -1 } }
initializer { name: "s" dims: 2 data_type: 7 int64_data: [-1, 4] }
external_input: "x" external_output: "y")",
};

bool Write(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: make_seeds OUT_DIR [NETDEF...]\n";
    return 2;
  }
  namespace fs = std::filesystem;
  fs::path out = argv[1];
  for (const char* d : {"netdef_text", "netdef_binary", "tensor_proto"}) fs::create_directories(out / d);
  std::vector<std::pair<std::string, loom::NetDef>> nets;
  int k = 0;
  for (const char* text : kNets) {
    auto n = loom::ParseNetDefText(text);
    if (!n.ok()) {
      std::cerr << "built-in seed " << k << ": " << n.status() << "\n";
      return 1;
    }
    nets.emplace_back("builtin" + std::to_string(k++), *n);
  }
  for (int i = 2; i < argc; ++i) {
    auto n = loom::ReadNetDef(argv[i]);
    if (!n.ok()) {
      std::cerr << argv[i] << ": " << n.status() << "\n";
      return 1;
    }
    nets.emplace_back(fs::path(argv[i]).stem().string(), *n);
  }
  int tensors = 0;
  for (const auto& [name, net] : nets) {
    std::string text, bin;
    google::protobuf::TextFormat::PrintToString(net, &text);
    net.SerializeToString(&bin);
    if (!Write(out / "netdef_text" / (name + ".pbtxt"), text) || !Write(out / "netdef_binary" / (name + ".pb"), bin)) {
      std::cerr << "cannot write under " << out << "\n";
      return 1;
    }
    for (const loom::TensorProto& t : net.initializer()) {
      std::string bytes(1, '\0');
      t.AppendToString(&bytes);
      if (bytes.size() > 65536) continue;
      Write(out / "tensor_proto" / (name + "_" + std::to_string(tensors++)), bytes);
    }
  }
  std::cout << "seeds: " << nets.size() << " nets, " << tensors << " tensors in " << out << "\n";
  return 0;
}
