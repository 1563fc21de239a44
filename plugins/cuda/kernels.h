// One registration function per kernel family of the CUDA plugin (device
// "CUDA"); each family's device code is in the .cu file of the same name.
#ifndef LOOM_PLUGINS_CUDA_KERNELS_H_
#define LOOM_PLUGINS_CUDA_KERNELS_H_

#include <cstdint>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/cuda/elementwise.h"

namespace loom {
namespace cuda {

// Numpy broadcast of shapes a and b into *out with per-operand strides;
// false if they do not broadcast or the rank exceeds kMaxRank.
bool PlanBroadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out,
                   BroadcastIndex* index);

sdk::Status RegisterElementwiseKernels(sdk::Registrar& reg);  // elementwise.{cc,cu}
sdk::Status RegisterBlasKernels(sdk::Registrar& reg);  // blas.cc: Gemm, MatMul (cuBLAS / cuBLASLt)
sdk::Status RegisterReductionKernels(sdk::Registrar& reg);  // reduction.cc: Softmax, LogSoftmax, ReduceSum/Mean/Max/Min
sdk::Status RegisterCudnnKernels(sdk::Registrar& reg);  // cudnn_ops.cc: Conv, ConvTranspose, pooling, BatchNormalization (cuDNN)
sdk::Status RegisterTensorKernels(sdk::Registrar& reg);  // tensor_ops.cc: Transpose, Concat, Split, Slice, Reshape, Gather, Cast, Where, ...
sdk::Status RegisterRnnKernels(sdk::Registrar& reg);  // rnn.cc: ONNX LSTM, GRU, RNN through cudnnRNNForward

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_KERNELS_H_
