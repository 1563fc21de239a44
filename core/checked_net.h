// First pass of NetDef -> checked graph -> plan -> run: checks a NetDef
// against the registry's schemas.
#ifndef LOOM_CORE_CHECKED_NET_H_
#define LOOM_CORE_CHECKED_NET_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/op_instance.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"
#include "core/workspace.h"

namespace loom {

struct CheckedOp {
  int index = 0;
  std::string label;  // "op #3 'conv1' (Conv)"
  const OpSchema* schema = nullptr;
  std::unique_ptr<LoomKernelInfo> info;  // the op, attribute defaults applied
  std::string device_type = "CPU";
  int device_id = 0;
  std::string engine;
};

struct CheckedNet {
  NetDef def;
  std::vector<CheckedOp> ops;
  // Blobs read before any op writes them: external inputs, then workspace
  // blobs (initializers). Their dtypes and shapes key the plan cache.
  std::vector<std::string> inputs;
  // The subset of `inputs` that are not external inputs: constants at
  // planning time.
  std::vector<std::string> initializers;
  // Blobs whose value is fixed for the net's life, given to kernels as
  // constant inputs at prepare and passed on to nested nets: the
  // initializers (including NetDef initializers no op here reads, which a
  // nested body may) and, for a nested net, the enclosing net's constants
  // (NetScope::outer_constants) that this workspace does not shadow, less
  // any blob an op of this net writes.
  std::set<std::string> constants;
};

// Checks every op of `net`, in order: a registered schema; input and output
// counts within the schema's bounds (absent optional inputs have empty
// names); attributes (core/attributes.h); a registered device with at least
// one kernel for the op; every input produced by an earlier op, listed in
// external_input, or present in `ws`. INVALID_ARGUMENT / NOT_FOUND name the
// op (index, name, type), the input or attribute, the expected and the found.
// `outer_constants`: for a nested net, the enclosing net's constants
// (NetScope::outer_constants); see CheckedNet::constants.
absl::StatusOr<std::unique_ptr<CheckedNet>> CheckNet(const NetDef& net, const Registry& registry, const Workspace& ws,
                                                     const std::set<std::string>& outer_constants = {});

// `net` with each initializer reduced to its name, data type and dims (no
// values), in nets nested in its ops' arguments too: what CheckedNet::def
// keeps, the weights being in the workspace (nested bodies are created from
// the ops' own attributes, CheckedOp::info).
NetDef WithoutInitializerData(const NetDef& net);
// `t`'s name, data type and dims, without its values.
TensorProto InitializerMetadata(const TensorProto& t);

}  // namespace loom

#endif  // LOOM_CORE_CHECKED_NET_H_
