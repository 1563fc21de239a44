#include "ops/std_ops.h"

#include "ops/gradients.h"
#include "ops/register_schemas.h"

// One call per schema file (ops/register_schemas.h).
LOOM_DEFINE_PLUGIN_INIT(LoomStdOpsInit, "loom.std", "0.1.0", reg) {
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterMathElementwiseSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterMathCompareLogicTrigSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterMathGemmMatMulSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterMathEinsumSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterMathTopKHardmaxCumSumSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterNnConvSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterNnConvTransposeSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterNnNchwcSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterNnPoolSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterNnLpPoolSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterNnBatchNormSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterNnNormalizationSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterNnLossSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTensorSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTensorExpandTileRangeSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTensorPadSpaceDepthSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTensorOneHotSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTensorCastLikeSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTensorGatherScatterSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTensorNonZeroSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTensorCompressSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTensorResizeUpsampleSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterReductionSumMeanMaxMinSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterReductionArgMaxProdLogSumSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterRnnSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterGradientSchemas(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::ops::RegisterTrainingSchemas(reg));
  return loom::sdk::Status::Ok();
}
