// The nested-net part of the LoomApi table: workspaces, aliases, nets and
// the timestep executor, for operators such as RecurrentNetwork.
#include "core/c_api_nested.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/executor/multi_stream_executor.h"
#include "core/executor/sequential_executor.h"
#include "core/executor/timestep_executor.h"
#include "core/net.h"
#include "core/status_bridge.h"

struct LoomNet {
  std::unique_ptr<loom::Net> net;
  std::string label;
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

LoomStatus* Tensor_Resize(LoomTensor* t, LoomDataType dtype, const int64_t* dims, size_t rank) {
  return ToLoomStatus(FromHandle(t)->ResizeOrCheckAlias(static_cast<DataType>(dtype), Shape(dims, dims + rank)));
}

LoomStatus* Tensor_Alias(LoomTensor* dst, const LoomTensor* src, int64_t begin, int64_t end) {
  absl::StatusOr<Tensor> slice = FromHandle(src)->Slice(begin, end);
  if (!slice.ok()) return ToLoomStatus(slice.status());
  *FromHandle(dst) = *std::move(slice);
  return nullptr;
}

LoomStatus* Tensor_Copy(LoomTensor* dst, const LoomTensor* src) {
  absl::Status s = CopyTensorBytes(*FromHandle(src), FromHandle(dst));
  if (!s.ok()) return Err(static_cast<LoomStatusCode>(s.code()), absl::StrCat("Tensor_Copy: ", s.message()));
  return nullptr;
}

LoomStatus* Net_Create(LoomKernelContext* c, LoomWorkspace* ws, const void* data, size_t size, int num_threads,
                       LoomNet** out) {
  NetDef def;
  if (!def.ParseFromArray(data, static_cast<int>(size))) {
    return Err(LOOM_INVALID_ARGUMENT, absl::StrCat(*c->label, ": nested NetDef does not parse"));
  }
  NetOptions opts;
  opts.num_threads = num_threads;
  auto net = Net::Create(def, ws->ws, c->registry, opts);
  if (!net.ok()) {
    return Err(static_cast<LoomStatusCode>(net.status().code()),
               absl::StrCat(*c->label, ": step net '", def.name(), "': ", net.status().message()));
  }
  *out = new LoomNet{*std::move(net), *c->label};
  return nullptr;
}

LoomStatus* Net_Run(LoomNet* n) { return ToLoomStatus(n->net->Run()); }

void Net_Release(LoomNet* n) { delete n; }

LoomStatus* RunTimesteps(LoomNet* const* nets, size_t count, const char* const* pairs, size_t num_pairs,
                         int num_threads, int max_parallel) {
  if (count == 0) return nullptr;
  std::vector<Plan*> plans;
  for (size_t t = 0; t < count; ++t) {
    absl::StatusOr<Plan*> p = nets[t]->net->Prepare();
    if (!p.ok()) return ToLoomStatus(absl::Status(p.status().code(), absl::StrCat("timestep ", t, ": ", p.status().message())));
    plans.push_back(*p);
  }
  if (num_threads <= 0) {
    for (size_t t = 0; t < count; ++t) {
      absl::Status s = RunSequential(*plans[t], nullptr);
      if (!s.ok()) return ToLoomStatus(absl::Status(s.code(), absl::StrCat("timestep ", t, ": ", s.message())));
    }
    return nullptr;
  }
  std::vector<std::pair<std::string, std::string>> recurrent;
  for (size_t i = 0; i < num_pairs; ++i) recurrent.emplace_back(pairs[2 * i], pairs[2 * i + 1]);
  StepNetDependencies deps = AnalyzeStepNet(nets[0]->net->def(), recurrent);
  if (Device* device = PlanDevice(*plans[0], *nets[0]->net->registry())) {
    // On a device with streams: timestep t on stream t mod num_threads.
    static absl::Mutex stream_mu(absl::kConstInit);
    static auto* stream_sets = new std::map<Device*, std::unique_ptr<StreamSet>>();
    absl::MutexLock l(&stream_mu);  // one recurrent network at a time per process on a device
    std::unique_ptr<StreamSet>& set = (*stream_sets)[device];
    if (set == nullptr) set = std::make_unique<StreamSet>(device);
    return ToLoomStatus(RunTimestepsMultiStream(plans, deps, set.get(), num_threads));
  }
  // One executor per (threads, parallel) setting, kept for the process.
  static absl::Mutex mu(absl::kConstInit);
  static auto* executors = new std::vector<std::pair<std::pair<int, int>, std::unique_ptr<ThreadedTimestepExecutor>>>();
  static auto* busy = new std::vector<bool>();
  ThreadedTimestepExecutor* exec = nullptr;
  size_t slot = 0;
  {
    absl::MutexLock l(&mu);
    for (size_t i = 0; i < executors->size(); ++i) {
      if ((*executors)[i].first == std::make_pair(num_threads, max_parallel) && !(*busy)[i]) {
        exec = (*executors)[i].second.get();
        slot = i;
        break;
      }
    }
    if (exec == nullptr) {
      executors->emplace_back(std::make_pair(num_threads, max_parallel),
                              std::make_unique<ThreadedTimestepExecutor>(TimestepExecutorOptions{num_threads, max_parallel}));
      busy->push_back(false);
      slot = executors->size() - 1;
      exec = executors->back().second.get();
    }
    (*busy)[slot] = true;
  }
  absl::Status s = exec->Run(plans, deps);
  {
    absl::MutexLock l(&mu);
    (*busy)[slot] = false;
  }
  return ToLoomStatus(s);
}

}  // namespace

void FillNestedApi(LoomApi* a) {
  a->Ctx_Workspace = Ctx_Workspace;
  a->Workspace_CreateChild = Workspace_CreateChild;
  a->Workspace_Release = Workspace_Release;
  a->Workspace_GetBlob = Workspace_GetBlob;
  a->Workspace_CreateBlob = Workspace_CreateBlob;
  a->Tensor_Resize = Tensor_Resize;
  a->Tensor_Alias = Tensor_Alias;
  a->Tensor_Copy = Tensor_Copy;
  a->Net_Create = Net_Create;
  a->Net_Run = Net_Run;
  a->Net_Release = Net_Release;
  a->RunTimesteps = RunTimesteps;
  a->KernelThreadsFor = KernelThreadsFor;
}

}  // namespace loom
