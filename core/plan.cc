#include "core/plan.h"

#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_bridge.h"

namespace loom {

Plan::~Plan() {
  for (PlanStep& s : steps_) {
    if (s.state) s.kernel->destroy(s.state);
  }
}

std::optional<DataType> FixedTypeOf(const std::string& type_str) {
  static const std::map<std::string, DataType> kNames = {
      {"tensor(float)", DataType::kFloat32}, {"tensor(double)", DataType::kFloat64},
      {"tensor(float16)", DataType::kFloat16}, {"tensor(bfloat16)", DataType::kBFloat16},
      {"tensor(int8)", DataType::kInt8}, {"tensor(uint8)", DataType::kUInt8},
      {"tensor(int16)", DataType::kInt16}, {"tensor(uint16)", DataType::kUInt16},
      {"tensor(int32)", DataType::kInt32}, {"tensor(uint32)", DataType::kUInt32},
      {"tensor(int64)", DataType::kInt64}, {"tensor(uint64)", DataType::kUInt64},
      {"tensor(bool)", DataType::kBool}};
  auto it = kNames.find(type_str);
  if (it == kNames.end()) return std::nullopt;
  return it->second;
}

static std::string AllowedList(const std::vector<DataType>& allowed) {
  std::vector<std::string> n;
  for (DataType d : allowed) n.push_back(DataTypeName(d));
  return absl::StrJoin(n, ", ");
}

absl::StatusOr<std::unique_ptr<Plan>> BuildPlan(const CheckedNet& net, const Registry& registry, Workspace* ws,
                                                int num_threads) {
  auto plan = std::make_unique<Plan>();
  plan->generation_ = registry.generation();
  absl::flat_hash_map<std::string, DataType> dtypes;
  absl::flat_hash_map<std::string, Shape> shapes;
  std::set<std::string> constants(net.initializers.begin(), net.initializers.end());
  // Where each blob's current value lives, and its copies on other devices.
  absl::flat_hash_map<std::string, Device*> home;
  absl::flat_hash_map<std::string, std::map<Device*, Tensor*>> replicas;
  std::set<std::string> external_outputs(net.def.external_output().begin(), net.def.external_output().end());
  auto replica_blob = [&](const std::string& name, Device* device, DataType dtype) {
    Tensor* t = ws->CreateBlob(absl::StrCat(name, "@", device->type(), ":", device->id()));
    if (t->device() != device) *t = *Tensor::Create(dtype, {0}, device);
    return t;
  };
  for (const std::string& name : net.inputs) {
    const Tensor* t = ws->GetBlob(name);
    if (t == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("net '", net.def.name(), "': input '", name,
                                                     "' is not set in the workspace"));
    }
    dtypes[name] = t->dtype();
    shapes[name] = t->dims();
    home[name] = t->device();
  }
  for (const CheckedOp& op : net.ops) {
    const OperatorDef& def = op.info->op;
    const OpSchema& schema = *op.schema;
    std::map<std::string, DataType> bindings;
    LoomInferenceContext ictx;
    ictx.info = op.info.get();
    for (int k = 0; k < def.input_size(); ++k) {
      const std::string& name = def.input(k);
      DataType dt = DataType::kUndefined;
      const Shape* shape = nullptr;
      const Tensor* constant = nullptr;
      if (!name.empty()) {
        dt = dtypes.at(name);
        auto sit = shapes.find(name);
        if (sit != shapes.end()) shape = &sit->second;
        if (constants.count(name)) constant = ws->GetBlob(name);
        const FormalParam* p = schema.InputParam(k);
        if (p && p->type_str != kAnyType) {
          if (auto fixed = FixedTypeOf(p->type_str)) {
            if (*fixed != dt) {
              return absl::InvalidArgumentError(absl::StrCat(op.label, ": input ", k, " '", name, "' (", p->name,
                                                             ") must be ", DataTypeName(*fixed), ", found ", DataTypeName(dt)));
            }
          } else if (const TypeConstraint* tc = schema.FindConstraint(p->type_str)) {
            if (std::find(tc->allowed.begin(), tc->allowed.end(), dt) == tc->allowed.end()) {
              return absl::InvalidArgumentError(absl::StrCat(op.label, ": input ", k, " '", name, "' (", p->name,
                                                             "): type constraint ", tc->type_str, " allows ",
                                                             AllowedList(tc->allowed), "; found ", DataTypeName(dt)));
            }
            auto [it, inserted] = bindings.emplace(tc->type_str, dt);
            if (!inserted && it->second != dt) {
              return absl::InvalidArgumentError(absl::StrCat(op.label, ": input ", k, " '", name, "' is ", DataTypeName(dt),
                                                             " but type constraint ", tc->type_str, " is already bound to ",
                                                             DataTypeName(it->second), " by an earlier input"));
            }
          }
        }
      }
      ictx.input_dtypes.push_back(dt);
      ictx.input_shapes.push_back(shape);
      ictx.input_constants.push_back(constant);
    }
    ictx.output_dtypes.assign(def.output_size(), DataType::kUndefined);
    ictx.output_shapes.assign(def.output_size(), std::nullopt);
    // Default inference: an output takes its fixed type or its constraint's binding.
    for (int k = 0; k < def.output_size(); ++k) {
      const FormalParam* p = schema.OutputParam(k);
      if (!p) continue;
      if (auto fixed = FixedTypeOf(p->type_str)) {
        ictx.output_dtypes[k] = *fixed;
      } else if (auto it = bindings.find(p->type_str); it != bindings.end()) {
        ictx.output_dtypes[k] = it->second;
      }
    }
    if (schema.infer) {
      absl::Status s = FromLoomStatus(schema.infer(&ictx));
      if (!s.ok()) return absl::Status(s.code(), absl::StrCat(op.label, ": inference: ", s.message()));
    }
    for (int k = 0; k < def.output_size(); ++k) {
      if (def.output(k).empty()) continue;
      if (ictx.output_dtypes[k] == DataType::kUndefined) {
        return absl::InternalError(absl::StrCat(op.label, ": inference left the dtype of output ", k, " '", def.output(k),
                                                "' unknown"));
      }
      const FormalParam* p = schema.OutputParam(k);
      if (p && !FixedTypeOf(p->type_str) && p->type_str != kAnyType) bindings.emplace(p->type_str, ictx.output_dtypes[k]);
      dtypes[def.output(k)] = ictx.output_dtypes[k];
      if (ictx.output_shapes[k]) {
        shapes[def.output(k)] = *ictx.output_shapes[k];
      } else {
        shapes.erase(def.output(k));
      }
      constants.erase(def.output(k));
    }
    absl::StatusOr<const KernelDef*> kernel = registry.SelectKernel(def.type(), op.device_type, op.engine, bindings);
    if (!kernel.ok()) return absl::Status(kernel.status().code(), absl::StrCat(op.label, ": ", kernel.status().message()));

    PlanStep step;
    step.op = &op;
    step.kernel = *kernel;
    LoomStatus* st = nullptr;
    step.state = step.kernel->create(op.info.get(), &st);
    if (st != nullptr || step.state == nullptr) {
      absl::Status s = st ? FromLoomStatus(st) : absl::InternalError("kernel creation returned null");
      return absl::Status(s.code(), absl::StrCat(op.label, ": ", s.message()));
    }
    Device* device = registry.FindDevice(op.device_type, op.device_id);
    for (int k = 0; k < def.input_size(); ++k) {
      const std::string& name = def.input(k);
      if (name.empty()) {
        step.ctx.inputs.push_back(nullptr);
        continue;
      }
      const Tensor* t = ws->GetBlob(name);
      auto h = home.find(name);
      if (h != home.end() && h->second != device && !(h->second->is_host() && device->is_host())) {
        Tensor*& copy = replicas[name][device];
        if (copy == nullptr) {
          copy = replica_blob(name, device, dtypes.at(name));
          step.copies_before.push_back({t, copy});
        }
        t = copy;
      }
      step.ctx.inputs.push_back(t);
    }
    for (int k = 0; k < def.output_size(); ++k) {
      const std::string& name = def.output(k);
      if (name.empty()) {
        step.ctx.outputs.push_back(nullptr);
        continue;
      }
      replicas.erase(name);
      if (!device->is_host() && external_outputs.count(name)) {
        Tensor* on_device = replica_blob(name, device, ictx.output_dtypes[k]);
        Tensor* host = ws->CreateBlob(name);
        if (!host->device()->is_host()) *host = *Tensor::Create(ictx.output_dtypes[k], {0}, CpuDevice());
        step.copies_after.push_back({on_device, host});
        step.ctx.outputs.push_back(on_device);
        home[name] = CpuDevice();
        replicas[name][device] = on_device;
        continue;
      }
      Tensor* t = ws->CreateBlob(name);
      if (t->device() != device) *t = *Tensor::Create(ictx.output_dtypes[k], {0}, device);
      step.ctx.outputs.push_back(t);
      home[name] = device;
    }
    step.ctx.output_dtypes = ictx.output_dtypes;
    step.ctx.num_threads = num_threads;
    step.ctx.workspace = ws;
    step.ctx.registry = &registry;
    step.ctx.label = &op.label;
    step.inferred_shapes = std::move(ictx.output_shapes);
    plan->steps_.push_back(std::move(step));
  }
  // Contexts hold pointers to labels in `net`, which outlives the plan; fix
  // up after the vector stopped moving.
  for (PlanStep& s : plan->steps_) s.ctx.label = &s.op->label;
  return plan;
}

}  // namespace loom
