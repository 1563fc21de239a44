// Gradients of the standard ops (ABI 5 gradient makers, Caffe2's
// GradientMakerBase semantics) and the schemas of the ops they emit.
#ifndef LOOM_OPS_GRADIENTS_H_
#define LOOM_OPS_GRADIENTS_H_

#include <string>

#include "core/api/loom_sdk.h"

namespace loom {
namespace ops {

// The gradient maker of standard op `op`, or nullptr (not implemented).
// ops::Schema attaches it to every schema it builds.
LoomGradientFn StandardGradient(const std::string& op);

// The gradient maker of a network layer whose gradient is an op of its own
// (Conv, FusedConv, ConvTranspose, MaxPool, AveragePool, BatchNormalization,
// LayerNormalization, Gelu, Dropout; ops/gradients_nn.cc), or nullptr.
LoomGradientFn NnLayerGradient(const std::string& op);
// The schemas of those layers' gradient ops (ConvGradient,
// FusedActivationGradient, ConvTransposeGradient, MaxPoolGradient, AveragePoolGradient,
// BatchNormalizationGradient, LayerNormalizationGradient, GeluGradient,
// DropoutGrad).
sdk::Status RegisterNnLayerGradientSchemas(sdk::Registrar& reg);

// Schemas of the gradient ops (Caffe2's names and its <Op>Gradient
// convention): SumReduceLike, ReluGradient, SigmoidGradient, TanhGradient,
// SoftmaxCrossEntropyLossGradient, NegativeLogLikelihoodLossGradient.
sdk::Status RegisterGradientSchemas(sdk::Registrar& reg);

}  // namespace ops
}  // namespace loom

#endif  // LOOM_OPS_GRADIENTS_H_
