// LoomSessionApi (loom_session_c_api.h): the C table over loom::Session.
#include <climits>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/external_data.h"
#include "core/proto_io.h"
#include "core/status_bridge.h"
#include "session/loom_session_c_api.h"
#include "session/session.h"

struct LoomValue {
  loom::Tensor tensor;
};

// The session and its inputs' and outputs' descriptions as C arrays.
struct LoomSession {
  struct Info {
    std::vector<const char*> dim_names;
  };
  std::unique_ptr<loom::Session> session;
  std::vector<Info> inputs, outputs;  // parallel to session->inputs() / outputs()
};

namespace loom {
namespace {

// The structs' sizes in version 1 of the API, frozen: a caller built
// against version 1 passes these even after later versions append members
// (which are then read as zero, or not written).
constexpr size_t kOptionsV1Size = 56;
constexpr size_t kTensorInfoV1Size = 48;
static_assert(sizeof(LoomSessionOptions) >= kOptionsV1Size && sizeof(LoomTensorInfo) >= kTensorInfoV1Size,
              "members are only appended");

// Runs `body` (returning absl::Status), turning an escaping C++ exception
// into a status: none may cross the C boundary.
template <typename F>
LoomStatus* Guarded(const char* what, F&& body) {
  try {
    return ToLoomStatus(body());
  } catch (const std::bad_alloc&) {
    return ToLoomStatus(absl::ResourceExhaustedError(absl::StrCat(what, ": out of memory")));
  } catch (const std::exception& e) {
    return ToLoomStatus(absl::InternalError(absl::StrCat(what, ": ", e.what())));
  }
}

absl::StatusOr<SessionOptions> ToOptions(const LoomSessionOptions* c) {
  SessionOptions o;
  if (c == nullptr) return o;
  if (c->struct_size < kOptionsV1Size) {
    return absl::InvalidArgumentError(absl::StrCat("LoomSessionOptions.struct_size is ", c->struct_size,
                                                   "; expected at least ", kOptionsV1Size,
                                                   " (LOOM_SESSION_OPTIONS_STRUCT_SIZE)"));
  }
  // Members after max_tensor_bytes are read only where c->struct_size
  // covers them (a caller built against an older header has none).
  o.num_threads = c->num_threads;
  if (c->device != nullptr) o.device = c->device;
  for (size_t i = 0; i < c->num_plugins; ++i) o.plugins.emplace_back(c->plugins[i]);
  switch (c->optimization_level) {
    case LOOM_OPTIMIZE_DEFAULT:
    case LOOM_OPTIMIZE_ALL: o.optimization_level = 1; break;
    case LOOM_OPTIMIZE_NONE: o.optimization_level = 0; break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("LoomSessionOptions.optimization_level is ",
                                                     c->optimization_level,
                                                     "; expected a LoomOptimizationLevel (0 to 2)"));
  }
  switch (c->memory_mode) {
    case LOOM_MEMORY_DEFAULT:
    case LOOM_MEMORY_PLANNED: o.plan_memory = true; break;
    case LOOM_MEMORY_PER_TENSOR: o.plan_memory = false; break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("LoomSessionOptions.memory_mode is ", c->memory_mode,
                                                     "; expected a LoomMemoryMode (0 to 2)"));
  }
  if (c->max_tensor_bytes != 0) o.max_tensor_bytes = c->max_tensor_bytes < 0 ? 0 : c->max_tensor_bytes;
  if (LOOM_HAS_MEMBER(LoomSessionOptions, c->struct_size, external_data_dir) && c->external_data_dir != nullptr) {
    o.external_data_dir = c->external_data_dir;
  }
  if (LOOM_HAS_MEMBER(LoomSessionOptions, c->struct_size, fpmath_mode)) {
    switch (c->fpmath_mode) {
      case LOOM_FPMATH_MODE_STRICT: o.fpmath_mode = FpMathMode::kStrict; break;
      case LOOM_FPMATH_MODE_BF16: o.fpmath_mode = FpMathMode::kBf16; break;
      default:
        return absl::InvalidArgumentError(absl::StrCat("LoomSessionOptions.fpmath_mode is ", c->fpmath_mode,
                                                       "; expected a LoomFpMathMode (0 or 1)"));
    }
  }
  return o;
}

