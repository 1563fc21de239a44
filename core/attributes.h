// Operator attributes (Caffe2 "arguments") checked against a schema.
#ifndef LOOM_CORE_ATTRIBUTES_H_
#define LOOM_CORE_ATTRIBUTES_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/api/loom_c_api.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"

namespace loom {

// "op #3 'conv1' (Conv)": how errors name an operator of a net.
std::string OpLabel(const OperatorDef& op, int index);
// `s` (an error of op `op`, labelled `label` = OpLabel(op, i), from its
// kernel or the planner) with the op named once: "<label>: <stage>: <what>"
// (no stage: "<label>: <what>"). A message that already begins with `label`
// (the core's attribute getters write it) or with "<type> '<name>'" (the
// label Loom's own kernels write) has that beginning replaced, not
// repeated. OK stays OK.
absl::Status WithOpLabel(const std::string& label, const OperatorDef& op, const absl::Status& s,
                         const std::string& stage = "");
// "int", "floats", "net", ...
const char* AttrTypeName(LoomAttrType t);
// The type an Argument holds, judged by which field is set. An Argument with
// nothing set is an empty list (LOOM_ATTR_UNDEFINED), which matches any list type.
LoomAttrType ArgumentType(const Argument& arg);

// Checks op's arguments against `schema` and returns a copy of `op` with
// schema defaults added for absent attributes. INVALID_ARGUMENT names the op
// (`index` is its position in the net), the attribute, the expected and the
// found, for: an unknown attribute (unless the schema allows them), a wrong
// type, a missing required attribute, a duplicate attribute.
absl::StatusOr<OperatorDef> CheckAttributes(const OperatorDef& op, int index, const OpSchema& schema);

}  // namespace loom

#endif  // LOOM_CORE_ATTRIBUTES_H_
