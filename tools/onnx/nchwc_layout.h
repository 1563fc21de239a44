// Inference-time rewrite of imported models that keeps oneDNN's blocked
// layout between convolutions (ONNX Runtime's NCHWc transformer): a run of
// Conv/FusedConv ops, the element-wise ops between them and residual Adds
// work on blocked tensors [N, C / b, H, W, b] (ops/nn_nchwc.cc), with
// ReorderInput / ReorderOutput only where the run starts and ends, instead
// of every convolution reordering its input in and its output out.
#ifndef LOOM_TOOLS_ONNX_NCHWC_LAYOUT_H_
#define LOOM_TOOLS_ONNX_NCHWC_LAYOUT_H_

#include <cstdint>

#include "core/proto/loom.pb.h"

namespace loom {
namespace onnx_import {

// The block oneDNN's convolutions prefer on this CPU: 16 (nChw16c) with
// AVX-512, 8 (nChw8c) otherwise (ONNX Runtime's MlasNchwcGetBlockSize).
int64_t NchwcBlockForThisCpu();

// Rewrites the top-level ops of `net` (in order; nested nets are left as they
// are):
//   - a Conv or FusedConv with one output whose W is a float32 rank-4
//     initializer (a 2-D convolution) with input and output channels
//     multiples of `block` becomes NchwcConv (same inputs and attributes,
//     plus `block`) on X's blocked form, which a ReorderInput makes when X
//     has none yet;
//   - an element-wise op of one tensor input (Relu, LeakyRelu, Clip,
//     Sigmoid, Tanh, HardSigmoid, HardSwish, Elu, Selu, Softplus, Abs, Neg,
//     Exp, Sqrt; Clip's bounds are scalars) whose input is blocked works on
//     the blocked tensor;
//   - Add, Sub, Mul, Div of two blocked tensors stay blocked (broadcasting
//     between them is the same as between their plain forms: the channel
//     dim is never 1), as do those with a one-element initializer operand;
//     an Add of a blocked NchwcConv output read only there (no Sum or
//     activation yet) and another blocked tensor becomes that conv's Sum
//     input (oneDNN's sum post-op; both must have the same shape at run
//     time);
//   - any other reader of a blocked tensor (and a net output) gets its plain
//     form from one ReorderOutput.
// Blocked tensors are named "<name>__nchwc". Returns how many convolutions
// run blocked (0: `net` is unchanged).
int PropagateNchwcLayout(NetDef* net, int64_t block);

}  // namespace onnx_import
}  // namespace loom

#endif  // LOOM_TOOLS_ONNX_NCHWC_LAYOUT_H_
