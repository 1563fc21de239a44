// The registration function of each kernel file of the CPU plugin, named
// after its file; plugin.cc calls them all. Files are named like the schema
// files in ops/ (ONNX Runtime's families: math_, nn_, tensor_, reduction_,
// rnn), and hold the kernels of the same ops.
#ifndef LOOM_PLUGINS_CPU_KERNELS_H_
#define LOOM_PLUGINS_CPU_KERNELS_H_

#include "core/api/loom_sdk.h"

namespace loom {
namespace cpu {

// math_elementwise.cc (OpenMP): activations, unary math, Add, Sub, Mul, Div, Pow, PRelu, Max, Min, Sum,
// Mean, Clip, Softmax, LogSoftmax
sdk::Status RegisterMathElementwiseKernels(sdk::Registrar& reg);
// math_compare_logic_trig.cc (OpenMP): comparisons, And/Or/Xor/Not, Where, Sign, trigonometric, Round,
// IsNaN, IsInf, HardSwish, Mish, Celu, ThresholdedRelu, Gelu, Shrink, Mod, BitShift
sdk::Status RegisterMathCompareLogicTrigKernels(sdk::Registrar& reg);
sdk::Status RegisterMathGemmMatMulKernels(sdk::Registrar& reg);        // math_gemm_matmul.cc (oneDNN): Gemm, MatMul, FC
sdk::Status RegisterMathEinsumKernels(sdk::Registrar& reg);            // math_einsum.cc: Einsum
sdk::Status RegisterMathTopKHardmaxCumSumKernels(sdk::Registrar& reg);  // math_topk_hardmax_cumsum.cc
sdk::Status RegisterNnConvKernels(sdk::Registrar& reg);           // nn_conv.cc (oneDNN): Conv, FusedConv, NchwcConv
sdk::Status RegisterNnNchwcKernels(sdk::Registrar& reg);          // nn_nchwc.cc (oneDNN): ReorderInput, ReorderOutput
sdk::Status RegisterNnConvTransposeKernels(sdk::Registrar& reg);  // nn_conv_transpose.cc (oneDNN): ConvTranspose
// nn_pool.cc (oneDNN): MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool, NchwcMaxPool,
// NchwcGlobalAveragePool
sdk::Status RegisterNnPoolKernels(sdk::Registrar& reg);
sdk::Status RegisterNnLpPoolKernels(sdk::Registrar& reg);     // nn_lp_pool.cc: LpPool, GlobalLpPool
sdk::Status RegisterNnBatchNormKernels(sdk::Registrar& reg);  // nn_batch_norm.cc (oneDNN): BatchNormalization
// nn_normalization.cc: LayerNormalization, InstanceNormalization, LRN, MeanVarianceNormalization,
// LpNormalization
sdk::Status RegisterNnNormalizationKernels(sdk::Registrar& reg);
// nn_loss.cc: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
sdk::Status RegisterNnLossKernels(sdk::Registrar& reg);
// The ops of ops/tensor.cc, in three files:
// tensor_shape.cc: Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout, Shape, Constant
sdk::Status RegisterTensorShapeKernels(sdk::Registrar& reg);
sdk::Status RegisterTensorCopyKernels(sdk::Registrar& reg);  // tensor_copy.cc: Concat, Split, Slice, Transpose, Gather
sdk::Status RegisterTensorCastKernels(sdk::Registrar& reg);  // tensor_cast.cc: Cast, CastLike
// tensor_expand_tile_range.cc: ConstantOfShape, Size, Expand, Tile, Range, Trilu, EyeLike
sdk::Status RegisterTensorExpandTileRangeKernels(sdk::Registrar& reg);
// tensor_pad_space_depth.cc: Pad, DepthToSpace, SpaceToDepth
sdk::Status RegisterTensorPadSpaceDepthKernels(sdk::Registrar& reg);
sdk::Status RegisterTensorOneHotKernels(sdk::Registrar& reg);    // tensor_onehot.cc: OneHot
// tensor_gather_scatter.cc: GatherElements, GatherND, Scatter, ScatterElements, ScatterND
sdk::Status RegisterTensorGatherScatterKernels(sdk::Registrar& reg);
sdk::Status RegisterTensorNonZeroKernels(sdk::Registrar& reg);   // tensor_nonzero.cc: NonZero
sdk::Status RegisterTensorCompressKernels(sdk::Registrar& reg);  // tensor_compress.cc: Compress
sdk::Status RegisterTensorResizeUpsampleKernels(sdk::Registrar& reg);  // tensor_resize_upsample.cc: Resize, Upsample
// reduction_sum_mean_max_min.cc (OpenMP): ReduceSum, ReduceMean, ReduceMax, ReduceMin
sdk::Status RegisterReductionSumMeanMaxMinKernels(sdk::Registrar& reg);
// reduction_argmax_prod_logsum.cc: ArgMax, ArgMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp, ReduceSumSquare
sdk::Status RegisterReductionArgMaxProdLogSumKernels(sdk::Registrar& reg);
sdk::Status RegisterRnnKernels(sdk::Registrar& reg);  // rnn.cc (oneDNN): ONNX LSTM, GRU, RNN (engine DNNL)
// gradients.cc: Accumulate, SumReduceLike, ReluGradient, SigmoidGradient, TanhGradient, GeluGradient,
// EluGradient, FusedActivationGradient, the losses' gradients
sdk::Status RegisterGradientKernels(sdk::Registrar& reg);
// math_softmax_gradient.cc (oneDNN): SoftmaxGradient, LogSoftmaxGradient
sdk::Status RegisterSoftmaxGradientKernels(sdk::Registrar& reg);
sdk::Status RegisterTrainingKernels(sdk::Registrar& reg);  // training.cc: Adagrad, Momentum, Adam
sdk::Status RegisterNnConvGradientKernels(sdk::Registrar& reg);  // nn_conv_gradient.cc: ConvGradient
sdk::Status RegisterNnConvTransposeGradientKernels(sdk::Registrar& reg);  // nn_conv_transpose_gradient.cc
sdk::Status RegisterNnPoolGradientKernels(sdk::Registrar& reg);  // nn_pool_gradient.cc: MaxPool/AveragePoolGradient
sdk::Status RegisterNnBatchNormGradientKernels(sdk::Registrar& reg);  // nn_batch_norm_gradient.cc
sdk::Status RegisterNnNormalizationGradientKernels(sdk::Registrar& reg);  // nn_normalization_gradient.cc: LayerNorm's
sdk::Status RegisterNnDropoutKernels(sdk::Registrar& reg);  // nn_dropout.cc: Dropout, DropoutGrad
// quantization.cc: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear
sdk::Status RegisterQuantizationKernels(sdk::Registrar& reg);
// quantized_matmul_conv.cc: MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv
sdk::Status RegisterQuantizedMatMulConvKernels(sdk::Registrar& reg);
// quantized_add.cc: QLinearAdd (Loom's domain)
sdk::Status RegisterQuantizedAddKernels(sdk::Registrar& reg);
// quantized_lookup.cc: QLinearLookup (Loom's domain)
sdk::Status RegisterQuantizedLookupKernels(sdk::Registrar& reg);
// quantized_global_pool.cc: QLinearGlobalAveragePool (Loom's domain)
sdk::Status RegisterQuantizedGlobalPoolKernels(sdk::Registrar& reg);
// quantized_float_mul.cc: QLinearFloatMul (Loom's domain)
sdk::Status RegisterQuantizedFloatMulKernels(sdk::Registrar& reg);
// quantized_conv_transpose.cc: QLinearConvTranspose (Loom's domain)
sdk::Status RegisterQuantizedConvTransposeKernels(sdk::Registrar& reg);
// detection.cc: NonMaxSuppression
sdk::Status RegisterDetectionKernels(sdk::Registrar& reg);
// signal.cc: HannWindow, HammingWindow, BlackmanWindow
sdk::Status RegisterSignalKernels(sdk::Registrar& reg);
// signal_spectral.cc: DFT, STFT, MelWeightMatrix
sdk::Status RegisterSignalSpectralKernels(sdk::Registrar& reg);
sdk::Status RegisterTensorReverseSequenceKernels(sdk::Registrar& reg);  // tensor_reverse_sequence.cc: ReverseSequence
sdk::Status RegisterMathDetKernels(sdk::Registrar& reg);  // math_det.cc: Det
sdk::Status RegisterTensorUniqueKernels(sdk::Registrar& reg);  // tensor_unique.cc: Unique
sdk::Status RegisterNnUnpoolKernels(sdk::Registrar& reg);  // nn_unpool.cc: MaxUnpool
// sequence.cc: SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase, SequenceLength,
// SplitToSequence, ConcatFromSequence, Optional, OptionalHasElement, OptionalGetElement
sdk::Status RegisterSequenceKernels(sdk::Registrar& reg);
// nn_string_normalizer.cc: StringNormalizer
sdk::Status RegisterNnStringNormalizerKernels(sdk::Registrar& reg);
// random.cc: RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike, Bernoulli
sdk::Status RegisterRandomKernels(sdk::Registrar& reg);
// nn_tfidf_vectorizer.cc: TfIdfVectorizer
sdk::Status RegisterNnTfIdfVectorizerKernels(sdk::Registrar& reg);
sdk::Status RegisterTensorGridSampleKernels(sdk::Registrar& reg);  // tensor_grid_sample.cc: GridSample
sdk::Status RegisterDetectionRoiAlignKernels(sdk::Registrar& reg);  // detection_roi_align.cc: RoiAlign
// quantized_dynamic_matmul.cc: DynamicQuantizeMatMul (Loom's domain)
sdk::Status RegisterQuantizedDynamicMatMulKernels(sdk::Registrar& reg);
// quantized_dynamic_rnn.cc: DynamicQuantizeLSTM (Loom's domain)
sdk::Status RegisterQuantizedDynamicRnnKernels(sdk::Registrar& reg);

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_KERNELS_H_