// The C handle over a made session.
std::unique_ptr<LoomSession> Wrap(std::unique_ptr<Session> session) {
  auto s = std::make_unique<LoomSession>();
  s->session = std::move(session);
  auto names = [](const std::vector<TensorInfo>& infos, std::vector<LoomSession::Info>* out) {
    for (const TensorInfo& i : infos) {
      out->emplace_back();
      for (const std::string& n : i.dim_names) out->back().dim_names.push_back(n.c_str());
    }
  };
  names(s->session->inputs(), &s->inputs);
  names(s->session->outputs(), &s->outputs);
  return s;
}

template <typename Make>
LoomStatus* Create(const LoomSessionOptions* options, LoomSession** out, Make make) {
  return Guarded("CreateSession", [&]() -> absl::Status {
    if (out == nullptr) return absl::InvalidArgumentError("CreateSession: `out` is NULL");
    absl::StatusOr<SessionOptions> o = ToOptions(options);
    if (!o.ok()) return o.status();
    absl::StatusOr<std::unique_ptr<Session>> made = make(*o);
    if (!made.ok()) return made.status();
    *out = Wrap(*std::move(made)).release();
    return absl::OkStatus();
  });
}

LoomStatus* CreateFromOnnxFile(const char* path, const LoomSessionOptions* options, LoomSession** out) {
  if (path == nullptr) return ToLoomStatus(absl::InvalidArgumentError("CreateSessionFromOnnxFile: `path` is NULL"));
  return Create(options, out, [&](const SessionOptions& o) { return Session::FromOnnxFile(path, o); });
}

LoomStatus* CreateFromOnnxBytes(const void* model, size_t bytes, const LoomSessionOptions* options, LoomSession** out) {
  if (model == nullptr && bytes > 0) return ToLoomStatus(absl::InvalidArgumentError("CreateSessionFromOnnxBytes: `model` is NULL"));
  return Create(options, out, [&](const SessionOptions& o) {
    return Session::FromOnnxBytes(std::string(static_cast<const char*>(model), bytes), o);
  });
}

LoomStatus* CreateFromNetDef(const void* netdef, size_t bytes, const LoomSessionOptions* options, LoomSession** out) {
  if (netdef == nullptr && bytes > 0) return ToLoomStatus(absl::InvalidArgumentError("CreateSessionFromNetDef: `netdef` is NULL"));
  return Create(options, out, [&](const SessionOptions& o) -> absl::StatusOr<std::unique_ptr<Session>> {
    NetDef net;
    if (bytes > static_cast<size_t>(INT_MAX)) {
      return absl::InvalidArgumentError(absl::StrCat("CreateSessionFromNetDef: ", bytes, " bytes; a NetDef is at most 2 GiB"));
    }
    if (!net.ParseFromArray(netdef, static_cast<int>(bytes))) {
      return absl::InvalidArgumentError(absl::StrCat("CreateSessionFromNetDef: the ", bytes, " bytes are not a binary NetDef"));
    }
    // Bytes have no folder: external data resolves against external_data_dir.
    if (absl::Status s = ResolveExternalData(&net, o.external_data_dir); !s.ok()) return s;
    return Session::FromNetDef(std::move(net), o);
  });
}

void ReleaseSession(LoomSession* session) { delete session; }

size_t InputCount(const LoomSession* s) { return s->session->inputs().size(); }
size_t OutputCount(const LoomSession* s) { return s->session->outputs().size(); }

