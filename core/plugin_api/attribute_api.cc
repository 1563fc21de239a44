// The Info_* part of the LoomApi table: an operator's attributes (defaults
// applied), names and arity, for kernel creation and inference. Tensor and
// NetDef attributes are decoded once and kept in the LoomKernelInfo.
#include "absl/strings/str_cat.h"
#include "core/registry.h"
#include "core/attributes.h"
#include "core/plugin_api/api_table.h"
#include "core/proto_io.h"
#include "core/status_bridge.h"

LoomKernelInfo::LoomKernelInfo(const loom::OperatorDef& o, std::string l, const loom::OpSchema* s, int m)
    : op(o), label(std::move(l)), schema(s), model_args(m) {
  for (const auto& a : op.arg()) args[a.name()] = &a;
}

namespace loom {
namespace {

LoomStatus* Err(LoomStatusCode code, const std::string& m) { return new LoomStatus{code, m}; }

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

// A kernel read attribute `name` (holding `arg`) as `want`, another type.
// Whose value it is decides who is wrong: the schema's default or a model
// value the schema declared (CheckAttributes let it through), so the kernel
// and its schema disagree; or a value the schema does not declare (it
// allows unknown attributes), so the kernel and the model do.
std::string KernelReadError(const LoomKernelInfo& i, const char* name, const Argument& arg, LoomAttrType want) {
  const char* found = AttrTypeName(ArgumentType(arg));
  const std::string head = absl::StrCat(i.label, ": the kernel reads attribute '", name, "' as ", AttrTypeName(want));
  const std::string type = QualifiedOpType(i.op.domain(), i.op.type());
  int index = 0;
  while (index < i.op.arg_size() && i.op.arg(index).name() != name) ++index;
  const bool from_default = i.model_args >= 0 && index >= i.model_args;
  const AttrSpec* spec = i.schema != nullptr ? i.schema->FindAttr(name) : nullptr;
  if (from_default) {
    return absl::StrCat(head, ", but the schema of ", type, " declares it ", found,
                        " (the value is the schema's default): the kernel and its schema disagree");
  }
  if (spec != nullptr) {
    return absl::StrCat(head, ", but the schema of ", type, " declares it ", found,
                        " (the model gives it so): the kernel and its schema disagree");
  }
  return absl::StrCat(head, ", but the model gives it as ", found, " (the schema of ", type,
                      " does not declare it)");
}

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
  if (found != want && !list_ok) return Err(LOOM_INVALID_ARGUMENT, KernelReadError(*i, name, *it->second, want));
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

}  // namespace

void FillAttributeApi(LoomApi* a) {
  a->Info_OpType = Info_OpType;
  a->Info_OpName = Info_OpName;
  a->Info_NumInputs = Info_NumInputs;
  a->Info_NumOutputs = Info_NumOutputs;
  a->Info_InputName = Info_InputName;
  a->Info_OutputName = Info_OutputName;
  a->Info_HasAttr = Info_HasAttr;
  a->Info_GetInt = Info_GetInt;
  a->Info_GetFloat = Info_GetFloat;
  a->Info_GetString = Info_GetString;
  a->Info_GetInts = Info_GetInts;
  a->Info_GetFloats = Info_GetFloats;
  a->Info_GetStringsCount = Info_GetStringsCount;
  a->Info_GetStringAt = Info_GetStringAt;
  a->Info_GetTensor = Info_GetTensor;
  a->Info_GetNetBytes = Info_GetNetBytes;
}

}  // namespace loom
