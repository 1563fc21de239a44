// loom_run: runs a NetDef and reports outputs and timing.
//
//   loom_run [MODEL] [name=tensor.pb ...] [--random] [--iterations N] [--warmup N]
//            [--profile] [--output_dir DIR] [--plugin PATH] [--num_threads N]
//            [--input_shape name=1x3x224x224] [--device CUDA[:id]]
//            [--executor sequential|multi_stream] [--max_streams N]
//
// MODEL is a NetDef in binary or text format, or an ONNX model (*.onnx,
// imported by tools/onnx); with no MODEL the default model
// that ships with Loom (tools/models/default_cnn.pb, built by
// tools/make_default_model) runs on random input.
// Inputs come from TensorProto files (name=path); with --random, every
// external input without a file is generated (uniform in [-1, 1]) with the
// shape from --input_shape or from the NetDef argument "input_shape.<name>"
// (ints) and dtype from "input_dtype.<name>" (string, default float32).
//
// --input_shape: NAME=DIMS with DIMS separated by 'x' or ','
// (x=1x3x48x320 or x=1,3,48,320); several inputs in one flag
// (x=1,3,48,320,y=2,5: a piece with '=' starts the next input) or in
// repeated flags (--input_shape x=1x3 --input_shape y=2x5; every occurrence
// counts). A single dim (x=7) is the shape [7].
//
// --device TYPE[:ID] places every op (nested step nets included) on that
// device through NetDef.device_option before Net::Create (an op type with
// no kernel for that device stays on the CPU and is listed, unless
// --nodevice_fallback makes that an error); for CUDA the
// plugin is loaded from plugins/cuda/libloom_cuda.so (next to the binary,
// in its runfiles or under the current folder) unless --plugin or
// LOOM_PLUGIN_PATH already provided a CUDA device. Net inputs are fed on
// the host and copied by the planner on every run; float initializers of at
// least 1024 elements (weights) are copied to the device once, before the
// warm-up (--preload_weights, on by default), so the timed runs do not
// include re-uploading the weights.
// --executor multi_stream [--max_streams N] runs the net with the
// multi-stream executor (NetDef type "multi_stream", arg "max_streams").
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/api/loom_sdk.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "core/proto_io.h"
#include "tools/onnx/onnx_importer.h"
#include "tools/runtime_setup.h"

ABSL_FLAG(int, iterations, 10, "Timed runs.");
ABSL_FLAG(int, warmup, 1, "Untimed runs before the timed ones.");
ABSL_FLAG(bool, random, false, "Generate inputs that have no file.");
ABSL_FLAG(bool, profile, false, "Print the per-op profile of the timed runs.");
ABSL_FLAG(std::string, output_dir, "", "Write each output to DIR/<name>.pb (TensorProto); DIR is created if missing.");
ABSL_FLAG(bool, output_raw, false, "With --output_dir, also write DIR/<name>.bin (raw little-endian data).");
ABSL_FLAG(std::string, engine, "", "Ask every op for this kernel engine (e.g. DNNL, STEPNET); others use their default.");
ABSL_FLAG(std::vector<std::string>, plugin, {}, "Plugins to load after the default ones.");
ABSL_FLAG(std::vector<std::string>, input_shape, {},
          "Shapes for --random: name=d0xd1x... or name=d0,d1,... (repeatable; several inputs: x=1,3,y=2,5).");
ABSL_FLAG(std::string, device, "", "Place every op on this device: CPU, CUDA or CUDA:<id> (default: as in the model).");
ABSL_FLAG(std::string, executor, "", "sequential or multi_stream (default: the NetDef's type).");
ABSL_FLAG(int, max_streams, 0, "Streams of the multi_stream executor (0: the NetDef's arg max_streams, default 4).");
ABSL_FLAG(bool, device_fallback, true, "With --device, ops with no kernel for it stay on the CPU (else: an error).");
ABSL_FLAG(bool, preload_weights, true, "With --device on a non-host device, copy float initializers of >= 1024 elements there once.");
ABSL_FLAG(int, num_threads, 0, "Threads per kernel (0: all cores).");
ABSL_FLAG(int, seed, 1, "Seed for --random.");
ABSL_FLAG(int, show, 8, "Leading values printed per output.");

