#include "core/kernel_defaults_check.h"

#include "absl/strings/str_cat.h"
#include "core/attributes.h"
#include "core/op_instance.h"
#include "core/status_bridge.h"

namespace loom {

absl::Status CreateKernelWithSchemaDefaults(const OpSchema& schema, const KernelDef& kernel) {
  OperatorDef op;
  op.set_type(schema.op_type);
  op.set_domain(schema.domain);
  op.set_name("defaults");
  for (const AttrSpec& a : schema.attrs) {
    if (!a.required) continue;
    Argument* arg = op.add_arg();
    arg->set_name(a.name);
    switch (a.type) {
      case LOOM_ATTR_INT: arg->set_i(1); break;
      case LOOM_ATTR_FLOAT: arg->set_f(1); break;
      case LOOM_ATTR_STRING: arg->set_s(""); break;
      case LOOM_ATTR_INTS: arg->add_ints(1); break;
      case LOOM_ATTR_FLOATS: arg->add_floats(1); break;
      case LOOM_ATTR_STRINGS: arg->add_strings(""); break;
      default:
        return absl::UnimplementedError(absl::StrCat(schema.op_type, ": required attribute '", a.name, "' is a ",
                                                     AttrTypeName(a.type), "; no stand-in value"));
    }
  }
  const int model_args = op.arg_size();
  absl::StatusOr<OperatorDef> normalized = CheckAttributes(op, 0, schema);
  if (!normalized.ok()) return normalized.status();
  const std::string label = OpLabel(*normalized, 0);
  LoomKernelInfo info(*normalized, label, &schema, model_args);
  LoomStatus* st = nullptr;
  void* state = kernel.create(&info, &st);
  if (st != nullptr || state == nullptr) {
    return WithOpLabel(label, *normalized, st ? FromLoomStatus(st) : absl::InternalError("kernel creation returned null"));
  }
  kernel.destroy(state);
  return absl::OkStatus();
}

}  // namespace loom