LoomStatus* FillInfo(const char* what, const std::vector<TensorInfo>& infos, const std::vector<LoomSession::Info>& c,
                     size_t index, LoomTensorInfo* out) {
  if (index >= infos.size()) {
    return ToLoomStatus(absl::OutOfRangeError(absl::StrCat(what, ": index ", index, "; the model has ", infos.size())));
  }
  if (out == nullptr) return ToLoomStatus(absl::InvalidArgumentError(absl::StrCat(what, ": `info` is NULL")));
  if (out->struct_size < kTensorInfoV1Size) {
    return ToLoomStatus(absl::InvalidArgumentError(absl::StrCat(what, ": info->struct_size is ", out->struct_size,
                                                                "; expected at least ", kTensorInfoV1Size,
                                                                " (LOOM_TENSOR_INFO_STRUCT_SIZE)")));
  }
  const TensorInfo& i = infos[index];
  out->name = i.name.c_str();
  out->dtype = static_cast<LoomDataType>(i.dtype);
  out->shape_known = i.shape_known ? 1 : 0;
  out->rank = i.dims.size();
  out->dims = i.dims.data();
  out->dim_names = c[index].dim_names.data();
  return nullptr;
}

LoomStatus* InputInfo(const LoomSession* s, size_t index, LoomTensorInfo* info) {
  return FillInfo("SessionInputInfo", s->session->inputs(), s->inputs, index, info);
}
LoomStatus* OutputInfo(const LoomSession* s, size_t index, LoomTensorInfo* info) {
  return FillInfo("SessionOutputInfo", s->session->outputs(), s->outputs, index, info);
}

LoomStatus* CreateValue(LoomDataType dtype, const int64_t* dims, size_t rank, LoomValue** out) {
  return Guarded("CreateValue", [&]() -> absl::Status {
    if (out == nullptr) return absl::InvalidArgumentError("CreateValue: `out` is NULL");
    if (dims == nullptr && rank > 0) return absl::InvalidArgumentError(absl::StrCat("CreateValue: `dims` is NULL with rank ", rank));
    absl::StatusOr<Tensor> t = Tensor::Create(static_cast<DataType>(dtype), Shape(dims, dims + rank));
    if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat("CreateValue: ", t.status().message()));
    *out = new LoomValue{*std::move(t)};
    return absl::OkStatus();
  });
}

LoomStatus* CreateValueOver(LoomDataType dtype, const int64_t* dims, size_t rank, void* data, size_t bytes, LoomValue** out) {
  return Guarded("CreateValueOver", [&]() -> absl::Status {
    if (out == nullptr) return absl::InvalidArgumentError("CreateValueOver: `out` is NULL");
    if (dims == nullptr && rank > 0) {
      return absl::InvalidArgumentError(absl::StrCat("CreateValueOver: `dims` is NULL with rank ", rank));
    }
    absl::StatusOr<Tensor> t = Tensor::Borrow(static_cast<DataType>(dtype), Shape(dims, dims + rank), data, nullptr);
    if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat("CreateValueOver: ", t.status().message()));
    if (t->nbytes() != bytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("CreateValueOver: ", t->DebugString(), " takes ", t->nbytes(), " bytes; ", bytes, " given"));
    }
    *out = new LoomValue{*std::move(t)};
    return absl::OkStatus();
  });
}

void ReleaseValue(LoomValue* v) { delete v; }
LoomDataType ValueDType(const LoomValue* v) { return static_cast<LoomDataType>(v->tensor.dtype()); }
size_t ValueRank(const LoomValue* v) { return v->tensor.rank(); }
const int64_t* ValueDims(const LoomValue* v) { return v->tensor.dims().data(); }
int64_t ValueNumElements(const LoomValue* v) { return v->tensor.num_elements(); }
void* ValueData(const LoomValue* v) { return v->tensor.raw_data(); }

LoomStatus* CreateStringValue(const int64_t* dims, size_t rank, const char* const* strings, const size_t* lengths,
                              LoomValue** out) {
  return Guarded("CreateStringValue", [&]() -> absl::Status {
    if (out == nullptr) return absl::InvalidArgumentError("CreateStringValue: `out` is NULL");
    if (dims == nullptr && rank > 0) {
      return absl::InvalidArgumentError(absl::StrCat("CreateStringValue: `dims` is NULL with rank ", rank));
    }
    absl::StatusOr<Tensor> t = Tensor::Create(DataType::kString, Shape(dims, dims + rank));
    if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat("CreateStringValue: ", t.status().message()));
    std::vector<std::string>& items = *t->mutable_strings();
    if (strings == nullptr && !items.empty()) return absl::InvalidArgumentError("CreateStringValue: `strings` is NULL");
    for (size_t i = 0; i < items.size(); ++i) {
      if (strings[i] == nullptr) return absl::InvalidArgumentError(absl::StrCat("CreateStringValue: string ", i, " is NULL"));
      items[i] = lengths != nullptr ? std::string(strings[i], lengths[i]) : std::string(strings[i]);
    }
    *out = new LoomValue{*std::move(t)};
    return absl::OkStatus();
  });
}