namespace loom {
namespace {

constexpr char kDefaultModel[] = "tools/models/default_cnn.pb";

// Every --input_shape occurrence, collected from argv before absl parses it
// (absl keeps only the last occurrence of a flag).
std::vector<std::string>& ShapeFlagValues() {
  static std::vector<std::string> v;
  return v;
}

// Parses the --input_shape values into (name, shape). absl splits a list
// flag on commas, so "x=1,3,48,320" arrives as "x=1", "3", "48", "320": a
// piece without '=' continues the previous input's dims. Dims inside a piece
// may be separated by 'x' ("x=1x3x48x320").
absl::StatusOr<std::vector<std::pair<std::string, Shape>>> ParseShapeFlags(const std::vector<std::string>& values) {
  std::vector<std::pair<std::string, Shape>> out;
  for (const std::string& value : values) {
    for (absl::string_view piece : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      absl::string_view dims = piece;
      size_t eq = piece.find('=');
      if (eq != absl::string_view::npos) {
        out.emplace_back(std::string(piece.substr(0, eq)), Shape{});
        dims = piece.substr(eq + 1);
      } else if (out.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("--input_shape '", value, "': expected NAME=d0xd1x... first"));
      }
      for (absl::string_view d : absl::StrSplit(dims, absl::ByAnyChar("xX"), absl::SkipEmpty())) {
        int64_t v;
        if (!absl::SimpleAtoi(d, &v) || v < 0) {
          return absl::InvalidArgumentError(absl::StrCat("--input_shape '", value, "': bad dim '", d, "'"));
        }
        out.back().second.push_back(v);
      }
    }
  }
  return out;
}

absl::StatusOr<Tensor> RandomInput(const NetDef& net, const std::string& name, uint32_t seed,
                                   const std::vector<std::pair<std::string, Shape>>& shape_flags) {
  Shape shape;
  bool have = false;
  for (const auto& [n, dims] : shape_flags) {
    if (n == name) {
      shape = dims;
      have = true;
    }
  }
  DataType dtype = DataType::kFloat32;
  for (const Argument& a : net.arg()) {
    if (!have && a.name() == "input_shape." + name) {
      shape.assign(a.ints().begin(), a.ints().end());
      have = true;
    }
    if (a.name() == "input_dtype." + name) {
      auto d = ParseDataType(a.s());
      if (!d.ok()) return d.status();
      dtype = *d;
    }
  }
  if (!have) {
    return absl::InvalidArgumentError(absl::StrCat("input '", name, "': no shape for --random; pass --input_shape ", name,
                                                   "=d0xd1x... or add a NetDef arg 'input_shape.", name, "'"));
  }
  auto t = Tensor::Create(dtype, shape);
  if (!t.ok()) return t.status();
  uint32_t state = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    state = state * 1664525u + 1013904223u;
    double u = (state >> 8) * (1.0 / 16777216.0) * 2.0 - 1.0;  // [-1, 1)
    switch (dtype) {
      case DataType::kFloat32: t->data<float>()[i] = static_cast<float>(u); break;
      case DataType::kFloat64: t->data<double>()[i] = u; break;
      case DataType::kInt64: t->data<int64_t>()[i] = static_cast<int64_t>((u + 1) * 4); break;
      case DataType::kInt32: t->data<int32_t>()[i] = static_cast<int32_t>((u + 1) * 4); break;
      case DataType::kBool: t->data<bool>()[i] = u > 0; break;
      default:
        return absl::InvalidArgumentError(absl::StrCat("input '", name, "': --random does not generate ", DataTypeName(dtype)));
    }
  }
  return t;
}

// Places every op of `net` and of the nets nested in its ops' arguments
// (step nets, control-flow bodies) on `device`. With `fallback`, an op
// whose type has no kernel for that device stays on the host (its name goes
// into *on_host) and the planner copies tensors across.
void PlaceOnDevice(NetDef* net, const DeviceOption& device, const Registry& registry, bool fallback,
                   std::set<std::string>* on_host) {
  *net->mutable_device_option() = device;
  for (OperatorDef& op : *net->mutable_op()) {
    if (fallback && !registry.HasKernelForDevice(op.type(), device.device_type())) {
      op.mutable_device_option()->set_device_type("CPU");
      op.mutable_device_option()->set_device_id(0);
      on_host->insert(op.type());
      continue;
    }
    *op.mutable_device_option() = device;
    for (Argument& a : *op.mutable_arg()) {
      if (a.has_n()) PlaceOnDevice(a.mutable_n(), device, registry, fallback, on_host);
      for (NetDef& n : *a.mutable_nets()) PlaceOnDevice(&n, device, registry, fallback, on_host);
    }
  }
}

