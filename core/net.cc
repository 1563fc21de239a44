#include "core/net.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "core/executor/multi_stream_executor.h"
#include "core/executor/sequential_executor.h"
#include "core/proto_io.h"

namespace loom {

absl::StatusOr<std::unique_ptr<Net>> Net::Create(const NetDef& def, Workspace* ws, const Registry* registry,
                                                 NetOptions options) {
  if (!def.type().empty() && def.type() != "sequential" && def.type() != "simple" && def.type() != "multi_stream") {
    return absl::InvalidArgumentError(absl::StrCat("net '", def.name(), "': executor type '", def.type(),
                                                   "' is not available; expected 'sequential' or 'multi_stream'"));
  }
  for (const TensorProto& init : def.initializer()) {
    if (ws->HasBlob(init.name())) continue;
    absl::StatusOr<Tensor> t = TensorFromProto(init);
    if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat("net '", def.name(), "': initializer: ", t.status().message()));
    ws->SetBlob(init.name(), *std::move(t));
  }
  absl::StatusOr<std::unique_ptr<CheckedNet>> checked = CheckNet(def, *registry, *ws, options.outer_constants);
  if (!checked.ok()) return checked.status();
  options.outer_constants.clear();  // kept in CheckedNet::constants
  if (options.num_threads <= 0) {
    options.num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  return std::unique_ptr<Net>(new Net(*std::move(checked), ws, registry, options));
}

Net::~Net() = default;

Net::Net(std::unique_ptr<CheckedNet> checked, Workspace* ws, const Registry* registry, NetOptions options)
    : checked_(std::move(checked)), ws_(ws), registry_(registry), options_(options) {
  limits_.max_tensor_bytes = options_.max_tensor_bytes;
  limits_.max_nesting_depth = options_.max_nesting_depth;
  limits_.max_loop_iterations = options_.max_loop_iterations;
  limits_.nesting_depth = options_.nesting_depth;
  ResetProfile();
  multi_stream_ = checked_->def.type() == "multi_stream";
  for (const Argument& a : checked_->def.arg()) {
    if (a.name() == "max_streams") max_streams_ = static_cast<int>(std::max<int64_t>(1, a.i()));
  }
}

void Net::ResetProfile() {
  profile_ = Profile();
  for (const CheckedOp& op : checked_->ops) {
    OpProfile p;
    p.label = op.label;
    p.op_type = op.info->op.type();
    profile_.ops.push_back(p);
  }
}

absl::StatusOr<Plan*> Net::Prepare() {
  // The signature: dtype and dims of every input, as raw bytes.
  signature_.clear();
  for (const std::string& name : checked_->inputs) {
    const Tensor* t = ws_->GetBlob(name);
    if (t == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("net '", checked_->def.name(), "': input '", name,
                                                     "' is not set in the workspace"));
    }
    int32_t dt = static_cast<int32_t>(t->dtype());
    signature_.append(reinterpret_cast<const char*>(&dt), sizeof(dt));
    int32_t rank = static_cast<int32_t>(t->rank());
    signature_.append(reinterpret_cast<const char*>(&rank), sizeof(rank));
    signature_.append(reinterpret_cast<const char*>(t->dims().data()), t->rank() * sizeof(int64_t));
  }
  if (registry_->generation() != plans_generation_) {
    plans_.clear();
    plans_generation_ = registry_->generation();
  }
  auto it = plans_.find(signature_);
  if (it != plans_.end()) return it->second.get();
  if (static_cast<int>(plans_.size()) >= options_.max_cached_plans) plans_.clear();
  absl::StatusOr<std::unique_ptr<Plan>> plan = BuildPlan(*checked_, *registry_, ws_, options_.num_threads, &limits_);
  if (!plan.ok()) return plan.status();
  ++plans_built_;
  for (size_t i = 0; i < (*plan)->steps().size(); ++i) {
    profile_.ops[i].kernel = (*plan)->steps()[i].kernel->Describe();
  }
  return (plans_[signature_] = *std::move(plan)).get();
}

absl::Status Net::Run() {
  ScopedLimits scoped(&limits_);  // for ABI calls without a kernel context (Tensor_Resize)
  absl::StatusOr<Plan*> plan = Prepare();
  if (!plan.ok()) return plan.status();
  last_plan_ = *plan;
  if (multi_stream_ && !options_.enable_profiling) {
    Device* device = PlanDevice(**plan, *registry_);
    if (device != nullptr) {
      if (streams_ == nullptr || streams_->device() != device) streams_ = std::make_unique<StreamSet>(device);
      return RunMultiStream(**plan, streams_.get(), max_streams_);
    }
  }
  return RunSequential(**plan, options_.enable_profiling ? &profile_ : nullptr);
}

}  // namespace loom
