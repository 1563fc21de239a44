// The values table (LoomValueApi, LOOM_SUBAPI_VALUES): ONNX sequence and
// optional values and string tensors' elements through the ABI, adapters
// over Tensor::MakeValue, Tensor::values() and Tensor::strings()
// (core/tensor.h).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/plugin_api/api_table.h"
#include "core/status_bridge.h"

namespace loom {
namespace {

LoomStatus* Err(LoomStatusCode code, const std::string& m) { return new LoomStatus{code, m}; }

size_t Value_Count(const LoomTensor* v) { return v == nullptr ? 0 : FromHandle(v)->values().size(); }

const LoomTensor* Value_At(const LoomTensor* v, size_t i) {
  if (v == nullptr) return nullptr;
  const std::vector<Tensor>& values = FromHandle(v)->values();
  return i < values.size() ? ToHandle(&values[i]) : nullptr;
}

LoomStatus* Value_Set(LoomTensor* v, LoomDataType type, const LoomTensor* const* values, size_t n) {
  if (v == nullptr || (n > 0 && values == nullptr)) return Err(LOOM_INVALID_ARGUMENT, "Value_Set: null argument");
  std::vector<Tensor> items;
  items.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (values[i] == nullptr) return Err(LOOM_INVALID_ARGUMENT, absl::StrCat("Value_Set: value ", i, " is null"));
    items.push_back(*FromHandle(values[i]));
  }
  absl::StatusOr<Tensor> made = Tensor::MakeValue(static_cast<DataType>(type), std::move(items));
  if (!made.ok()) return ToLoomStatus(made.status());
  *FromHandle(v) = *std::move(made);
  return nullptr;
}

LoomStatus* Value_Assign(LoomTensor* dst, const LoomTensor* src) {
  if (dst == nullptr || src == nullptr) return Err(LOOM_INVALID_ARGUMENT, "Value_Assign: null argument");
  const Tensor& s = *FromHandle(src);
  if (!s.is_value()) {
    return Err(LOOM_INVALID_ARGUMENT, absl::StrCat("Value_Assign: the source is a tensor (", s.DebugString(),
                                                   "), not a sequence or optional"));
  }
  *FromHandle(dst) = s;
  return nullptr;
}

LoomTensor* Value_NewTensor(LoomDataType dtype, const int64_t* dims, size_t rank, LoomStatus** status) {
  if (status != nullptr) *status = nullptr;
  if (rank > 0 && dims == nullptr) {
    if (status != nullptr) *status = Err(LOOM_INVALID_ARGUMENT, "Value_NewTensor: null dims");
    return nullptr;
  }
  absl::StatusOr<Tensor> t = Tensor::Create(static_cast<DataType>(dtype), Shape(dims, dims + rank));
  if (!t.ok()) {
    if (status != nullptr) *status = ToLoomStatus(t.status());
    return nullptr;
  }
  return ToHandle(new Tensor(*std::move(t)));
}

void Value_FreeTensor(LoomTensor* t) { delete FromHandle(t); }

int String_At(const LoomTensor* t, size_t i, const char** data, size_t* len) {
  if (t == nullptr || data == nullptr || len == nullptr) return 0;
  const std::vector<std::string>& s = FromHandle(t)->strings();
  if (FromHandle(t)->dtype() != DataType::kString || i >= s.size()) return 0;
  *data = s[i].data();
  *len = s[i].size();
  return 1;
}

LoomStatus* String_Set(LoomTensor* t, size_t i, const char* data, size_t len) {
  if (t == nullptr || (len > 0 && data == nullptr)) return Err(LOOM_INVALID_ARGUMENT, "String_Set: null argument");
  const Tensor& tensor = *FromHandle(t);
  std::vector<std::string>* s = tensor.mutable_strings();
  if (tensor.dtype() != DataType::kString || s == nullptr || i >= s->size()) {
    return Err(LOOM_INVALID_ARGUMENT, absl::StrCat("String_Set: element ", i, " of ", tensor.DebugString(),
                                                   " is not a string element"));
  }
  (*s)[i].assign(data, len);
  return nullptr;
}

}  // namespace

const LoomValueApi* GetValueApi() {
  static const LoomValueApi kTable = [] {
    LoomValueApi t{};
    t.struct_size = sizeof(LoomValueApi);
    t.version = 1;
    t.Value_Count = Value_Count;
    t.Value_At = Value_At;
    t.Value_Set = Value_Set;
    t.Value_Assign = Value_Assign;
    t.Value_NewTensor = Value_NewTensor;
    t.Value_FreeTensor = Value_FreeTensor;
    t.String_At = String_At;
    t.String_Set = String_Set;
    return t;
  }();
  return &kTable;
}

}  // namespace loom
