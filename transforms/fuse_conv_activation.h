// Rewrite of a net for inference and, gradient-safe activations only, for
// training: a Conv whose output feeds only
// an activation becomes one FusedConv (ops/nn_conv.cc), as ONNX Runtime's
// com.microsoft FusedConv, so the activation runs inside the convolution
// (a oneDNN post-op on CPU) instead of as a separate pass over Y.
#ifndef LOOM_TRANSFORMS_FUSE_CONV_ACTIVATION_H_
#define LOOM_TRANSFORMS_FUSE_CONV_ACTIVATION_H_

#include "core/proto/loom.pb.h"

namespace loom {
namespace transforms {

// Rewrites every top-level Conv (a float32 initializer as W, since
// FusedConv runs float32 only; one output, read only by one top-level
// Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid or HardSwish with one
// output, and not a net output) into a FusedConv with the Conv's inputs and
// attributes, `activation` = the activation's type and `activation_params`
// from its attributes (LeakyRelu alpha; HardSigmoid alpha, beta; Clip min,
// max), writing the activation's output. Clip fuses only when its min and
// max are attributes (Clip-6) or float32 scalar initializers that are not
// net inputs (Clip-11+); absent ones are unbounded. Initializers only the
// removed activations read are dropped. Nested nets are left as they are.
// An NchwcConv without an activation (nchwc_layout.h, e.g. after a fused
// residual Add) gets the activation the same way and keeps its type.
// With `training`, only activations whose derivative can be read off their
// output fuse (semantics::FusedActivation::HasDerivativeFromOutput: not
// HardSwish, not a LeakyRelu of negative alpha), so FusedConv's gradient
// exists. Returns how many pairs were fused.
int FuseConvActivation(NetDef* net, bool training = false);

}  // namespace transforms
}  // namespace loom

#endif  // LOOM_TRANSFORMS_FUSE_CONV_ACTIVATION_H_
