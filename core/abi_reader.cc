#include "core/abi_reader.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace loom {

// The version-1 element layouts are part of the ABI: pin them (LP64).
static_assert(sizeof(abi_v1::FormalParam) == 32, "ABI v1 LoomFormalParam layout changed");
static_assert(sizeof(abi_v1::TypeConstraint) == 32, "ABI v1 LoomTypeConstraint layout changed");
static_assert(sizeof(abi_v1::AttrSpec) == 104, "ABI v1 LoomAttrSpec layout changed");
static_assert(abi_v1::kKernelDefSize == 80, "ABI v1 LoomKernelDef layout changed");

template <class T>
absl::StatusOr<T> ReadStruct(const T* in, size_t min_size, const char* what) {
  size_t size = in->struct_size;
  if (size < min_size) {
    return absl::InvalidArgumentError(absl::StrCat(what, ".struct_size is ", size, "; expected at least ", min_size,
                                                   " (the oldest layout this core reads)"));
  }
  T out;
  std::memset(&out, 0, sizeof(T));
  std::memcpy(&out, in, std::min(size, sizeof(T)));
  out.struct_size = sizeof(T);
  return out;
}

template absl::StatusOr<LoomPluginInfo> ReadStruct(const LoomPluginInfo*, size_t, const char*);
template absl::StatusOr<LoomSchemaDef> ReadStruct(const LoomSchemaDef*, size_t, const char*);
template absl::StatusOr<LoomKernelDef> ReadStruct(const LoomKernelDef*, size_t, const char*);
template absl::StatusOr<LoomDeviceDef> ReadStruct(const LoomDeviceDef*, size_t, const char*);

namespace {

// Version 2+ arrays: every element carries the same struct_size, the stride.
template <class T>
absl::StatusOr<std::vector<T>> ReadSizedArray(const T* in, size_t count, size_t min_size, const char* what) {
  std::vector<T> out;
  if (count == 0) return out;
  const size_t stride = in->struct_size;
  if (stride < min_size) {
    return absl::InvalidArgumentError(absl::StrCat(what, "[0].struct_size is ", stride, "; expected at least ",
                                                   min_size));
  }
  const char* base = reinterpret_cast<const char*>(in);
  for (size_t i = 0; i < count; ++i) {
    const T* e = reinterpret_cast<const T*>(base + i * stride);
    if (e->struct_size != stride) {
      return absl::InvalidArgumentError(absl::StrCat(what, "[", i, "].struct_size is ", e->struct_size,
                                                     "; every element of an array must have its first's (", stride,
                                                     ")"));
    }
    absl::StatusOr<T> r = ReadStruct(e, min_size, what);
    if (!r.ok()) return r.status();
    out.push_back(*r);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<LoomFormalParam>> ReadFormalParams(const LoomFormalParam* in, size_t count,
                                                              uint32_t abi_version) {
  if (abi_version >= 2) return ReadSizedArray(in, count, sizeof(LoomFormalParam), "LoomFormalParam");
  std::vector<LoomFormalParam> out;
  const auto* v1 = reinterpret_cast<const abi_v1::FormalParam*>(in);
  for (size_t i = 0; i < count; ++i) {
    LoomFormalParam p{};
    p.struct_size = sizeof(p);
    p.name = v1[i].name;
    p.type_str = v1[i].type_str;
    p.option = v1[i].option;
    p.doc = v1[i].doc;
    out.push_back(p);
  }
  return out;
}

absl::StatusOr<std::vector<LoomTypeConstraint>> ReadTypeConstraints(const LoomTypeConstraint* in, size_t count,
                                                                    uint32_t abi_version) {
  if (abi_version >= 2) return ReadSizedArray(in, count, sizeof(LoomTypeConstraint), "LoomTypeConstraint");
  std::vector<LoomTypeConstraint> out;
  const auto* v1 = reinterpret_cast<const abi_v1::TypeConstraint*>(in);
  for (size_t i = 0; i < count; ++i) {
    LoomTypeConstraint c{};
    c.struct_size = sizeof(c);
    c.type_str = v1[i].type_str;
    c.allowed = v1[i].allowed;
    c.num_allowed = v1[i].num_allowed;
    c.doc = v1[i].doc;
    out.push_back(c);
  }
  return out;
}

absl::StatusOr<std::vector<LoomAttrSpec>> ReadAttrSpecs(const LoomAttrSpec* in, size_t count, uint32_t abi_version) {
  if (abi_version >= 2) return ReadSizedArray(in, count, sizeof(LoomAttrSpec), "LoomAttrSpec");
  std::vector<LoomAttrSpec> out;
  const auto* v1 = reinterpret_cast<const abi_v1::AttrSpec*>(in);
  for (size_t i = 0; i < count; ++i) {
    const abi_v1::AttrSpec& a = v1[i];
    LoomAttrSpec s{};
    s.struct_size = sizeof(s);
    s.name = a.name;
    s.type = a.type;
    s.required = a.required;
    s.has_default = a.has_default;
    s.default_int = a.default_int;
    s.default_float = a.default_float;
    s.default_string = a.default_string;
    s.default_ints = a.default_ints;
    s.num_default_ints = a.num_default_ints;
    s.default_floats = a.default_floats;
    s.num_default_floats = a.num_default_floats;
    s.doc = a.doc;
    s.default_strings = a.default_strings;
    s.num_default_strings = a.num_default_strings;
    out.push_back(s);
  }
  return out;
}

}  // namespace loom
