// loom.Workspace (Caffe2's workspace verbs over loom::Workspace and
// loom::Net): blobs fed from and fetched to numpy (copies, as Caffe2's
// FeedBlob and FetchBlob), nets created by name with NetOptions and run
// once or many times, their memory figures and profiles, checkpoints; and
// loom.Trace (core/trace.h).
//
// One mutex per workspace: a run releases the GIL and holds it, so other
// Python threads go on, and a feed or fetch from another thread waits for
// the run instead of racing it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "core/autodiff/checkpoint.h"
#include "core/net.h"
#include "core/registry.h"
#include "core/trace.h"
#include "core/workspace.h"
#include "python/src/bindings.h"
#include "python/src/numpy_tensor.h"
#include "python/src/proto_bytes.h"
#include "python/src/status.h"

namespace py = pybind11;

namespace loom {
namespace python {
namespace {

class PyWorkspace {
 public:
  explicit PyWorkspace(std::shared_ptr<Registry> registry) : registry_(std::move(registry)) {}

  const std::shared_ptr<Registry>& registry() const { return registry_; }

  void FeedBlob(const std::string& name, const py::handle& value) {
    // Strings (numpy object / 'U' / 'S' arrays) as Session.run takes them;
    // lists stay arrays here (numpy.asarray), as they always were.
    const py::array a = py::array::ensure(value);
    const bool strings = a && IsStringArray(a);
    Tensor t = strings ? FeedValue(a, DataType::kUndefined, "blob '" + name + "'") : CopyArray(value, "blob '" + name + "'");
    absl::MutexLock lock(&mu_);
    ws_.SetBlob(name, std::move(t));
  }

  py::object FetchBlob(const std::string& name) {
    absl::MutexLock lock(&mu_);
    const Tensor* t = ws_.GetBlob(name);
    if (t == nullptr) Check(absl::NotFoundError(absl::StrCat("the workspace has no blob '", name, "'")));
    if (t->dtype() == DataType::kUndefined) {
      Check(absl::FailedPreconditionError(absl::StrCat("blob '", name, "' holds no tensor yet")));
    }
    if (t->is_value() || t->dtype() == DataType::kString) return ShareValue(Value(t->Clone()));  // str objects, lists
    return CopyTensor(*t);
  }

  bool HasBlob(const std::string& name) {
    absl::MutexLock lock(&mu_);
    return ws_.HasBlob(name);
  }
  std::vector<std::string> Blobs() {
    absl::MutexLock lock(&mu_);
    return ws_.LocalBlobNames();
  }
  bool RemoveBlob(const std::string& name) {
    absl::MutexLock lock(&mu_);
    return ws_.RemoveBlob(name);
  }

  std::string CreateNet(const py::bytes& def_bytes, std::string name, const NetOptions& options,
                        const std::string& executor, bool overwrite) {
    NetDef def = ParseBytes<NetDef>(def_bytes, "the net");
    if (name.empty()) name = def.name();
    if (name.empty()) Check(absl::InvalidArgumentError("create_net: the net has no name; pass name="));
    if (!executor.empty()) def.set_type(executor);
    absl::MutexLock lock(&mu_);
    if (!overwrite && nets_.count(name)) {
      Check(absl::AlreadyExistsError(absl::StrCat("create_net: a net named '", name, "' exists (overwrite=True replaces it)")));
    }
    nets_.erase(name);  // before the new one is made: the old one's plans let go of their memory first
    nets_[name] = Value(Net::Create(std::move(def), &ws_, registry_.get(), options));
    return name;
  }

  void RunNet(const std::string& name, int64_t num_iter) {
    py::gil_scoped_release nogil;
    absl::MutexLock lock(&mu_);
    Net* net = Find(name);
    for (int64_t i = 0; i < num_iter; ++i) {
      absl::Status s = net->Run();
      if (!s.ok()) {
        Check(absl::Status(s.code(), num_iter == 1 ? absl::StrCat("net '", name, "': ", s.message())
                                                   : absl::StrCat("net '", name, "', run ", i, ": ", s.message())));
      }
    }
  }

  void RunNetOnce(const py::bytes& def_bytes, const NetOptions& options) {
    NetDef def = ParseBytes<NetDef>(def_bytes, "the net");
    py::gil_scoped_release nogil;
    absl::MutexLock lock(&mu_);
    std::unique_ptr<Net> net = Value(Net::Create(std::move(def), &ws_, registry_.get(), options));
    Check(net->Run());
  }

