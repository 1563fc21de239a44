#include "core/net.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/executor/multi_stream_executor.h"
#include "core/executor/sequential_executor.h"
#include "core/proto_io.h"

namespace loom {

static std::atomic<bool> g_poison_by_default{false};

void SetPoisonReleasedMemoryByDefault(bool on) { g_poison_by_default.store(on, std::memory_order_relaxed); }

// Puts initializer `name` of `def`, read as `t`, into `ws`; the error names
// the net.
static absl::Status AddInitializer(const NetDef& def, const std::string& name, absl::StatusOr<Tensor> t, Workspace* ws) {
  if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat("net '", def.name(), "': initializer: ", t.status().message()));
  ws->SetBlob(name, *std::move(t));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Net>> Net::Create(const NetDef& def, Workspace* ws, const Registry* registry,
                                                 NetOptions options, NetScope scope) {
  if (!def.type().empty() && def.type() != "sequential" && def.type() != "simple" && def.type() != "multi_stream") {
    return absl::InvalidArgumentError(absl::StrCat("net '", def.name(), "': executor type '", def.type(),
                                                   "' is not available; expected 'sequential' or 'multi_stream'"));
  }
  for (const TensorProto& init : def.initializer()) {
    if (ws->HasBlob(init.name())) continue;
    if (absl::Status s = AddInitializer(def, init.name(), TensorFromProto(init), ws); !s.ok()) return s;
  }
  absl::StatusOr<std::unique_ptr<CheckedNet>> checked = CheckNet(def, *registry, *ws, scope.outer_constants);
  if (!checked.ok()) return checked.status();
  if (g_poison_by_default.load(std::memory_order_relaxed)) options.poison_released_memory = true;
  if (options.num_threads <= 0) {
    options.num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  if (scope.packed_constants == nullptr) scope.packed_constants = std::make_shared<PackedConstants>();
  return std::unique_ptr<Net>(new Net(*std::move(checked), ws, registry, std::move(options), std::move(scope)));
}

absl::StatusOr<std::unique_ptr<Net>> Net::Create(NetDef&& def, Workspace* ws, const Registry* registry,
                                                 NetOptions options, NetScope scope) {
  for (TensorProto& init : *def.mutable_initializer()) {
    // Keep name, type and dims; the values move into the tensor, or go now
    // (Swap frees them, where clearing a string or repeated field would
    // keep its capacity).
    TensorProto meta = InitializerMetadata(init);
    if (!ws->HasBlob(init.name())) {
      if (absl::Status s = AddInitializer(def, meta.name(), TensorFromProto(std::move(init)), ws); !s.ok()) return s;
    }
    init.Swap(&meta);
  }
  if (def.initializer_size() > 0) ReturnFreeHeapMemory();  // the bytes just freed
  return Create(static_cast<const NetDef&>(def), ws, registry, std::move(options), std::move(scope));
}

Net::~Net() = default;

Net::Net(std::unique_ptr<CheckedNet> checked, Workspace* ws, const Registry* registry, NetOptions options,
         NetScope scope)
    : checked_(std::move(checked)), ws_(ws), registry_(registry), options_(std::move(options)),
      scope_(std::move(scope)), pool_(scope_.pool ? scope_.pool : BufferPool::Create()) {
  limits_.max_tensor_bytes = options_.max_tensor_bytes;
  limits_.max_nesting_depth = options_.max_nesting_depth;
  limits_.max_loop_iterations = options_.max_loop_iterations;
  limits_.nesting_depth = scope_.nesting_depth;
  ResetProfile();
  multi_stream_ = checked_->def.type() == "multi_stream";
  // A static_shape net's constants are freed once packed: its signatures
  // are its other inputs'. A nested net's outer constants are fixed while
  // it lives (NetScope::outer_constants), so they are left out of its
  // signature too: a body reading forty weights of the enclosing graph
  // looked each up again on every run.
  for (const std::string& name : checked_->inputs) {
    const bool constant = checked_->constants.count(name) > 0;
    if (constant && (options_.static_shape || scope_.outer_constants.count(name))) continue;
    signature_inputs_.push_back(name);
  }
  scope_.outer_constants.clear();  // kept in CheckedNet::constants
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

size_t Net::arena_bytes() const {
  size_t n = 0;
  for (const auto& [device, arena] : arenas_) n += arena ? arena->size() : 0;
  return n;
}

absl::Status Net::PlanBuckets(const std::vector<std::vector<std::pair<std::string, Shape>>>& buckets) {
  if (released_constants_ > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "net '", checked_->def.name(), "': PlanBuckets after the first Run of a static_shape net: its kernels have ",
        "packed the weights and the originals are freed; declare the buckets before the first Run"));
  }
  std::vector<size_t> order(buckets.size());
  std::vector<int64_t> size(buckets.size(), 0);
  for (size_t i = 0; i < buckets.size(); ++i) {
    order[i] = i;
    for (const auto& [name, shape] : buckets[i]) size[i] += NumElements(shape);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return size[a] > size[b]; });
  // Inputs as they are, put back at the end.
  std::map<std::string, Tensor> saved;
  for (const auto& bucket : buckets) {
    for (const auto& [name, shape] : bucket) {
      const Tensor* t = ws_->GetBlob(name);
      if (t == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("net '", checked_->def.name(), "': PlanBuckets: input '", name,
                                                       "' is not set in the workspace (its dtype is needed)"));
      }
      saved.emplace(name, *t);
    }
  }
  planning_buckets_ = true;  // reset below on every path
  absl::Status result;
  for (size_t i : order) {
    for (const auto& [name, shape] : buckets[i]) {
      absl::StatusOr<Tensor> t = Tensor::Create(saved[name].dtype(), shape, saved[name].device());
      if (!t.ok()) {
        result = absl::Status(t.status().code(), absl::StrCat("bucket ", i, ": input '", name, "': ", t.status().message()));
        break;
      }
      ws_->SetBlob(name, *std::move(t));
    }
    if (!result.ok()) break;
    absl::StatusOr<Plan*> plan = Prepare();
    if (!plan.ok()) {
      result = absl::Status(plan.status().code(), absl::StrCat("bucket ", i, ": ", plan.status().message()));
      break;
    }
  }
  for (auto& [name, t] : saved) ws_->SetBlob(name, std::move(t));
  planning_buckets_ = false;
  if (result.ok()) ReleasePackedConstants();
  return result;
}

