// The CPU plugin's entry point: oneDNN and OpenMP kernels for the standard
// operator set, one call per kernel file (kernels.h).
#include "plugins/cpu/kernels.h"

LOOM_PLUGIN("cpu", "0.1.0", reg) {
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterMathElementwiseKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterMathCompareLogicTrigKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterMathGemmMatMulKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterMathEinsumKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterMathTopKHardmaxCumSumKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnConvKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnNchwcKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnConvTransposeKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnPoolKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnLpPoolKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnBatchNormKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnNormalizationKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnLossKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorShapeKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorCopyKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorCastKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorExpandTileRangeKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorPadSpaceDepthKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorOneHotKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorCastLikeKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorGatherScatterKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorNonZeroKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorCompressKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorResizeUpsampleKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterReductionSumMeanMaxMinKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterReductionArgMaxProdLogSumKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterRnnKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterGradientKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterSoftmaxGradientKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTrainingKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnConvGradientKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnConvTransposeGradientKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnPoolGradientKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnBatchNormGradientKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnNormalizationGradientKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNnDropoutKernels(reg));
  return loom::sdk::Status::Ok();
}
