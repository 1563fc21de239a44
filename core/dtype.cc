#include "core/dtype.h"

#include "absl/strings/str_cat.h"

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

const char* DataTypeName(DataType t) {
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
    default: return "undefined";
  }
}

bool IsSupportedDataType(int32_t code) {
  return code != 0 && DataTypeSize(static_cast<DataType>(code)) != 0;
}

absl::StatusOr<DataType> ParseDataType(absl::string_view name) {
  if (name == "float") return DataType::kFloat32;
  if (name == "double") return DataType::kFloat64;
  for (int32_t c : {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16}) {
    if (name == DataTypeName(static_cast<DataType>(c))) return static_cast<DataType>(c);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown data type '", name,
                                                 "'; expected float32, float64, float16, bfloat16, "
                                                 "int8, uint8, int16, int32, int64 or bool"));
}

}  // namespace loom