void Net::ReleasePackedConstants() {
  if (!options_.static_shape) return;
  // The net's own initializers (not an enclosing net's constants), unless
  // an external output or reachable by name from a nested net.
  absl::flat_hash_map<const Tensor*, bool> packed;  // false once a reader keeps it
  std::set<std::string> kept(checked_->def.external_output().begin(), checked_->def.external_output().end());
  NestedNetNames(*checked_, &kept);
  for (const TensorProto& init : checked_->def.initializer()) {
    const Tensor* t = ws_->GetBlob(init.name());
    if (t != nullptr && !kept.count(init.name()) && !released_.contains(t)) packed[t] = true;
  }
  absl::flat_hash_set<const Tensor*> read;  // a constant no op reads stays (the caller may want it)
  for (auto& [sig, plan] : plans_) {
    for (const PlanStep& step : plan->steps()) {
      for (size_t k = 0; k < step.ctx.inputs.size(); ++k) {
        auto it = packed.find(step.ctx.inputs[k]);
        if (it == packed.end()) continue;
        read.insert(it->first);
        const auto& r = step.released_constants;
        it->second = it->second && std::find(r.begin(), r.end(), k) != r.end();
      }
      for (const DeviceCopy& c : step.copies_before) {
        auto it = packed.find(c.src);
        if (it != packed.end()) it->second = false;
      }
    }
  }
  const int64_t released_before = released_constants_;
  for (auto& [t, ok] : packed) {
    if (!ok || !read.contains(t)) continue;
    released_constant_bytes_ += t->nbytes();
    ++released_constants_;
    // Shared packs are keyed by the constant's address, which the next
    // allocation may reuse (core/packed_constants.h).
    scope_.packed_constants->Forget(*t);
    const_cast<Tensor*>(t)->Release();
    released_.insert(t);
  }
  if (released_constants_ > released_before) ReturnFreeHeapMemory();
}

