#include "tools/train/training_nets.h"

#include <regex>
#include <set>

#include "absl/strings/str_cat.h"
#include "core/proto_io.h"
#include "transforms/batchnorm_training.h"

namespace loom {
namespace train {
namespace {

// Moves `net`'s initializers named in `names` to its external inputs.
void InitializersToInputs(const std::set<std::string>& names, NetDef* net) {
  NetDef kept;
  for (TensorProto& t : *net->mutable_initializer()) {
    if (names.count(t.name())) {
      net->add_external_input(t.name());
    } else {
      *kept.add_initializer() = std::move(t);
    }
  }
  net->mutable_initializer()->Swap(kept.mutable_initializer());
}

OperatorDef Op(const std::string& type, const std::string& name, const std::vector<std::string>& in,
               const std::string& out) {
  OperatorDef op;
  op.set_type(type);
  op.set_name(name);
  for (const std::string& i : in) op.add_input(i);
  op.add_output(out);
  return op;
}

// `net`'s structure: everything but its initializers, which are not copied
// (a model's weights would be held once more).
NetDef WithoutInitializers(NetDef* net) {
  google::protobuf::RepeatedPtrField<TensorProto> inits;
  inits.Swap(net->mutable_initializer());
  NetDef copy = *net;
  inits.Swap(net->mutable_initializer());
  return copy;
}

}  // namespace

absl::StatusOr<TrainingNets> BuildTrainingNets(const Registry& registry, NetDef forward,
                                               const TrainingNetOptions& options) {
  const int k = options.accumulate_steps;
  if (k < 1) return absl::InvalidArgumentError(absl::StrCat("accumulate_steps must be >= 1; found ", k));
  TrainingNets nets;
  nets.learning_rate = options.optimizer.learning_rate;
  nets.step_counter = options.optimizer.step;
  BackwardOptions bo;
  bo.accumulate = k > 1;
  std::set<std::string> params;
  for (const TensorProto& t : forward.initializer()) params.insert(t.name());
  if (!options.freeze.empty()) {
    std::regex re;
    try {
      re = std::regex(options.freeze, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return absl::InvalidArgumentError(absl::StrCat("freeze pattern '", options.freeze, "': ", e.what()));
    }
    for (const TensorProto& t : forward.initializer()) {
      if (std::regex_search(t.name(), re)) {
        nets.frozen.push_back(t.name());
      } else {
        bo.wrt.push_back(t.name());
      }
    }
    if (bo.wrt.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("freeze pattern '", options.freeze, "' matches every one of the ",
                                                     nets.frozen.size(), " parameters: nothing would train"));
    }
  }
  nets.eval = WithoutInitializers(&forward);
  transforms::TrainingOpsForInference(&nets.eval);
  for (const std::string& p : params) nets.eval.add_external_input(p);

  // Initializers' names, dtypes and dims: what AddOptimizer sizes the
  // optimizer's states from.
  NetDef shapes;
  for (const TensorProto& t : forward.initializer()) {
    TensorProto* m = shapes.add_initializer();
    m->set_name(t.name());
    m->set_data_type(t.data_type());
    *m->mutable_dims() = t.dims();
  }
  NetDef training = std::move(forward);
  absl::StatusOr<BackwardResult> backward = AddBackward(registry, {options.loss}, bo, &training);
  if (!backward.ok()) return backward.status();

  if (k == 1) {
    if (options.finish_gradients) {
      backward = options.finish_gradients(*backward, &training);
      if (!backward.ok()) return backward.status();
    }
    if (absl::Status s = AddOptimizer(*backward, options.optimizer, &training); !s.ok()) return s;
    transforms::AppendRunningStatisticsWriteBack(&training);
    for (const TensorProto& t : training.initializer()) nets.state.push_back(t.name());
    nets.step = std::move(training);
    return nets;
  }
  // The update: the accumulators' mean (times 1 / K), then the optimizer.
  NetDef update;
  update.set_name(training.name() + "_update");
  *update.mutable_initializer() = shapes.initializer();
  const std::string scale_f32 = "__accumulate_scale";
  OperatorDef scale = Op("Constant", scale_f32, {}, scale_f32);
  Argument* v = scale.add_arg();
  v->set_name("value_float");
  v->set_f(static_cast<float>(1.0 / k));
  *update.add_op() = scale;
  BackwardResult mean = *backward;
  for (auto& [w, acc] : mean.gradients) {
    nets.accumulators.push_back(acc);
    update.add_external_input(acc);
    const std::string s = acc + "_scale", m = acc + "_mean";
    *update.add_op() = Op("CastLike", s, {scale_f32, acc}, s);
    *update.add_op() = Op("Mul", m, {acc, s}, m);
    acc = m;
  }
  if (options.finish_gradients) {
    absl::StatusOr<BackwardResult> finished = options.finish_gradients(mean, &update);
    if (!finished.ok()) return finished.status();
    mean = *std::move(finished);
  }
  if (absl::Status s = AddOptimizer(mean, options.optimizer, &update); !s.ok()) return s;
  InitializersToInputs(params, &update);  // the parameters live in the workspace (SetUpWorkspace)
  transforms::AppendRunningStatisticsWriteBack(&training);
  for (const std::string& p : params) nets.state.push_back(p);
  for (const TensorProto& t : update.initializer()) nets.state.push_back(t.name());
  nets.step = std::move(training);
  nets.update = std::move(update);
  return nets;
}

absl::Status SetUpWorkspace(TrainingNets* nets, Workspace* ws) {
  if (nets->update.op_size() == 0) return absl::OkStatus();  // the step net holds its initializers
  std::set<std::string> names;
  for (TensorProto& t : *nets->step.mutable_initializer()) {
    absl::StatusOr<Tensor> v = TensorFromProto(t);
    if (!v.ok()) return absl::Status(v.status().code(), absl::StrCat("parameter '", t.name(), "': ", v.status().message()));
    ws->SetBlob(t.name(), *std::move(v));
    names.insert(t.name());
  }
  InitializersToInputs(names, &nets->step);  // no kernel may take them for constants: the update changes them
  return absl::OkStatus();
}

}  // namespace train
}  // namespace loom
