#include "core/dtype.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"

namespace loom {

size_t DataTypeSize(DataType t) {
  switch (t) {
    case DataType::kFloat32: case DataType::kInt32: case DataType::kUInt32: return 4;
    case DataType::kFloat64: case DataType::kInt64: case DataType::kUInt64: return 8;
    case DataType::kFloat16: case DataType::kBFloat16: case DataType::kInt16: case DataType::kUInt16: return 2;
    case DataType::kInt8: case DataType::kUInt8: case DataType::kBool: return 1;
    default: return 0;
  }
}

static const char* TensorTypeName(DataType t);

const char* DataTypeName(DataType t) {
  if (!IsValueType(t)) return TensorTypeName(t);
  // Names of value types are made once per code and kept (a small, fixed
  // set: two flags over the tensor codes).
  static absl::Mutex mu(absl::kConstInit);
  static auto* names = new std::map<int32_t, std::string>();
  absl::MutexLock lock(&mu);
  auto it = names->find(static_cast<int32_t>(t));
  if (it != names->end()) return it->second.c_str();
  const DataType inner = ValueElementType(t);
  const std::string inner_name = TensorTypeName(IsSequenceType(inner) ? ValueElementType(inner) : inner);
  if (absl::string_view(inner_name) == "undefined" ||
      (IsOptionalType(t) && IsOptionalType(inner))) {
    return "undefined";
  }
  std::string name = IsOptionalType(t) ? (IsSequenceType(inner) ? absl::StrCat("optional(seq(", inner_name, "))")
                                                                 : absl::StrCat("optional(", inner_name, ")"))
                                       : absl::StrCat("seq(", inner_name, ")");
  return names->emplace(static_cast<int32_t>(t), std::move(name)).first->second.c_str();
}

static const char* TensorTypeName(DataType t) {
  switch (t) {
    case DataType::kFloat32: return "float32";
    case DataType::kFloat64: return "float64";
    case DataType::kFloat16: return "float16";
    case DataType::kBFloat16: return "bfloat16";
    case DataType::kInt8: return "int8";
    case DataType::kUInt8: return "uint8";
    case DataType::kInt16: return "int16";
    case DataType::kUInt16: return "uint16";
    case DataType::kInt32: return "int32";
    case DataType::kUInt32: return "uint32";
    case DataType::kInt64: return "int64";
    case DataType::kUInt64: return "uint64";
    case DataType::kBool: return "bool";
    case DataType::kString: return "string";
    default: return "undefined";
  }
}

bool IsSupportedDataType(int32_t code) {
  return code != 0 && DataTypeSize(static_cast<DataType>(code)) != 0;
}

absl::StatusOr<DataType> ParseDataType(absl::string_view name) {
  // Value types: seq(E), optional(E), optional(seq(E)).
  if (absl::ConsumePrefix(&name, "seq(") && absl::ConsumeSuffix(&name, ")")) {
    absl::StatusOr<DataType> e = ParseDataType(name);
    if (!e.ok() || IsValueType(*e)) return absl::InvalidArgumentError(absl::StrCat("unknown data type 'seq(", name, ")'"));
    return SequenceOf(*e);
  }
  if (absl::ConsumePrefix(&name, "optional(") && absl::ConsumeSuffix(&name, ")")) {
    absl::StatusOr<DataType> e = ParseDataType(name);
    if (!e.ok() || IsOptionalType(*e)) {
      return absl::InvalidArgumentError(absl::StrCat("unknown data type 'optional(", name, ")'"));
    }
    return OptionalOf(*e);
  }
  if (name == "float") return DataType::kFloat32;
  if (name == "double") return DataType::kFloat64;
  for (int32_t c : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16}) {
    if (name == DataTypeName(static_cast<DataType>(c))) return static_cast<DataType>(c);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown data type '", name,
                                                 "'; expected float32, float64, float16, bfloat16, "
                                                 "int8, uint8, int16, int32, int64, bool or string, or seq(...) / "
                                                 "optional(...) of one"));
}

}  // namespace loom
