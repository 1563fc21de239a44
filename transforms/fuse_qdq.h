// Rewrite of a QDQ net (QuantizeLinear / DequantizeLinear pairs around float
// ops, as ONNX Runtime's quantize_static and loom_quantize write them) into
// int8 ops, for inference on the CPU: ONNX Runtime's QDQ selector/action
// transformers. A float op whose every float input comes from a
// DequantizeLinear and whose output goes only to a QuantizeLinear computes
// on the quantized tensors themselves, so tensors stay int8 from one such op
// to the next:
//   DQ(x), DQ(W), [DQ(B)] -> Conv -> Q   => QLinearConv (ONNX, opset 10)
//   DQ(x), DQ(W), [DQ(B)] -> ConvTranspose -> Q
//                                        => QLinearConvTranspose (Loom's
//                                           domain)
//   DQ(a), DQ(b) -> Add -> Q             => QLinearAdd (Loom's domain; ONNX
//                                           Runtime's com.microsoft op)
//   DQ(x) -> MaxPool -> Q, same params   => MaxPool on the int8 tensor
//   DQ(x) -> GlobalAveragePool -> Q      => QLinearGlobalAveragePool (Loom's
//                                           domain; ONNX Runtime's
//                                           com.microsoft op)
//   DQ(a) * b -> Q, b float               => QLinearFloatMul (Loom's domain):
//                                           a squeeze-and-excitation gate
//   DQ(x) -> element-wise float ops -> Q => QLinearLookup (Loom's domain):
//                                           the Q's output for each of the
//                                           256 values of x, computed once
//                                           with the float ops
//                                           (elementwise_region.h), as ONNX
//                                           Runtime's QLinearSigmoid does
//   DQ(x) -> element-wise float ops,     => QLinearLookup with a float32
//   read as float                           table: one op for the DQ and
//                                           the ops (no Identity-only
//                                           region)
// A Relu or Clip between the op and the Q fuses when it changes nothing the
// Q can represent (ONNX Runtime's removable activations): Relu when the Q's
// zero point is its type's lowest value, Clip when its bounds quantize
// outside the type's range. The results differ from the float ops' by the
// rounding of the int8 arithmetic: at most one quantization step.
#ifndef LOOM_TRANSFORMS_FUSE_QDQ_H_
#define LOOM_TRANSFORMS_FUSE_QDQ_H_

#include "core/proto/loom.pb.h"

namespace loom {
namespace transforms {

// Rewrites the top-level patterns above, each when:
//   - every DequantizeLinear and the QuantizeLinear have constant scalar
//     scales and zero points (initializers that are not net inputs; the
//     zero point given), except W's, which may be per output channel (axis
//     0; ConvTranspose's axis 1, one group) with or without a zero point,
//     over a constant int8/uint8 W;
//   - Conv's (ConvTranspose's) B, when given, is the DequantizeLinear of a constant int32 [M]
//     whose scale is x_scale * w_scale (relative 1e-4) and zero point 0;
//   - the op's output is read only by the Q (or the activation, read only
//     by the Q) and is no net output; MaxPool has no Indices output and its
//     Q's scale, zero point and type equal its DequantizeLinear's;
//     GlobalAveragePool's, the Mul's and the Add's Q is of their
//     DequantizeLinears' type; the Mul's b is no DequantizeLinear's output;
//   - a lookup's ops form an ElementwiseRegion from the DequantizeLinear's
//     output to the Q's input (its ops' other operands scalar constants,
//     its values read by nothing else); its table is the initializer
//     "<Q's output>_table" and it takes the Q's place. Its result is the
//     float ops' on each dequantized value, quantized once: exactly the
//     QDQ graph's, but for float ops whose kernels round otherwise (e.g. a
//     vectorized exp).
// The new op takes the op's attributes and place and writes the Q's output;
// the Q, the activation and DequantizeLinear ops no longer read are
// removed. Nested nets are left as they are. Returns how many ops were
// rewritten.
int FuseQdq(NetDef* net);

}  // namespace transforms
}  // namespace loom

#endif  // LOOM_TRANSFORMS_FUSE_QDQ_H_
