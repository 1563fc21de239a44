#include "core/plan.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/attributes.h"
#include "core/plan_passes.h"
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
      {"tensor(bool)", DataType::kBool}, {"tensor(string)", DataType::kString}};
  auto it = kNames.find(type_str);
  if (it == kNames.end()) return std::nullopt;
  return it->second;
}

size_t InferredOutputBytes(const PlanStep& step, size_t k) {
  if (k >= step.inferred_shapes.size() || k >= step.ctx.output_dtypes.size() || !step.inferred_shapes[k]) return 0;
  return static_cast<size_t>(NumElements(*step.inferred_shapes[k])) * DataTypeSize(step.ctx.output_dtypes[k]);
}

static std::string AllowedList(const std::vector<DataType>& allowed) {
  std::vector<std::string> n;
  for (DataType d : allowed) n.push_back(DataTypeName(d));
  return absl::StrJoin(n, ", ");
}

absl::Status InitPlannerState(const CheckedNet& net, const Registry& registry, Workspace* ws, int num_threads,
                              PlannerState* state) {
  state->registry = &registry;
  state->ws = ws;
  state->num_threads = num_threads;
  if (state->limits == nullptr) state->limits = &DefaultLimits();
  state->constants = net.constants;
  state->external_outputs.insert(net.def.external_output().begin(), net.def.external_output().end());
  for (const std::string& name : net.inputs) {
    const Tensor* t = ws->GetBlob(name);
    if (t == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("net '", net.def.name(), "': input '", name,
                                                     "' is not set in the workspace"));
    }
    state->dtypes[name] = t->dtype();
    state->shapes[name] = t->dims();
    state->home[name] = t->device();
  }
  return absl::OkStatus();
}

absl::Status BindTypes(const CheckedOp& op, const PlannerState& state, LoomInferenceContext* ictx,
                       std::map<std::string, DataType>* bindings) {
  const OperatorDef& def = op.info->op;
  const OpSchema& schema = *op.schema;
  ictx->info = op.info.get();
  for (int k = 0; k < def.input_size(); ++k) {
    const std::string& name = def.input(k);
    DataType dt = DataType::kUndefined;
    const Shape* shape = nullptr;
    const Tensor* constant = nullptr;
    if (!name.empty()) {
      dt = state.dtypes.at(name);
      auto sit = state.shapes.find(name);
      if (sit != state.shapes.end()) shape = &sit->second;
      if (state.constants.count(name)) constant = state.ws->GetBlob(name);
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
          auto [it, inserted] = bindings->emplace(tc->type_str, dt);
          if (!inserted && it->second != dt) {
            return absl::InvalidArgumentError(absl::StrCat(op.label, ": input ", k, " '", name, "' is ", DataTypeName(dt),
                                                           " but type constraint ", tc->type_str, " is already bound to ",
                                                           DataTypeName(it->second), " by an earlier input"));
          }
        }
      }
    }
    ictx->input_dtypes.push_back(dt);
    ictx->input_shapes.push_back(shape);
    ictx->input_constants.push_back(constant);
  }
  return absl::OkStatus();
}

absl::Status InferOutputs(const CheckedOp& op, LoomInferenceContext* ictx, std::map<std::string, DataType>* bindings) {
  const OperatorDef& def = op.info->op;
  const OpSchema& schema = *op.schema;
  ictx->output_dtypes.assign(def.output_size(), DataType::kUndefined);
  ictx->output_shapes.assign(def.output_size(), std::nullopt);
  // Default inference: an output takes its fixed type or its constraint's binding.
  for (int k = 0; k < def.output_size(); ++k) {
    const FormalParam* p = schema.OutputParam(k);
    if (!p) continue;
    if (auto fixed = FixedTypeOf(p->type_str)) {
      ictx->output_dtypes[k] = *fixed;
    } else if (auto it = bindings->find(p->type_str); it != bindings->end()) {
      ictx->output_dtypes[k] = it->second;
    }
  }
  if (schema.infer) {
    absl::Status s = FromLoomStatus(schema.infer(ictx));
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(op.label, ": inference: ", s.message()));
  }
  for (int k = 0; k < def.output_size(); ++k) {
    if (def.output(k).empty()) continue;
    if (ictx->output_dtypes[k] == DataType::kUndefined) {
      return absl::InternalError(absl::StrCat(op.label, ": inference left the dtype of output ", k, " '", def.output(k),
                                              "' unknown"));
    }
    const FormalParam* p = schema.OutputParam(k);
    if (p && !FixedTypeOf(p->type_str) && p->type_str != kAnyType) bindings->emplace(p->type_str, ictx->output_dtypes[k]);
  }
  return absl::OkStatus();
}

