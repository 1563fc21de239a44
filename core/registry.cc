#include "core/registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "core/abi_reader.h"

namespace loom {
namespace {

std::string Str(const char* s) { return s ? std::string(s) : std::string(); }

absl::StatusOr<std::vector<TypeConstraint>> CopyConstraints(const LoomTypeConstraint* in, size_t n,
                                                            uint32_t abi_version) {
  absl::StatusOr<std::vector<LoomTypeConstraint>> c = ReadTypeConstraints(in, n, abi_version);
  if (!c.ok()) return c.status();
  std::vector<TypeConstraint> out;
  for (const LoomTypeConstraint& e : *c) {
    TypeConstraint tc{Str(e.type_str), {}, Str(e.doc)};
    for (size_t j = 0; j < e.num_allowed; ++j) tc.allowed.push_back(static_cast<DataType>(e.allowed[j]));
    out.push_back(std::move(tc));
  }
  return out;
}

}  // namespace

std::string CanonicalDomain(const std::string& domain) { return domain == "ai.onnx" ? std::string() : domain; }

std::string DomainForMessages(const std::string& canonical_domain) {
  return canonical_domain.empty() ? std::string("ai.onnx") : canonical_domain;
}

std::string QualifiedOpType(const std::string& domain, const std::string& op_type) {
  const std::string d = CanonicalDomain(domain);
  return d.empty() ? op_type : absl::StrCat(d, ".", op_type);
}

const AttrSpec* OpSchema::FindAttr(const std::string& name) const {
  for (const auto& a : attrs) if (a.name == name) return &a;
  return nullptr;
}

const TypeConstraint* OpSchema::FindConstraint(const std::string& type_str) const {
  for (const auto& c : type_constraints) if (c.type_str == type_str) return &c;
  return nullptr;
}

static const FormalParam* ParamAt(const std::vector<FormalParam>& params, size_t index) {
  if (params.empty()) return nullptr;
  if (index < params.size()) return &params[index];
  if (params.back().option == LOOM_PARAM_VARIADIC) return &params.back();
  return nullptr;
}

const FormalParam* OpSchema::InputParam(size_t index) const { return ParamAt(inputs, index); }
const FormalParam* OpSchema::OutputParam(size_t index) const { return ParamAt(outputs, index); }

bool KernelDef::Accepts(const std::string& type_str, DataType dtype) const {
  for (const auto& c : type_constraints) {
    if (c.type_str == type_str) return std::find(c.allowed.begin(), c.allowed.end(), dtype) != c.allowed.end();
  }
  return true;
}

std::string KernelDef::Describe() const {
  std::vector<std::string> tcs;
  for (const auto& c : type_constraints) {
    std::vector<std::string> names;
    for (DataType d : c.allowed) names.push_back(DataTypeName(d));
    tcs.push_back(absl::StrCat(c.type_str, ": ", absl::StrJoin(names, "|")));
  }
  return absl::StrCat(device, engine.empty() ? "" : "/", engine, " (", tcs.empty() ? "any dtype" : absl::StrJoin(tcs, ", "),
                      ") priority ", priority, " from plugin '", plugin, "'");
}

bool KernelsOverlap(const KernelDef& a, const KernelDef& b) {
  if (a.op_type != b.op_type || a.domain != b.domain || a.device != b.device || a.engine != b.engine) return false;
  for (const auto& ca : a.type_constraints) {
    for (const auto& cb : b.type_constraints) {
      if (ca.type_str != cb.type_str) continue;
      bool common = false;
      for (DataType d : ca.allowed) {
        if (std::find(cb.allowed.begin(), cb.allowed.end(), d) != cb.allowed.end()) common = true;
      }
      if (!common) return false;
    }
  }
  return true;
}

// ---- RegistrationTransaction ------------------------------------------------

absl::Status RegistrationTransaction::Declare(const LoomPluginInfo& in) {
  if (declared_) return absl::FailedPreconditionError("DeclarePlugin called twice");
  // The same layout in every version: readable before the version is known.
  absl::StatusOr<LoomPluginInfo> read = ReadStruct(&in, LOOM_ABI_VERSION, "LoomPluginInfo");
  if (!read.ok()) return read.status();
  const LoomPluginInfo& info = *read;
  std::string name = Str(info.name);
  if (name.empty()) return absl::InvalidArgumentError("plugin declared an empty name");
  if (info.abi_version < LOOM_ABI_MIN_VERSION || info.abi_version > LOOM_ABI_VERSION) {
    return absl::FailedPreconditionError(absl::StrCat("plugin '", name, "' was built for Loom ABI version ",
                                                      info.abi_version, "; this core provides ABI versions ",
                                                      LOOM_ABI_MIN_VERSION, " to ", LOOM_ABI_VERSION));
  }
  if (std::optional<PluginRecord> existing = registry_->FindPlugin(name)) {
    return absl::AlreadyExistsError(absl::StrCat("plugin '", name, "' is already loaded from ", existing->path));
  }
  declared_ = true;
  record_.name = name;
  record_.version = Str(info.version);
  record_.abi_version = info.abi_version;
  record_.path = path_;
  return absl::OkStatus();
}

static absl::Status NotDeclared() {
  return absl::FailedPreconditionError("plugin registered before calling DeclarePlugin");
}

absl::Status RegistrationTransaction::AddSchema(const LoomSchemaDef& in) {
  if (!declared_) return NotDeclared();
  absl::StatusOr<LoomSchemaDef> read = ReadStruct(&in, record_.abi_version, "LoomSchemaDef");
  if (!read.ok()) return read.status();
  const LoomSchemaDef& def = *read;
  const uint32_t abi = record_.abi_version;
  absl::Status st;
  auto s = std::make_unique<OpSchema>();
  s->op_type = Str(def.op_type);
  if (s->op_type.empty()) return absl::InvalidArgumentError(absl::StrCat("plugin '", record_.name, "' registered a schema with no op_type"));
  s->domain = CanonicalDomain(Str(def.domain));
  std::string owner = registry_->SchemaOwner(s->key());
  if (StagedSchema(s->key()) != nullptr) owner = record_.name;
  if (!owner.empty()) {
    return absl::AlreadyExistsError(absl::StrCat("plugin '", record_.name, "': schema '", s->op_type, "' of domain '",
                                                 DomainForMessages(s->domain), "' is already registered by plugin '",
                                                 owner, "'"));
  }
  s->since_version = def.since_version;
  s->doc = Str(def.doc);
  auto params = [&](const LoomFormalParam* in, size_t n, std::vector<FormalParam>* out) -> absl::Status {
    absl::StatusOr<std::vector<LoomFormalParam>> p = ReadFormalParams(in, n, abi);
    if (!p.ok()) return absl::Status(p.status().code(), absl::StrCat("schema '", s->op_type, "': ", p.status().message()));
    for (const LoomFormalParam& e : *p) out->push_back({Str(e.name), Str(e.type_str), e.option, Str(e.doc)});
    return absl::OkStatus();
  };
  if (st = params(def.inputs, def.num_inputs, &s->inputs); !st.ok()) return st;
  if (st = params(def.outputs, def.num_outputs, &s->outputs); !st.ok()) return st;
  auto bounds = [&](const std::vector<FormalParam>& ps, int* mn, int* mx, const char* what) -> absl::Status {
    *mn = 0; *mx = static_cast<int>(ps.size());
    bool optional_seen = false;
    for (size_t i = 0; i < ps.size(); ++i) {
      if (ps[i].option == LOOM_PARAM_VARIADIC) {
        if (i + 1 != ps.size()) return absl::InvalidArgumentError(absl::StrCat("schema '", s->op_type, "': variadic ", what, " '", ps[i].name, "' must be last"));
        *mx = -1;
        if (!optional_seen) *mn = static_cast<int>(i) + 1;
      } else if (ps[i].option == LOOM_PARAM_OPTIONAL) {
        optional_seen = true;
      } else if (!optional_seen) {
        *mn = static_cast<int>(i) + 1;
      }
    }
    return absl::OkStatus();
  };
  st = bounds(s->inputs, &s->min_inputs, &s->max_inputs, "input");
  if (!st.ok()) return st;
  st = bounds(s->outputs, &s->min_outputs, &s->max_outputs, "output");
  if (!st.ok()) return st;
  absl::StatusOr<std::vector<LoomAttrSpec>> attrs = ReadAttrSpecs(def.attrs, def.num_attrs, abi);
  if (!attrs.ok()) {
    return absl::Status(attrs.status().code(), absl::StrCat("schema '", s->op_type, "': ", attrs.status().message()));
  }
  for (const LoomAttrSpec& a : *attrs) {
    AttrSpec spec;
    spec.name = Str(a.name);
    spec.type = a.type;
    spec.required = a.required != 0;
    spec.has_default = a.has_default != 0;
    spec.doc = Str(a.doc);
    if (spec.has_default) {
      Argument& d = spec.default_value;
      d.set_name(spec.name);
      switch (a.type) {
        case LOOM_ATTR_INT: d.set_i(a.default_int); break;
        case LOOM_ATTR_FLOAT: d.set_f(a.default_float); break;
        case LOOM_ATTR_STRING: d.set_s(Str(a.default_string)); break;
        case LOOM_ATTR_INTS: for (size_t j = 0; j < a.num_default_ints; ++j) d.add_ints(a.default_ints[j]); break;
        case LOOM_ATTR_FLOATS: for (size_t j = 0; j < a.num_default_floats; ++j) d.add_floats(a.default_floats[j]); break;
        case LOOM_ATTR_STRINGS:
          for (size_t j = 0; j < a.num_default_strings; ++j) d.add_strings(Str(a.default_strings[j]));
          break;
        default:
          return absl::InvalidArgumentError(absl::StrCat("schema '", s->op_type, "': attribute '", spec.name,
                                                         "' of this type cannot have a default"));
      }
    }
    s->attrs.push_back(std::move(spec));
  }
  absl::StatusOr<std::vector<TypeConstraint>> tcs = CopyConstraints(def.type_constraints, def.num_type_constraints, abi);
  if (!tcs.ok()) return absl::Status(tcs.status().code(), absl::StrCat("schema '", s->op_type, "': ", tcs.status().message()));
  s->type_constraints = *std::move(tcs);
  for (size_t i = 0; i < def.num_inplace_pairs; ++i) {
    s->inplace.emplace_back(def.inplace_pairs[2 * i], def.inplace_pairs[2 * i + 1]);
  }
  s->infer = def.infer;
  s->gradient = def.gradient;
  if (def.fold < LOOM_FOLD_NEVER || def.fold > LOOM_FOLD_INPUT_SHAPES) {
    return absl::InvalidArgumentError(absl::StrCat("schema '", s->op_type, "': fold is ", def.fold,
                                                   "; expected a LoomFoldKind (0 never, 1 constant inputs, 2 input shapes)"));
  }
  s->fold = static_cast<LoomFoldKind>(def.fold);
  s->allow_unknown_attrs = def.allow_unknown_attrs != 0;
  s->plugin = record_.name;
  record_.schemas.push_back(QualifiedOpType(s->domain, s->op_type));
  schemas_.push_back(std::move(s));
  return absl::OkStatus();
}

const OpSchema* RegistrationTransaction::StagedSchema(const OpKey& key) const {
  for (const auto& s : schemas_) if (s->key() == key) return s.get();
  return nullptr;
}

absl::StatusOr<OpKey> RegistrationTransaction::BindingSchema(const std::string& op_type, const std::string& where) const {
  std::vector<OpKey> all;  // this plugin's own schemas of the type first
  for (const auto& s : schemas_) if (s->op_type == op_type) all.push_back(s->key());
  if (all.size() == 1) return all[0];
  const bool own = !all.empty();
  for (const OpSchema* s : registry_->SchemasOfType(op_type)) all.push_back(s->key());
  // SchemasOfType is in domain order: ONNX's ("") first.
  if (!own && !all.empty() && (all.size() == 1 || all[0].domain.empty())) return all[0];
  if (all.empty()) {
    return absl::NotFoundError(absl::StrCat(where, " is for an unknown op '", op_type, "' (no schema registered)"));
  }
  std::vector<std::string> domains;
  for (const OpKey& k : all) domains.push_back(DomainForMessages(k.domain));
  return absl::FailedPreconditionError(absl::StrCat(where, ": op '", op_type, "' is defined in domains ",
                                                    absl::StrJoin(domains, " and "),
                                                    ": state which (LoomKernelDef.domain, ABI 10)"));
}

absl::Status RegistrationTransaction::AddGradient(const std::string& op_type, LoomGradientFn fn) {
  if (!declared_) return NotDeclared();
  const std::string where = absl::StrCat("plugin '", record_.name, "': gradient of ", op_type);
  absl::StatusOr<OpKey> key = BindingSchema(op_type, where);
  if (!key.ok()) {
    if (absl::IsNotFound(key.status())) return absl::NotFoundError(absl::StrCat(where, ": no schema '", op_type, "' is registered"));
    return key.status();
  }
  const OpSchema* schema = StagedSchema(*key);
  if (schema == nullptr) schema = registry_->FindSchema(key->domain, key->op_type);
  if (schema->gradient != nullptr) {
    return absl::AlreadyExistsError(absl::StrCat(where, ": its schema (from plugin '", schema->plugin, "') has a gradient maker"));
  }
  std::string owner = registry_->GradientOwner(*key);
  for (const auto& g : gradients_) if (g.first == *key) owner = record_.name;
  if (!owner.empty()) return absl::AlreadyExistsError(absl::StrCat(where, ": already registered by plugin '", owner, "'"));
  gradients_.emplace_back(*key, fn);
  record_.gradients.push_back(QualifiedOpType(key->domain, key->op_type));
  return absl::OkStatus();
}

absl::Status RegistrationTransaction::AddKernel(const LoomKernelDef& in) {
  if (!declared_) return NotDeclared();
  absl::StatusOr<LoomKernelDef> read = ReadStruct(&in, record_.abi_version, "LoomKernelDef");
  if (!read.ok()) return read.status();
  const LoomKernelDef& def = *read;
  auto k = std::make_unique<KernelDef>();
  k->op_type = Str(def.op_type);
  k->device = Str(def.device);
  k->engine = Str(def.engine);
  k->priority = def.priority;
  std::string where = absl::StrCat("plugin '", record_.name, "': kernel ", k->op_type, " on ", k->device,
                                   k->engine.empty() ? "" : "/", k->engine);
  absl::StatusOr<std::vector<TypeConstraint>> tcs =
      CopyConstraints(def.type_constraints, def.num_type_constraints, record_.abi_version);
  if (!tcs.ok()) return absl::Status(tcs.status().code(), absl::StrCat(where, ": ", tcs.status().message()));
  k->type_constraints = *std::move(tcs);
  k->create = def.create;
  k->destroy = def.destroy;
  k->compute = def.compute;
  k->prepare = def.prepare;  // zero for a version-1 kernel
  k->plugin = record_.name;
  if (k->device.empty()) return absl::InvalidArgumentError(absl::StrCat(where, " has no device"));
  if (!k->create || !k->destroy || !k->compute) {
    return absl::InvalidArgumentError(absl::StrCat(where, " lacks create, destroy or compute"));
  }
  if (def.domain != nullptr && def.domain[0] != '\0') {  // ABI 10: stated
    k->domain = CanonicalDomain(def.domain);
    if (registry_->SchemaOwner({k->domain, k->op_type}).empty() && StagedSchema({k->domain, k->op_type}) == nullptr) {
      return absl::NotFoundError(absl::StrCat(where, " is for op '", k->op_type, "' of domain '",
                                              DomainForMessages(k->domain), "', which no schema defines"));
    }
  } else {
    absl::StatusOr<OpKey> key = BindingSchema(k->op_type, where);
    if (!key.ok()) return key.status();
    k->domain = key->domain;
  }
  std::string owner = registry_->KernelOwner(*k);
  for (const auto& staged : kernels_) if (KernelsOverlap(*staged, *k)) owner = record_.name;
  if (!owner.empty()) {
    return absl::AlreadyExistsError(absl::StrCat(where, ": a kernel with this key and overlapping dtypes is already registered by plugin '",
                                                 owner, "'"));
  }
  record_.kernels.push_back(absl::StrCat(QualifiedOpType(k->domain, k->op_type), "@", k->device, k->engine.empty() ? "" : "/", k->engine));
  kernels_.push_back(std::move(k));
  return absl::OkStatus();
}

absl::Status RegistrationTransaction::AddDevice(const LoomDeviceDef& in) {
  if (!declared_) return NotDeclared();
  absl::StatusOr<LoomDeviceDef> read = ReadStruct(&in, record_.abi_version, "LoomDeviceDef");
  if (!read.ok()) return read.status();
  const LoomDeviceDef& def = *read;
  std::string name = Str(def.name);
  if (name.empty() || !def.device_count || !def.allocate || !def.deallocate || !def.copy) {
    return absl::InvalidArgumentError(absl::StrCat("plugin '", record_.name, "': device '", name, "' is missing a name or functions"));
  }
  bool taken = name == "CPU" || registry_->DeviceExists(name);
  for (const auto& n : device_names_) taken = taken || n == name;
  if (taken) {
    return absl::AlreadyExistsError(absl::StrCat("plugin '", record_.name, "': device '", name, "' is already registered"));
  }
  devices_.push_back(def);
  device_names_.push_back(name);
  record_.devices.push_back(name);
  return absl::OkStatus();
}

// ---- Registry ---------------------------------------------------------------

Registry::Registry() {
  // Abseil built without NDEBUG (Debian's packages) checks lock order on
  // every Mutex acquisition: 46-51 against 15 ns per lock and unlock, measured
  // with a standalone loop. Loom's mutexes sit on the run path (the buffer
  // pool, the registry's lookups), so the first Registry turns the check
  // off for the process. ThreadSanitizer (scripts/sanitize.sh tsan) still
  // reports lock-order inversions.
  static const bool kOff = [] {
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
    return true;
  }();
  (void)kOff;
}

std::string Registry::SchemaOwner(const OpKey& key) const {
  absl::ReaderMutexLock l(&mu_);
  auto it = schemas_.find(key);
  return it == schemas_.end() ? "" : it->second->plugin;
}

std::vector<const OpSchema*> Registry::SchemasOfType(const std::string& op_type) const {
  absl::ReaderMutexLock l(&mu_);
  auto it = schemas_by_type_.find(op_type);
  return it == schemas_by_type_.end() ? std::vector<const OpSchema*>() : it->second;
}

std::string Registry::KernelOwner(const KernelDef& k) const {
  absl::ReaderMutexLock l(&mu_);
  auto it = kernels_.find(OpKey{k.domain, k.op_type});
  if (it == kernels_.end()) return "";
  for (const auto& e : it->second) if (KernelsOverlap(*e, k)) return e->plugin;
  return "";
}

bool Registry::DeviceExists(const std::string& name) const {
  absl::ReaderMutexLock l(&mu_);
  return devices_.count(name) > 0;
}

absl::Status Registry::Commit(RegistrationTransaction& txn) {
  if (!txn.declared_) return NotDeclared();
  absl::MutexLock l(&mu_);
  // Re-check under the lock: another plugin may have committed meanwhile.
  for (const auto& s : txn.schemas_) {
    if (schemas_.count(s->key())) {
      return absl::AlreadyExistsError(absl::StrCat("plugin '", txn.record_.name, "': schema '", s->op_type, "' of domain '",
                                                   DomainForMessages(s->domain), "' is already registered by plugin '",
                                                   schemas_[s->key()]->plugin, "'"));
    }
  }
  for (const auto& k : txn.kernels_) {
    for (const auto& e : kernels_[OpKey{k->domain, k->op_type}]) {
      if (KernelsOverlap(*e, *k)) {
        return absl::AlreadyExistsError(absl::StrCat("plugin '", txn.record_.name, "': kernel ", k->op_type, " on ", k->device,
                                                     " is already registered by plugin '", e->plugin, "'"));
      }
    }
  }
  for (const auto& [key, fn] : txn.gradients_) {
    auto it = gradients_.find(key);
    if (it != gradients_.end()) {
      return absl::AlreadyExistsError(absl::StrCat("plugin '", txn.record_.name, "': the gradient of ",
                                                   QualifiedOpType(key.domain, key.op_type),
                                                   " is already registered by plugin '", it->second.second, "'"));
    }
  }
  for (const auto& p : plugins_) {
    if (p.name == txn.record_.name) {
      return absl::AlreadyExistsError(absl::StrCat("plugin '", p.name, "' is already loaded from ", p.path));
    }
  }
  for (auto& s : txn.schemas_) {
    std::vector<const OpSchema*>& of_type = schemas_by_type_[s->op_type];
    of_type.push_back(s.get());
    std::sort(of_type.begin(), of_type.end(), [](const OpSchema* a, const OpSchema* b) { return a->domain < b->domain; });
    OpKey key = s->key();
    schemas_[key] = std::move(s);
  }
  for (auto& k : txn.kernels_) {
    OpKey key{k->domain, k->op_type};
    kernels_[key].push_back(std::move(k));
  }
  for (const auto& d : txn.devices_) {
    int n = d.device_count(d.user_data);
    auto& list = devices_[d.name];
    for (int i = 0; i < n; ++i) list.push_back(std::make_unique<PluginDevice>(d, i));
  }
  for (const auto& [key, fn] : txn.gradients_) gradients_[key] = {fn, txn.record_.name};
  plugins_.push_back(txn.record_);
  txn.gradients_.clear();
  txn.schemas_.clear();
  txn.kernels_.clear();
  txn.devices_.clear();
  generation_.fetch_add(1, std::memory_order_acq_rel);
  return absl::OkStatus();
}

LoomGradientFn Registry::FindGradient(const OpSchema& schema) const {
  if (schema.gradient != nullptr) return schema.gradient;
  absl::ReaderMutexLock l(&mu_);
  auto g = gradients_.find(schema.key());
  return g == gradients_.end() ? nullptr : g->second.first;
}

LoomGradientFn Registry::FindGradient(const std::string& op_type) const {
  const OpSchema* schema = FindSchema(op_type);
  return schema == nullptr ? nullptr : FindGradient(*schema);
}

std::string Registry::GradientOwner(const OpKey& key) const {
  absl::ReaderMutexLock l(&mu_);
  auto g = gradients_.find(key);
  return g == gradients_.end() ? "" : g->second.second;
}

const OpSchema* Registry::FindSchema(const std::string& domain, const std::string& op_type) const {
  absl::ReaderMutexLock l(&mu_);
  auto it = schemas_.find(OpKey{CanonicalDomain(domain), op_type});
  return it == schemas_.end() ? nullptr : it->second.get();
}

absl::StatusOr<const OpSchema*> Registry::ResolveSchema(const std::string& domain, const std::string& op_type) const {
  if (!domain.empty()) {
    if (const OpSchema* s = FindSchema(domain, op_type)) return s;
  }
  // Not found, or no domain stated: the schemas of the type, in domain order.
  const std::vector<const OpSchema*> of_type = SchemasOfType(op_type);
  if (domain.empty() && !of_type.empty() && (of_type.size() == 1 || of_type[0]->domain.empty())) return of_type[0];
  std::vector<std::string> domains_of_type;  // for the errors below
  for (const OpSchema* s : of_type) domains_of_type.push_back(DomainForMessages(s->domain));
  if (domain.empty()) {
    if (of_type.empty()) {
      return absl::NotFoundError(absl::StrCat("unknown operator type '", op_type,
                                              "'; no loaded plugin registers a schema for it"));
    }
    return absl::FailedPreconditionError(absl::StrCat("operator type '", op_type, "' is defined in domains ",
                                                      absl::StrJoin(domains_of_type, " and "),
                                                      "; the op states no domain: set its domain to one of them"));
  }
  const std::string canonical = CanonicalDomain(domain);
  const std::vector<std::string> served = Domains();
  if (std::find(served.begin(), served.end(), canonical) == served.end()) {
    std::vector<std::string> names;
    for (const std::string& d : served) names.push_back(DomainForMessages(d));
    return absl::NotFoundError(absl::StrCat("operator domain '", domain, "' (of op type '", op_type,
                                            "') is served by no loaded plugin; domains served: ",
                                            absl::StrJoin(names, ", ")));
  }
  return absl::NotFoundError(absl::StrCat("operator domain '", DomainForMessages(canonical), "' has no operator '",
                                          op_type, "'",
                                          of_type.empty() ? std::string("; no loaded plugin registers that type")
                                                          : absl::StrCat("; '", op_type, "' is in domain ",
                                                                         absl::StrJoin(domains_of_type, " and "))));
}

const OpSchema* Registry::FindSchema(const std::string& op_type) const {
  absl::StatusOr<const OpSchema*> s = ResolveSchema("", op_type);
  return s.ok() ? *s : nullptr;
}

std::vector<const KernelDef*> Registry::KernelsFor(const OpKey& key) const {
  absl::ReaderMutexLock l(&mu_);
  std::vector<const KernelDef*> out;
  auto it = kernels_.find(key);
  if (it != kernels_.end()) for (const auto& k : it->second) out.push_back(k.get());
  return out;
}

std::vector<const KernelDef*> Registry::KernelsFor(const std::string& op_type) const {
  const OpSchema* schema = FindSchema(op_type);
  return schema == nullptr ? std::vector<const KernelDef*>() : KernelsFor(schema->key());
}

bool Registry::HasKernelForDevice(const OpKey& key, const std::string& device) const {
  for (const KernelDef* k : KernelsFor(key)) if (k->device == device) return true;
  return false;
}

bool Registry::HasKernelForDevice(const std::string& op_type, const std::string& device) const {
  const OpSchema* schema = FindSchema(op_type);
  return schema != nullptr && HasKernelForDevice(schema->key(), device);
}

absl::StatusOr<const KernelDef*> Registry::SelectKernel(const std::string& op_type, const std::string& device,
                                                        const std::string& engine,
                                                        const std::map<std::string, DataType>& bindings) const {
  absl::StatusOr<const OpSchema*> schema = ResolveSchema("", op_type);
  if (!schema.ok()) return schema.status();
  return SelectKernel(**schema, device, engine, bindings);
}

absl::StatusOr<const KernelDef*> Registry::SelectKernel(const OpSchema& schema, const std::string& device,
                                                        const std::string& engine,
                                                        const std::map<std::string, DataType>& bindings) const {
  const std::string& op_type = schema.op_type;
  std::vector<const KernelDef*> all = KernelsFor(schema.key());
  const KernelDef* best = nullptr;
  const KernelDef* best_engine = nullptr;
  for (const KernelDef* k : all) {
    if (k->device != device) continue;
    bool fits = true;
    for (const auto& b : bindings) fits = fits && k->Accepts(b.first, b.second);
    if (!fits) continue;
    if (!engine.empty() && k->engine == engine) {
      if (!best_engine || k->priority > best_engine->priority) best_engine = k;
    }
    if (!best || k->priority > best->priority) best = k;
  }
  if (best_engine) return best_engine;
  if (best) return best;
  std::vector<std::string> have;
  for (const KernelDef* k : all) have.push_back(k->Describe());
  std::vector<std::string> want;
  for (const auto& b : bindings) want.push_back(absl::StrCat(b.first, "=", DataTypeName(b.second)));
  return absl::NotFoundError(absl::StrCat("no kernel for op '", QualifiedOpType(schema.domain, op_type), "' on device ", device,
                                          engine.empty() ? "" : absl::StrCat(" (engine ", engine, ")"), " with dtypes {",
                                          absl::StrJoin(want, ", "), "}; kernels that exist: ",
                                          have.empty() ? "none" : absl::StrJoin(have, "; ")));
}

Device* Registry::FindDevice(const std::string& type, int id) const {
  if (type == "CPU") return id == 0 ? CpuDevice() : nullptr;
  absl::ReaderMutexLock l(&mu_);
  auto it = devices_.find(type);
  if (it == devices_.end() || id < 0 || id >= static_cast<int>(it->second.size())) return nullptr;
  return it->second[id].get();
}

std::vector<std::string> Registry::DeviceTypes() const {
  absl::ReaderMutexLock l(&mu_);
  std::vector<std::string> out{"CPU"};
  for (const auto& kv : devices_) out.push_back(kv.first);
  return out;
}

std::vector<PluginRecord> Registry::Plugins() const {
  absl::ReaderMutexLock l(&mu_);
  return plugins_;
}

std::optional<PluginRecord> Registry::FindPlugin(const std::string& name) const {
  absl::ReaderMutexLock l(&mu_);
  for (const auto& p : plugins_) if (p.name == name) return p;
  return std::nullopt;
}

bool Registry::IsLoadedPath(const std::string& canonical_path) const {
  absl::ReaderMutexLock l(&mu_);
  for (const auto& p : plugins_) if (p.path == canonical_path) return true;
  return false;
}

std::vector<const OpSchema*> Registry::Schemas() const {
  absl::ReaderMutexLock l(&mu_);
  std::vector<const OpSchema*> out;
  for (const auto& kv : schemas_) out.push_back(kv.second.get());
  return out;
}

std::vector<std::string> Registry::Domains() const {
  absl::ReaderMutexLock l(&mu_);
  std::vector<std::string> out;
  for (const auto& kv : schemas_) {
    if (out.empty() || out.back() != kv.first.domain) out.push_back(kv.first.domain);
  }
  return out;
}

}  // namespace loom
