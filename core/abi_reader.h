// Reads what a plugin hands the core at the layout of the ABI version the
// plugin declared (core/api/README.md, "Versioning").
//
// From version 2 on every struct starts with struct_size and grows only by
// appending: a struct is copied up to the smaller of its struct_size and the
// core's sizeof, and members the plugin did not have stay zero (their
// documented default). Arrays are walked with the stride of their elements'
// struct_size. Version 1's array elements had no struct_size; they are read
// through the frozen version-1 layouts below.
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
inline constexpr size_t kDeviceDefSize = sizeof(LoomDeviceDef);
inline constexpr size_t kPluginInfoSize = sizeof(LoomPluginInfo);
}  // namespace abi_v1

// A plugin's struct `*in` as the core's current layout: copied up to
// in->struct_size, the rest zero. INVALID_ARGUMENT (naming `what`, the size
// found and the smallest accepted) when struct_size is below `min_size`.
template <class T>
absl::StatusOr<T> ReadStruct(const T* in, size_t min_size, const char* what);

// `count` array elements written by a plugin of ABI `abi_version`, in the
// core's current layout (struct_size set to the core's sizeof).
absl::StatusOr<std::vector<LoomFormalParam>> ReadFormalParams(const LoomFormalParam* in, size_t count,
                                                              uint32_t abi_version);
absl::StatusOr<std::vector<LoomTypeConstraint>> ReadTypeConstraints(const LoomTypeConstraint* in, size_t count,
                                                                    uint32_t abi_version);
absl::StatusOr<std::vector<LoomAttrSpec>> ReadAttrSpecs(const LoomAttrSpec* in, size_t count, uint32_t abi_version);

}  // namespace loom

#endif  // LOOM_CORE_ABI_READER_H_
