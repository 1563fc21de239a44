// The values table (LoomValueApi, LOOM_SUBAPI_VALUES): ONNX sequence and
// optional values through the ABI, adapters over Tensor::MakeValue and
// Tensor::values() (core/tensor.h).
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
    return t;
  }();
  return &kTable;
}

}  // namespace loom