  void PlanBuckets(const std::string& name, const std::vector<std::map<std::string, Shape>>& buckets) {
    std::vector<std::vector<std::pair<std::string, Shape>>> b;
    for (const auto& bucket : buckets) b.emplace_back(bucket.begin(), bucket.end());
    py::gil_scoped_release nogil;
    absl::MutexLock lock(&mu_);
    Check(Find(name)->PlanBuckets(b));
  }

  py::dict NetStats(const std::string& name) {
    absl::MutexLock lock(&mu_);
    const Net* net = Find(name);
    py::dict d;
    d["plans_built"] = net->plans_built();
    d["cached_plans"] = net->cached_plans();
    d["arena_bytes"] = net->arena_bytes();
    d["arena_allocations"] = net->arena_allocations();
    d["released_constants"] = net->released_constants();
    d["released_constant_bytes"] = net->released_constant_bytes();
    const BufferPool& pool = net->pool();
    d["pool_in_use_bytes"] = pool.in_use_bytes();
    d["pool_high_water_bytes"] = pool.high_water_bytes();
    d["pool_free_bytes"] = pool.free_bytes();
    d["pool_device_allocations"] = pool.device_allocations();
    return d;
  }

  py::dict NetProfile(const std::string& name, bool reset) {
    absl::MutexLock lock(&mu_);
    Net* net = Find(name);
    const Profile& p = net->profile();
    py::dict d;
    d["runs"] = p.runs;
    d["total_ms"] = p.total_ms;
    py::list ops;
    for (const OpProfile& op : p.ops) {
      py::dict o;
      o["label"] = op.label;
      o["op_type"] = op.op_type;
      o["kernel"] = op.kernel;
      o["total_ms"] = op.total_ms;
      o["runs"] = op.runs;
      o["output_bytes"] = op.output_bytes;
      ops.append(o);
    }
    d["ops"] = ops;
    py::dict by_type;
    for (const auto& [type, t] : p.by_type) by_type[py::str(type)] = py::make_tuple(t.total_ms, t.calls);
    d["by_type"] = by_type;
    d["table"] = p.ToString();
    if (reset) net->ResetProfile();
    return d;
  }

  void SetProfiling(const std::string& name, bool on) {
    absl::MutexLock lock(&mu_);
    Find(name)->set_profiling(on);
  }

  std::vector<std::string> Nets() {
    absl::MutexLock lock(&mu_);
    std::vector<std::string> names;
    for (const auto& [n, net] : nets_) names.push_back(n);
    return names;
  }

  void DeleteNet(const std::string& name) {
    absl::MutexLock lock(&mu_);
    Find(name);
    nets_.erase(name);
  }

  void Save(const std::vector<std::string>& names, const std::string& dir) {
    py::gil_scoped_release nogil;
    absl::MutexLock lock(&mu_);
    Check(SaveCheckpoint(ws_, names, dir));
  }

  std::vector<std::string> Load(const std::string& dir) {
    std::vector<std::string> names;
    py::gil_scoped_release nogil;
    absl::MutexLock lock(&mu_);
    Check(LoadCheckpoint(dir, &ws_, &names));
    return names;
  }

 private:
  Net* Find(const std::string& name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = nets_.find(name);
    if (it == nets_.end()) {
      std::vector<std::string> names;
      for (const auto& [n, net] : nets_) names.push_back(n);
      Check(absl::NotFoundError(absl::StrCat("the workspace has no net '", name, "' (it has: ",
                                             names.empty() ? "none" : absl::StrJoin(names, ", "), ")")));
    }
    return it->second.get();
  }