// "CUDA" or "CUDA:1" into a DeviceOption.
absl::StatusOr<DeviceOption> ParseDevice(const std::string& flag) {
  DeviceOption d;
  std::vector<std::string> parts = absl::StrSplit(flag, absl::MaxSplits(':', 1));
  d.set_device_type(parts[0]);
  int id = 0;
  if (parts.size() == 2 && (!absl::SimpleAtoi(parts[1], &id) || id < 0)) {
    return absl::InvalidArgumentError(absl::StrCat("--device '", flag, "': expected TYPE or TYPE:<id>"));
  }
  d.set_device_id(id);
  return d;
}

// Copies the large float initializers of `net` to `device` once: each
// becomes a device tensor of the same name in `ws` (Identity on the device
// from a host copy named "<name>@host_preload"), so Net::Create keeps it
// and the planner does not copy it on every run. Smaller or non-float
// initializers stay on the host (shape-like constants are read on the host
// during inference), and so do those that an op on another device reads.
// Returns how many tensors were moved.
absl::StatusOr<int> PreloadWeights(const NetDef& net, const DeviceOption& device, Workspace* ws, Registry* registry) {
  NetDef init;
  init.set_name(net.name() + "_preload");
  *init.mutable_device_option() = device;
  // Only tensors that every reader reads on the device (a host reader would
  // copy it back on every run).
  std::map<std::string, bool> all_on_device;
  for (const OperatorDef& op : net.op()) {
    const DeviceOption& d = op.has_device_option() ? op.device_option() : net.device_option();
    bool on = d.device_type() == device.device_type() && d.device_id() == device.device_id();
    for (const std::string& in : op.input()) {
      auto [it, inserted] = all_on_device.emplace(in, on);
      if (!inserted) it->second = it->second && on;
    }
  }
  for (const TensorProto& p : net.initializer()) {
    if (ws->HasBlob(p.name())) continue;
    auto used = all_on_device.find(p.name());
    if (used == all_on_device.end() || !used->second) continue;
    auto t = TensorFromProto(p);
    if (!t.ok()) return t.status();
    if ((t->dtype() != DataType::kFloat32 && t->dtype() != DataType::kFloat16) || t->num_elements() < 1024) continue;
    std::string host = p.name() + "@host_preload";
    ws->SetBlob(host, *std::move(t));
    init.add_external_input(host);
    OperatorDef* op = init.add_op();
    op->set_type("Identity");
    op->set_name("preload_" + p.name());
    op->add_input(host);
    op->add_output(p.name());
    *op->mutable_device_option() = device;
  }
  if (init.op_size() == 0) return 0;
  absl::Status s;
  {
    auto n = Net::Create(init, ws, registry);
    s = n.ok() ? (*n)->Run() : n.status();
  }
  for (const OperatorDef& op : init.op()) {
    ws->RemoveBlob(op.input(0));
    if (!s.ok()) ws->RemoveBlob(op.output(0));  // Net::Create then puts the host initializer back
  }
  if (!s.ok()) return s;
  return init.op_size();
}

