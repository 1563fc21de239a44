// The controlflow plugin: ONNX If, Loop, Scan and SequenceMap (schemas and
// kernels), which run their body nets in child workspaces through the ABI's nested-net
// functions.
#include "plugins/controlflow/controlflow_ops.h"

LOOM_PLUGIN("controlflow", "0.1.0", reg) {
  LOOM_SDK_RETURN_IF_ERROR(loom::controlflow::RegisterIf(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::controlflow::RegisterLoop(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::controlflow::RegisterScan(reg));
  return loom::controlflow::RegisterSequenceMap(reg);
}
