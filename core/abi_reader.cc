#include "core/abi_reader.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace loom {

// The version-1 element layouts are part of the ABI: pin them (LP64).
static_assert(sizeof(abi_v1::FormalParam) == 32, "ABI v1 LoomFormalParam layout changed");
static_assert(sizeof(abi_v1::TypeConstraint) == 32, "ABI v1 LoomTypeConstraint layout changed");
static_assert(sizeof(abi_v1::AttrSpec) == 104, "ABI v1 LoomAttrSpec layout changed");
static_assert(abi_v1::kKernelDefSize == 80, "ABI v1 LoomKernelDef layout changed");

// sizeof(T) as version `v` of the ABI had it: what the header's "since N"
// members added. A new member raises the size from its version on (and its
// line here).
template <class T>
size_t LayoutSize(uint32_t v);
template <>
size_t LayoutSize<LoomPluginInfo>(uint32_t) { return sizeof(LoomPluginInfo); }
template <>
size_t LayoutSize<LoomSchemaDef>(uint32_t v) {
  if (v < 5) return abi_v1::kSchemaDefSize;
  return v < 11 ? offsetof(LoomSchemaDef, fold) : sizeof(LoomSchemaDef);
}
template <>
size_t LayoutSize<LoomKernelDef>(uint32_t v) {
  if (v < 2) return abi_v1::kKernelDefSize;
  return v < 10 ? offsetof(LoomKernelDef, domain) : sizeof(LoomKernelDef);
}
template <>
size_t LayoutSize<LoomDeviceDef>(uint32_t) { return sizeof(LoomDeviceDef); }
template <>
size_t LayoutSize<LoomFormalParam>(uint32_t) { return sizeof(LoomFormalParam); }
template <>
size_t LayoutSize<LoomTypeConstraint>(uint32_t) { return sizeof(LoomTypeConstraint); }
template <>
size_t LayoutSize<LoomAttrSpec>(uint32_t) { return sizeof(LoomAttrSpec); }

template <class T>
absl::StatusOr<T> ReadStruct(const T* in, uint32_t abi_version, const char* what) {
  const size_t size = in->struct_size, want = LayoutSize<T>(abi_version);
  if (size != want) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ".struct_size is ", size, ", but version ", abi_version, " of the ABI (the version the plugin declares) has ",
        want, ": the plugin was built against a loom_c_api.h that is not that version's (edited, or another version "
        "than it declares)"));
  }
  T out;
  std::memset(&out, 0, sizeof(T));
  std::memcpy(&out, in, std::min(size, sizeof(T)));
  out.struct_size = sizeof(T);
  return out;
}

template absl::StatusOr<LoomPluginInfo> ReadStruct(const LoomPluginInfo*, uint32_t, const char*);
template absl::StatusOr<LoomSchemaDef> ReadStruct(const LoomSchemaDef*, uint32_t, const char*);
template absl::StatusOr<LoomKernelDef> ReadStruct(const LoomKernelDef*, uint32_t, const char*);
template absl::StatusOr<LoomDeviceDef> ReadStruct(const LoomDeviceDef*, uint32_t, const char*);

namespace {

// Version 2+ arrays: every element carries the same struct_size, the stride.
template <class T>
absl::StatusOr<std::vector<T>> ReadSizedArray(const T* in, size_t count, uint32_t abi_version, const char* what) {
  std::vector<T> out;
  if (count == 0) return out;
  const size_t stride = in->struct_size;
  const char* base = reinterpret_cast<const char*>(in);
  for (size_t i = 0; i < count; ++i) {
    const T* e = reinterpret_cast<const T*>(base + i * stride);
    if (e->struct_size != stride) {
      return absl::InvalidArgumentError(absl::StrCat(what, "[", i, "].struct_size is ", e->struct_size,
                                                     "; every element of an array must have its first's (", stride,
                                                     ")"));
    }
    absl::StatusOr<T> r = ReadStruct(e, abi_version, what);
    if (!r.ok()) return r.status();
    out.push_back(*r);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<LoomFormalParam>> ReadFormalParams(const LoomFormalParam* in, size_t count,
                                                              uint32_t abi_version) {
  if (abi_version >= 2) return ReadSizedArray(in, count, abi_version, "LoomFormalParam");
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
  if (abi_version >= 2) return ReadSizedArray(in, count, abi_version, "LoomTypeConstraint");
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
  if (abi_version >= 2) return ReadSizedArray(in, count, abi_version, "LoomAttrSpec");
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