absl::Status Net::BindMemory(Plan* plan) {
  const MemoryPlan& m = plan->memory();
  if (!m.enabled || m.blobs.empty()) return absl::OkStatus();
  for (const auto& [device, bytes] : m.arena_bytes) {
    std::shared_ptr<Buffer>& arena = arenas_[device];
    if (arena && arena->size() >= bytes) continue;
    if (arena) {
      // Grown for a larger plan: tensors placed in the old arena let it go
      // first (they are placed again when their plan next runs).
      const Buffer* old = arena.get();
      auto release_old = [old](const MemoryPlan& placed) {
        for (const PlannedBlob& b : placed.blobs) {
          if (b.tensor->buffer().get() == old) b.tensor->Release();
        }
      };
      for (auto& [sig, p] : plans_) release_old(p->memory());
      release_old(m);  // a plan just built is not in plans_ yet
      arena.reset();
    }
    absl::StatusOr<std::shared_ptr<Buffer>> a = Buffer::AllocateFromDevice(device, bytes);
    if (!a.ok()) {
      return absl::Status(a.status().code(), absl::StrCat("net '", checked_->def.name(), "': memory plan: arena of ",
                                                          bytes, " bytes: ", a.status().message()));
    }
    arena = *std::move(a);
    ++arena_allocations_;
  }
  // Place each blob, unless it is still where the plan put it (another net
  // on this workspace, or the caller, may have moved it).
  for (const PlannedBlob& b : m.blobs) {
    const std::shared_ptr<Buffer>& arena = arenas_[b.device];
    Tensor* t = b.tensor;
    if (t->buffer() == arena && t->is_planned() && t->raw_data() == static_cast<char*>(arena->data()) + b.offset &&
        t->dtype() == b.dtype && t->dims() == b.dims) {
      continue;
    }
    *t = Tensor::Planned(arena, b.offset, b.capacity, b.dtype, b.dims);
  }
  return absl::OkStatus();
}

void Net::UnplanMemory(Plan* plan) {
  for (const PlannedBlob& b : plan->memory().blobs) {
    if (b.tensor->is_planned()) b.tensor->Release();
  }
  ClearMemoryPlan(plan);
}

absl::Status Net::UseSignatureValues(const Plan& plan) {
  if (&plan == values_plan_) return absl::OkStatus();
  if (absl::Status s = RestoreSignatureValues(plan); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("net '", checked_->def.name(), "': ", s.message()));
  }
  values_plan_ = &plan;
  return absl::OkStatus();
}

absl::StatusOr<Plan*> Net::Prepare() {
  absl::StatusOr<Plan*> plan = PrepareCached();
  if (!plan.ok()) return plan;
  if (absl::Status s = UseSignatureValues(**plan); !s.ok()) return s;
  if (absl::Status s = BindMemory(*plan); !s.ok()) return s;
  return plan;
}

void Net::SetRecomputedOnBackward(std::set<std::string> names) {
  if (names == recomputed_) return;
  recomputed_ = std::move(names);
  if (!timestep_ || !options_.plan_memory || multi_stream_) return;
  for (auto& [sig, p] : plans_) {
    UnplanMemory(p.get());
    PlanTimestepMemory(*checked_, *ws_, p.get(), recomputed_);
  }
}

absl::StatusOr<Plan*> Net::PrepareTimestep() {
  if (!timestep_) {
    timestep_ = true;
    for (auto& [sig, p] : plans_) {
      UnplanMemory(p.get());
      if (options_.plan_memory && !multi_stream_) PlanTimestepMemory(*checked_, *ws_, p.get(), recomputed_);
    }
    arenas_.clear();
  }
  absl::StatusOr<Plan*> plan = PrepareCached();
  if (!plan.ok()) return plan;
  if (absl::Status s = UseSignatureValues(**plan); !s.ok()) return s;
  return plan;
}

