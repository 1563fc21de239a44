// The standard operator set's schemas (ONNX names and semantics), registered
// through the same C ABI as every plugin, as the built-in plugin "loom.std".
#ifndef LOOM_OPS_STD_OPS_H_
#define LOOM_OPS_STD_OPS_H_

#include "core/api/loom_c_api.h"

extern "C" LoomStatus* LoomStdOpsInit(const LoomApi* api, LoomRegistrar* reg);

#endif  // LOOM_OPS_STD_OPS_H_
