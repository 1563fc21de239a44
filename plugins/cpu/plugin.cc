// The CPU plugin's entry point: oneDNN and OpenMP kernels for the standard
// operator set: one registration function per kernel file (kernels.h), run
// in order.
#include "plugins/cpu/kernels.h"

LOOM_PLUGIN("cpu", "0.1.0", reg) {
  using namespace loom::cpu;
  return reg.Each({
    RegisterMathElementwiseKernels, RegisterMathCompareLogicTrigKernels, RegisterMathGemmMatMulKernels,
    RegisterMathEinsumKernels, RegisterMathTopKHardmaxCumSumKernels, RegisterNnConvKernels, RegisterNnNchwcKernels,
    RegisterNnConvTransposeKernels, RegisterNnPoolKernels, RegisterNnLpPoolKernels, RegisterNnBatchNormKernels,
    RegisterNnNormalizationKernels, RegisterNnLossKernels, RegisterTensorShapeKernels, RegisterTensorCopyKernels,
    RegisterTensorCastKernels, RegisterTensorExpandTileRangeKernels, RegisterTensorPadSpaceDepthKernels,
    RegisterTensorOneHotKernels, RegisterTensorGatherScatterKernels, RegisterTensorNonZeroKernels,
    RegisterTensorCompressKernels, RegisterTensorResizeUpsampleKernels, RegisterReductionSumMeanMaxMinKernels,
    RegisterReductionArgMaxProdLogSumKernels, RegisterRnnKernels, RegisterGradientKernels,
    RegisterSoftmaxGradientKernels, RegisterTrainingKernels, RegisterNnConvGradientKernels,
    RegisterNnConvTransposeGradientKernels, RegisterNnPoolGradientKernels, RegisterNnBatchNormGradientKernels,
    RegisterNnNormalizationGradientKernels, RegisterNnDropoutKernels,
    RegisterQuantizationKernels, RegisterQuantizedMatMulConvKernels, RegisterQuantizedAddKernels,
    RegisterQuantizedLookupKernels, RegisterQuantizedGlobalPoolKernels, RegisterQuantizedFloatMulKernels,
    RegisterQuantizedConvTransposeKernels, RegisterQuantizedDynamicMatMulKernels,
    RegisterQuantizedDynamicRnnKernels, RegisterDetectionKernels, RegisterSignalKernels, RegisterSignalSpectralKernels,
    RegisterTensorReverseSequenceKernels, RegisterMathDetKernels, RegisterTensorUniqueKernels,
    RegisterNnUnpoolKernels, RegisterNnTfIdfVectorizerKernels, RegisterRandomKernels, RegisterNnStringNormalizerKernels, RegisterSequenceKernels,
    RegisterTensorGridSampleKernels, RegisterDetectionRoiAlignKernels,
  });
}
