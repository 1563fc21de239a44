// Rewrite of the int8 ops fuse_qdq.h makes so that runs of them keep
// tensors channels-last (NHWC), the layout oneDNN's int8 convolution and
// pooling kernels take, instead of reordering NCHW in and out of every op:
// ONNX Runtime's NhwcTransformer for its QLinear ops. The int8 counterpart of
// the float32 NCHWc pass (nchwc_layout.h).
#ifndef LOOM_TRANSFORMS_INT8_CHANNELS_LAST_H_
#define LOOM_TRANSFORMS_INT8_CHANNELS_LAST_H_

#include "core/proto/loom.pb.h"

namespace loom {
namespace transforms {

// At the top level, in order:
//   - a 2-D QLinearConv (W a constant int8 initializer of rank 4 whose zero
//     point is absent or all 0: what oneDNN's int8 convolution takes)
//     becomes NhwcQLinearConv (Loom's domain) writing "<y>_nhwc"; a
//     QLinearLookup that alone reads its output (a table of its output
//     type) becomes its output_table, the conv writing the lookup's output;
//   - a (float32) GlobalAveragePool of a channels-last tensor becomes
//     NhwcGlobalAveragePool (Loom's domain), its [N, 1, 1, C] output
//     channels-last;
//   - a MaxPool, a QLinearAdd, a QLinearFloatMul, a QLinearLookup, a
//     QLinearGlobalAveragePool and a 2-D QLinearConvTranspose whose tensor
//     inputs are all channels-last (made so above) become NhwcMaxPool /
//     stay QLinearAdd, QLinearFloatMul, QLinearLookup (elementwise; both
//     operands transposed alike broadcast alike) /
//     QLinearGlobalAveragePool and QLinearConvTranspose with channels_last
//     1 on them;
//   - an elementwise op (a unary activation, Add, Sub, Mul, Div, Max, Min,
//     a per-tensor QuantizeLinear or DequantizeLinear) with a
//     channels-last input, whose other inputs are channels-last or scalar
//     initializers, runs on them as it is (the float activations between
//     the int8 ops of a QDQ model stay channels-last too);
//   - an input of those that is not channels-last gets a Transpose (perm
//     [0, 2, 3, 1]) before its first such reader, once;
//   - any other reader of a tensor now made channels-last, and a net
//     output, reads it through a Transpose back (perm [0, 3, 1, 2]) inserted
//     before its first such reader (at the end for a net output), once.
// Results are unchanged (the same int8 kernels on the same values, in
// another layout). Nested nets are left as they are (a tensor they read
// from the top level is transposed back before the op that holds them).
// Returns how many ops were made channels-last.
int Int8ChannelsLast(NetDef* net);

}  // namespace transforms
}  // namespace loom

#endif  // LOOM_TRANSFORMS_INT8_CHANNELS_LAST_H_
