// Schemas of Gemm and MatMul (ONNX opset 13). Shape inference is lenient:
// shapes it cannot derive, or that are inconsistent, are left unknown and
// the kernel reports the error with the shapes it gets.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Gemm: Y [M, N] from A [M, K] (or [K, M] with transA) and B [K, N] (or
// [N, K] with transB).
LoomStatus* GemmInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> a, b;
  if (!ctx.InputShape(0, &a) || !ctx.InputShape(1, &b) || a.size() != 2 || b.size() != 2) return nullptr;
  sdk::KernelInfo info = ctx.info();
  const bool ta = info.IntOr("transA", 0) != 0, tb = info.IntOr("transB", 0) != 0;
  if ((ta ? a[0] : a[1]) != (tb ? b[1] : b[0])) return nullptr;
  ctx.SetOutputShape(0, {ta ? a[1] : a[0], tb ? b[0] : b[1]});
  return nullptr;
}

// MatMul (numpy.matmul): batch dims broadcast, 1-D operands promoted and
// the added dims dropped.
LoomStatus* MatMulInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> a, b, batch;
  if (!ctx.InputShape(0, &a) || !ctx.InputShape(1, &b) || a.empty() || b.empty()) return nullptr;
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  if (a.back() != b[b.size() - 2]) return nullptr;
  if (!Broadcast({a.begin(), a.end() - 2}, {b.begin(), b.end() - 2}, &batch)) return nullptr;
  if (!a_vec) batch.push_back(a[a.size() - 2]);
  if (!b_vec) batch.push_back(b.back());
  ctx.SetOutputShape(0, batch);
  return nullptr;
}

}  // namespace

sdk::Status RegisterMathGemmMatMulSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> f = FloatTypes();
  {
    sdk::SchemaBuilder s("Gemm");
    s.Doc("ONNX Gemm-13: Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A ([M, K]), B' = transB ? B^T : B "
          "([K, N]); C optional, unidirectionally broadcast to [M, N].")
        .SinceVersion(13)
        .Input("A", "T", LOOM_PARAM_SINGLE, "[M, K], or [K, M] with transA")
        .Input("B", "T", LOOM_PARAM_SINGLE, "[K, N], or [N, K] with transB")
        .Input("C", "T", LOOM_PARAM_OPTIONAL, "broadcastable to [M, N]")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "[M, N]")
        .TypeConstraint("T", f)
        .AttrFloat("alpha", 1.0f, "scale of A' * B'")
        .AttrFloat("beta", 1.0f, "scale of C")
        .AttrInt("transA", 0, "nonzero: use A transposed")
        .AttrInt("transB", 0, "nonzero: use B transposed")
        .Attr("broadcast", LOOM_ATTR_INT, false,
              "Gemm-6 and earlier; accepted and ignored (C always broadcasts, as since Gemm-7)")
        .Infer(&GemmInfer);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("MatMul");
    s.Doc("ONNX MatMul-13: numpy.matmul. A [..., M, K] x B [..., K, N] -> Y [..., M, N], batch dims broadcast; a 1-D "
          "A is [1, K] and a 1-D B is [K, 1], the added dim removed from Y.")
        .SinceVersion(13)
        .Input("A", "T").Input("B", "T").Output("Y", "T")
        .TypeConstraint("T", f)
        .Infer(&MatMulInfer);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