LoomStatus* ValueString(const LoomValue* v, int64_t index, const char** data, size_t* length) {
  return Guarded("ValueString", [&]() -> absl::Status {
    if (v == nullptr || data == nullptr || length == nullptr) {
      return absl::InvalidArgumentError("ValueString: `value`, `data` or `length` is NULL");
    }
    if (v->tensor.dtype() != DataType::kString) {
      return absl::InvalidArgumentError(
          absl::StrCat("ValueString: the value is a ", DataTypeName(v->tensor.dtype()), "; expected a string tensor"));
    }
    const std::vector<std::string>& items = v->tensor.strings();
    if (index < 0 || index >= static_cast<int64_t>(items.size())) {
      return absl::OutOfRangeError(absl::StrCat("ValueString: index ", index, "; the tensor has ", items.size(), " elements"));
    }
    *data = items[static_cast<size_t>(index)].data();
    *length = items[static_cast<size_t>(index)].size();
    return absl::OkStatus();
  });
}

// A sequence or optional of `type` holding copies of `items`.
absl::Status MakeValueOf(const char* what, DataType type, const LoomValue* const* items, size_t count, LoomValue** out) {
  if (out == nullptr) return absl::InvalidArgumentError(absl::StrCat(what, ": `out` is NULL"));
  std::vector<Tensor> values;
  for (size_t i = 0; i < count; ++i) {
    if (items[i] == nullptr) return absl::InvalidArgumentError(absl::StrCat(what, ": item ", i, " is NULL"));
    values.push_back(items[i]->tensor);
  }
  absl::StatusOr<Tensor> v = Tensor::MakeValue(type, std::move(values));
  if (!v.ok()) return absl::Status(v.status().code(), absl::StrCat(what, ": ", v.status().message()));
  *out = new LoomValue{*std::move(v)};
  return absl::OkStatus();
}

LoomStatus* CreateSequenceValue(LoomDataType element, const LoomValue* const* items, size_t count, LoomValue** out) {
  return Guarded("CreateSequenceValue", [&]() -> absl::Status {
    if (items == nullptr && count > 0) return absl::InvalidArgumentError("CreateSequenceValue: `items` is NULL");
    const DataType e = static_cast<DataType>(element);
    if (IsValueType(e) || !IsSupportedDataType(element)) {
      return absl::InvalidArgumentError(absl::StrCat("CreateSequenceValue: element type ", DataTypeName(e),
                                                     "; expected a tensor dtype"));
    }
    return MakeValueOf("CreateSequenceValue", SequenceOf(e), items, count, out);
  });
}

LoomStatus* CreateOptionalValue(LoomDataType inner, const LoomValue* item, LoomValue** out) {
  return Guarded("CreateOptionalValue", [&]() -> absl::Status {
    const DataType x = static_cast<DataType>(inner);
    if (IsOptionalType(x) || (!IsSequenceType(x) && !IsSupportedDataType(inner))) {
      return absl::InvalidArgumentError(absl::StrCat("CreateOptionalValue: inner type ", DataTypeName(x),
                                                     "; expected a tensor dtype or a sequence type"));
    }
    return MakeValueOf("CreateOptionalValue", OptionalOf(x), &item, item != nullptr ? 1 : 0, out);
  });
}

size_t ValueCount(const LoomValue* v) { return v->tensor.values().size(); }

LoomStatus* ValueItem(const LoomValue* v, size_t index, LoomValue** out) {
  return Guarded("ValueItem", [&]() -> absl::Status {
    if (v == nullptr || out == nullptr) return absl::InvalidArgumentError("ValueItem: `value` or `out` is NULL");
    const std::vector<Tensor>& items = v->tensor.values();
    if (index >= items.size()) {
      return absl::OutOfRangeError(absl::StrCat("ValueItem: index ", index, "; the ", DataTypeName(v->tensor.dtype()),
                                                 " holds ", items.size()));
    }
    *out = new LoomValue{items[index]};
    return absl::OkStatus();
  });
}

