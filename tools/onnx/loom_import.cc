// loom_import: converts an ONNX model to a Loom NetDef.
//
//   loom_import in.onnx out.pb      (out.pbtxt for text format)
//
// The NetDef is optimized for this machine's CPU as loom_run would run it
// (transforms::Optimize: folds, fusions, the blocked layout of this CPU's
// block). Prints the ops that Loom cannot run (one line listing all) as a warning;
// the NetDef is written either way.
#include <iostream>

#include "core/proto_io.h"
#include "frontend/onnx/onnx_importer.h"
#include "session/registry_setup.h"
#include "tools/runtime_setup.h"
#include "transforms/optimize.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: loom_import in.onnx out.pb|out.pbtxt\n";
    return 2;
  }
  auto net = loom::onnx_import::ImportOnnxFile(argv[1]);
  if (!net.ok()) {
    std::cerr << "loom_import: " << net.status() << "\n";
    return 1;
  }
  loom::transforms::Optimize(&*net, {});
  auto registry = loom::MakeRegistry({}, nullptr);
  if (registry.ok()) {
    absl::Status s = loom::onnx_import::CheckSupported(*net, **registry);
    if (!s.ok()) std::cerr << "loom_import: warning: " << s.message() << "\n";
  }
  absl::Status s = loom::WriteNetDef(*net, argv[2]);
  if (!s.ok()) {
    std::cerr << "loom_import: " << s << "\n";
    return 1;
  }
  std::cout << "wrote " << argv[2] << ": " << net->op_size() << " ops, " << net->initializer_size() << " initializers\n";
  return 0;
}
