// Inference-time rewrite of imported models that keeps oneDNN's blocked
// layout between convolutions (ONNX Runtime's NCHWc transformer): a run of
// Conv/FusedConv ops, the element-wise ops between them and residual Adds
// work on blocked tensors [N, C / b, H, W, b] (ops/nn_nchwc.cc), with
// ReorderInput / ReorderOutput only where the run starts and ends, instead
// of every convolution reordering its input in and its output out.
#ifndef LOOM_TRANSFORMS_NCHWC_LAYOUT_H_
#define LOOM_TRANSFORMS_NCHWC_LAYOUT_H_

#include <cstdint>

#include "core/proto/loom.pb.h"

namespace loom {
namespace transforms {

// The block oneDNN's convolutions prefer on this CPU: 16 (nChw16c) with
// AVX-512 (unless ONEDNN_MAX_CPU_ISA caps oneDNN below it), 8 (nChw8c)
// otherwise (ONNX Runtime's MlasNchwcGetBlockSize). Models imported here and
// saved (loom_import) keep the block of this machine.
int64_t NchwcBlockForThisCpu();

// Rewrites the top-level ops of `net` (in order; nested nets are left as they
// are):
//   - a pointwise (1x1, group 1) or grouped Conv or FusedConv (depthwise,
//     or groups of whole blocks) with inputs X, W and an optional B, one
//     output, and a W that is a float32 rank-4 initializer and not a net
//     input, with input and output channels multiples of `block`, becomes
//     NchwcConv (same inputs and attributes, plus `block`) on X's blocked
//     form. A ReorderInput makes that form when X has none, except for a
//     pointwise conv, which would be an island between plain ops: runs
//     start at grouped (and, on AVX-512, channels-last) convs. A pointwise
//     conv keeps its input's layout. With block 16 (AVX-512), a dense conv with a larger
//     window becomes NchwcConv with block 0: channels-last [N, 1, H, W, C],
//     the layout oneDNN's brgemm kernels want (they beat its nChw16c
//     kernels there), and so does a pointwise or depthwise conv whose
//     channels are not multiples of 16; with block 8 (AVX2, no brgemm
//     convolutions) such convs stay plain. With block 16 and `winograd`, a
//     dense 3x3 conv of stride and dilation 1 with 16 to 256 channels in
//     and out (multiples of 16) runs nChw16c with NchwcConv's algorithm "winograd" instead
//     (oneDNN's Winograd kernels: 1.2 to 2 times faster than brgemm on
//     ResNet-18's 3x3 convs; their results differ from direct's by up to
//     about 1e-5 on outputs near 4).
//     Where a conv wants another layout than its input
//     has, a ReorderInput re-blocks the blocked tensor (one reorder);
//   - a MaxPool (one output, no Indices) of a blocked tensor becomes
//     NchwcMaxPool, a GlobalAveragePool NchwcGlobalAveragePool, in the same
//     layout;
//   - an element-wise op of one tensor input (Relu, LeakyRelu, Clip,
//     Sigmoid, Tanh, HardSigmoid, HardSwish, Elu, Selu, Softplus, Abs, Neg,
//     Exp, Sqrt; Clip's bounds are scalars) whose input is blocked works on
//     the blocked tensor;
//   - Add, Sub, Mul or Div of a blocked tensor and a one-element float32
//     initializer of rank <= 4 (not a net input) stays blocked, as does an
//     Add of two blocked tensors (broadcasting between blocked forms is the
//     same as between plain ones: an nChw<b>c tensor's channel dim is never
//     1, and channels-last only moves C last). Operands in two layouts meet
//     in one that an operand already has a copy in, else channels-last.
//     Such an Add whose one operand is an NchwcConv output
//     read only there (no Sum or activation yet), written after the other
//     operand in the same layout with the same number of channels (known
//     from the convs' weights), and not a full tensor added to a globally
//     pooled one, becomes that conv's Sum input (oneDNN's sum post-op; Sum may
//     broadcast to the conv's output as the Add did, and one larger than it
//     is a run-time error). Mul of two channels-last tensors (a
//     squeeze-excitation gate) stays blocked; of two nChw<b>c ones, plain:
//     the broadcast over 16-element rows is slower than the reorders;
//   - a Resize (opset 11+: X, roi, scales) of a blocked tensor by constant
//     float32 scales [1, 1, sh, sw] (no sizes, axes or antialias, not
//     tf_crop_and_resize) resizes the blocked tensor, with scales
//     "<scales>__nchwc" = [1, 1, sh, sw, 1] (a new initializer); a Concat
//     on channels (axis 1 or -3) of blocked tensors in one layout
//     concatenates them along the last axis (channels-last) or the block
//     axis (nChw<b>c, every input's channels known multiples of b);
//   - any other reader of a blocked tensor (and a net output) gets its plain
//     form from one ReorderOutput.
// Blocked tensors are named "<name>__nchwc" (re-blocked copies
// "<name>__nchwc16", "<name>__nchwc8", "<name>__nchwc_cl"). A name written again by a plain
// op loses its blocked form. Returns how many convolutions run blocked (0:
// `net` is unchanged, also for a `block` other than 8 or 16).
int PropagateNchwcLayout(NetDef* net, int64_t block, bool winograd = true);

}  // namespace transforms
}  // namespace loom

#endif  // LOOM_TRANSFORMS_NCHWC_LAYOUT_H_
