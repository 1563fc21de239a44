// One registration function per kernel file of the CUDA plugin (device
// "CUDA"); plugin.cc calls them all.
#ifndef LOOM_PLUGINS_CUDA_KERNELS_H_
#define LOOM_PLUGINS_CUDA_KERNELS_H_

#include <cstdint>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/cuda/math_elementwise.h"

namespace loom {
namespace cuda {

// Numpy broadcast of shapes a and b into *out with per-operand strides;
// false if they do not broadcast or the rank exceeds kMaxRank.
bool PlanBroadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out,
                   BroadcastIndex* index);

// Files are named like the CPU plugin's (plugins/cpu/kernels.h) and the
// schema files of ops/ (ONNX Runtime's families: math_, nn_, tensor_,
// reduction_, rnn); each .cc (host glue) has the .cu (device code) and .h of
// the same name.
// math_elementwise.{cc,cu}: unary activations and math, Add, Sub, Mul, Div, Pow, Max, Min, ...
sdk::Status RegisterMathElementwiseKernels(sdk::Registrar& reg);
sdk::Status RegisterMathGemmMatMulKernels(sdk::Registrar& reg);  // math_gemm_matmul.{cc,cu}: Gemm, MatMul (cuBLAS)
// reduction_sum_mean_max_min.{cc,cu}: ReduceSum, ReduceMean, ReduceMax, ReduceMin, and Softmax, LogSoftmax
sdk::Status RegisterReductionSumMeanMaxMinKernels(sdk::Registrar& reg);
sdk::Status RegisterNnConvKernels(sdk::Registrar& reg);  // nn_conv.{cc,cu}: Conv, FusedConv, ConvTranspose (cuDNN)
// nn_pool.{cc,cu}: MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool
sdk::Status RegisterNnPoolKernels(sdk::Registrar& reg);
sdk::Status RegisterNnBatchNormKernels(sdk::Registrar& reg);  // nn_batch_norm.{cc,cu}: BatchNormalization
// tensor_shape_copy_cast.{cc,cu}: the ops of the CPU's tensor_shape.cc (Reshape, Flatten, Squeeze,
// Unsqueeze), tensor_copy.cc (Transpose, Concat, Split, Slice, Gather) and tensor_cast.cc (Cast), with
// Expand and Where
sdk::Status RegisterTensorShapeCopyCastKernels(sdk::Registrar& reg);
sdk::Status RegisterRnnKernels(sdk::Registrar& reg);  // rnn.{cc,cu}: ONNX LSTM, GRU, RNN through cudnnRNNForward

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_KERNELS_H_
