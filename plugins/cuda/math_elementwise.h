// The CUDA plugin's one elementwise kernel family: every binary op (numpy
// broadcasting, up to rank 8) and every unary op is an instance of the same
// two templated grid-stride kernels in math_elementwise.cu, selected by an op code.
// float32 and float16 (computed in float); bfloat16 too.
#ifndef LOOM_PLUGINS_CUDA_MATH_ELEMENTWISE_H_
#define LOOM_PLUGINS_CUDA_MATH_ELEMENTWISE_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "core/api/loom_c_api.h"

namespace loom {
namespace cuda {

constexpr int kMaxRank = 8;

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kPow, kMax, kMin, kPRelu };
enum class UnaryOp {
  kRelu, kSigmoid, kTanh, kExp, kLog, kSqrt, kReciprocal, kNeg, kAbs, kFloor, kCeil, kErf,
  kLeakyRelu,   // alpha
  kElu,         // alpha
  kSelu,        // alpha, beta (= gamma)
  kHardSigmoid, // alpha, beta
  kSoftplus, kSoftsign,
  kClip,        // alpha = min, beta = max
  kIdentity,
  kScale,       // y = alpha * x (Mean's division)
  kHardSwish,   // x * clip(x / 6 + 1/2, 0, 1) (FusedConv)
};

// Output of rank `rank` with `dims`; per operand, element strides over the
// output dims (0 where broadcast).
struct BroadcastIndex {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t sa[kMaxRank] = {};
  int64_t sb[kMaxRank] = {};
};

// y[i] = op(a[ia(i)], b[ib(i)]) for `n` output elements on `stream`.
cudaError_t LaunchBinary(BinaryOp op, LoomDataType dtype, const BroadcastIndex& index, int64_t n, const void* a,
                         const void* b, void* y, cudaStream_t stream);

// y[i] = op(x[i]) for `n` elements; alpha/beta as listed in UnaryOp.
cudaError_t LaunchUnary(UnaryOp op, LoomDataType dtype, int64_t n, const void* x, void* y, float alpha, float beta,
                        cudaStream_t stream);

}  // namespace cuda
}  // namespace loom

#endif  // LOOM_PLUGINS_CUDA_MATH_ELEMENTWISE_H_
