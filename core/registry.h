// The registry of operator schemas, kernels, devices and plugins.
//
// Operators are keyed by (domain, op type), as in ONNX: two plugins may each
// define `Attention` in their own domain. "" and "ai.onnx" both name ONNX's
// default domain (stored as ""); Loom's own operators are in "loom". How an
// op of a NetDef finds its schema is ResolveSchema's rule below.
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

// ONNX's default domain as the registry stores it ("ai.onnx" is read as "").
inline constexpr char kOnnxDomain[] = "";
// The domain of Loom's own operators (FusedConv, NchwcConv, the gradient ops).
inline constexpr char kLoomDomain[] = LOOM_OPS_DOMAIN;

// `domain` with "ai.onnx" mapped to "" (ONNX's default domain).
std::string CanonicalDomain(const std::string& domain);
// A domain for messages: "ai.onnx" for "" (ONNX's default domain).
std::string DomainForMessages(const std::string& canonical_domain);
// "SoftShrink" for an op of ONNX's default domain, "com.acme.SoftShrink"
// otherwise: how plugin records, loom_inspect and messages name an op.
std::string QualifiedOpType(const std::string& domain, const std::string& op_type);

// A schema's key: canonical domain and op type.
struct OpKey {
  std::string domain;
  std::string op_type;
  bool operator<(const OpKey& o) const { return domain != o.domain ? domain < o.domain : op_type < o.op_type; }
  bool operator==(const OpKey& o) const { return domain == o.domain && op_type == o.op_type; }
};

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
  std::string domain;  // canonical: "" for ONNX's default domain
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
  // When the planner may run the op at plan time (ABI 11's LoomFoldKind;
  // core/plan_passes.h FoldConstantOp).
  LoomFoldKind fold = LOOM_FOLD_NEVER;
  bool allow_unknown_attrs = false;
  std::string plugin;  // the plugin that registered it

  OpKey key() const { return {domain, op_type}; }
  const AttrSpec* FindAttr(const std::string& name) const;
  const TypeConstraint* FindConstraint(const std::string& type_str) const;
  // The formal parameter that actual input/output `index` binds to.
  const FormalParam* InputParam(size_t index) const;
  const FormalParam* OutputParam(size_t index) const;
};

// A kernel implementation for (domain, op_type, device, engine). The domain
// is bound when the kernel is registered (RegistrationTransaction::AddKernel).
struct KernelDef {
  std::string op_type;
  std::string domain;  // canonical
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
  // What it registered; ops named by QualifiedOpType.
  std::vector<std::string> schemas, kernels, devices;
  std::vector<std::string> gradients;  // ops it gave a gradient maker apart from their schema (ABI 7)
};

class Registry;

// Staged registrations of one plugin; committed all-or-nothing.
class RegistrationTransaction {
 public:
  RegistrationTransaction(Registry* registry, std::string path) : registry_(registry), path_(std::move(path)) {}
  absl::Status Declare(const LoomPluginInfo& info);
  // ALREADY_EXISTS if (domain, op_type) is taken.
  absl::Status AddSchema(const LoomSchemaDef& def);
  // Binds the kernel to a schema: of LoomKernelDef.domain where given (ABI
  // 10), else BindingSchema's choice. NOT_FOUND names the op and domain.
  absl::Status AddKernel(const LoomKernelDef& def);
  absl::Status AddDevice(const LoomDeviceDef& def);
  // A gradient maker for `op_type` (bound as a kernel without a domain is),
  // whose schema has none (ABI 7, LoomApi::RegisterGradient).
  absl::Status AddGradient(const std::string& op_type, LoomGradientFn fn);
  bool declared() const { return declared_; }
  const PluginRecord& record() const { return record_; }

 private:
  friend class Registry;
  // The schema a kernel or gradient for `op_type` binds to when no domain
  // is stated: this plugin's own schema of that type; else ONNX's; else the
  // one schema of that type in any domain. NOT_FOUND when there is none,
  // FAILED_PRECONDITION (naming the domains) when several could be meant.
  absl::StatusOr<OpKey> BindingSchema(const std::string& op_type, const std::string& where) const;
  const OpSchema* StagedSchema(const OpKey& key) const;
  Registry* registry_;
  std::string path_;
  bool declared_ = false;
  PluginRecord record_;
  std::vector<std::unique_ptr<OpSchema>> schemas_;
  std::vector<std::unique_ptr<KernelDef>> kernels_;
  std::vector<LoomDeviceDef> devices_;
  std::vector<std::string> device_names_;
  std::vector<std::pair<OpKey, LoomGradientFn>> gradients_;
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

