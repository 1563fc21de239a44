#include "tools/run/model_runner.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/plugin_loader.h"
#include "core/proto_io.h"
#include "frontend/onnx/onnx_importer.h"
#include "session/device_placement.h"
#include "tools/run/failure.h"
#include "tools/run/inputs.h"
#include "session/registry_setup.h"
#include "tools/runtime_setup.h"
#include "transforms/optimize.h"

namespace loom {
namespace tools {
namespace {

// Makes --device usable: loads the CUDA plugin if no plugin provides CUDA
// yet, checks that the device exists, and places the ops of `net` on it.
absl::Status UseDevice(const RunOptions& options, Registry* registry, NetDef* net, std::ostream& notes) {
  const DeviceOption& device = *options.device_option;
  const std::string& type = device.device_type();
  absl::Status s = RequireDevice(device, registry, FindDataFile("plugins/cuda/libloom_cuda.so"));
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat("--device ", options.device, ": ", s.message()));
  std::set<std::string> on_host;
  PlaceOnDevice(net, device, *registry, options.device_fallback, &on_host);
  if (!on_host.empty()) {
    notes << "No " << type << " kernel (these ops stay on the CPU): " << absl::StrJoin(on_host, ", ") << "\n";
  }
  return absl::OkStatus();
}

// --executor and --max_streams into the NetDef's type and arg max_streams.
void SetExecutor(const RunOptions& options, NetDef* net) {
  if (!options.executor.empty()) net->set_type(options.executor);
  if (options.max_streams > 0) {
    Argument* arg = nullptr;
    for (Argument& a : *net->mutable_arg()) {
      if (a.name() == "max_streams") arg = &a;
    }
    if (arg == nullptr) arg = net->add_arg();
    arg->Clear();
    arg->set_name("max_streams");
    arg->set_i(options.max_streams);
  }
}

// Puts every external input of `net` into `ws`: from its file, else (with
// --random) generated, seeds counting up from --seed.
absl::Status FeedInputs(const RunOptions& options, const NetDef& net, Workspace* ws) {
  for (const auto& [name, path] : options.inputs) {
    auto t = ReadInputTensor(name, path, onnx_import::DeclaredInputType(net, name));
    if (!t.ok()) return t.status();
    ws->SetBlob(name, *std::move(t));
  }
  uint32_t seed = static_cast<uint32_t>(options.seed);
  for (const std::string& in : net.external_input()) {
    if (ws->HasBlob(in)) continue;
    if (!options.random) {
      return absl::InvalidArgumentError(
          absl::StrCat("no value for external input '", in, "'; pass ", in, "=tensor.pb or --random"));
    }
    auto t = RandomInput(net, in, seed++, options.input_shape);
    if (!t.ok()) return Failure(t.status());
    ws->SetBlob(in, *std::move(t));
  }
  return absl::OkStatus();
}

// With --device on a non-host device (and --preload_weights), the weights go
// there before the warm-up, so the timed runs do not re-upload them.
void Preload(const RunOptions& options, const NetDef& net, Registry* registry, Workspace* ws, std::ostream& notes,
             std::ostream& warnings) {
  if (!options.device_option || !options.preload_weights) return;
  const DeviceOption& device = *options.device_option;
  Device* dev = registry->FindDevice(device.device_type(), device.device_id());
  if (dev == nullptr || dev->is_host()) return;
  auto moved = PreloadWeights(net, device, ws, registry);
  if (!moved.ok()) {
    warnings << "loom_run: warning: weights not preloaded on " << options.device
             << " (the planner copies them every run): " << moved.status() << "\n";
  } else if (*moved > 0) {
    notes << "Preloaded " << *moved << " weight tensors on " << options.device << ".\n";
  }
}

}  // namespace

absl::StatusOr<RunResult> RunModel(const RunOptions& options, std::ostream& notes, std::ostream& warnings) {
  RunResult r;
  r.model = options.model;
  if (r.model.empty()) {
    r.model = FindDataFile(kDefaultModel);
    notes << "No model given: running the default model " << kDefaultModel << " on random input.\n";
  }
  const bool is_onnx = absl::EndsWith(r.model, ".onnx");
  auto net_def = is_onnx ? onnx_import::ImportOnnxFile(r.model) : ReadNetDef(r.model);
  if (net_def.ok() && is_onnx) {
    transforms::OptimizeOptions optimize;
    optimize.nchwc_block = options.nchwc_block;
    optimize.winograd = options.winograd;
    if (options.device_option) optimize.device = options.device_option->device_type();
    transforms::Optimize(&*net_def, optimize);
  }
  if (!net_def.ok()) return Failure(net_def.status());

  std::vector<std::string> plugin_warnings;  // broken default plugins are skipped; loom_inspect --check tells why
  auto registry = MakeRegistry(options.plugin, &plugin_warnings);
  if (!registry.ok()) return Failure(registry.status());
  r.registry = *std::move(registry);
  if (!options.engine.empty()) {
    for (auto& op : *net_def->mutable_op()) op.set_engine(options.engine);
  }
  if (options.device_option) {
    absl::Status s = UseDevice(options, r.registry.get(), &*net_def, notes);
    if (!s.ok()) return s;
  }
  SetExecutor(options, &*net_def);
  if (is_onnx) {
    const std::string device =
        options.device_option && !options.device_fallback ? options.device_option->device_type() : "CPU";
    absl::Status s = onnx_import::CheckSupported(*net_def, *r.registry, device);
    if (!s.ok()) return Failure(absl::StrCat(r.model, ": "), s);
  }

  r.workspace = std::make_unique<Workspace>();
  absl::Status fed = FeedInputs(options, *net_def, r.workspace.get());
  if (!fed.ok()) return fed;
  Preload(options, *net_def, r.registry.get(), r.workspace.get(), notes, warnings);

  NetOptions net_options;
  net_options.num_threads = options.num_threads;
  net_options.max_tensor_bytes = options.max_tensor_bytes;
  net_options.max_nesting_depth = options.max_nesting_depth;
  net_options.max_loop_iterations = options.max_loop_iterations;
  net_options.plan_memory = options.plan_memory;
  net_options.static_shape = options.static_shape;
  net_options.fpmath_mode = options.fpmath_mode;
  net_options.poison_released_memory = options.poison_released_memory;
  // Moved: the NetDef's weights are freed as they go into the workspace.
  auto net = Net::Create(std::move(*net_def), r.workspace.get(), r.registry.get(), net_options);
  if (!net.ok()) return Failure(net.status());
  r.net = *std::move(net);
  *net_def = NetDef();  // what is left of it (nested bodies' weights) is the net's now
  const NetDef& def = r.net->def();  // ops and metadata (initializers without data)
  r.warmup = options.warmup;
  for (int i = 0; i < options.warmup; ++i) {
    absl::Status s = r.net->Run();
    if (!s.ok()) return Failure(s);
  }
  r.net->set_profiling(options.profile);
  const int iterations = std::max(1, options.iterations);
  if (!options.trace.empty()) {
    r.trace = std::make_unique<TraceRecorder>();
    r.trace->Start();
  }
  for (int i = 0; i < iterations; ++i) {
    absl::Time start = absl::Now();
    absl::Status s = r.net->Run();
    r.run_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
    if (!s.ok()) return Failure(s);
  }
  if (r.trace != nullptr) r.trace->Stop();
  r.profile = r.net->profile();

  r.net_name = def.name();
  r.num_ops = def.op_size();
  std::vector<std::string> outputs(def.external_output().begin(), def.external_output().end());
  if (outputs.empty() && def.op_size() > 0) {
    const OperatorDef& last = def.op(def.op_size() - 1);
    outputs.assign(last.output().begin(), last.output().end());
  }
  for (const std::string& name : outputs) {
    const Tensor* t = r.workspace->GetBlob(name);
    if (t != nullptr) r.outputs.push_back({name, t});
  }
  return r;
}

}  // namespace tools
}  // namespace loom
