// loom_run's run: the model loaded and set up on its devices, its inputs
// fed, the warm-up and timed runs, and what they left behind.
#ifndef LOOM_TOOLS_RUN_MODEL_RUNNER_H_
#define LOOM_TOOLS_RUN_MODEL_RUNNER_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/net.h"
#include "core/profile.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "core/trace.h"
#include "core/workspace.h"
#include "tools/run/run_options.h"

namespace loom {
namespace tools {

// The model that runs when loom_run is given none (built by
// tools/make_default_model), relative to the workspace.
inline constexpr char kDefaultModel[] = "tools/models/default_cnn.pb";

struct RunOutput {
  std::string name;
  const Tensor* tensor;  // on the host, in RunResult::workspace
};

struct RunResult {
  // The registry, workspace and net of the run, declared first so that
  // they are destroyed last: the net, then the workspace, then the registry
  // (each uses the ones after it).
  std::unique_ptr<Registry> registry;
  std::unique_ptr<Workspace> workspace;
  std::unique_ptr<Net> net;

  std::string model;  // the file that ran
  std::string net_name;
  int num_ops = 0;
  // The net's external outputs (else the last op's outputs) that the run
  // left in the workspace, in order.
  std::vector<RunOutput> outputs;
  std::vector<double> run_ms;  // each timed run
  int warmup = 0;              // untimed runs before them
  Profile profile;             // of the timed runs, with options.profile
  std::unique_ptr<TraceRecorder> trace;  // of the timed runs, with options.trace
};

// Runs `options.model` (RunOptions says how): reads the NetDef or imports
// the ONNX model, builds the registry (default plugins, options.plugin, the
// CUDA plugin for --device CUDA), applies --engine, --device, --executor and
// --max_streams, feeds the inputs (files, else --random), preloads weights
// on a non-host device, then runs options.warmup times untimed and
// max(1, options.iterations) times timed. Notes for the user ("No model
// given: ...", ops left on the CPU, preloaded weights) go to `notes` as they
// happen, a failed preload to `warnings`; neither stops the run. Errors: the
// model, a plugin or device, an input, Net::Create or a run failing; the
// message is the whole line loom_run prints after "loom_run: " (failure.h).
absl::StatusOr<RunResult> RunModel(const RunOptions& options, std::ostream& notes, std::ostream& warnings);

}  // namespace tools
}  // namespace loom

#endif  // LOOM_TOOLS_RUN_MODEL_RUNNER_H_
