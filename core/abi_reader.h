// Reads what a plugin hands the core at the layout of the ABI version the
// plugin declared (core/api/README.md, "Versioning").
//
// From version 2 on every struct starts with struct_size and grows only by
// appending, so each version has one layout per struct, of a known size
// (LayoutSize in abi_reader.cc). A plugin's struct_size must be the size its declared
// version had: anything else means the plugin was built against a header
// that is not that version's (an edited one, or another version than it
// declares), and is refused by name rather than misread. A struct of an
// older version is copied up to its struct_size; members it did not have
// stay zero (their documented default). Arrays are walked with the stride
// of their elements' struct_size. Version 1's array elements had no
// struct_size; they are read through the frozen version-1 layouts below.
#ifndef LOOM_CORE_ABI_READER_H_
#define LOOM_CORE_ABI_READER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/api/loom_c_api.h"

namespace loom {
namespace abi_v1 {
// The array elements of ABI version 1, frozen (tests/abi_v1/loom_c_api.h).
struct FormalParam {
  const char* name;
  const char* type_str;
  LoomParamOption option;
  const char* doc;
};
struct TypeConstraint {
  const char* type_str;
  const LoomDataType* allowed;
  size_t num_allowed;
  const char* doc;
};
struct AttrSpec {
  const char* name;
  LoomAttrType type;
  int required;
  int has_default;
  int64_t default_int;
  float default_float;
  const char* default_string;
  const int64_t* default_ints;
  size_t num_default_ints;
  const float* default_floats;
  size_t num_default_floats;
  const char* doc;
  const char* const* default_strings;
  size_t num_default_strings;
};
// sizeof of the version-1 structs that had struct_size.
inline constexpr size_t kKernelDefSize = offsetof(LoomKernelDef, prepare);
inline constexpr size_t kSchemaDefSize = offsetof(LoomSchemaDef, gradient);  // 136: gradient came in 5
}  // namespace abi_v1

// A plugin's struct `*in`, written by a plugin of ABI `abi_version`, as the
// core's current layout: copied up to in->struct_size, the rest zero.
// INVALID_ARGUMENT naming `what`, the size found and the size of that
// version's layout when they differ.
template <class T>
absl::StatusOr<T> ReadStruct(const T* in, uint32_t abi_version, const char* what);

// `count` array elements written by a plugin of ABI `abi_version`, in the
// core's current layout (struct_size set to the core's sizeof).
absl::StatusOr<std::vector<LoomFormalParam>> ReadFormalParams(const LoomFormalParam* in, size_t count,
                                                              uint32_t abi_version);
absl::StatusOr<std::vector<LoomTypeConstraint>> ReadTypeConstraints(const LoomTypeConstraint* in, size_t count,
                                                                    uint32_t abi_version);
absl::StatusOr<std::vector<LoomAttrSpec>> ReadAttrSpecs(const LoomAttrSpec* in, size_t count, uint32_t abi_version);

}  // namespace loom

#endif  // LOOM_CORE_ABI_READER_H_
