#include "session/session.h"

#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/checked_net.h"
#include "core/proto_io.h"
#include "onnx/onnx_pb.h"
#include "frontend/onnx/onnx_importer.h"
#include "session/device_placement.h"
#include "session/registry_setup.h"
#include "transforms/optimize.h"

namespace loom {

struct Session::Runner {
  explicit Runner(const Workspace* weights) : ws(weights) {}
  Workspace ws;  // over the session's weights
  std::unique_ptr<Net> net;
};

namespace {

// The inputs or outputs an ONNX graph declares (initializers are not inputs).
std::vector<TensorInfo> Declared(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& values,
                                 const std::set<std::string>& skip) {
  std::vector<TensorInfo> out;
  for (const onnx::ValueInfoProto& v : values) {
    if (skip.count(v.name())) continue;
    TensorInfo info;
    info.name = v.name();
    if (v.type().has_tensor_type()) {
      const onnx::TypeProto::Tensor& t = v.type().tensor_type();
      info.dtype = static_cast<DataType>(t.elem_type());
      info.shape_known = t.has_shape();
      for (const onnx::TensorShapeProto::Dimension& d : t.shape().dim()) {
        info.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
        info.dim_names.push_back(d.has_dim_param() ? d.dim_param() : "");
      }
    }
    out.push_back(std::move(info));
  }
  return out;
}

absl::Status CheckOptions(const SessionOptions& options) {
  if (options.optimization_level != 0 && options.optimization_level != 1) {
    return absl::InvalidArgumentError(absl::StrCat("SessionOptions::optimization_level is ", options.optimization_level,
                                                   "; expected 0 (none) or 1 (all)"));
  }
  return absl::OkStatus();
}

// Fills the types `infos` leave undeclared (a NetDef's inputs, an ONNX
// sequence or optional) from the types the importer declared.
void FillTypes(const NetDef& net, bool inputs, std::vector<TensorInfo>* infos) {
  for (TensorInfo& i : *infos) {
    if (i.dtype != DataType::kUndefined) continue;
    i.dtype = inputs ? onnx_import::DeclaredInputType(net, i.name) : onnx_import::DeclaredOutputType(net, i.name);
  }
}

std::string Names(const std::vector<TensorInfo>& infos) {
  std::vector<std::string> names;
  for (const TensorInfo& i : infos) names.push_back(i.name);
  return absl::StrJoin(names, ", ");
}

}  // namespace

absl::StatusOr<std::unique_ptr<Session>> Session::FromOnnxFile(const std::string& path, const SessionOptions& options) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(absl::StrCat("Session: cannot read ", path));
  std::stringstream bytes;
  bytes << f.rdbuf();
  return FromOnnx(bytes.str(), FolderOf(path), options);  // external data lives beside the file
}

absl::StatusOr<std::unique_ptr<Session>> Session::FromOnnxBytes(const std::string& model, const SessionOptions& options) {
  return FromOnnx(model, options.external_data_dir, options);
}

absl::StatusOr<std::unique_ptr<Session>> Session::FromOnnx(const std::string& model, const std::string& folder,
                                                           const SessionOptions& options) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;  // before the import
  onnx::ModelProto proto;
  if (!proto.ParseFromString(model)) return absl::InvalidArgumentError("Session: the bytes are not an ONNX model");
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : proto.graph().initializer()) initializers.insert(t.name());
  std::vector<TensorInfo> inputs = Declared(proto.graph().input(), initializers);
  std::vector<TensorInfo> outputs = Declared(proto.graph().output(), {});
  absl::StatusOr<NetDef> net = onnx_import::ImportOnnxModel(model, folder);
  if (!net.ok()) return net.status();
  transforms::OptimizeOptions optimize;
  optimize.level = options.optimization_level;
  optimize.device = options.device;  // the blocked layout is a CPU matter: NchwcConv has no kernel elsewhere
  transforms::Optimize(&*net, optimize);
  FillTypes(*net, /*inputs=*/true, &inputs);
  FillTypes(*net, /*inputs=*/false, &outputs);
  return Make(*std::move(net), std::move(inputs), std::move(outputs), options);
}

absl::StatusOr<std::unique_ptr<Session>> Session::FromNetDef(NetDef net, const SessionOptions& options) {
  std::set<std::string> initializers;
  for (const TensorProto& t : net.initializer()) initializers.insert(t.name());
  std::vector<TensorInfo> inputs, outputs;
  for (const std::string& name : net.external_input()) {
    if (!initializers.count(name)) inputs.push_back({name});
  }
  for (const std::string& name : net.external_output()) outputs.push_back({name});
  FillTypes(net, /*inputs=*/true, &inputs);
  FillTypes(net, /*inputs=*/false, &outputs);
  return Make(std::move(net), std::move(inputs), std::move(outputs), options);
}

