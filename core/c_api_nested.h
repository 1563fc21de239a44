// Fills the nested-net entries of the LoomApi table (c_api_nested.cc).
#ifndef LOOM_CORE_C_API_NESTED_H_
#define LOOM_CORE_C_API_NESTED_H_

#include "core/c_api_impl.h"

namespace loom {
void FillNestedApi(LoomApi* api);
// Timestep executors made through the ABI and not yet released (for tests:
// kernels must release theirs, so nothing grows across runs).
int LiveTimestepExecutors();
}  // namespace loom

#endif  // LOOM_CORE_C_API_NESTED_H_
