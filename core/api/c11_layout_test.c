/* The C ABI header compiles as C11 with -Wall -Werror -pedantic, and its
 * layouts are pinned (LP64): a change that moves or resizes a member of a
 * released struct fails here. Appending members changes only the sizes
 * pinned for the newest version. */
#include <stddef.h>

#include "core/api/loom_c_api.h"

#define PIN(expr, value) _Static_assert((expr) == (value), #expr " changed: the ABI layout moved")

/* Version 1 members keep their offsets. */
PIN(offsetof(LoomPluginInfo, version), 24);
PIN(offsetof(LoomSchemaDef, infer), 120);
PIN(offsetof(LoomSchemaDef, allow_unknown_attrs), 128);
PIN(offsetof(LoomKernelDef, compute), 72);
PIN(offsetof(LoomDeviceDef, synchronize_event), 112);
PIN(offsetof(LoomApi, CreateStatus), 16);
PIN(offsetof(LoomApi, Ctx_OutputHandle), 488);
/* Version 2. */
PIN(offsetof(LoomFormalParam, name), 8);
PIN(offsetof(LoomTypeConstraint, type_str), 8);
PIN(offsetof(LoomAttrSpec, name), 8);
PIN(offsetof(LoomAttrSpec, num_default_strings), 104);
PIN(offsetof(LoomKernelDef, prepare), 80);
PIN(offsetof(LoomApi, Prepare_Info), 496);
PIN(offsetof(LoomApi, TimestepExecutor_Run), 592);
PIN(offsetof(LoomApi, Ctx_Limit), 600);
PIN(offsetof(LoomApi, Ctx_Scratch), 608);
PIN(offsetof(LoomApi, Prepare_ReleaseConstant), 616);
PIN(offsetof(LoomApi, Grad_Info), 624);
PIN(offsetof(LoomSchemaDef, gradient), 136);
PIN(offsetof(LoomApi, Grad_NetBackward), 704);
PIN(offsetof(LoomApi, TimestepExecutor_KeepIntermediates), 728);
PIN(offsetof(LoomApi, Net_ReleaseTimestep), 736);
PIN(LOOM_FORMAL_PARAM_STRUCT_SIZE, 40);
PIN(LOOM_TYPE_CONSTRAINT_STRUCT_SIZE, 40);
PIN(LOOM_ATTR_SPEC_STRUCT_SIZE, 112);
PIN(offsetof(LoomKernelDef, domain), 88); /* version 10 */
PIN(LOOM_KERNEL_DEF_STRUCT_SIZE, 96);
PIN(LOOM_SCHEMA_DEF_STRUCT_SIZE, 152);
PIN(LOOM_DEVICE_DEF_STRUCT_SIZE, 120);
PIN(LOOM_PLUGIN_INFO_STRUCT_SIZE, 32);
PIN(offsetof(LoomApi, RegisterGradient), 744);
PIN(offsetof(LoomApi, Grad_AddNet), 752);
PIN(offsetof(LoomApi, Net_SetRecomputedOnBackward), 760);
PIN(offsetof(LoomApi, Prepare_SharedPack), 768);
PIN(offsetof(LoomApi, SharedPack_Data), 776);
PIN(offsetof(LoomApi, SharedPack_Release), 784);
PIN(offsetof(LoomApi, Tensor_Release), 792);
PIN(offsetof(LoomApi, GetSubApi), 800); /* version 11 */
PIN(LOOM_API_STRUCT_SIZE, 808);
PIN(offsetof(LoomKernelContextApi, version), 8);
PIN(offsetof(LoomKernelContextApi, ResizeTensor), 16); /* its version 1 */
PIN(offsetof(LoomKernelContextApi, OpResource_Acquire), 24);
PIN(offsetof(LoomKernelContextApi, OpResource_Release), 40);
PIN(offsetof(LoomKernelContextApi, Prepare_FpMathMode), 48); /* its version 2 */
PIN(sizeof(LoomKernelContextApi), 56);
PIN(offsetof(LoomValueApi, version), 8);
PIN(offsetof(LoomValueApi, Value_Count), 16); /* its version 1 */
PIN(offsetof(LoomValueApi, Value_At), 24);
PIN(offsetof(LoomValueApi, Value_Set), 32);
PIN(offsetof(LoomValueApi, Value_Assign), 40);
PIN(offsetof(LoomValueApi, Value_NewTensor), 48);
PIN(offsetof(LoomValueApi, Value_FreeTensor), 56);
PIN(offsetof(LoomValueApi, String_At), 64);
PIN(offsetof(LoomValueApi, String_Set), 72);
PIN(sizeof(LoomValueApi), 80);
PIN(LOOM_DTYPE_STRING, 8);
PIN(LOOM_SUBAPI_VALUES, 2);
PIN(LOOM_DTYPE_SEQUENCE, 0x100);
PIN(LOOM_DTYPE_OPTIONAL, 0x200);
PIN(offsetof(LoomSchemaDef, fold), 144); /* version 11 */
PIN(LOOM_SUBAPI_KERNEL_CONTEXT, 1);
PIN(LOOM_ABI_VERSION, 11u);

int main(void) {
  LoomApi api;
  api.struct_size = LOOM_API_STRUCT_SIZE;
  /* A plugin tests for a member before calling it on an older core. */
  return LOOM_HAS_MEMBER(LoomApi, api.struct_size, TimestepExecutor_Run) ? 0 : 1;
}
