// The Ctx_*, Infer_* and Prepare_* parts of the LoomApi table: what a
// kernel sees of one run (inputs, outputs sized on request, threads,
// stream), what a schema's inference sees, and what a kernel's prepare sees
// at plan time.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/plugin_api/api_table.h"
#include "core/status_bridge.h"

namespace loom {
namespace {

LoomStatus* Err(LoomStatusCode code, const std::string& m) { return new LoomStatus{code, m}; }

// The output's blob name, when the kernel context knows its op.
std::string OutputName(const LoomKernelContext* c, size_t i) {
  if (c->op != nullptr && i < static_cast<size_t>(c->op->output_size())) return c->op->output(static_cast<int>(i));
  return "";
}

// Steady state: `t` already has this dtype and shape (and memory when it
// has elements), so sizing it again has nothing to check or allocate.
bool SizedAs(const Tensor& t, DataType dt, const int64_t* dims, size_t rank) {
  return t.dtype() == dt && t.rank() == rank && (rank == 0 || std::equal(dims, dims + rank, t.dims().data())) &&
         (t.num_elements() == 0 || t.raw_data() != nullptr);
}

const NetLimits& LimitsOf(const LoomKernelContext* c) {
  return c != nullptr && c->limits != nullptr ? *c->limits : DefaultLimits();
}

// Sizes `t` for the op of `c`: the net's per-tensor cap first (no int64
// overflow), then memory from the net's pool. `what` names the blob in
// errors, after the op's label.
LoomStatus* SizeTensor(LoomKernelContext* c, Tensor* t, DataType dt, Shape shape, const std::string& what) {
  if (absl::Status s = CheckTensorSize(LimitsOf(c), absl::StrCat(*c->label, ": ", what), dt, shape); !s.ok()) {
    return Err(static_cast<LoomStatusCode>(s.code()), std::string(s.message()));
  }
  // An alias (a slice linked by the recurrent-network op) keeps its memory.
  absl::Status s = t->ResizeOrCheckAlias(dt, std::move(shape), c->pool);
  if (!s.ok()) return Err(static_cast<LoomStatusCode>(s.code()), absl::StrCat(*c->label, ": ", what, ": ", s.message()));
  return nullptr;
}

size_t Ctx_NumInputs(const LoomKernelContext* c) { return c->inputs.size(); }
const LoomTensor* Ctx_Input(const LoomKernelContext* c, size_t i) {
  return i < c->inputs.size() && c->inputs[i] ? ToHandle(c->inputs[i]) : nullptr;
}
size_t Ctx_NumOutputs(const LoomKernelContext* c) { return c->outputs.size(); }
int Ctx_OutputRequested(const LoomKernelContext* c, size_t i) { return i < c->outputs.size() && c->outputs[i] ? 1 : 0; }
LoomStatus* Ctx_Output(LoomKernelContext* c, size_t i, LoomDataType dtype, const int64_t* dims, size_t rank,
                       LoomTensor** out) {
  if (i >= c->outputs.size() || c->outputs[i] == nullptr) {
    return Err(LOOM_INVALID_ARGUMENT, absl::StrCat(*c->label, ": output ", i, " is not requested"));
  }
  DataType dt = static_cast<DataType>(dtype);
  DataType want = c->output_dtypes[i];
  if (want != DataType::kUndefined && want != dt) {
    return Err(LOOM_INTERNAL, absl::StrCat(*c->label, ": kernel produced output ", i, " as ", DataTypeName(dt),
                                           " but inference said ", DataTypeName(want)));
  }
  Tensor* t = c->outputs[i];
  if (SizedAs(*t, dt, dims, rank)) {  // the same as last run
    *out = ToHandle(t);
    return nullptr;
  }
  if (LoomStatus* s = SizeTensor(c, t, dt, Shape(dims, dims + rank), absl::StrCat("output ", i, " '", OutputName(c, i), "'"))) {
    return s;
  }
  *out = ToHandle(c->outputs[i]);
  return nullptr;
}
LoomTensor* Ctx_OutputHandle(LoomKernelContext* c, size_t i) {
  return i < c->outputs.size() && c->outputs[i] ? ToHandle(c->outputs[i]) : nullptr;
}
int Ctx_NumThreads(const LoomKernelContext* c) { return c->num_threads; }
int64_t Ctx_Limit(const LoomKernelContext* c, int which) {
  const NetLimits& l = LimitsOf(c);
  switch (which) {
    case LOOM_LIMIT_MAX_TENSOR_BYTES: return l.max_tensor_bytes;
    case LOOM_LIMIT_MAX_NESTING_DEPTH: return l.max_nesting_depth;
    case LOOM_LIMIT_MAX_LOOP_ITERATIONS: return l.max_loop_iterations;
    case LOOM_LIMIT_NESTING_DEPTH: return l.nesting_depth;
    default: return 0;
  }
}
void* Ctx_Stream(const LoomKernelContext* c) { return c->stream; }
void* Ctx_Scratch(LoomKernelContext* c, size_t bytes, LoomStatus** status) {
  if (status != nullptr) *status = nullptr;
  const std::string label = c != nullptr && c->label != nullptr ? *c->label : std::string("Ctx_Scratch");
  if (c == nullptr || bytes == 0) {
    if (status != nullptr) *status = Err(LOOM_INVALID_ARGUMENT, absl::StrCat(label, ": scratch of 0 bytes"));
    return nullptr;
  }
  Device* device = c->device != nullptr ? c->device : CpuDevice();
  absl::StatusOr<std::shared_ptr<Buffer>> b = Buffer::Allocate(device, bytes, c->pool);
  if (!b.ok()) {
    if (status != nullptr) {
      *status = Err(static_cast<LoomStatusCode>(b.status().code()),
                    absl::StrCat(label, ": scratch of ", bytes, " bytes: ", b.status().message()));
    }
    return nullptr;
  }
  c->scratch.push_back(*std::move(b));
  return c->scratch.back()->data();
}

const LoomKernelInfo* Infer_Info(const LoomInferenceContext* c) { return c->info; }
size_t Infer_NumInputs(const LoomInferenceContext* c) { return c->input_dtypes.size(); }
size_t Infer_NumOutputs(const LoomInferenceContext* c) { return c->output_dtypes.size(); }
LoomDataType Infer_InputDType(const LoomInferenceContext* c, size_t i) {
  return i < c->input_dtypes.size() ? static_cast<LoomDataType>(c->input_dtypes[i]) : LOOM_DTYPE_UNDEFINED;
}
int Infer_InputShape(const LoomInferenceContext* c, size_t i, const int64_t** dims, size_t* rank) {
  if (i >= c->input_shapes.size() || !c->input_shapes[i]) return 0;
  *dims = c->input_shapes[i]->data();
  *rank = c->input_shapes[i]->size();
  return 1;
}
const LoomTensor* Infer_InputConstant(const LoomInferenceContext* c, size_t i) {
  return i < c->input_constants.size() && c->input_constants[i] ? ToHandle(c->input_constants[i]) : nullptr;
}
void Infer_SetOutputDType(LoomInferenceContext* c, size_t i, LoomDataType t) {
  if (i < c->output_dtypes.size()) c->output_dtypes[i] = static_cast<DataType>(t);
}
void Infer_SetOutputShape(LoomInferenceContext* c, size_t i, const int64_t* dims, size_t rank) {
  if (i < c->output_shapes.size()) c->output_shapes[i] = Shape(dims, dims + rank);
}

const LoomKernelInfo* Prepare_Info(const LoomPrepareContext* c) { return c->inference->info; }
size_t Prepare_NumInputs(const LoomPrepareContext* c) { return Infer_NumInputs(c->inference); }
size_t Prepare_NumOutputs(const LoomPrepareContext* c) { return Infer_NumOutputs(c->inference); }
LoomDataType Prepare_InputDType(const LoomPrepareContext* c, size_t i) { return Infer_InputDType(c->inference, i); }
int Prepare_InputShape(const LoomPrepareContext* c, size_t i, const int64_t** dims, size_t* rank) {
  return Infer_InputShape(c->inference, i, dims, rank);
}
const LoomTensor* Prepare_InputConstant(const LoomPrepareContext* c, size_t i) {
  return Infer_InputConstant(c->inference, i);
}
int Prepare_FpMathMode(const LoomPrepareContext* c) { return c->fpmath_mode; }
void Prepare_ReleaseConstant(const LoomPrepareContext* c, size_t i) {
  const auto& per_plan = c->signature_inputs;
  if (std::find(per_plan.begin(), per_plan.end(), i) != per_plan.end()) return;
  if (c->released_constants != nullptr && Infer_InputConstant(c->inference, i) != nullptr) {
    c->released_constants->push_back(i);
  }
}
LoomStatus* Prepare_SharedPack(const LoomPrepareContext* c, size_t i, const char* key, size_t bytes,
                               LoomStatus* (*fill)(void* user, void* data), void* user, LoomSharedPack** out) {
  if (out == nullptr || key == nullptr || fill == nullptr) return Err(LOOM_INVALID_ARGUMENT, "Prepare_SharedPack: null argument");
  *out = nullptr;
  const LoomTensor* constant = Infer_InputConstant(c->inference, i);
  if (constant == nullptr) return nullptr;
  PackedConstants local;  // no store (a plan built outside a Net): the pack is the kernel's alone
  // A signature value (LoomPrepareContext::signature_inputs) is packed for this kernel alone.
  const auto& per_plan = c->signature_inputs;
  const bool shareable = std::find(per_plan.begin(), per_plan.end(), i) == per_plan.end();
  PackedConstants* store = c->packs != nullptr && shareable ? c->packs : &local;
  absl::StatusOr<std::shared_ptr<PackedConstant>> pack =
      store->GetOrFill(*FromHandle(constant), key, bytes, [&](void* data) { return FromLoomStatus(fill(user, data)); });
  if (!pack.ok()) return ToLoomStatus(pack.status());
  *out = new LoomSharedPack{*std::move(pack)};
  return nullptr;
}
void* SharedPack_Data(const LoomSharedPack* p) { return p != nullptr ? p->pack->data() : nullptr; }
void SharedPack_Release(LoomSharedPack* p) { delete p; }
LoomDataType Prepare_OutputDType(const LoomPrepareContext* c, size_t i) {
  const auto& d = c->inference->output_dtypes;
  return i < d.size() ? static_cast<LoomDataType>(d[i]) : LOOM_DTYPE_UNDEFINED;
}
int Prepare_OutputShape(const LoomPrepareContext* c, size_t i, const int64_t** dims, size_t* rank) {
  const auto& s = c->inference->output_shapes;
  if (i >= s.size() || !s[i]) return 0;
  *dims = s[i]->data();
  *rank = s[i]->size();
  return 1;
}
int Prepare_NumThreads(const LoomPrepareContext* c) { return c->num_threads; }
const char* Prepare_Device(const LoomPrepareContext* c) { return c->device->c_str(); }

LoomStatus* ResizeTensor(LoomKernelContext* c, LoomTensor* t, LoomDataType dtype, const int64_t* dims, size_t rank,
                         const char* what) {
  if (c == nullptr || t == nullptr || (dims == nullptr && rank > 0)) {
    return Err(LOOM_INVALID_ARGUMENT, "ResizeTensor: null context, tensor or dims");
  }
  Tensor* tensor = FromHandle(t);
  const DataType dt = static_cast<DataType>(dtype);
  if (SizedAs(*tensor, dt, dims, rank)) return nullptr;
  return SizeTensor(c, tensor, dt, Shape(dims, dims + rank),
                    what != nullptr && what[0] != '\0' ? std::string(what) : std::string("a nested net's blob"));
}

LoomOpResource* OpResource_Acquire(LoomKernelContext* c, const char* key, void* (*create)(void* user, LoomStatus** status),
                                   void (*destroy)(void* resource), void* user, LoomStatus** status) {
  if (status != nullptr) *status = nullptr;
  auto fail = [&](LoomStatus* s) -> LoomOpResource* {
    if (status != nullptr) *status = s; else delete s;
    return nullptr;
  };
  if (c == nullptr || c->workspace == nullptr || key == nullptr || key[0] == '\0' || create == nullptr || destroy == nullptr) {
    return fail(Err(LOOM_INVALID_ARGUMENT, "OpResource_Acquire: needs a kernel context with a workspace, a non-empty key, "
                                           "create and destroy"));
  }
  absl::StatusOr<std::shared_ptr<void>> r = c->workspace->AcquireResource(key, [&]() -> absl::StatusOr<std::shared_ptr<void>> {
    LoomStatus* st = nullptr;
    void* made = create(user, &st);
    if (st != nullptr) {
      if (made != nullptr) destroy(made);
      return FromLoomStatus(st);
    }
    if (made == nullptr) return absl::InternalError("create returned NULL and no status");
    return std::shared_ptr<void>(made, destroy);
  });
  if (!r.ok()) {
    const std::string label = c->label != nullptr ? *c->label : std::string("OpResource_Acquire");
    return fail(Err(static_cast<LoomStatusCode>(r.status().code()),
                    absl::StrCat(label, ": per-op resource '", key, "': ", r.status().message())));
  }
  return new LoomOpResource{*std::move(r)};
}
void* OpResource_Data(const LoomOpResource* h) { return h != nullptr ? h->resource.get() : nullptr; }
void OpResource_Release(LoomOpResource* h) { delete h; }

}  // namespace

const LoomKernelContextApi* GetKernelContextApi() {
  static const LoomKernelContextApi kTable = [] {
    LoomKernelContextApi t{};
    t.struct_size = sizeof(LoomKernelContextApi);
    t.version = 2;
    t.ResizeTensor = ResizeTensor;
    t.OpResource_Acquire = OpResource_Acquire;
    t.OpResource_Data = OpResource_Data;
    t.OpResource_Release = OpResource_Release;
    t.Prepare_FpMathMode = Prepare_FpMathMode;
    return t;
  }();
  return &kTable;
}

void FillKernelContextApi(LoomApi* a) {
  a->Ctx_NumInputs = Ctx_NumInputs;
  a->Ctx_Input = Ctx_Input;
  a->Ctx_NumOutputs = Ctx_NumOutputs;
  a->Ctx_OutputRequested = Ctx_OutputRequested;
  a->Ctx_Output = Ctx_Output;
  a->Ctx_OutputHandle = Ctx_OutputHandle;
  a->Ctx_NumThreads = Ctx_NumThreads;
  a->Ctx_Stream = Ctx_Stream;
  a->Ctx_Limit = Ctx_Limit;
  a->Ctx_Scratch = Ctx_Scratch;
  a->Infer_Info = Infer_Info;
  a->Infer_NumInputs = Infer_NumInputs;
  a->Infer_NumOutputs = Infer_NumOutputs;
  a->Infer_InputDType = Infer_InputDType;
  a->Infer_InputShape = Infer_InputShape;
  a->Infer_InputConstant = Infer_InputConstant;
  a->Infer_SetOutputDType = Infer_SetOutputDType;
  a->Infer_SetOutputShape = Infer_SetOutputShape;
  a->Prepare_Info = Prepare_Info;
  a->Prepare_NumInputs = Prepare_NumInputs;
  a->Prepare_NumOutputs = Prepare_NumOutputs;
  a->Prepare_InputDType = Prepare_InputDType;
  a->Prepare_InputShape = Prepare_InputShape;
  a->Prepare_InputConstant = Prepare_InputConstant;
  a->Prepare_ReleaseConstant = Prepare_ReleaseConstant;
  a->Prepare_OutputDType = Prepare_OutputDType;
  a->Prepare_OutputShape = Prepare_OutputShape;
  a->Prepare_NumThreads = Prepare_NumThreads;
  a->Prepare_Device = Prepare_Device;
  a->Prepare_SharedPack = Prepare_SharedPack;
  a->SharedPack_Data = SharedPack_Data;
  a->SharedPack_Release = SharedPack_Release;
}

}  // namespace loom
