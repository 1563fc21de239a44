// The registry of operator schemas, kernels, devices and plugins.
//
// Everything enters through a plugin's registration transaction (the C ABI
// in core/api/loom_c_api.h): a RegistrationTransaction stages schemas,
// kernels and devices, and Commit adds them all or nothing. Each commit bumps
// generation(), so a cached plan can tell that a plugin was loaded after it
// was built. Thread-safe: lookups may race loads. Schemas, kernels and
// devices are never removed, so the pointers lookups return stay valid for
// the registry's life; plugin records are returned by value.
#ifndef LOOM_CORE_REGISTRY_H_
#define LOOM_CORE_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/api/loom_c_api.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/proto/loom.pb.h"

namespace loom {

struct FormalParam {
  std::string name;
  std::string type_str;  // constraint name ("T") or "tensor(int64)"
  LoomParamOption option = LOOM_PARAM_SINGLE;
  std::string doc;
};

struct AttrSpec {
  std::string name;
  LoomAttrType type = LOOM_ATTR_UNDEFINED;
  bool required = false;
  bool has_default = false;
  Argument default_value;  // set when has_default; its name is `name`
  std::string doc;
};

struct TypeConstraint {
  std::string type_str;
  std::vector<DataType> allowed;
  std::string doc;
};

// An operator's definition (ONNX-style schema).
struct OpSchema {
  std::string op_type;
  std::string domain;
  int since_version = 1;
  std::string doc;
  std::vector<FormalParam> inputs;
  std::vector<FormalParam> outputs;
  int min_inputs = 0, max_inputs = 0, min_outputs = 0, max_outputs = 0;  // max -1: unbounded
  std::vector<AttrSpec> attrs;
  std::vector<TypeConstraint> type_constraints;
  std::vector<std::pair<int, int>> inplace;  // (input, output)
  LoomInferFn infer = nullptr;
  // Caffe2 GradientMakerBase (core/autodiff/gradient.h); nullptr: not
  // implemented.
  LoomGradientFn gradient = nullptr;
  bool allow_unknown_attrs = false;
  std::string plugin;  // the plugin that registered it

  const AttrSpec* FindAttr(const std::string& name) const;
  const TypeConstraint* FindConstraint(const std::string& type_str) const;
  // The formal parameter that actual input/output `index` binds to.
  const FormalParam* InputParam(size_t index) const;
  const FormalParam* OutputParam(size_t index) const;
};

// A kernel implementation for (op_type, device, engine).
struct KernelDef {
  std::string op_type;
  std::string device;
  std::string engine;
  int priority = 0;
  std::vector<TypeConstraint> type_constraints;  // dtypes this kernel handles
  LoomKernelCreateFn create = nullptr;
  LoomKernelDestroyFn destroy = nullptr;
  LoomKernelComputeFn compute = nullptr;
  LoomKernelPrepareFn prepare = nullptr;  // optional (ABI 2)
  std::string plugin;

  // True if the kernel handles `dtype` for constraint `type_str`.
  bool Accepts(const std::string& type_str, DataType dtype) const;
  // "CPU/DNNL (float32) priority 10 from cpu"
  std::string Describe() const;
};

struct PluginRecord {
  std::string name;
  std::string version;
  uint32_t abi_version = 0;
  std::string path;  // file it was loaded from; "<built-in>" for linked-in ones
  std::vector<std::string> schemas, kernels, devices;  // what it registered
  std::vector<std::string> gradients;  // ops it gave a gradient maker apart from their schema (ABI 7)
};

class Registry;

// Staged registrations of one plugin; committed all-or-nothing.
class RegistrationTransaction {
 public:
  RegistrationTransaction(Registry* registry, std::string path) : registry_(registry), path_(std::move(path)) {}
  absl::Status Declare(const LoomPluginInfo& info);
  absl::Status AddSchema(const LoomSchemaDef& def);
  absl::Status AddKernel(const LoomKernelDef& def);
  absl::Status AddDevice(const LoomDeviceDef& def);
  // A gradient maker for `op_type`, whose schema has none (ABI 7,
  // LoomApi::RegisterGradient).
  absl::Status AddGradient(const std::string& op_type, LoomGradientFn fn);
  bool declared() const { return declared_; }
  const PluginRecord& record() const { return record_; }

