// Rewrite of dynamically quantized MatMuls, as ONNX Runtime's
// quantize_dynamic (and loom_quantize --dynamic) write them, into one op
// for inference on the CPU (ONNX Runtime's DynamicQuantizeMatMulFusion and
// MatMulIntegerToFloatFusion):
//   A -> DynamicQuantizeLinear -> (A_q, a_scale, a_zero_point)
//   MatMulInteger(A_q, B, a_zero_point, [b_zero_point]) -> Cast(to float)
//   Mul(that, Mul(a_scale, b_scale)) [-> Add(that, bias)]
//     => DynamicQuantizeMatMul(A, B, b_scale, [b_zero_point], [bias])
//        (Loom's domain; ONNX Runtime's com.microsoft op)
// which quantizes A and runs one oneDNN int8 matmul with the rescaling and
// the bias inside it: the pattern's values exactly, without its
// intermediate tensors (A_q, the int32 product, its float copy).
#ifndef LOOM_TRANSFORMS_FUSE_DYNAMIC_QUANT_H_
#define LOOM_TRANSFORMS_FUSE_DYNAMIC_QUANT_H_

#include "core/proto/loom.pb.h"

namespace loom {
namespace transforms {

// Rewrites the top-level patterns above, each when:
//   - B is a constant int8 [K, N] and b_zero_point, if given, a constant
//     int8 of zeros (one, or N); b_scale a constant float32 of one or N
//     elements (scalar or 1-D);
//   - Cast's `to` is float; each Mul and the Add read the previous op's
//     output and one other operand (in either order); the bias is a
//     constant float32 [N];
//   - every intermediate (A_q, a_scale, a_zero_point, the int32 product,
//     its cast, the scales' product, the Mul's output when an Add follows)
//     is read only by the next op of the pattern and is no net output.
// The new op takes the last op's place and output. Nested nets are left as
// they are. Returns how many patterns were rewritten.
int FuseDynamicQuant(NetDef* net);

}  // namespace transforms
}  // namespace loom

#endif  // LOOM_TRANSFORMS_FUSE_DYNAMIC_QUANT_H_