  // The schema of (domain, op_type) exactly ("ai.onnx" read as ""); nullptr
  // if none.
  const OpSchema* FindSchema(const std::string& domain, const std::string& op_type) const;
  // The schema an op of a NetDef means. A stated domain ("ai.onnx"
  // included) is strict: the schema of that (domain, op_type), else
  // NOT_FOUND saying whether the domain is served at all and where else the
  // type is. An empty domain (saved NetDefs, nets built in code, ops the
  // core adds) means ONNX's schema of that type if there is one, else the
  // one schema of that type in any domain; FAILED_PRECONDITION names the
  // domains when several are.
  absl::StatusOr<const OpSchema*> ResolveSchema(const std::string& domain, const std::string& op_type) const;
  // ResolveSchema("", op_type), nullptr on error: for tools and tests.
  const OpSchema* FindSchema(const std::string& op_type) const;
  // The gradient maker of `schema`'s op: the schema's own, else one a plugin
  // registered apart (RegisterGradient); nullptr: none.
  LoomGradientFn FindGradient(const OpSchema& schema) const;
  // FindGradient of FindSchema(op_type); nullptr if either is missing.
  LoomGradientFn FindGradient(const std::string& op_type) const;
  // The plugin that registered `key`'s gradient apart from its schema
  // (RegisterGradient); "" when none did.
  std::string GradientOwner(const OpKey& key) const;
  std::vector<const KernelDef*> KernelsFor(const OpKey& key) const;
  // KernelsFor the schema FindSchema(op_type) finds; empty if none.
  std::vector<const KernelDef*> KernelsFor(const std::string& op_type) const;
  // Selects the kernel for an op of `schema` on `device`: among those whose
  // dtype constraints accept `bindings` (type_str -> dtype), the one with
  // `engine` (if given and present, else the default engines) and the
  // highest priority. NOT_FOUND lists every kernel that exists for the op.
  absl::StatusOr<const KernelDef*> SelectKernel(const OpSchema& schema, const std::string& device,
                                                const std::string& engine,
                                                const std::map<std::string, DataType>& bindings) const;
  // SelectKernel for the schema FindSchema(op_type) finds (tests, tools).
  absl::StatusOr<const KernelDef*> SelectKernel(const std::string& op_type, const std::string& device,
                                                const std::string& engine,
                                                const std::map<std::string, DataType>& bindings) const;
  bool HasKernelForDevice(const OpKey& key, const std::string& device) const;
  bool HasKernelForDevice(const std::string& op_type, const std::string& device) const;
  // Device `type` ordinal `id`; nullptr if that device is not registered or
  // the ordinal is out of range.
  Device* FindDevice(const std::string& type, int id) const;
  std::vector<std::string> DeviceTypes() const;

  std::vector<PluginRecord> Plugins() const;
  // A copy: records of plugins loaded meanwhile do not invalidate it.
  std::optional<PluginRecord> FindPlugin(const std::string& name) const;
  bool IsLoadedPath(const std::string& canonical_path) const;
  // Every schema, sorted by (domain, op type).
  std::vector<const OpSchema*> Schemas() const;
  // The domains schemas are registered in, canonical, sorted.
  std::vector<std::string> Domains() const;

  // Bumped by every successful Commit.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

 private:
  friend class RegistrationTransaction;
  // Owner of a colliding entry, or "" if none (caller holds mu_ or not: reads only).
  std::string SchemaOwner(const OpKey& key) const;
  std::string KernelOwner(const KernelDef& k) const;
  bool DeviceExists(const std::string& name) const;
  // Every committed schema of `op_type`, in domain order.
  std::vector<const OpSchema*> SchemasOfType(const std::string& op_type) const;

  mutable absl::Mutex mu_;
  std::map<OpKey, std::unique_ptr<OpSchema>> schemas_;
  std::map<std::string, std::vector<const OpSchema*>> schemas_by_type_;  // op_type -> its schemas
  std::map<OpKey, std::vector<std::unique_ptr<KernelDef>>> kernels_;
  std::map<std::string, std::vector<std::unique_ptr<Device>>> devices_;
  std::map<OpKey, std::pair<LoomGradientFn, std::string>> gradients_;  // op -> (maker, plugin)
  std::vector<PluginRecord> plugins_;
  std::atomic<uint64_t> generation_{0};
};

// Two kernels collide when they share (domain, op_type, device, engine) and some
// dtype binding is accepted by both.
bool KernelsOverlap(const KernelDef& a, const KernelDef& b);

}  // namespace loom

#endif  // LOOM_CORE_REGISTRY_H_