  // Declared in this order so the nets go first, then the blobs they use,
  // then the registry whose kernels made them.
  std::shared_ptr<Registry> registry_;
  absl::Mutex mu_;
  Workspace ws_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<Net>> nets_ ABSL_GUARDED_BY(mu_);
};

NetOptions MakeNetOptions(int num_threads, bool plan_memory, bool static_shape, bool enable_profiling,
                          int max_cached_plans, int64_t max_tensor_bytes, int max_nesting_depth,
                          int64_t max_loop_iterations, const std::string& fpmath_mode) {
  NetOptions o;
  o.num_threads = num_threads;
  o.plan_memory = plan_memory;
  o.static_shape = static_shape;
  o.enable_profiling = enable_profiling;
  o.max_cached_plans = max_cached_plans;
  o.max_tensor_bytes = max_tensor_bytes;
  o.max_nesting_depth = max_nesting_depth;
  o.max_loop_iterations = max_loop_iterations;
  o.fpmath_mode = Value(ParseFpMathMode(fpmath_mode));
  return o;
}

}  // namespace

void BindWorkspace(py::module_& m) {
  py::class_<NetOptions>(m, "NetOptions")
      .def(py::init(&MakeNetOptions), py::kw_only(), py::arg("num_threads") = 0, py::arg("plan_memory") = true,
           py::arg("static_shape") = false, py::arg("enable_profiling") = false, py::arg("max_cached_plans") = 64,
           py::arg("max_tensor_bytes") = kDefaultMaxTensorBytes, py::arg("max_nesting_depth") = kDefaultMaxNestingDepth,
           py::arg("max_loop_iterations") = kDefaultMaxLoopIterations, py::arg("fpmath_mode") = "strict")
      .def_readwrite("num_threads", &NetOptions::num_threads)
      .def_readwrite("plan_memory", &NetOptions::plan_memory)
      .def_readwrite("static_shape", &NetOptions::static_shape)
      .def_readwrite("enable_profiling", &NetOptions::enable_profiling)
      .def_readwrite("max_cached_plans", &NetOptions::max_cached_plans)
      .def_readwrite("max_tensor_bytes", &NetOptions::max_tensor_bytes)
      .def_readwrite("max_nesting_depth", &NetOptions::max_nesting_depth)
      .def_readwrite("max_loop_iterations", &NetOptions::max_loop_iterations)
      .def_property(
          "fpmath_mode", [](const NetOptions& o) { return std::string(FpMathModeName(o.fpmath_mode)); },
          [](NetOptions& o, const std::string& m) { o.fpmath_mode = Value(ParseFpMathMode(m)); });

  py::class_<PyWorkspace>(m, "Workspace")
      .def(py::init<std::shared_ptr<Registry>>(), py::arg("registry"))
      .def_property_readonly("registry", &PyWorkspace::registry)
      .def("feed_blob", &PyWorkspace::FeedBlob, py::arg("name"), py::arg("value"))
      .def("fetch_blob", &PyWorkspace::FetchBlob, py::arg("name"))
      .def("has_blob", &PyWorkspace::HasBlob, py::arg("name"))
      .def("blobs", &PyWorkspace::Blobs)
      .def("remove_blob", &PyWorkspace::RemoveBlob, py::arg("name"))
      .def("create_net", &PyWorkspace::CreateNet, py::arg("net"), py::arg("name"), py::arg("options"),
           py::arg("executor"), py::arg("overwrite"))
      .def("run_net", &PyWorkspace::RunNet, py::arg("name"), py::arg("num_iter") = 1)
      .def("run_net_once", &PyWorkspace::RunNetOnce, py::arg("net"), py::arg("options"))
      .def("plan_buckets", &PyWorkspace::PlanBuckets, py::arg("name"), py::arg("buckets"))
      .def("net_stats", &PyWorkspace::NetStats, py::arg("name"))
      .def("net_profile", &PyWorkspace::NetProfile, py::arg("name"), py::arg("reset") = false)
      .def("set_profiling", &PyWorkspace::SetProfiling, py::arg("name"), py::arg("on"))
      .def("nets", &PyWorkspace::Nets)
      .def("delete_net", &PyWorkspace::DeleteNet, py::arg("name"))
      .def("save_checkpoint", &PyWorkspace::Save, py::arg("names"), py::arg("dir"))
      .def("load_checkpoint", &PyWorkspace::Load, py::arg("dir"));

  py::class_<TraceRecorder>(m, "TraceRecorder")
      .def(py::init<>())
      .def("start", &TraceRecorder::Start)
      .def("stop", &TraceRecorder::Stop)
      .def("write_json", [](const TraceRecorder& t, const std::string& path) { Check(t.WriteJson(path)); },
           py::arg("path"))
      .def("__len__", &TraceRecorder::size);
}

}  // namespace python
}  // namespace loom
