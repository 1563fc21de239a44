// loom_run --dot: the planned net as a Graphviz digraph. Ops are boxes
// (type, name, the kernel that ran: device/engine), fused ops (the plan's
// Fused* ops) filled; tensors are ellipses with dtype and shape as the last
// run left them, weights (initializers) grey; cross-device copies the
// planner inserted are dashed boxes between a tensor and its reader.
#ifndef LOOM_TOOLS_RUN_DOT_H_
#define LOOM_TOOLS_RUN_DOT_H_

#include <string>

#include "absl/status/status.h"
#include "core/net.h"

namespace loom {
namespace tools {

// The DOT text of `net`'s last plan (its last run). FAILED_PRECONDITION if
// the net has not run.
absl::StatusOr<std::string> PlanToDot(const Net& net);

// Writes PlanToDot to `path`; when Graphviz's `dot` is on PATH, also
// renders <path without .dot>.svg and .png. *rendered (if given) lists the
// pictures written.
absl::Status WriteDot(const Net& net, const std::string& path, std::string* rendered = nullptr);

}  // namespace tools
}  // namespace loom

#endif  // LOOM_TOOLS_RUN_DOT_H_
