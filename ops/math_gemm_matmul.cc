// Schemas of Gemm and MatMul (ONNX opset 13) and Caffe2's FC. Shape
// inference is lenient:
// shapes it cannot derive, or that are inconsistent, are left unknown and
// the kernel reports the error with the shapes it gets.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/gemm.h"
#include "ops/semantics/shape_math.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Gemm: Y [M, N] from A [M, K] (or [K, M] with transA) and B [K, N] (or
// [N, K] with transB), by the kernels' semantics::GemmAttrs; unknown when A
// or B is not 2-D or their K differ.
sdk::Status GemmInfer(sdk::InferenceContext& ctx) {
  std::vector<int64_t> a, b, y;
  if (!ctx.InputShape(0, &a) || !ctx.InputShape(1, &b)) return sdk::Status::Ok();
  semantics::GemmAttrs attrs;
  if (!attrs.Read(ctx.info()).ok() || !attrs.OutputShape("Gemm", a, b, &y).ok()) return sdk::Status::Ok();
  ctx.SetOutputShape(0, y);
  return sdk::Status::Ok();
}

// MatMul (numpy.matmul): batch dims broadcast, 1-D operands promoted and
// the added dims dropped.
sdk::Status MatMulInfer(sdk::InferenceContext& ctx) {
  std::vector<int64_t> a, b, batch;
  if (!ctx.InputShape(0, &a) || !ctx.InputShape(1, &b) || a.empty() || b.empty()) return sdk::Status::Ok();
  // BatchMatMul's transposed operands (rank >= 2).
  if (ctx.info().IntOr("trans_a", 0) != 0 && a.size() >= 2) std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (ctx.info().IntOr("trans_b", 0) != 0 && b.size() >= 2) std::swap(b[b.size() - 1], b[b.size() - 2]);
  if (semantics::MatMulShape(a, b, &batch)) ctx.SetOutputShape(0, batch);
  return sdk::Status::Ok();
}

// FC: Y = X.dims[:axis] + [W.dims[0] ... W.dims[axis_w - 1]] with K the
// product of X.dims[axis:] and of W.dims[axis_w:]; unknown when they
// differ or an axis is out of range.
sdk::Status FCInfer(sdk::InferenceContext& ctx) {
  std::vector<int64_t> x, w, y;
  if (!ctx.InputShape(0, &x) || !ctx.InputShape(1, &w)) return sdk::Status::Ok();
  int64_t axis = 1, axis_w = 1;
  if (!ctx.info().GetInt("axis", &axis).ok() || !ctx.info().GetInt("axis_w", &axis_w).ok()) return sdk::Status::Ok();
  if (!semantics::FCOutputShape(x, w, axis, axis_w, &y, nullptr, nullptr, nullptr)) return sdk::Status::Ok();
  ctx.SetOutputShape(0, y);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterMathGemmMatMulSchemas(sdk::Registrar& reg) {
  const std::vector<TypeSet> f = {{"T", FloatTypes()}};
  return RegisterOps(reg, {
      {"Gemm", 13,
       "ONNX Gemm-13: Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A ([M, K]), B' = transB ? B^T : B "
       "([K, N]); C optional, unidirectionally broadcast to [M, N].",
       {"A:T|[M, K], or [K, M] with transA", "B:T|[K, N], or [N, K] with transB", "C:T?|broadcastable to [M, N]"},
       {"Y:T|[M, N]"}, f,
       {"alpha:float=1|scale of A' * B'", "beta:float=1|scale of C", "transA:int=0|nonzero: use A transposed",
        "transB:int=0|nonzero: use B transposed",
        "broadcast:int?|Gemm-6 and earlier; accepted and ignored (C always broadcasts, as since Gemm-7)"},
       Fn<&GemmInfer>()},
      {"MatMul", 13,
       "ONNX MatMul-13: numpy.matmul. A [..., M, K] x B [..., K, N] -> Y [..., M, N], batch dims broadcast; a 1-D "
       "A is [1, K] and a 1-D B is [K, 1], the added dim removed from Y.",
       {"A:T", "B:T"}, {"Y:T"}, f, {}, Fn<&MatMulInfer>()},
      {"BatchMatMul", 1,
       "Caffe2 BatchMatMul: MatMul of A' [..., M, K] and B' [..., K, N], batch dims broadcast (numpy), where A' "
       "= A with its last two dims swapped when trans_a (A stored [..., K, M]) and likewise B' for trans_b; both "
       "of rank >= 2. MatMul's gradient (dA = dY B^T, dB = A^T dY) without transposed copies.",
       {"A:T|[..., M, K], or [..., K, M] with trans_a", "B:T|[..., K, N], or [..., N, K] with trans_b"},
       {"Y:T|[..., M, N]"}, f,
       {"trans_a:int=0|nonzero: A is transposed (its last two dims)", "trans_b:int=0|nonzero: B is transposed",
        "broadcast:int=1|Caffe2's; batch dims always broadcast here"},
       Fn<&MatMulInfer>(), /*inplace=*/false, LOOM_OPS_DOMAIN},
      {"FC", 1,
       "Caffe2 FC (fully connected): Y = X' W'^T + b, X' = X flattened to [M, K] at `axis` (M the product of "
       "X.dims[:axis], K of the rest), W' = W flattened to [N, K] at `axis_w` (W is [N, K] as Caffe2 and "
       "ONNX's RNN weights store it: output features first); Y is X.dims[:axis] + W.dims[:axis_w]. What "
       "Caffe2's RNN step nets use for gates from [1, N, I] inputs (axis = 2). Loom adds the optional Sum, "
       "added to Y in the matmul's epilogue (oneDNN's binary post-op): a step net's gates h_prev R^T + b + "
       "x_t W^T with the input projection done before the loop.",
       {"X:T|[..., K] flattened at axis", "W:T|[N, K] flattened at axis_w", "b:T|[N]",
        "Sum:T?|Y's shape (leading 1s aside): Y = X' W'^T + b + Sum (Loom; absent: Caffe2's FC)"},
       {"Y:T|X.dims[:axis] + [N]"}, f,
       {"axis:int=1|X's dims from this one on form K", "axis_w:int=1|W's dims from this one on form K"},
       Fn<&FCInfer>(), /*inplace=*/false, LOOM_OPS_DOMAIN},
  });
}

}  // namespace ops
}  // namespace loom