absl::StatusOr<Plan*> Net::PrepareCached() {
  // The signature: dtype and dims of every input, as raw bytes.
  signature_.clear();
  for (const std::string& name : signature_inputs_) {
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
    if (released_constants_ > 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "net '", checked_->def.name(), "': the registry changed (a plugin was loaded or unloaded) and the ",
          "static_shape net's plans must be rebuilt, but their kernels packed the weights and the originals are ",
          "freed; create the net again"));
    }
    plans_.clear();
    last_plan_ = nullptr;  // freed with them
    values_plan_ = nullptr;
    plans_generation_ = registry_->generation();
  }
  auto it = plans_.find(signature_);
  if (it != plans_.end()) return it->second.get();
  if (options_.static_shape && !plans_.empty() && !planning_buckets_) {
    std::string found;
    for (const std::string& name : signature_inputs_) {
      if (checked_->constants.count(name)) continue;
      absl::StrAppend(&found, found.empty() ? "" : ", ", name, " ", ws_->GetBlob(name)->DebugString());
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "net '", checked_->def.name(), "' has static_shape and runs only the ", plans_.size(),
        " input signature(s) it planned first (the first Run's, or PlanBuckets'); found ", found,
        ". Declare every signature with PlanBuckets before the first Run, or turn static_shape off"));
  }
  if (static_cast<int>(plans_.size()) >= options_.max_cached_plans && !options_.static_shape) {
    plans_.clear();
    last_plan_ = nullptr;  // freed with them
    values_plan_ = nullptr;
  }
  // Run-time sized outputs come from the net's pool when it plans memory or
  // shares its enclosing net's; else straight from the device.
  BufferPool* run_pool = options_.plan_memory || scope_.pool != nullptr ? pool_.get() : nullptr;
  absl::StatusOr<std::unique_ptr<Plan>> plan = BuildPlan(*checked_, *registry_, ws_, options_.num_threads, &limits_,
                                                               scope_.packed_constants, run_pool, options_.fpmath_mode);
  if (!plan.ok()) return plan.status();
  ++plans_built_;
  if (options_.plan_memory && !multi_stream_) {
    if (timestep_) {
      PlanTimestepMemory(*checked_, *ws_, plan->get(), recomputed_);
    } else {
      PlanMemory(*checked_, *ws_, MemoryPlanOptions(), plan->get());
    }
  }
  for (PlanStep& step : (*plan)->steps()) step.ctx.poison_released_memory = options_.poison_released_memory;
  for (size_t i = 0; i < (*plan)->steps().size(); ++i) {
    const PlanStep& step = (*plan)->steps()[i];
    profile_.ops[i].kernel = step.kernel->Describe();
    int64_t bytes = 0;
    for (size_t k = 0; k < step.inferred_shapes.size(); ++k) bytes += InferredOutputBytes(step, k);
    profile_.ops[i].output_bytes = bytes;
  }
  Plan* built = (plans_[signature_] = *std::move(plan)).get();
  values_plan_ = built;  // its folds just wrote its signature values
  if (!planning_buckets_) ReleasePackedConstants();
  return built;
}

absl::Status Net::Run() {
  absl::StatusOr<Plan*> plan = Prepare();
  if (!plan.ok()) return plan.status();
  // Another signature (a bucket): the pool's free buffers were sized for
  // the last one (core/buffer_pool.h).
  // A pool shared with the enclosing net is left alone: its free buffers
  // are sized for that net's tensors as much as for this one's.
  if (options_.plan_memory && scope_.pool == nullptr && last_plan_ != nullptr && *plan != last_plan_) pool_->NewSignature();
  last_plan_ = *plan;
  if (multi_stream_ && !options_.enable_profiling) {
    Device* device = PlanDevice(**plan, *registry_);
    if (device != nullptr) {
      if (streams_ == nullptr || streams_->device() != device) streams_ = std::make_unique<StreamSet>(device);
      return RunMultiStream(**plan, streams_.get(), max_streams_);
    }
  }
  absl::Status s = RunSequential(**plan, options_.enable_profiling ? &profile_ : nullptr);
  ReleaseAfterRun(**plan);
  return s;
}

}  // namespace loom
