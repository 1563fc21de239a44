// The registration function of each schema file in ops/, named after its
// file; ops/std_ops.cc calls them all. Files are grouped by family as in
// ONNX Runtime's CPU provider (math_, nn_, tensor_, reduction_, rnn), and
// plugins/cpu/ names its kernel files the same way.
#ifndef LOOM_OPS_REGISTER_SCHEMAS_H_
#define LOOM_OPS_REGISTER_SCHEMAS_H_

#include "core/api/loom_sdk.h"

namespace loom {
namespace ops {

// math_elementwise.cc: activations (Relu, Sigmoid, Tanh, Elu, ...), unary math (Exp, Log, Sqrt, ...),
// Add, Sub, Mul, Div, Pow, PRelu, Max, Min, Sum, Mean, Clip, Softmax, LogSoftmax
sdk::Status RegisterMathElementwiseSchemas(sdk::Registrar& reg);
// math_compare_logic_trig.cc: Equal, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor, Not, Where,
// Sign, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Round, IsNaN, IsInf, HardSwish,
// Mish, Celu, ThresholdedRelu, Gelu, Shrink, Mod, BitShift
sdk::Status RegisterMathCompareLogicTrigSchemas(sdk::Registrar& reg);
sdk::Status RegisterMathGemmMatMulSchemas(sdk::Registrar& reg);        // math_gemm_matmul.cc: Gemm, MatMul, FC (Caffe2)
sdk::Status RegisterMathEinsumSchemas(sdk::Registrar& reg);            // math_einsum.cc: Einsum
sdk::Status RegisterMathTopKHardmaxCumSumSchemas(sdk::Registrar& reg);  // math_topk_hardmax_cumsum.cc: TopK, Hardmax, CumSum
sdk::Status RegisterNnConvSchemas(sdk::Registrar& reg);           // nn_conv.cc: Conv, FusedConv
sdk::Status RegisterNnConvTransposeSchemas(sdk::Registrar& reg);  // nn_conv_transpose.cc: ConvTranspose
sdk::Status RegisterNnNchwcSchemas(sdk::Registrar& reg);          // nn_nchwc.cc: ReorderInput, ReorderOutput, NchwcConv, NchwcMaxPool, NchwcGlobalAveragePool
// nn_pool.cc: MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool
sdk::Status RegisterNnPoolSchemas(sdk::Registrar& reg);
sdk::Status RegisterNnLpPoolSchemas(sdk::Registrar& reg);     // nn_lp_pool.cc: LpPool, GlobalLpPool
sdk::Status RegisterNnBatchNormSchemas(sdk::Registrar& reg);  // nn_batch_norm.cc: BatchNormalization
// nn_normalization.cc: LayerNormalization, InstanceNormalization, LRN, MeanVarianceNormalization,
// LpNormalization
sdk::Status RegisterNnNormalizationSchemas(sdk::Registrar& reg);
// nn_loss.cc: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
sdk::Status RegisterNnLossSchemas(sdk::Registrar& reg);
// tensor.cc: Concat, Split, Slice, Reshape, Transpose, Flatten, Squeeze, Unsqueeze, Gather, NonZero, Compress,
// Cast, CastLike, Identity, Constant, Shape, Dropout
sdk::Status RegisterTensorSchemas(sdk::Registrar& reg);
// tensor_expand_tile_range.cc: ConstantOfShape, Size, Expand, Tile, Range, Trilu, EyeLike
sdk::Status RegisterTensorExpandTileRangeSchemas(sdk::Registrar& reg);
// tensor_pad_space_depth.cc: Pad, DepthToSpace, SpaceToDepth
sdk::Status RegisterTensorPadSpaceDepthSchemas(sdk::Registrar& reg);
sdk::Status RegisterTensorOneHotSchemas(sdk::Registrar& reg);    // tensor_onehot.cc: OneHot
// tensor_gather_scatter.cc: GatherElements, GatherND, Scatter, ScatterElements, ScatterND
sdk::Status RegisterTensorGatherScatterSchemas(sdk::Registrar& reg);
sdk::Status RegisterTensorResizeUpsampleSchemas(sdk::Registrar& reg);  // tensor_resize_upsample.cc: Resize, Upsample
// reduction_sum_mean_max_min.cc: ReduceSum, ReduceMean, ReduceMax, ReduceMin
sdk::Status RegisterReductionSumMeanMaxMinSchemas(sdk::Registrar& reg);
// reduction_argmax_prod_logsum.cc: ArgMax, ArgMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp, ReduceSumSquare
sdk::Status RegisterReductionArgMaxProdLogSumSchemas(sdk::Registrar& reg);
sdk::Status RegisterRnnSchemas(sdk::Registrar& reg);  // rnn.cc: ONNX LSTM, GRU, RNN
sdk::Status RegisterTrainingSchemas(sdk::Registrar& reg);  // training.cc: Adagrad, Momentum, Adam (ai.onnx.preview.training)
// quantization.cc: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul,
// ConvInteger, QLinearConv
sdk::Status RegisterQuantizationSchemas(sdk::Registrar& reg);
sdk::Status RegisterDetectionSchemas(sdk::Registrar& reg);  // detection.cc: NonMaxSuppression
// signal.cc: HannWindow, HammingWindow, BlackmanWindow
sdk::Status RegisterSignalSchemas(sdk::Registrar& reg);
// signal_spectral.cc: DFT, STFT, MelWeightMatrix
sdk::Status RegisterSignalSpectralSchemas(sdk::Registrar& reg);
sdk::Status RegisterTensorReverseSequenceSchemas(sdk::Registrar& reg);  // tensor_reverse_sequence.cc: ReverseSequence
sdk::Status RegisterMathDetSchemas(sdk::Registrar& reg);  // math_det.cc: Det
sdk::Status RegisterTensorUniqueSchemas(sdk::Registrar& reg);  // tensor_unique.cc: Unique
sdk::Status RegisterNnUnpoolSchemas(sdk::Registrar& reg);  // nn_unpool.cc: MaxUnpool
// sequence.cc: SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase, SequenceLength,
// SplitToSequence, ConcatFromSequence, Optional, OptionalHasElement, OptionalGetElement
sdk::Status RegisterSequenceSchemas(sdk::Registrar& reg);
// nn_string_normalizer.cc: StringNormalizer
sdk::Status RegisterNnStringNormalizerSchemas(sdk::Registrar& reg);
// random.cc: RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike, Bernoulli
sdk::Status RegisterRandomSchemas(sdk::Registrar& reg);
// nn_tfidf_vectorizer.cc: TfIdfVectorizer
sdk::Status RegisterNnTfIdfVectorizerSchemas(sdk::Registrar& reg);
sdk::Status RegisterTensorGridSampleSchemas(sdk::Registrar& reg);  // tensor_grid_sample.cc: GridSample
sdk::Status RegisterDetectionRoiAlignSchemas(sdk::Registrar& reg);  // detection_roi_align.cc: RoiAlign

}  // namespace ops
}  // namespace loom

#endif  // LOOM_OPS_REGISTER_SCHEMAS_H_