 private:
  friend class Registry;
  Registry* registry_;
  std::string path_;
  bool declared_ = false;
  PluginRecord record_;
  std::vector<std::unique_ptr<OpSchema>> schemas_;
  std::vector<std::unique_ptr<KernelDef>> kernels_;
  std::vector<LoomDeviceDef> devices_;
  std::vector<std::string> device_names_;
  std::vector<std::pair<std::string, LoomGradientFn>> gradients_;
};

class Registry {
 public:
  // The first Registry of a process turns off Abseil's debug-build Mutex
  // deadlock detection for the process (see registry.cc: it costs about
  // 35 ns per lock on the run path).
  Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Adds everything staged in `txn`, or nothing: fails with ALREADY_EXISTS if
  // a schema, kernel key or device collides with one committed meanwhile.
  absl::Status Commit(RegistrationTransaction& txn);

  const OpSchema* FindSchema(const std::string& op_type) const;
  // The gradient maker of `op_type`: its schema's, else one a plugin
  // registered apart (RegisterGradient); nullptr: none.
  LoomGradientFn FindGradient(const std::string& op_type) const;
  // The plugin that registered `op_type`'s gradient apart from its schema
  // (RegisterGradient); "" when none did.
  std::string GradientOwner(const std::string& op_type) const;
  std::vector<const KernelDef*> KernelsFor(const std::string& op_type) const;
  // Selects the kernel for an op on `device`: among those whose dtype
  // constraints accept `bindings` (type_str -> dtype), the one with
  // `engine` (if given and present, else the default engines) and the
  // highest priority. NOT_FOUND lists every kernel that exists for the op.
  absl::StatusOr<const KernelDef*> SelectKernel(const std::string& op_type, const std::string& device,
                                                const std::string& engine,
                                                const std::map<std::string, DataType>& bindings) const;
  bool HasKernelForDevice(const std::string& op_type, const std::string& device) const;
  // Device `type` ordinal `id`; nullptr if that device is not registered or
  // the ordinal is out of range.
  Device* FindDevice(const std::string& type, int id) const;
  std::vector<std::string> DeviceTypes() const;

  std::vector<PluginRecord> Plugins() const;
  // A copy: records of plugins loaded meanwhile do not invalidate it.
  std::optional<PluginRecord> FindPlugin(const std::string& name) const;
  bool IsLoadedPath(const std::string& canonical_path) const;
  std::vector<std::string> OpTypes() const;  // sorted

  // Bumped by every successful Commit.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

 private:
  friend class RegistrationTransaction;
  // Owner of a colliding entry, or "" if none (caller holds mu_ or not: reads only).
  std::string SchemaOwner(const std::string& op_type) const;
  std::string KernelOwner(const KernelDef& k) const;
  bool DeviceExists(const std::string& name) const;

  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<OpSchema>> schemas_;
  std::map<std::string, std::vector<std::unique_ptr<KernelDef>>> kernels_;
  std::map<std::string, std::vector<std::unique_ptr<Device>>> devices_;
  std::map<std::string, std::pair<LoomGradientFn, std::string>> gradients_;  // op -> (maker, plugin)
  std::vector<PluginRecord> plugins_;
  std::atomic<uint64_t> generation_{0};
};

// Two kernels collide when they share (op_type, device, engine) and some
// dtype binding is accepted by both.
bool KernelsOverlap(const KernelDef& a, const KernelDef& b);

}  // namespace loom

#endif  // LOOM_CORE_REGISTRY_H_