absl::StatusOr<std::unique_ptr<Session>> Session::Make(NetDef net, std::vector<TensorInfo> inputs,
                                                       std::vector<TensorInfo> outputs, const SessionOptions& options) {
  if (outputs.empty()) return absl::InvalidArgumentError(absl::StrCat("Session: net '", net.name(), "' declares no outputs"));
  if (absl::Status checked = CheckOptions(options); !checked.ok()) return checked;  // before loading plugins
  std::unique_ptr<Session> s(new Session());
  s->options_ = options;
  absl::StatusOr<std::unique_ptr<Registry>> registry = loom::MakeRegistry(options.plugins, &s->warnings_);
  if (!registry.ok()) return registry.status();
  s->registry_ = *std::move(registry);
  if (!options.device.empty()) {
    const std::string what = absl::StrCat("SessionOptions::device '", options.device, "': ");
    absl::StatusOr<DeviceOption> device = loom::ParseDeviceName(options.device);
    if (!device.ok()) return absl::InvalidArgumentError(absl::StrCat(what, device.status().message()));
    absl::Status usable = loom::RequireDevice(*device, s->registry_.get(), "cuda");
    if (!usable.ok()) return absl::Status(usable.code(), absl::StrCat(what, usable.message()));
    std::set<std::string> on_host;
    loom::PlaceOnDevice(&net, *device, *s->registry_, /*fallback=*/true, &on_host);
    // Large float weights onto a non-host device once (they land in
    // weights_, which the loop below then leaves alone).
    if (!s->registry_->FindDevice(device->device_type(), device->device_id())->is_host()) {
      absl::StatusOr<int> moved = loom::PreloadWeights(net, *device, &s->weights_, s->registry_.get());
      if (!moved.ok()) return moved.status();
    }
  }
  // The weights once, in the session's workspace; the net keeps their
  // names, types and dims (so kernels still see them as constants).
  for (TensorProto& init : *net.mutable_initializer()) {
    if (!s->weights_.HasBlob(init.name())) {  // not preloaded on the device
      absl::StatusOr<Tensor> t = TensorFromProto(init);
      if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat("Session: initializer '", init.name(), "': ", t.status().message()));
      s->weights_.SetBlob(init.name(), *std::move(t));
    }
    TensorProto meta = InitializerMetadata(init);
    init.Swap(&meta);
  }
  for (const OperatorDef& op : net.op()) {
    for (const std::string& out : op.output()) {
      for (const TensorInfo& in : inputs) {
        if (in.name == out) s->written_inputs_.insert(out);
      }
    }
  }
  s->net_ = std::move(net);
  s->inputs_ = std::move(inputs);
  s->outputs_ = std::move(outputs);
  // One runner now: a model that cannot run fails here, not at the first Run.
  absl::StatusOr<std::unique_ptr<Runner>> first = s->NewRunner();
  if (!first.ok()) return first.status();
  absl::MutexLock lock(&s->mu_);
  s->idle_.push_back(*std::move(first));
  s->runners_ = 1;
  return s;
}

Session::~Session() {
  absl::MutexLock lock(&mu_);
  idle_.clear();  // nets before the weights and the registry
}

absl::StatusOr<std::unique_ptr<Session::Runner>> Session::NewRunner() const {
  auto r = std::make_unique<Runner>(&weights_);
  NetOptions o;
  o.num_threads = options_.num_threads;
  o.plan_memory = options_.plan_memory;
  o.max_tensor_bytes = options_.max_tensor_bytes;
  o.fpmath_mode = options_.fpmath_mode;
  NetScope scope;
  scope.packed_constants = packs_;  // the runners share the packed weights
  absl::StatusOr<std::unique_ptr<Net>> net = Net::Create(net_, &r->ws, registry_.get(), o, scope);
  if (!net.ok()) return net.status();
  r->net = *std::move(net);
  return r;
}

int Session::runners() const {
  absl::MutexLock lock(&mu_);
  return runners_;
}

