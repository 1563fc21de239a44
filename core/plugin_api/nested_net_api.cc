// The nested-net part of the LoomApi table: workspaces, aliases, nets and
// timestep executors, for operators that run subgraphs (RecurrentNetwork,
// If, Loop, Scan).
#include "core/plugin_api/api_table.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "core/buffer_pool.h"
#include "core/executor/multi_stream_executor.h"
#include "core/executor/sequential_executor.h"
#include "core/executor/timestep_executor.h"
#include "core/net.h"
#include "core/status_bridge.h"

namespace loom {
namespace internal {
std::atomic<int> live_timestep_executors{0};
}  // namespace internal
int LiveTimestepExecutors() { return internal::live_timestep_executors.load(); }
}  // namespace loom

struct LoomNet {
  std::unique_ptr<loom::Net> net;
  std::string label;
};

// A timestep executor owned by a kernel: its thread pool or device streams
// are made on first use and freed with it.
struct LoomTimestepExecutor {
  LoomTimestepExecutor(int threads, int parallel) : num_threads(threads), max_parallel(parallel) {
    loom::internal::live_timestep_executors.fetch_add(1);
  }
  ~LoomTimestepExecutor() { loom::internal::live_timestep_executors.fetch_sub(1); }
  const int num_threads;
  const int max_parallel;
  bool keep_intermediates = false;  // TimestepExecutor_KeepIntermediates (ABI 6)
  absl::Mutex mu;
  std::unique_ptr<loom::ThreadedTimestepExecutor> threaded;
  std::unique_ptr<loom::StreamSet> streams;
};

