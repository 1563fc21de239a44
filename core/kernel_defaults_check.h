// Creates a kernel the way a net would, for an op that gives no attributes
// but the schema's required ones: `loom_inspect --check` runs it on every
// kernel a plugin registers, so a kernel whose attribute getters disagree
// with its schema (reads a float the schema declares int) is caught when the
// plugin is checked, not in the first model that uses the op.
#ifndef LOOM_CORE_KERNEL_DEFAULTS_CHECK_H_
#define LOOM_CORE_KERNEL_DEFAULTS_CHECK_H_

#include "absl/status/status.h"
#include "core/registry.h"

namespace loom {

// Creates (then destroys) `kernel` for an op of `schema`'s type whose
// attributes are the schema's defaults, and for required ones a stand-in of
// the declared type (int 1, float 1, string "", lists of one such value).
// Returns the kernel's creation error as a net would report it (the
// attribute getters' errors say "the kernel reads attribute ..."), or OK.
// UNIMPLEMENTED, without creating it, when a required attribute is a
// tensor or a net (no stand-in).
absl::Status CreateKernelWithSchemaDefaults(const OpSchema& schema, const KernelDef& kernel);

}  // namespace loom

#endif  // LOOM_CORE_KERNEL_DEFAULTS_CHECK_H_
