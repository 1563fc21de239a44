#include "core/attributes.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace loom {

std::string OpLabel(const OperatorDef& op, int index) {
  return absl::StrCat("op #", index, " '", op.name(), "' (", op.type(), ")");
}

absl::Status WithOpLabel(const std::string& label, const OperatorDef& op, const absl::Status& s,
                         const std::string& stage) {
  if (s.ok()) return s;
  absl::string_view what = s.message();
  const std::string kernel_label = absl::StrCat(op.type(), " '", op.name(), "'");
  for (const std::string* prefix : {&label, &kernel_label}) {
    if (absl::ConsumePrefix(&what, absl::StrCat(*prefix, ": "))) break;
  }
  return absl::Status(s.code(), absl::StrCat(label, ": ", stage, stage.empty() ? "" : ": ", what));
}

const char* AttrTypeName(LoomAttrType t) {
  switch (t) {
    case LOOM_ATTR_FLOAT: return "float";
    case LOOM_ATTR_INT: return "int";
    case LOOM_ATTR_STRING: return "string";
    case LOOM_ATTR_TENSOR: return "tensor";
    case LOOM_ATTR_NET: return "net";
    case LOOM_ATTR_FLOATS: return "floats";
    case LOOM_ATTR_INTS: return "ints";
    case LOOM_ATTR_STRINGS: return "strings";
    case LOOM_ATTR_NETS: return "nets";
    default: return "empty list";
  }
}

LoomAttrType ArgumentType(const Argument& a) {
  if (a.has_f()) return LOOM_ATTR_FLOAT;
  if (a.has_i()) return LOOM_ATTR_INT;
  if (a.has_s()) return LOOM_ATTR_STRING;
  if (a.has_t()) return LOOM_ATTR_TENSOR;
  if (a.has_n()) return LOOM_ATTR_NET;
  if (a.floats_size()) return LOOM_ATTR_FLOATS;
  if (a.ints_size()) return LOOM_ATTR_INTS;
  if (a.strings_size()) return LOOM_ATTR_STRINGS;
  if (a.nets_size()) return LOOM_ATTR_NETS;
  return LOOM_ATTR_UNDEFINED;
}

static bool IsList(LoomAttrType t) {
  return t == LOOM_ATTR_FLOATS || t == LOOM_ATTR_INTS || t == LOOM_ATTR_STRINGS || t == LOOM_ATTR_NETS;
}

absl::StatusOr<OperatorDef> CheckAttributes(const OperatorDef& op, int index, const OpSchema& schema) {
  OperatorDef out = op;
  std::set<std::string> seen;
  for (const Argument& a : op.arg()) {
    if (!seen.insert(a.name()).second) {
      return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, index), ": attribute '", a.name(), "' is given twice"));
    }
    const AttrSpec* spec = schema.FindAttr(a.name());
    if (spec == nullptr) {
      if (schema.allow_unknown_attrs) continue;
      std::string known;
      for (const auto& s : schema.attrs) absl::StrAppend(&known, known.empty() ? "" : ", ", s.name);
      return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, index), ": unknown attribute '", a.name(),
                                                     "'; expected one of: ", known.empty() ? "(none)" : known));
    }
    LoomAttrType found = ArgumentType(a);
    bool ok = found == spec->type || (found == LOOM_ATTR_UNDEFINED && IsList(spec->type));
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, index), ": the model gives attribute '", a.name(),
                                                     "' as ", AttrTypeName(found), ", but the schema of ", op.type(),
                                                     " declares it ", AttrTypeName(spec->type)));
    }
  }
  for (const AttrSpec& spec : schema.attrs) {
    if (seen.count(spec.name)) continue;
    if (spec.required) {
      return absl::InvalidArgumentError(absl::StrCat(OpLabel(op, index), ": missing required attribute '", spec.name,
                                                     "' of type ", AttrTypeName(spec.type)));
    }
    if (spec.has_default) *out.add_arg() = spec.default_value;
  }
  return out;
}

}  // namespace loom
