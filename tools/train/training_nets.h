// The nets loom_train runs, from a forward NetDef with a loss: the training
// step (forward, backward, update), the update on its own when gradients
// are accumulated over micro-batches, and the evaluation net. Caffe2's
// split of a model into its nets, as data: NetDef in, NetDefs out.
#ifndef LOOM_TOOLS_TRAIN_TRAINING_NETS_H_
#define LOOM_TOOLS_TRAIN_TRAINING_NETS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/autodiff/backward.h"
#include "core/autodiff/optimizer.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"
#include "core/workspace.h"

namespace loom {
namespace train {

struct TrainingNetOptions {
  std::string loss = "loss";
  OptimizerOptions optimizer;
  // Parameters (initializers) whose name has a match of this ECMAScript
  // regular expression (std::regex_search; "" matches none) get no gradient
  // and no update: they stay bit-identical (PyTorch's requires_grad = False).
  std::string freeze;
  // K >= 1 micro-batches per update (MXNet's grad_req = 'add'): the step
  // net adds each micro-batch's gradients into accumulators and the update
  // net applies their mean. Without batch statistics (BatchNormalization in
  // training mode) the update equals one step on a batch K times as large.
  int accumulate_steps = 1;
  // Called with the final gradients before the optimizer reads them, to
  // append ops that change them (the data-parallel allreduce); may return
  // other gradient blobs.
  std::function<absl::StatusOr<BackwardResult>(const BackwardResult&, NetDef*)> finish_gradients;
};

struct TrainingNets {
  // accumulate_steps == 1: one training step (forward, backward, update,
  // running statistics written back), holding the parameters as
  // initializers (create it from an rvalue, Net::Create(NetDef&&), so their
  // bytes are held once). Otherwise: forward, backward into the
  // accumulators, running statistics written back; SetUpWorkspace moves its
  // parameters into the workspace and makes them external inputs (the
  // update net changes them).
  NetDef step;
  // accumulate_steps > 1: the mean of the accumulators, then the optimizer;
  // empty (no ops) otherwise.
  NetDef update;
  // The forward net for evaluation: inference-mode ops
  // (transforms::TrainingOpsForInference), parameters read as external
  // inputs (they change, so no kernel packs a stale copy).
  NetDef eval;
  // Parameters, batch-normalization statistics and optimizer states: what a
  // checkpoint holds.
  std::vector<std::string> state;
  // accumulate_steps > 1: the accumulators, emptied before the first
  // micro-batch of every update (they then start at zero).
  std::vector<std::string> accumulators;
  // Parameters left as they are (freeze).
  std::vector<std::string> frozen;
  // The blob names the caller sets before each step (learning rate, step).
  std::string learning_rate, step_counter;
};

// Builds the nets from `forward` (moved in: its initializers become the
// step net's, not copied). Errors: an invalid freeze pattern,
// accumulate_steps < 1 (INVALID_ARGUMENT), AddBackward's, AddOptimizer's and
// finish_gradients'.
absl::StatusOr<TrainingNets> BuildTrainingNets(const Registry& registry, NetDef forward,
                                               const TrainingNetOptions& options);

// accumulate_steps > 1: moves the step net's initializers (the parameters)
// into `ws` and lists them as its external inputs; nothing otherwise.
// Errors: a tensor that does not convert.
absl::Status SetUpWorkspace(TrainingNets* nets, Workspace* ws);

}  // namespace train
}  // namespace loom

#endif  // LOOM_TOOLS_TRAIN_TRAINING_NETS_H_