int Main(std::vector<char*> args) {
  std::string model;
  std::vector<std::pair<std::string, std::string>> files;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string a = args[i];
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      files.emplace_back(a.substr(0, eq), a.substr(eq + 1));
    } else if (model.empty()) {
      model = a;
    } else {
      std::cerr << "loom_run: unexpected argument '" << a << "'\n";
      return 2;
    }
  }
  bool random = absl::GetFlag(FLAGS_random);
  if (model.empty()) {
    model = tools::FindDataFile(kDefaultModel);
    random = true;
    std::cout << "No model given: running the default model " << kDefaultModel << " on random input.\n";
  }
  const bool is_onnx = absl::EndsWith(model, ".onnx");
  auto net_def = is_onnx ? onnx_import::ImportOnnxFile(model) : ReadNetDef(model);
  if (!net_def.ok()) {
    std::cerr << "loom_run: " << net_def.status() << "\n";
    return 1;
  }
  std::vector<std::string> warnings;
  auto registry = tools::MakeRegistry(absl::GetFlag(FLAGS_plugin), &warnings);
  if (!registry.ok()) {
    std::cerr << "loom_run: " << registry.status() << "\n";
    return 1;
  }
  if (!absl::GetFlag(FLAGS_engine).empty()) {
    for (auto& op : *net_def->mutable_op()) op.set_engine(absl::GetFlag(FLAGS_engine));
  }
  std::optional<DeviceOption> device;
  if (!absl::GetFlag(FLAGS_device).empty()) {
    auto d = ParseDevice(absl::GetFlag(FLAGS_device));
    if (!d.ok()) {
      std::cerr << "loom_run: " << d.status() << "\n";
      return 2;
    }
    device = *d;
    const std::string& type = d->device_type();
    if (type == "CUDA" && (*registry)->FindPlugin("cuda") == nullptr) {
      std::string cuda = tools::FindDataFile("plugins/cuda/libloom_cuda.so");
      absl::Status s = LoadPlugin(registry->get(), cuda);
      if (!s.ok()) {
        std::cerr << "loom_run: --device " << absl::GetFlag(FLAGS_device) << ": cannot load the CUDA plugin (pass --plugin=PATH/libloom_cuda.so): "
                  << s << "\n";
        return 1;
      }
    }
    if ((*registry)->FindDevice(type, d->device_id()) == nullptr) {
      std::cerr << "loom_run: --device " << absl::GetFlag(FLAGS_device) << ": no such device (registered device types: "
                << absl::StrJoin((*registry)->DeviceTypes(), ", ")
                << (type == "CUDA" ? "; for CUDA the plugin is loaded but cudaGetDeviceCount found no usable GPU with that id" : "")
                << ")\n";
      return 1;
    }
    std::set<std::string> on_host;
    PlaceOnDevice(&*net_def, *d, **registry, absl::GetFlag(FLAGS_device_fallback), &on_host);
    if (!on_host.empty()) {
      std::cout << "No " << type << " kernel (these ops stay on the CPU): " << absl::StrJoin(on_host, ", ") << "\n";
    }
  }
  const std::string executor = absl::GetFlag(FLAGS_executor);
  if (!executor.empty()) {
    if (executor != "sequential" && executor != "multi_stream") {
      std::cerr << "loom_run: --executor '" << executor << "': expected sequential or multi_stream\n";
      return 2;
    }
    net_def->set_type(executor);
  }
  if (absl::GetFlag(FLAGS_max_streams) > 0) {
    Argument* arg = nullptr;
    for (Argument& a : *net_def->mutable_arg()) {
      if (a.name() == "max_streams") arg = &a;
    }
    if (arg == nullptr) arg = net_def->add_arg();
    arg->Clear();
    arg->set_name("max_streams");
    arg->set_i(absl::GetFlag(FLAGS_max_streams));
  }
  if (is_onnx) {
    absl::Status s = onnx_import::CheckSupported(
        *net_def, **registry, device && !absl::GetFlag(FLAGS_device_fallback) ? device->device_type() : "CPU");
    if (!s.ok()) {
      std::cerr << "loom_run: " << model << ": " << s << "\n";
      return 1;
    }
  }
  Workspace ws;
  for (const auto& [name, path] : files) {
    auto proto = ReadTensorProto(path);
    absl::StatusOr<Tensor> t = proto.ok() ? TensorFromProto(*proto) : absl::StatusOr<Tensor>(proto.status());
    if (!t.ok()) {
      // Not a Loom TensorProto: an ONNX one (e.g. an ONNX test's input_0.pb)?
      std::ifstream in(path, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      auto onnx_proto = onnx_import::ImportOnnxTensor(bytes);
      auto onnx_tensor = onnx_proto.ok() ? TensorFromProto(*onnx_proto) : absl::StatusOr<Tensor>(onnx_proto.status());
      if (!onnx_tensor.ok()) {
        std::cerr << "loom_run: input '" << name << "': " << path << " is neither a Loom TensorProto (" << t.status()
                  << ") nor an ONNX TensorProto (" << onnx_tensor.status() << ")\n";
        return 1;
      }
      t = std::move(onnx_tensor);
    }
    ws.SetBlob(name, *std::move(t));
  }
  auto shape_flags = ParseShapeFlags(ShapeFlagValues().empty() ? absl::GetFlag(FLAGS_input_shape) : ShapeFlagValues());
  if (!shape_flags.ok()) {
    std::cerr << "loom_run: " << shape_flags.status() << "\n";
    return 2;
  }
  uint32_t seed = static_cast<uint32_t>(absl::GetFlag(FLAGS_seed));
  for (const std::string& in : net_def->external_input()) {
    if (ws.HasBlob(in)) continue;
    if (!random) {
      std::cerr << "loom_run: no value for external input '" << in << "'; pass " << in << "=tensor.pb or --random\n";
      return 1;
    }
    auto t = RandomInput(*net_def, in, seed++, *shape_flags);
    if (!t.ok()) {
      std::cerr << "loom_run: " << t.status() << "\n";
      return 1;
    }
    ws.SetBlob(in, *std::move(t));
  }
  if (device && absl::GetFlag(FLAGS_preload_weights)) {
    Device* dev = (*registry)->FindDevice(device->device_type(), device->device_id());
    if (dev != nullptr && !dev->is_host()) {
      auto moved = PreloadWeights(*net_def, *device, &ws, registry->get());
      if (!moved.ok()) {
        std::cerr << "loom_run: warning: weights not preloaded on " << absl::GetFlag(FLAGS_device)
                  << " (the planner copies them every run): " << moved.status() << "\n";
      } else if (*moved > 0) {
        std::cout << "Preloaded " << *moved << " weight tensors on " << absl::GetFlag(FLAGS_device) << ".\n";
      }
    }
  }
  NetOptions options;
  options.num_threads = absl::GetFlag(FLAGS_num_threads);
  auto net = Net::Create(*net_def, &ws, registry->get(), options);
  if (!net.ok()) {
    std::cerr << "loom_run: " << net.status() << "\n";
    return 1;
  }
  for (int i = 0; i < absl::GetFlag(FLAGS_warmup); ++i) {
    absl::Status s = (*net)->Run();
    if (!s.ok()) {
      std::cerr << "loom_run: " << s << "\n";
      return 1;
    }
  }
  (*net)->set_profiling(absl::GetFlag(FLAGS_profile));
  std::vector<double> ms;
  int iterations = std::max(1, absl::GetFlag(FLAGS_iterations));
  for (int i = 0; i < iterations; ++i) {
    absl::Time start = absl::Now();
    absl::Status s = (*net)->Run();
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
    if (!s.ok()) {
      std::cerr << "loom_run: " << s << "\n";
      return 1;
    }
  }
  std::vector<std::string> outputs(net_def->external_output().begin(), net_def->external_output().end());
  if (outputs.empty() && net_def->op_size() > 0) {
    const OperatorDef& last = net_def->op(net_def->op_size() - 1);
    outputs.assign(last.output().begin(), last.output().end());
  }
  std::cout << "Model: " << model << " (net '" << net_def->name() << "', " << net_def->op_size() << " ops)\n";
  for (const std::string& name : outputs) {
    const Tensor* t = ws.GetBlob(name);
    if (t == nullptr) continue;
    std::vector<std::string> vals;
    for (int64_t i = 0; i < std::min<int64_t>(t->num_elements(), absl::GetFlag(FLAGS_show)); ++i) {
      vals.push_back(absl::StrFormat("%.6g", t->ElementAsDouble(i)));
    }
    std::cout << "output " << name << ": " << DataTypeName(t->dtype()) << " " << ShapeToString(t->dims()) << " ["
              << absl::StrJoin(vals, ", ") << (t->num_elements() > static_cast<int64_t>(vals.size()) ? ", ..." : "") << "]\n";
    std::string dir = absl::GetFlag(FLAGS_output_dir);
    if (!dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) {
        std::cerr << "loom_run: cannot create --output_dir " << dir << ": " << ec.message() << "\n";
        return 1;
      }
      absl::Status s = WriteTensorProto(TensorToProto(*t, name), absl::StrCat(dir, "/", name, ".pb"));
      if (!s.ok()) {
        std::cerr << "loom_run: " << s << "\n";
        return 1;
      }
      if (absl::GetFlag(FLAGS_output_raw)) {
        std::ofstream raw(absl::StrCat(dir, "/", name, ".bin"), std::ios::binary);
        raw.write(static_cast<const char*>(t->raw_data()), static_cast<std::streamsize>(t->nbytes()));
        if (!raw) {
          std::cerr << "loom_run: cannot write " << dir << "/" << name << ".bin\n";
          return 1;
        }
      }
    }
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) { return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * (sorted.size() - 1) + 0.5))]; };
  double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / ms.size();
  std::cout << absl::StrFormat("time per run over %d runs (after %d warm-up): mean %.3f ms, p50 %.3f ms, p90 %.3f ms\n",
                               iterations, absl::GetFlag(FLAGS_warmup), mean, pct(0.5), pct(0.9));
  if (absl::GetFlag(FLAGS_profile)) std::cout << "\n" << (*net)->profile().ToString();
  return 0;
}

}  // namespace
}  // namespace loom

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Runs a Loom NetDef: loom_run [MODEL] [name=tensor.pb ...] [flags]. See --help.");
  // Collect every --input_shape occurrence (absl keeps only the last).
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") break;
    for (const char* prefix : {"--input_shape", "-input_shape"}) {
      std::string p = prefix;
      if (a == p && i + 1 < argc) {
        loom::ShapeFlagValues().push_back(argv[i + 1]);
      } else if (a.rfind(p + "=", 0) == 0) {
        loom::ShapeFlagValues().push_back(a.substr(p.size() + 1));
      }
    }
  }
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  return loom::Main(args);
}
