#include "core/c_api_impl.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/attributes.h"
#include "core/c_api_nested.h"
#include "core/proto_io.h"
#include "core/status_bridge.h"

LoomKernelInfo::LoomKernelInfo(const loom::OperatorDef& o, std::string l) : op(o), label(std::move(l)) {
  for (const auto& a : op.arg()) args[a.name()] = &a;
}

namespace loom {
namespace {

LoomStatus* Err(LoomStatusCode code, const std::string& m) { return new LoomStatus{code, m}; }

LoomStatus* CreateStatus(LoomStatusCode code, const char* message) {
  return Err(code == LOOM_OK ? LOOM_UNKNOWN : code, message ? message : "");
}
LoomStatusCode StatusCode(const LoomStatus* s) { return s ? s->code : LOOM_OK; }
const char* StatusMessage(const LoomStatus* s) { return s ? s->message.c_str() : ""; }
void ReleaseStatus(LoomStatus* s) { delete s; }

LoomStatus* DeclarePlugin(LoomRegistrar* r, const LoomPluginInfo* info) {
  if (!r || !info) return Err(LOOM_INVALID_ARGUMENT, "DeclarePlugin: null argument");
  return ToLoomStatus(r->txn->Declare(*info));
}
LoomStatus* RegisterSchema(LoomRegistrar* r, const LoomSchemaDef* d) {
  if (!r || !d) return Err(LOOM_INVALID_ARGUMENT, "RegisterSchema: null argument");
  return ToLoomStatus(r->txn->AddSchema(*d));
}
LoomStatus* RegisterKernel(LoomRegistrar* r, const LoomKernelDef* d) {
  if (!r || !d) return Err(LOOM_INVALID_ARGUMENT, "RegisterKernel: null argument");
  return ToLoomStatus(r->txn->AddKernel(*d));
}
LoomStatus* RegisterDevice(LoomRegistrar* r, const LoomDeviceDef* d) {
  if (!r || !d) return Err(LOOM_INVALID_ARGUMENT, "RegisterDevice: null argument");
  return ToLoomStatus(r->txn->AddDevice(*d));
}

LoomDataType TensorDType(const LoomTensor* t) { return static_cast<LoomDataType>(FromHandle(t)->dtype()); }
size_t TensorRank(const LoomTensor* t) { return FromHandle(t)->rank(); }
const int64_t* TensorDims(const LoomTensor* t) { return FromHandle(t)->dims().data(); }
int64_t TensorNumElements(const LoomTensor* t) { return FromHandle(t)->num_elements(); }
void* TensorData(const LoomTensor* t) { return FromHandle(t)->raw_data(); }
const char* TensorDevice(const LoomTensor* t) { return FromHandle(t)->device()->type().c_str(); }

const char* Info_OpType(const LoomKernelInfo* i) { return i->op.type().c_str(); }
const char* Info_OpName(const LoomKernelInfo* i) { return i->op.name().c_str(); }
size_t Info_NumInputs(const LoomKernelInfo* i) { return i->op.input_size(); }
size_t Info_NumOutputs(const LoomKernelInfo* i) { return i->op.output_size(); }
const char* Info_InputName(const LoomKernelInfo* i, size_t k) {
  return k < static_cast<size_t>(i->op.input_size()) ? i->op.input(static_cast<int>(k)).c_str() : "";
}
const char* Info_OutputName(const LoomKernelInfo* i, size_t k) {
  return k < static_cast<size_t>(i->op.output_size()) ? i->op.output(static_cast<int>(k)).c_str() : "";
}
int Info_HasAttr(const LoomKernelInfo* i, const char* name) { return i->args.count(name) ? 1 : 0; }

// Finds attribute `name` and checks it holds `want` (an empty Argument is an
// empty list of any list type).
LoomStatus* Lookup(const LoomKernelInfo* i, const char* name, LoomAttrType want, const Argument** out) {
  auto it = i->args.find(name);
  if (it == i->args.end()) {
    return Err(LOOM_NOT_FOUND, absl::StrCat(i->label, ": attribute '", name, "' is not set"));
  }
  LoomAttrType found = ArgumentType(*it->second);
  bool list_ok = found == LOOM_ATTR_UNDEFINED &&
                 (want == LOOM_ATTR_INTS || want == LOOM_ATTR_FLOATS || want == LOOM_ATTR_STRINGS || want == LOOM_ATTR_NETS);
  if (found != want && !list_ok) {
    return Err(LOOM_INVALID_ARGUMENT, absl::StrCat(i->label, ": attribute '", name, "' expected type ",
                                                   AttrTypeName(want), ", found ", AttrTypeName(found)));
  }
  *out = it->second;
  return nullptr;
}

LoomStatus* Info_GetInt(const LoomKernelInfo* i, const char* name, int64_t* out) {
  const Argument* a;
  if (LoomStatus* s = Lookup(i, name, LOOM_ATTR_INT, &a)) return s;
  *out = a->i();
  return nullptr;
}
LoomStatus* Info_GetFloat(const LoomKernelInfo* i, const char* name, float* out) {
  const Argument* a;
  if (LoomStatus* s = Lookup(i, name, LOOM_ATTR_FLOAT, &a)) return s;
  *out = a->f();
  return nullptr;
}
LoomStatus* Info_GetString(const LoomKernelInfo* i, const char* name, const char** d, size_t* n) {
  const Argument* a;
  if (LoomStatus* s = Lookup(i, name, LOOM_ATTR_STRING, &a)) return s;
  *d = a->s().data();
  *n = a->s().size();
  return nullptr;
}
LoomStatus* Info_GetInts(const LoomKernelInfo* i, const char* name, const int64_t** d, size_t* n) {
  const Argument* a;
  if (LoomStatus* s = Lookup(i, name, LOOM_ATTR_INTS, &a)) return s;
  *d = a->ints().data();
  *n = a->ints_size();
  return nullptr;
}
LoomStatus* Info_GetFloats(const LoomKernelInfo* i, const char* name, const float** d, size_t* n) {
  const Argument* a;
  if (LoomStatus* s = Lookup(i, name, LOOM_ATTR_FLOATS, &a)) return s;
  *d = a->floats().data();
  *n = a->floats_size();
  return nullptr;
}
LoomStatus* Info_GetStringsCount(const LoomKernelInfo* i, const char* name, size_t* n) {
  const Argument* a;
  if (LoomStatus* s = Lookup(i, name, LOOM_ATTR_STRINGS, &a)) return s;
  *n = a->strings_size();
  return nullptr;
}
LoomStatus* Info_GetStringAt(const LoomKernelInfo* i, const char* name, size_t idx, const char** d, size_t* n) {
  const Argument* a;
  if (LoomStatus* s = Lookup(i, name, LOOM_ATTR_STRINGS, &a)) return s;
  if (idx >= static_cast<size_t>(a->strings_size())) {
    return Err(LOOM_OUT_OF_RANGE, absl::StrCat(i->label, ": attribute '", name, "' has ", a->strings_size(),
                                               " strings; index ", idx, " asked"));
  }
  *d = a->strings(static_cast<int>(idx)).data();
  *n = a->strings(static_cast<int>(idx)).size();
  return nullptr;
}
LoomStatus* Info_GetTensor(const LoomKernelInfo* i, const char* name, const LoomTensor** out) {
  const Argument* a;
  if (LoomStatus* s = Lookup(i, name, LOOM_ATTR_TENSOR, &a)) return s;
  auto it = i->tensors.find(name);
  if (it == i->tensors.end()) {
    absl::StatusOr<Tensor> t = TensorFromProto(a->t());
    if (!t.ok()) {
      return Err(LOOM_INVALID_ARGUMENT, absl::StrCat(i->label, ": attribute '", name, "': ", t.status().message()));
    }
    it = i->tensors.emplace(name, *std::move(t)).first;
  }
  *out = ToHandle(&it->second);
  return nullptr;
}
LoomStatus* Info_GetNetBytes(const LoomKernelInfo* i, const char* name, const void** d, size_t* n) {
  const Argument* a;
  if (LoomStatus* s = Lookup(i, name, LOOM_ATTR_NET, &a)) return s;
  auto it = i->nets.find(name);
  if (it == i->nets.end()) it = i->nets.emplace(name, a->n().SerializeAsString()).first;
  *d = it->second.data();
  *n = it->second.size();
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
  // Steady state: same dtype and shape as last run, nothing to do.
  if (t->dtype() == dt && t->rank() == rank && (rank == 0 || std::equal(dims, dims + rank, t->dims().data())) &&
      (t->num_elements() == 0 || t->raw_data() != nullptr)) {
    *out = ToHandle(t);
    return nullptr;
  }
  // An alias (a slice linked by the recurrent-network op) keeps its memory.
  absl::Status s = t->ResizeOrCheckAlias(dt, Shape(dims, dims + rank));
  if (!s.ok()) return Err(static_cast<LoomStatusCode>(s.code()), absl::StrCat(*c->label, ": output ", i, ": ", s.message()));
  *out = ToHandle(c->outputs[i]);
  return nullptr;
}
LoomTensor* Ctx_OutputHandle(LoomKernelContext* c, size_t i) {
  return i < c->outputs.size() && c->outputs[i] ? ToHandle(c->outputs[i]) : nullptr;
}
int Ctx_NumThreads(const LoomKernelContext* c) { return c->num_threads; }
void* Ctx_Stream(const LoomKernelContext* c) { return c->stream; }

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

void Log(int level, const char* message) {
  static const char* kLevels[] = {"I", "W", "E"};
  std::fprintf(stderr, "[loom %s] %s\n", kLevels[level < 0 ? 0 : level > 2 ? 2 : level], message ? message : "");
}

LoomApi MakeApi() {
  LoomApi a{};
  a.struct_size = sizeof(LoomApi);
  a.abi_version = LOOM_ABI_VERSION;
  a.min_abi_version = LOOM_ABI_MIN_VERSION;
  a.CreateStatus = CreateStatus;
  a.StatusCode = StatusCode;
  a.StatusMessage = StatusMessage;
  a.ReleaseStatus = ReleaseStatus;
  a.DeclarePlugin = DeclarePlugin;
  a.RegisterSchema = RegisterSchema;
  a.RegisterKernel = RegisterKernel;
  a.RegisterDevice = RegisterDevice;
  a.TensorDType = TensorDType;
  a.TensorRank = TensorRank;
  a.TensorDims = TensorDims;
  a.TensorNumElements = TensorNumElements;
  a.TensorData = TensorData;
  a.TensorDevice = TensorDevice;
  a.Info_OpType = Info_OpType;
  a.Info_OpName = Info_OpName;
  a.Info_NumInputs = Info_NumInputs;
  a.Info_NumOutputs = Info_NumOutputs;
  a.Info_HasAttr = Info_HasAttr;
  a.Info_GetInt = Info_GetInt;
  a.Info_GetFloat = Info_GetFloat;
  a.Info_GetString = Info_GetString;
  a.Info_GetInts = Info_GetInts;
  a.Info_GetFloats = Info_GetFloats;
  a.Info_GetStringsCount = Info_GetStringsCount;
  a.Info_GetStringAt = Info_GetStringAt;
  a.Info_GetTensor = Info_GetTensor;
  a.Info_GetNetBytes = Info_GetNetBytes;
  a.Ctx_NumInputs = Ctx_NumInputs;
  a.Ctx_Input = Ctx_Input;
  a.Ctx_NumOutputs = Ctx_NumOutputs;
  a.Ctx_Output = Ctx_Output;
  a.Ctx_OutputRequested = Ctx_OutputRequested;
  a.Ctx_NumThreads = Ctx_NumThreads;
  a.Ctx_Stream = Ctx_Stream;
  a.Infer_Info = Infer_Info;
  a.Infer_NumInputs = Infer_NumInputs;
  a.Infer_NumOutputs = Infer_NumOutputs;
  a.Infer_InputDType = Infer_InputDType;
  a.Infer_InputShape = Infer_InputShape;
  a.Infer_InputConstant = Infer_InputConstant;
  a.Infer_SetOutputDType = Infer_SetOutputDType;
  a.Infer_SetOutputShape = Infer_SetOutputShape;
  a.Log = Log;
  FillNestedApi(&a);
  a.Info_InputName = Info_InputName;
  a.Info_OutputName = Info_OutputName;
  a.Ctx_OutputHandle = Ctx_OutputHandle;
  a.Prepare_Info = Prepare_Info;
  a.Prepare_NumInputs = Prepare_NumInputs;
  a.Prepare_NumOutputs = Prepare_NumOutputs;
  a.Prepare_InputDType = Prepare_InputDType;
  a.Prepare_InputShape = Prepare_InputShape;
  a.Prepare_InputConstant = Prepare_InputConstant;
  a.Prepare_OutputDType = Prepare_OutputDType;
  a.Prepare_OutputShape = Prepare_OutputShape;
  a.Prepare_NumThreads = Prepare_NumThreads;
  a.Prepare_Device = Prepare_Device;
  return a;
}

}  // namespace

const LoomApi* GetLoomApi() {
  static const LoomApi api = MakeApi();
  return &api;
}

}  // namespace loom