namespace loom {
namespace {

LoomStatus* Err(LoomStatusCode code, const std::string& m) { return new LoomStatus{code, m}; }

LoomWorkspace* Ctx_Workspace(LoomKernelContext* c) {
  c->workspace_handle.ws = c->workspace;
  return &c->workspace_handle;
}

LoomWorkspace* Workspace_CreateChild(LoomWorkspace* parent) {
  auto child = std::make_unique<Workspace>(parent->ws);
  Workspace* raw = child.get();
  auto* handle = new LoomWorkspace();
  handle->ws = raw;
  handle->owned = std::move(child);
  return handle;
}

void Workspace_Release(LoomWorkspace* ws) { delete ws; }

LoomTensor* Workspace_GetBlob(LoomWorkspace* ws, const char* name) {
  Tensor* t = ws->ws->GetBlob(name);
  return t ? ToHandle(t) : nullptr;
}

LoomTensor* Workspace_CreateBlob(LoomWorkspace* ws, const char* name) { return ToHandle(ws->ws->CreateBlob(name)); }

// No kernel context here, so no net: the default limits, memory from the
// device (a kernel with a context uses LoomKernelContextApi::ResizeTensor).
LoomStatus* Tensor_Resize(LoomTensor* t, LoomDataType dtype, const int64_t* dims, size_t rank) {
  Shape shape(dims, dims + rank);
  Tensor* tensor = FromHandle(t);
  if (tensor->dtype() != static_cast<DataType>(dtype) || tensor->dims() != shape) {
    absl::Status s = CheckTensorSize(DefaultLimits(), "Tensor_Resize: a nested net's blob", static_cast<DataType>(dtype), shape);
    if (!s.ok()) return ToLoomStatus(s);
  }
  return ToLoomStatus(tensor->ResizeOrCheckAlias(static_cast<DataType>(dtype), std::move(shape)));
}

LoomStatus* Tensor_Alias(LoomTensor* dst, const LoomTensor* src, int64_t begin, int64_t end) {
  absl::StatusOr<Tensor> slice = FromHandle(src)->Slice(begin, end);
  if (!slice.ok()) return ToLoomStatus(slice.status());
  *FromHandle(dst) = *std::move(slice);
  return nullptr;
}

void Tensor_Release(LoomTensor* t) { FromHandle(t)->Release(); }

LoomStatus* Tensor_Copy(LoomTensor* dst, const LoomTensor* src) {
  absl::Status s = CopyTensorBytes(*FromHandle(src), FromHandle(dst));
  if (!s.ok()) return Err(static_cast<LoomStatusCode>(s.code()), absl::StrCat("Tensor_Copy: ", s.message()));
  return nullptr;
}

LoomStatus* Net_Create(LoomKernelContext* c, LoomWorkspace* ws, const void* data, size_t size, int num_threads,
                       LoomNet** out) {
  // A nested net is one deeper than the net its op runs in; refused before
  // it is parsed, so If/Loop bodies nested without end stop here.
  const NetLimits& parent = c->limits != nullptr ? *c->limits : DefaultLimits();
  const int depth = parent.nesting_depth + 1;
  if (parent.max_nesting_depth > 0 && depth > parent.max_nesting_depth) {
    return Err(LOOM_RESOURCE_EXHAUSTED,
               absl::StrCat(*c->label, ": a nested net (If/Loop/Scan body or step net) at nesting depth ", depth,
                            " exceeds the limit max_nesting_depth = ", parent.max_nesting_depth,
                            "; raise it with NetOptions::max_nesting_depth or loom_run --max_nesting_depth"));
  }
  if (size > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Err(LOOM_INVALID_ARGUMENT, absl::StrCat(*c->label, ": nested NetDef of ", size, " bytes is over 2 GiB"));
  }
  NetDef def;
  {
    // protobuf's default recursion limit (100 messages, about 33 nested
    // nets) would refuse nets max_nesting_depth allows, with a vague error;
    // allow what the remaining depth needs (3 messages per nesting level).
    google::protobuf::io::CodedInputStream in(static_cast<const uint8_t*>(data), static_cast<int>(size));
    const int remaining = parent.max_nesting_depth > 0 ? parent.max_nesting_depth - depth : 1000;
    in.SetRecursionLimit(std::max(100, 3 * remaining + 100));
    if (!def.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
      return Err(LOOM_INVALID_ARGUMENT, absl::StrCat(*c->label, ": nested NetDef does not parse"));
    }
  }
  // The user's settings as the enclosing net has them ...
  NetOptions opts;
  opts.num_threads = num_threads;
  opts.max_tensor_bytes = parent.max_tensor_bytes;
  opts.max_nesting_depth = parent.max_nesting_depth;
  opts.max_loop_iterations = parent.max_loop_iterations;
  opts.poison_released_memory = c->poison_released_memory;
  opts.fpmath_mode = static_cast<FpMathMode>(c->fpmath_mode);
  // ... and its scope, one level deeper (core/net_scope.h). What is constant
  // in that net stays constant in the nested one: a body's Conv prepacks
  // weights it reads from the enclosing graph's initializers, in the
  // enclosing net's store (one copy per constant and layout, not one per
  // timestep); run-time sized outputs come from its pool, so the nested nets
  // of consecutive ops reuse the same buffers.
  NetScope scope;
  if (c->net_constants != nullptr) scope.outer_constants = *c->net_constants;
  scope.packed_constants = c->packs;
  if (c->pool != nullptr) scope.pool = c->pool->shared_from_this();
  scope.nesting_depth = depth;
  auto net = Net::Create(def, ws->ws, c->registry, std::move(opts), std::move(scope));
  if (!net.ok()) {
    return Err(static_cast<LoomStatusCode>(net.status().code()),
               absl::StrCat(*c->label, ": step net '", def.name(), "': ", net.status().message()));
  }
  *out = new LoomNet{*std::move(net), *c->label};
  return nullptr;
}

LoomStatus* Net_Run(LoomNet* n) { return ToLoomStatus(n->net->Run()); }

void Net_Release(LoomNet* n) { delete n; }

// Prepares nets[0..count) and runs them as timesteps on `exec`.
LoomStatus* RunOn(LoomTimestepExecutor* exec, LoomNet* const* nets, size_t count, const char* const* pairs,
                  size_t num_pairs) {
  if (count == 0) return nullptr;
  std::vector<Plan*> plans;
  for (size_t t = 0; t < count; ++t) {
    // Timestep plans: each timestep's intermediates go back to the pool when
    // it is done, so about max_parallel timesteps hold memory, not all.
    absl::StatusOr<Plan*> p = nets[t]->net->PrepareTimestep();
    if (!p.ok()) return ToLoomStatus(absl::Status(p.status().code(), absl::StrCat("timestep ", t, ": ", p.status().message())));
    plans.push_back(*p);
  }
  if (exec->num_threads <= 0) {
    for (size_t t = 0; t < count; ++t) {
      absl::Status s = RunSequential(*plans[t], nullptr);
      ReleaseTimestep(*plans[t], exec->keep_intermediates);
      if (!s.ok()) return ToLoomStatus(absl::Status(s.code(), absl::StrCat("timestep ", t, ": ", s.message())));
    }
    return nullptr;
  }
  std::vector<std::pair<std::string, std::string>> recurrent;
  for (size_t i = 0; i < num_pairs; ++i) recurrent.emplace_back(pairs[2 * i], pairs[2 * i + 1]);
  StepNetDependencies deps = AnalyzeStepNet(nets[0]->net->def(), recurrent);
  absl::MutexLock l(&exec->mu);  // one run at a time per executor
  if (Device* device = PlanDevice(*plans[0], *nets[0]->net->registry())) {
    // On a device with streams: timestep t on stream t mod num_threads.
    if (exec->streams == nullptr || exec->streams->device() != device) exec->streams = std::make_unique<StreamSet>(device);
    // Ops of many timesteps are queued on the streams at once: their
    // intermediates go back only after the streams are drained.
    absl::Status s = RunTimestepsMultiStream(plans, deps, exec->streams.get(), exec->num_threads);
    // After a failure work may still be queued: the memory stays until a
    // run succeeds.
    if (s.ok()) {
      for (Plan* p : plans) ReleaseTimestep(*p, exec->keep_intermediates);
    }
    return ToLoomStatus(s);
  }
  if (exec->threaded == nullptr) {
    exec->threaded = std::make_unique<ThreadedTimestepExecutor>(
        TimestepExecutorOptions{exec->num_threads, exec->max_parallel, exec->keep_intermediates});
  }
  return ToLoomStatus(exec->threaded->Run(plans, deps));
}

LoomStatus* TimestepExecutor_Create(int num_threads, int max_parallel, LoomTimestepExecutor** out) {
  if (out == nullptr) return Err(LOOM_INVALID_ARGUMENT, "TimestepExecutor_Create: null output");
  *out = new LoomTimestepExecutor(num_threads, max_parallel);
  return nullptr;
}

void TimestepExecutor_Release(LoomTimestepExecutor* exec) { delete exec; }

void Net_ReleaseTimestep(LoomNet* n) {
  if (n == nullptr) return;
  absl::StatusOr<Plan*> plan = n->net->PrepareTimestep();  // the cached plan of the last run
  if (plan.ok()) ReleaseAfterRun(**plan);
}

void Net_SetRecomputedOnBackward(LoomNet* n, const char* const* names, size_t count) {
  if (n == nullptr) return;
  std::set<std::string> set;
  for (size_t i = 0; names != nullptr && i < count; ++i) {
    if (names[i] != nullptr) set.insert(names[i]);
  }
  n->net->SetRecomputedOnBackward(std::move(set));
}

void TimestepExecutor_KeepIntermediates(LoomTimestepExecutor* exec, int keep) {
  if (exec == nullptr) return;
  absl::MutexLock l(&exec->mu);
  exec->keep_intermediates = keep != 0;
  exec->threaded.reset();  // made again with the option on its next run
}

LoomStatus* TimestepExecutor_Run(LoomTimestepExecutor* exec, LoomNet* const* nets, size_t count,
                                 const char* const* pairs, size_t num_pairs) {
  if (exec == nullptr) return Err(LOOM_INVALID_ARGUMENT, "TimestepExecutor_Run: null executor");
  return RunOn(exec, nets, count, pairs, num_pairs);
}

// ABI 1's entry point: an executor for this call only, so nothing is shared
// between calls (kernels that run often keep one with TimestepExecutor_Create).
LoomStatus* RunTimesteps(LoomNet* const* nets, size_t count, const char* const* pairs, size_t num_pairs,
                         int num_threads, int max_parallel) {
  LoomTimestepExecutor exec(num_threads, max_parallel);
  return RunOn(&exec, nets, count, pairs, num_pairs);
}

}  // namespace

void FillNestedNetApi(LoomApi* a) {
  a->Ctx_Workspace = Ctx_Workspace;
  a->Workspace_CreateChild = Workspace_CreateChild;
  a->Workspace_Release = Workspace_Release;
  a->Workspace_GetBlob = Workspace_GetBlob;
  a->Workspace_CreateBlob = Workspace_CreateBlob;
  a->Tensor_Resize = Tensor_Resize;
  a->Tensor_Alias = Tensor_Alias;
  a->Tensor_Copy = Tensor_Copy;
  a->Tensor_Release = Tensor_Release;
  a->Net_Create = Net_Create;
  a->Net_Run = Net_Run;
  a->Net_Release = Net_Release;
  a->RunTimesteps = RunTimesteps;
  a->TimestepExecutor_Create = TimestepExecutor_Create;
  a->TimestepExecutor_Release = TimestepExecutor_Release;
  a->TimestepExecutor_Run = TimestepExecutor_Run;
  a->TimestepExecutor_KeepIntermediates = TimestepExecutor_KeepIntermediates;
  a->Net_ReleaseTimestep = Net_ReleaseTimestep;
  a->Net_SetRecomputedOnBackward = Net_SetRecomputedOnBackward;
  a->KernelThreadsFor = KernelThreadsFor;
}

}  // namespace loom
