// The table of C functions the core gives every plugin (LoomApi,
// core/api/loom_c_api.h): adapters from the ABI's handles to the core's
// op-instance state (core/op_instance.h). One file per group of entries.
#ifndef LOOM_CORE_PLUGIN_API_API_TABLE_H_
#define LOOM_CORE_PLUGIN_API_API_TABLE_H_

#include "core/api/loom_c_api.h"
#include "core/op_instance.h"

namespace loom {
// The process-wide table given to every plugin.
const LoomApi* GetLoomApi();

// Each fills its part of the table (the files of core/plugin_api/).
void FillAttributeApi(LoomApi* api);      // Info_*: an op's attributes (attribute_api.cc)
void FillKernelContextApi(LoomApi* api);  // Ctx_*, Infer_*, Prepare_* (context_api.cc)
void FillNestedNetApi(LoomApi* api);      // workspaces, nets, timestep executors (nested_net_api.cc)
void FillGradientApi(LoomApi* api);       // Grad_*: gradient makers (gradient_api.cc)

// The sub-tables of LoomApi::GetSubApi (ABI 11), each from its group's file.
const LoomKernelContextApi* GetKernelContextApi();  // context_api.cc
const LoomValueApi* GetValueApi();                  // value_api.cc

// Timestep executors made through the ABI and not yet released (for tests:
// kernels must release theirs, so nothing grows across runs).
int LiveTimestepExecutors();
}  // namespace loom


#endif  // LOOM_CORE_PLUGIN_API_API_TABLE_H_
