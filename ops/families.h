// One registration function per operator family (one file each in ops/).
#ifndef LOOM_OPS_FAMILIES_H_
#define LOOM_OPS_FAMILIES_H_

#include "core/api/loom_sdk.h"

namespace loom {
namespace ops {

sdk::Status RegisterElementwiseSchemas(sdk::Registrar& reg);  // ops/elementwise.cc
sdk::Status RegisterReductionSchemas(sdk::Registrar& reg);    // ops/reduction.cc
sdk::Status RegisterNnSchemas(sdk::Registrar& reg);           // ops/nn.cc: Conv, pooling, BatchNormalization, Gemm, MatMul
sdk::Status RegisterTensorSchemas(sdk::Registrar& reg);       // ops/tensor.cc: shape and data movement
sdk::Status RegisterRnnSchemas(sdk::Registrar& reg);          // ops/rnn.cc: ONNX LSTM, GRU, RNN
sdk::Status RegisterElementwiseExtSchemas(sdk::Registrar& reg);  // ops/elementwise_ext.cc: comparison, logic, trig, more activations
sdk::Status RegisterTensorExtSchemas(sdk::Registrar& reg);       // ops/tensor_ext.cc: Expand, Tile, Pad, Range, ...
sdk::Status RegisterIndexExtSchemas(sdk::Registrar& reg);        // ops/index_ext.cc: gather/scatter, ArgMax, TopK, more reductions
sdk::Status RegisterLossSchemas(sdk::Registrar& reg);  // ops/loss.cc: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, Einsum, Compress
sdk::Status RegisterNormExtSchemas(sdk::Registrar& reg);  // ops/norm_ext.cc: LayerNormalization, InstanceNormalization, LRN, MeanVarianceNormalization, LpPool, GlobalLpPool
sdk::Status RegisterSpatialExtSchemas(sdk::Registrar& reg);  // ops/spatial_ext.cc: ConvTranspose, Resize, Upsample

}  // namespace ops
}  // namespace loom

#endif  // LOOM_OPS_FAMILIES_H_
