// Inference-time graph rewrites of imported models. BatchNormalization
// (inference mode) right after a Conv (or a ConvTranspose of group 1) with
// constant weights is folded into its weights and bias, as ONNX Runtime's
// ConvBNFusion does. Exporters
// leave these pairs in (PaddleOCR's models have dozens); each BN is then a
// full pass over the activations that the folded Conv does not need.
//
// For Conv weights W [M, C/group, k...] and bias B [M] (zeros if absent),
// BN scale s, shift b, mean m, variance v and epsilon e, per output channel
// o: f = s[o] / sqrt(v[o] + e); W'[o] = W[o] * f; B'[o] = (B[o] - m[o]) * f
// + b[o]. (ConvTranspose's W is [C, M, k...]: W'[:, o] = W[:, o] * f.) Applies only where W, B, s, b, m, v are float32 initializers, the
// Conv output feeds only that BN (and is not a net output), and the BN has no
// training_mode and no outputs besides Y. The folded tensors become new
// initializers; initializers nothing reads any more are dropped.
#ifndef LOOM_TRANSFORMS_FOLD_BATCHNORM_H_
#define LOOM_TRANSFORMS_FOLD_BATCHNORM_H_

#include "core/proto/loom.pb.h"

namespace loom {
namespace transforms {

// Folds every eligible Conv (or ConvTranspose of group 1) ->
// BatchNormalization pair of `net` (its top
// level; nested nets are left as they are). Returns how many were folded.
int FoldBatchNormIntoConv(NetDef* net);

}  // namespace transforms
}  // namespace loom

#endif  // LOOM_TRANSFORMS_FOLD_BATCHNORM_H_
