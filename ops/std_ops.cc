#include "ops/std_ops.h"

#include "ops/gradients.h"
#include "ops/register_schemas.h"

// One registration function per schema file (ops/register_schemas.h), run in
// order.
LOOM_DEFINE_PLUGIN_INIT(LoomStdOpsInit, "loom.std", "0.1.0", reg) {
  using namespace loom::ops;
  return reg.Each({
    RegisterMathElementwiseSchemas, RegisterMathCompareLogicTrigSchemas, RegisterMathGemmMatMulSchemas,
    RegisterMathEinsumSchemas, RegisterMathTopKHardmaxCumSumSchemas, RegisterNnConvSchemas,
    RegisterNnConvTransposeSchemas, RegisterNnNchwcSchemas, RegisterNnPoolSchemas, RegisterNnLpPoolSchemas,
    RegisterNnBatchNormSchemas, RegisterNnNormalizationSchemas, RegisterNnLossSchemas, RegisterTensorSchemas,
    RegisterTensorExpandTileRangeSchemas, RegisterTensorPadSpaceDepthSchemas, RegisterTensorOneHotSchemas,
    RegisterTensorGatherScatterSchemas, RegisterTensorResizeUpsampleSchemas, RegisterReductionSumMeanMaxMinSchemas,
    RegisterReductionArgMaxProdLogSumSchemas, RegisterRnnSchemas, RegisterGradientSchemas, RegisterTrainingSchemas,
    RegisterQuantizationSchemas, RegisterDetectionSchemas, RegisterSignalSchemas, RegisterSignalSpectralSchemas,
    RegisterTensorReverseSequenceSchemas, RegisterMathDetSchemas, RegisterTensorUniqueSchemas,
    RegisterNnUnpoolSchemas, RegisterNnTfIdfVectorizerSchemas, RegisterRandomSchemas, RegisterNnStringNormalizerSchemas, RegisterSequenceSchemas,
    RegisterTensorGridSampleSchemas, RegisterDetectionRoiAlignSchemas,
  });
}