absl::Status Session::RunWith(const std::vector<std::pair<std::string, Tensor>>& feeds,
                             const std::vector<std::string>& fetches,
                             const std::function<absl::Status(size_t, const Tensor&)>& take) const {
  std::vector<std::string> names = fetches;
  if (names.empty()) {
    for (const TensorInfo& o : outputs_) names.push_back(o.name);
  }
  for (const std::string& n : names) {
    bool known = false;
    for (const TensorInfo& o : outputs_) known = known || o.name == n;
    if (!known) return absl::InvalidArgumentError(absl::StrCat("Session::Run: no output '", n, "'; the outputs are ", Names(outputs_)));
  }
  std::set<std::string> fed;
  for (const auto& [name, t] : feeds) {
    const TensorInfo* declared = nullptr;
    for (const TensorInfo& i : inputs_) declared = i.name == name ? &i : declared;
    if (declared == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("Session::Run: no input '", name, "'; the inputs are ", Names(inputs_)));
    }
    // As ONNX Runtime: a feed of another type than the model declares is
    // refused here, not misread by a kernel.
    if (declared->dtype != DataType::kUndefined && t.dtype() != declared->dtype) {
      return absl::InvalidArgumentError(absl::StrCat("Session::Run: input '", name, "' is ", DataTypeName(t.dtype()),
                                                     "; the model declares ", DataTypeName(declared->dtype)));
    }
    if (!t.device()->is_host()) {
      return absl::InvalidArgumentError(absl::StrCat("Session::Run: input '", name, "' is on ", t.device()->type(),
                                                     "; inputs are host tensors"));
    }
    fed.insert(name);
  }
  for (const TensorInfo& i : inputs_) {
    if (!fed.count(i.name)) return absl::InvalidArgumentError(absl::StrCat("Session::Run: input '", i.name, "' is not fed"));
  }
  std::unique_ptr<Runner> runner;
  {
    absl::MutexLock lock(&mu_);
    if (!idle_.empty()) {
      runner = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (runner == nullptr) {
    absl::StatusOr<std::unique_ptr<Runner>> made = NewRunner();
    if (!made.ok()) return made.status();
    runner = *std::move(made);
    absl::MutexLock lock(&mu_);
    ++runners_;
  }
  // Whatever happens below (an exception from `take` included), the
  // caller's buffers are let go of and the runner goes back to the pool.
  struct Return {
    const Session* session;
    std::unique_ptr<Runner>* runner;
    const std::vector<std::pair<std::string, Tensor>>* feeds;
    ~Return() {
      for (const auto& [name, t] : *feeds) (*runner)->ws.SetBlob(name, Tensor());
      absl::MutexLock lock(&session->mu_);
      session->idle_.push_back(std::move(*runner));
    }
  } give_back{this, &runner, &feeds};
  for (const auto& [name, t] : feeds) {
    if (written_inputs_.count(name)) {  // an op writes it in place: the caller's values are not to change
      absl::StatusOr<Tensor> copy = t.Clone();
      if (!copy.ok()) return copy.status();
      runner->ws.SetBlob(name, *std::move(copy));
    } else {
      runner->ws.SetBlob(name, t);  // shares the buffer, no copy
    }
  }
  absl::Status s = runner->net->Run();
  for (size_t i = 0; s.ok() && i < names.size(); ++i) {
    const Tensor* t = runner->ws.GetBlob(names[i]);
    s = t != nullptr ? take(i, *t)
                     : absl::InternalError(absl::StrCat("Session::Run: the net left no output '", names[i], "'"));
  }
  return s;
}

absl::StatusOr<std::vector<Tensor>> Session::Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                                                 const std::vector<std::string>& fetches) const {
  std::vector<Tensor> out;
  absl::Status s = RunWith(feeds, fetches, [&out](size_t, const Tensor& t) -> absl::Status {
    absl::StatusOr<Tensor> copy = t.Clone();  // the runner's buffers are reused by its next run
    if (!copy.ok()) return copy.status();
    out.push_back(*std::move(copy));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::Status Session::Run(const std::vector<std::pair<std::string, Tensor>>& feeds, const std::vector<std::string>& fetches,
                          std::vector<Tensor>* outputs) const {
  const size_t expected = fetches.empty() ? outputs_.size() : fetches.size();
  if (outputs->size() != expected) {
    return absl::InvalidArgumentError(absl::StrCat("Session::Run: ", expected, " outputs fetched, ", outputs->size(), " given"));
  }
  return RunWith(feeds, fetches, [&](size_t i, const Tensor& src) {
    return CopyOutputInto(fetches.empty() ? outputs_[i].name : fetches[i], src, &(*outputs)[i]);
  });
}

absl::Status CopyOutputInto(const std::string& name, const Tensor& src, Tensor* dst) {
  if (dst->dtype() != src.dtype() || dst->num_elements() != src.num_elements() || !dst->device()->is_host()) {
    return absl::InvalidArgumentError(absl::StrCat("Session::Run: output '", name, "' is ", src.DebugString(),
                                                   "; the buffer given is ", dst->DebugString(),
                                                   dst->device()->is_host() ? "" : " (not on the host)"));
  }
  return CopyTensorBytes(src, dst);  // from a device too
}

}  // namespace loom
