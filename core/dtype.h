// Element types of Loom tensors. Values are ONNX TensorProto.DataType codes,
// the same as LOOM_DTYPE_* in the plugin ABI.
#ifndef LOOM_CORE_DTYPE_H_
#define LOOM_CORE_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/api/loom_c_api.h"

namespace loom {

enum class DataType : int32_t {
  kUndefined = LOOM_DTYPE_UNDEFINED,
  kFloat32 = LOOM_DTYPE_FLOAT,
  kUInt8 = LOOM_DTYPE_UINT8,
  kInt8 = LOOM_DTYPE_INT8,
  kUInt16 = LOOM_DTYPE_UINT16,
  kInt16 = LOOM_DTYPE_INT16,
  kInt32 = LOOM_DTYPE_INT32,
  kInt64 = LOOM_DTYPE_INT64,
  kBool = LOOM_DTYPE_BOOL,
  kFloat16 = LOOM_DTYPE_FLOAT16,
  kFloat64 = LOOM_DTYPE_DOUBLE,
  kUInt32 = LOOM_DTYPE_UINT32,
  kUInt64 = LOOM_DTYPE_UINT64,
  kBFloat16 = LOOM_DTYPE_BFLOAT16,
  // UTF-8 strings: a string tensor keeps them apart from any buffer
  // (Tensor::strings()); DataTypeSize is 0.
  kString = LOOM_DTYPE_STRING,
};

// ONNX's non-tensor value types as flags over a tensor code
// (LOOM_DTYPE_SEQUENCE / LOOM_DTYPE_OPTIONAL): sequence(tensor(E)) is
// SequenceOf(E), optional(X) is OptionalOf(X) for a tensor or sequence
// type X. Tensor holds such values too (Tensor::MakeValue).
inline constexpr int32_t kSequenceFlag = LOOM_DTYPE_SEQUENCE;
inline constexpr int32_t kOptionalFlag = LOOM_DTYPE_OPTIONAL;
inline DataType SequenceOf(DataType element) { return static_cast<DataType>(static_cast<int32_t>(element) | kSequenceFlag); }
inline DataType OptionalOf(DataType inner) { return static_cast<DataType>(static_cast<int32_t>(inner) | kOptionalFlag); }
inline bool IsSequenceType(DataType t) { return (static_cast<int32_t>(t) & (kSequenceFlag | kOptionalFlag)) == kSequenceFlag; }
inline bool IsOptionalType(DataType t) { return (static_cast<int32_t>(t) & kOptionalFlag) != 0; }
// A sequence's or optional's type: not a tensor type.
inline bool IsValueType(DataType t) { return (static_cast<int32_t>(t) & (kSequenceFlag | kOptionalFlag)) != 0; }
// What a value of type `t` holds: a sequence's element type, an optional's
// inner type (a tensor or sequence type); `t` itself for a tensor type.
inline DataType ValueElementType(DataType t) {
  const int32_t c = static_cast<int32_t>(t);
  if (c & kOptionalFlag) return static_cast<DataType>(c & ~kOptionalFlag);
  return static_cast<DataType>(c & ~kSequenceFlag);
}

// Bytes per element; 0 for kUndefined, a value type or a code Loom does not
// store.
size_t DataTypeSize(DataType t);
// "float32", "int64", ..., "seq(float32)", "optional(seq(int64))";
// "undefined" for unknown codes.
const char* DataTypeName(DataType t);
// Parses a name from DataTypeName (also accepts "float" and "double").
absl::StatusOr<DataType> ParseDataType(absl::string_view name);
// True for codes Loom can hold in a Tensor.
bool IsSupportedDataType(int32_t code);

template <typename T> struct DataTypeOf;
template <> struct DataTypeOf<float> { static constexpr DataType value = DataType::kFloat32; };
template <> struct DataTypeOf<double> { static constexpr DataType value = DataType::kFloat64; };
template <> struct DataTypeOf<int8_t> { static constexpr DataType value = DataType::kInt8; };
template <> struct DataTypeOf<uint8_t> { static constexpr DataType value = DataType::kUInt8; };
template <> struct DataTypeOf<int16_t> { static constexpr DataType value = DataType::kInt16; };
template <> struct DataTypeOf<int32_t> { static constexpr DataType value = DataType::kInt32; };
template <> struct DataTypeOf<int64_t> { static constexpr DataType value = DataType::kInt64; };
template <> struct DataTypeOf<bool> { static constexpr DataType value = DataType::kBool; };

}  // namespace loom

#endif  // LOOM_CORE_DTYPE_H_
