// Dtype lists used by the standard schemas' type constraints.
#ifndef LOOM_OPS_DTYPE_SETS_H_
#define LOOM_OPS_DTYPE_SETS_H_

#include <vector>

#include "core/api/loom_c_api.h"

namespace loom {
namespace ops {

inline std::vector<LoomDataType> FloatTypes() {
  return {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16};
}
inline std::vector<LoomDataType> SignedNumericTypes() {
  return {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16,
          LOOM_DTYPE_INT8,  LOOM_DTYPE_INT16,  LOOM_DTYPE_INT32,   LOOM_DTYPE_INT64};
}
inline std::vector<LoomDataType> NumericTypes() {
  return {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_INT8,
          LOOM_DTYPE_INT16, LOOM_DTYPE_INT32,  LOOM_DTYPE_INT64,   LOOM_DTYPE_UINT8,    LOOM_DTYPE_UINT16,
          LOOM_DTYPE_UINT32, LOOM_DTYPE_UINT64};
}
inline std::vector<LoomDataType> AllTypes() {
  std::vector<LoomDataType> t = NumericTypes();
  t.push_back(LOOM_DTYPE_BOOL);
  return t;
}

// ONNX's tensor types: AllTypes and string (the ops that move whole
// elements take strings).
inline std::vector<LoomDataType> TensorTypes() {
  std::vector<LoomDataType> t = AllTypes();
  t.push_back(LOOM_DTYPE_STRING);
  return t;
}

// ONNX sequence(tensor(E)) for every E of TensorTypes (core/dtype.h's
// SequenceOf).
inline std::vector<LoomDataType> SequenceTypes() {
  std::vector<LoomDataType> t;
  for (LoomDataType e : TensorTypes()) t.push_back(e | LOOM_DTYPE_SEQUENCE);
  return t;
}
// ONNX optional(tensor(E)) and optional(sequence(tensor(E))).
inline std::vector<LoomDataType> OptionalTypes() {
  std::vector<LoomDataType> t;
  for (LoomDataType e : TensorTypes()) t.push_back(e | LOOM_DTYPE_OPTIONAL);
  for (LoomDataType e : SequenceTypes()) t.push_back(e | LOOM_DTYPE_OPTIONAL);
  return t;
}
// Every type a value can have: tensors, sequences and optionals (ONNX
// Identity-16's V).
inline std::vector<LoomDataType> AllValueTypes() {
  std::vector<LoomDataType> t = TensorTypes();
  for (LoomDataType e : SequenceTypes()) t.push_back(e);
  for (LoomDataType e : OptionalTypes()) t.push_back(e);
  return t;
}

}  // namespace ops
}  // namespace loom

#endif  // LOOM_OPS_DTYPE_SETS_H_