absl::Status CheckOutputSizes(const CheckedOp& op, const LoomInferenceContext& ictx, const NetLimits& limits) {
  const OperatorDef& def = op.info->op;
  for (int k = 0; k < def.output_size() && k < static_cast<int>(ictx.output_shapes.size()); ++k) {
    if (def.output(k).empty() || !ictx.output_shapes[k]) continue;
    absl::Status s = CheckTensorSize(limits, absl::StrCat(op.label, ": output ", k, " '", def.output(k), "' (shape inferred at plan time)"),
                                     ictx.output_dtypes[k], *ictx.output_shapes[k]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CreateKernel(const CheckedOp& op, const Registry& registry,
                          const std::map<std::string, DataType>& bindings, PlanStep* step) {
  const OperatorDef& def = op.info->op;
  absl::StatusOr<const KernelDef*> kernel = registry.SelectKernel(*op.schema, op.device_type, op.engine, bindings);
  if (!kernel.ok()) return absl::Status(kernel.status().code(), absl::StrCat(op.label, ": ", kernel.status().message()));
  step->op = &op;
  step->kernel = *kernel;
  LoomStatus* st = nullptr;
  step->state = step->kernel->create(op.info.get(), &st);
  if (st != nullptr || step->state == nullptr) {
    return WithOpLabel(op.label, def, st ? FromLoomStatus(st) : absl::InternalError("kernel creation returned null"));
  }
  return absl::OkStatus();
}

absl::Status PrepareKernel(const CheckedOp& op, const LoomInferenceContext& ictx, int num_threads, PackedConstants* packs,
                           PlanStep* step, const std::set<std::string>* signature_constants, FpMathMode fpmath_mode) {
  if (step->kernel->prepare == nullptr) return absl::OkStatus();
  LoomPrepareContext pctx;
  if (signature_constants != nullptr) {
    const OperatorDef& def = op.info->op;
    for (int k = 0; k < def.input_size(); ++k) {
      if (signature_constants->count(def.input(k))) pctx.signature_inputs.push_back(k);
    }
  }
  pctx.inference = &ictx;
  pctx.packs = packs;
  pctx.num_threads = num_threads;
  pctx.fpmath_mode = static_cast<int>(fpmath_mode);
  pctx.device = &op.device_type;
  pctx.released_constants = &step->released_constants;
  absl::Status s = FromLoomStatus(step->kernel->prepare(step->state, &pctx));
  if (!s.ok()) return WithOpLabel(op.label, op.info->op, s, "prepare");
  return absl::OkStatus();
}

void PlaceTensors(const CheckedOp& op, LoomInferenceContext* ictx, PlannerState* state, PlanStep* step) {
  const OperatorDef& def = op.info->op;
  Workspace* ws = state->ws;
  auto replica_blob = [&](const std::string& name, Device* device, DataType dtype) {
    Tensor* t = ws->CreateBlob(absl::StrCat(name, "@", device->type(), ":", device->id()));
    if (t->device() != device) *t = *Tensor::Create(dtype, {0}, device);
    return t;
  };
  Device* device = state->registry->FindDevice(op.device_type, op.device_id);
  for (int k = 0; k < def.input_size(); ++k) {
    const std::string& name = def.input(k);
    if (name.empty()) {
      step->ctx.inputs.push_back(nullptr);
      continue;
    }
    const Tensor* t = ws->GetBlob(name);
    auto h = state->home.find(name);
    if (h != state->home.end() && h->second != device && !(h->second->is_host() && device->is_host())) {
      Tensor*& copy = state->replicas[name][device];
      if (copy == nullptr) {
        copy = replica_blob(name, device, state->dtypes.at(name));
        step->copies_before.push_back({t, copy});
      }
      t = copy;
    }
    step->ctx.inputs.push_back(t);
  }
  for (int k = 0; k < def.output_size(); ++k) {
    const std::string& name = def.output(k);
    if (name.empty()) {
      step->ctx.outputs.push_back(nullptr);
      continue;
    }
    state->dtypes[name] = ictx->output_dtypes[k];
    if (ictx->output_shapes[k]) {
      state->shapes[name] = *ictx->output_shapes[k];
    } else {
      state->shapes.erase(name);
    }
    state->constants.erase(name);
    state->signature_constants.erase(name);
    state->replicas.erase(name);
    if (!device->is_host() && state->external_outputs.count(name)) {
      Tensor* on_device = replica_blob(name, device, ictx->output_dtypes[k]);
      Tensor* host = ws->CreateBlob(name);
      if (!host->device()->is_host()) *host = *Tensor::Create(ictx->output_dtypes[k], {0}, CpuDevice());
      step->copies_after.push_back({on_device, host});
      step->ctx.outputs.push_back(on_device);
      state->home[name] = CpuDevice();
      state->replicas[name][device] = on_device;
      continue;
    }
    Tensor* t = ws->CreateBlob(name);
    if (t->device() != device) *t = *Tensor::Create(ictx->output_dtypes[k], {0}, device);
    step->ctx.outputs.push_back(t);
    state->home[name] = device;
  }
  step->ctx.output_dtypes = ictx->output_dtypes;
  step->ctx.device = device;
  step->ctx.num_threads = state->num_threads;
  step->ctx.workspace = ws;
  step->ctx.registry = state->registry;
  step->ctx.limits = state->limits;
  step->ctx.pool = state->pool;
  step->ctx.fpmath_mode = static_cast<int>(state->fpmath_mode);
  step->ctx.op = &op.info->op;
  step->ctx.label = &op.label;
  step->inferred_shapes = std::move(ictx->output_shapes);
}

bool InputsConstant(const CheckedOp& op, const PlannerState& state) {
  const OperatorDef& def = op.info->op;
  for (const std::string& name : def.input()) {
    if (!name.empty() && !state.constants.count(name)) return false;
  }
  return true;
}

absl::Status FoldConstantOp(const CheckedOp& op, bool inputs_constant, PlannerState* state, PlanStep* step) {
  const OperatorDef& def = op.info->op;
  const LoomFoldKind fold = op.schema != nullptr ? op.schema->fold : LOOM_FOLD_NEVER;
  if (fold == LOOM_FOLD_NEVER || step->ctx.device == nullptr || !step->ctx.device->is_host()) return absl::OkStatus();
  if (!step->copies_before.empty() || !step->copies_after.empty()) return absl::OkStatus();
  // Whether the outputs hold for this input signature only.
  bool per_signature = std::any_of(def.input().begin(), def.input().end(),
                                   [&](const std::string& n) { return state->signature_constants.count(n) > 0; });
  std::vector<Tensor> shape_only;  // LOOM_FOLD_INPUT_SHAPES: the inputs, dims without data
  if (fold == LOOM_FOLD_INPUT_SHAPES) {
    // A plan is built for one input signature (core/net.h), so the input
    // shapes it knows hold for every run of it.
    shape_only.reserve(step->ctx.inputs.size());
    for (int i = 0; i < def.input_size(); ++i) {
      const std::string& name = def.input(i);
      auto known = state->shapes.find(name);
      auto dtype = state->dtypes.find(name);
      if (name.empty() || known == state->shapes.end() || dtype == state->dtypes.end()) return absl::OkStatus();
      shape_only.push_back(Tensor::ShapeOnly(dtype->second, known->second));
      if (!state->constants.count(name)) per_signature = true;
    }
  } else if (!inputs_constant) {
    return absl::OkStatus();
  }
  std::vector<const Tensor*> placed = step->ctx.inputs;
  for (size_t i = 0; i < shape_only.size() && i < step->ctx.inputs.size(); ++i) step->ctx.inputs[i] = &shape_only[i];
  LoomStatus* folded = step->kernel->compute(step->state, &step->ctx);
  step->ctx.inputs = std::move(placed);
  step->ctx.scratch.clear();
  if (LoomStatus* st = folded) return WithOpLabel(op.label, def, FromLoomStatus(st));
  for (const std::string& name : def.output()) {
    if (name.empty()) continue;
    state->constants.insert(name);
    if (per_signature) state->signature_constants.insert(name);
  }
  return absl::OkStatus();
}

absl::Status RestoreSignatureValues(const Plan& plan) {
  for (const Plan::SignatureValue& v : plan.signature_values()) {
    if (absl::Status s = v.blob->Resize(v.value.dtype(), v.value.dims()); !s.ok()) return s;
    if (v.value.nbytes() > 0) std::memcpy(v.blob->raw_data(), v.value.raw_data(), v.value.nbytes());  // Shape of a scalar: none
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Plan>> BuildPlan(const CheckedNet& net, const Registry& registry, Workspace* ws,
                                                int num_threads, const NetLimits* limits,
                                                std::shared_ptr<PackedConstants> packs, BufferPool* pool,
                                                FpMathMode fpmath_mode) {
  if (limits == nullptr) limits = &DefaultLimits();
  auto plan = std::make_unique<Plan>();
  PlannerState state;
  absl::Status s = InitPlannerState(net, registry, ws, num_threads, &state);
  if (!s.ok()) return s;
  // Blobs a folded step may skip writing on later runs: written by one op
  // only, and not an external output.
  std::map<std::string, int> writers;
  for (const CheckedOp& op : net.ops) {
    for (const std::string& o : op.info->op.output()) ++writers[o];
  }
  for (const std::string& o : net.def.external_output()) writers[o] += 2;
  state.limits = limits;
  state.pool = pool;
  state.fpmath_mode = fpmath_mode;
  for (const CheckedOp& op : net.ops) {
    std::map<std::string, DataType> bindings;
    LoomInferenceContext ictx;
    PlanStep step;
    if (s = BindTypes(op, state, &ictx, &bindings); !s.ok()) return s;
    if (s = InferOutputs(op, &ictx, &bindings); !s.ok()) return s;
    if (s = CheckOutputSizes(op, ictx, *limits); !s.ok()) return s;
    if (s = CreateKernel(op, registry, bindings, &step); !s.ok()) return s;
    // The plan owns the kernel state from here on, so a failing prepare
    // still destroys it.
    plan->steps_.push_back(std::move(step));
    PlanStep& placed = plan->steps_.back();
    if (s = PrepareKernel(op, ictx, num_threads, packs.get(), &placed, &state.signature_constants,
                           fpmath_mode); !s.ok()) {
      return s;
    }
    const bool inputs_constant = InputsConstant(op, state);
    PlaceTensors(op, &ictx, &state, &placed);
    // The label pointer is fixed up below; folding may report an error now.
    placed.ctx.label = &op.label;
    if (s = FoldConstantOp(op, inputs_constant, &state, &placed); !s.ok()) return s;
    bool skippable = true;
    for (const std::string& o : op.info->op.output()) {
      skippable = skippable && (o.empty() || (state.constants.count(o) && writers[o] == 1));
    }
    placed.folded = skippable && op.info->op.output_size() > 0;
    if (!placed.folded) continue;
    for (size_t k = 0; k < placed.ctx.outputs.size(); ++k) {
      if (!state.signature_constants.count(op.info->op.output(k))) continue;
      Tensor* blob = placed.ctx.outputs[k];
      absl::StatusOr<Tensor> value = blob->Clone();
      if (!value.ok()) return value.status();
      plan->signature_values_.push_back({blob, *std::move(value)});
    }
  }
  for (const std::string& name : state.signature_constants) state.constants.erase(name);
  plan->constants_ = std::move(state.constants);
  // Contexts hold pointers to labels in `net`, which outlives the plan; fix
  // up after the vector stopped moving. Nested nets inherit the plan's
  // constants.
  for (PlanStep& step : plan->steps_) {
    step.ctx.label = &step.op->label;
    step.ctx.net_constants = &plan->constants_;
    step.ctx.packs = packs;
  }
  return plan;
}

}  // namespace loom
