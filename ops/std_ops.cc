#include "ops/std_ops.h"

#include "ops/families.h"

LOOM_DEFINE_PLUGIN_INIT(LoomStdOpsInit, "loom.std", "0.1.0", reg) {
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterElementwiseSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterReductionSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterNnSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTensorSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterRnnSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterElementwiseExtSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTensorExtSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterIndexExtSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterLossSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterNormExtSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterSpatialExtSchemas(reg));
  return loom::sdk::Status::Ok();
}
