// Rewrites of element-wise chains that exporters spell out
// (paddle2onnx's PP-OCR models: every block is Conv -> Mul(scale) ->
// Add(shift) -> Add(3) -> Clip(0, 6) -> Mul -> Div(6)):
//
// FoldConvScalarAffine: a Conv (or ConvTranspose of group 1) whose output
// only feeds Mul (or Add, Sub,
// Div) by a float32 constant, a scalar or one value per output channel
// (shape [M, 1, 1] or [1, M, 1, 1] for a 2-D conv: ChannelInitializer), is
// rewritten to compute that directly: W and B scaled for Mul/Div, B shifted
// for Add/Sub (new initializers). Repeats, so a Mul then Add chain folds
// completely. (paddle2onnx writes a ConvTranspose's bias as such an Add.)
//
// FuseHardSwish: y * Clip(y + 3, 0, 6) / 6 (Div by 6 or Mul by 1/6; the
// product in either order; Clip bounds as attributes or constant inputs)
// becomes one HardSwish (ONNX HardSwish-14, the same function), when the
// intermediates feed nothing else.
//
// Both rewrite the top level of a net (transforms::Optimize runs
// FoldConvScalarAffine alternately with BatchNormalization folding until
// neither folds more, then FuseHardSwish, before Conv + activation fusion,
// which then absorbs the HardSwish). Each returns how many rewrites it made.
#ifndef LOOM_TRANSFORMS_FUSE_ELEMENTWISE_H_
#define LOOM_TRANSFORMS_FUSE_ELEMENTWISE_H_

#include "core/proto/loom.pb.h"

namespace loom {
namespace transforms {

int FoldConvScalarAffine(NetDef* net);
int FuseHardSwish(NetDef* net);

}  // namespace transforms
}  // namespace loom

#endif  // LOOM_TRANSFORMS_FUSE_ELEMENTWISE_H_
