// loom_import: converts an ONNX model to a Loom NetDef.
//
//   loom_import in.onnx out.pb [--external_data[=NAME]]    (out.pbtxt for text format)
//
// The NetDef is optimized for this machine's CPU as loom_run would run it
// (transforms::Optimize: folds, fusions, the blocked layout of this CPU's
// block). Prints the ops that Loom cannot run (one line listing all) as a warning;
// the NetDef is written either way.
//
// --external_data writes every initializer of 1 KiB or more into the file
// NAME beside out.pb (default: out.pb's name + ".data"), 64-byte aligned,
// and the NetDef names it (core/external_data.h); loom_run and
// Session::FromNetDef map the weights from there instead of reading them.
// A NetDef whose weights would pass protobuf's 2 GiB limit is written that
// way without the flag.
#include <iostream>
#include <string>

#include "absl/strings/match.h"
#include "core/external_data.h"
#include "core/proto_io.h"
#include "frontend/onnx/onnx_importer.h"
#include "session/registry_setup.h"
#include "tools/runtime_setup.h"
#include "transforms/optimize.h"

namespace {

// The initializers' bytes (external ones by their length), nested nets too.
int64_t WeightBytes(const loom::NetDef& net) {
  int64_t total = 0;
  for (const loom::TensorProto& t : net.initializer()) {
    total += t.has_external_data() ? t.external_data().length() : static_cast<int64_t>(t.ByteSizeLong());
  }
  for (const loom::OperatorDef& op : net.op()) {
    for (const loom::Argument& a : op.arg()) {
      if (a.has_n()) total += WeightBytes(a.n());
      for (const loom::NetDef& n : a.nets()) total += WeightBytes(n);
    }
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  std::string in, out, data_file;
  bool external = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--external_data") {
      external = true;
    } else if (absl::StartsWith(arg, "--external_data=")) {
      external = true;
      data_file = arg.substr(16);
    } else if (!absl::StartsWith(arg, "--") && in.empty()) {
      in = arg;
    } else if (!absl::StartsWith(arg, "--") && out.empty()) {
      out = arg;
    } else {
      in.clear();
      break;
    }
  }
  if (in.empty() || out.empty()) {
    std::cerr << "usage: loom_import in.onnx out.pb|out.pbtxt [--external_data[=NAME]]\n";
    return 2;
  }
  auto net = loom::onnx_import::ImportOnnxFile(in);
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
  const int64_t weights = WeightBytes(*net);
  if (!external && weights > (int64_t{1} << 31) - (int64_t{64} << 20)) {
    std::cerr << "loom_import: the weights (" << weights << " bytes) pass protobuf's 2 GiB limit: writing them as "
              << "external data\n";
    external = true;
  }
  const int initializers = net->initializer_size(), ops = net->op_size();
  absl::Status s;
  if (external) {
    if (data_file.empty()) data_file = out.substr(out.rfind('/') + 1) + ".data";
    s = loom::WriteNetDefWithExternalData(*std::move(net), out, data_file);
  } else {
    // A NetDef given external data by its ONNX model holds absolute
    // locations, which a NetDef file never keeps: inline them.
    s = loom::InlineExternalData(&*net);
    if (s.ok()) s = loom::WriteNetDef(*net, out);
  }
  if (!s.ok()) {
    std::cerr << "loom_import: " << s << "\n";
    return 1;
  }
  std::cout << "wrote " << out << ": " << ops << " ops, " << initializers << " initializers";
  if (external) std::cout << "; weights in " << data_file;
  std::cout << "\n";
  return 0;
}