LoomStatus* Run(const LoomSession* session, const char* const* input_names, const LoomValue* const* inputs,
                size_t num_inputs, const char* const* output_names, size_t num_outputs, LoomValue** outputs) {
  return Guarded("Run", [&]() -> absl::Status {
    if (session == nullptr) return absl::InvalidArgumentError("Run: `session` is NULL");
    if (num_inputs > 0 && (input_names == nullptr || inputs == nullptr)) {
      return absl::InvalidArgumentError("Run: `input_names` or `inputs` is NULL with num_inputs > 0");
    }
    if (num_outputs > 0 && output_names == nullptr) return absl::InvalidArgumentError("Run: `output_names` is NULL with num_outputs > 0");
    if (outputs == nullptr) return absl::InvalidArgumentError("Run: `outputs` is NULL");
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (size_t i = 0; i < num_inputs; ++i) {
      if (input_names[i] == nullptr || inputs[i] == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("Run: input ", i, "'s name or value is NULL"));
      }
      feeds.emplace_back(input_names[i], inputs[i]->tensor);
    }
    std::vector<std::string> fetches;
    for (size_t i = 0; i < num_outputs; ++i) {
      if (output_names[i] == nullptr) return absl::InvalidArgumentError(absl::StrCat("Run: output name ", i, " is NULL"));
      fetches.emplace_back(output_names[i]);
    }
    const std::vector<TensorInfo>& declared = session->session->outputs();
    const size_t n = num_outputs > 0 ? num_outputs : declared.size();
    std::vector<std::unique_ptr<LoomValue>> made(n);
    absl::Status s = session->session->RunWith(feeds, fetches, [&](size_t i, const Tensor& src) -> absl::Status {
      if ((src.is_value() || src.dtype() == DataType::kString) && outputs[i] != nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("Run: output '", fetches.empty() ? declared[i].name : fetches[i],
                                                       "' is a ", DataTypeName(src.dtype()),
                                                       "; pass NULL for it (a new value is made), not a buffer"));
      }
      if (outputs[i] != nullptr) return CopyOutputInto(fetches.empty() ? declared[i].name : fetches[i], src, &outputs[i]->tensor);
      absl::StatusOr<Tensor> copy = src.Clone();
      if (!copy.ok()) return copy.status();
      made[i] = std::make_unique<LoomValue>(LoomValue{*std::move(copy)});
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    for (size_t i = 0; i < n; ++i) {
      if (made[i]) outputs[i] = made[i].release();
    }
    return absl::OkStatus();
  });
}

LoomStatusCode StatusCode(const LoomStatus* s) { return s == nullptr ? LOOM_OK : s->code; }
const char* StatusMessage(const LoomStatus* s) { return s == nullptr ? "" : s->message.c_str(); }
void ReleaseStatus(LoomStatus* s) { delete s; }

const LoomSessionApi kApi = {
    sizeof(LoomSessionApi),
    LOOM_SESSION_API_VERSION,
    &StatusCode,
    &StatusMessage,
    &ReleaseStatus,
    &CreateFromOnnxFile,
    &CreateFromOnnxBytes,
    &CreateFromNetDef,
    &ReleaseSession,
    &InputCount,
    &OutputCount,
    &InputInfo,
    &OutputInfo,
    &CreateValue,
    &CreateValueOver,
    &ReleaseValue,
    &ValueDType,
    &ValueRank,
    &ValueDims,
    &ValueNumElements,
    &ValueData,
    &Run,
    &CreateStringValue,
    &ValueString,
    &CreateSequenceValue,
    &CreateOptionalValue,
    &ValueCount,
    &ValueItem,
};

}  // namespace
}  // namespace loom

extern "C" const LoomSessionApi* LoomGetSessionApi(uint32_t version) {
  return version >= 1 && version <= LOOM_SESSION_API_VERSION ? &loom::kApi : nullptr;
}
