// Gemm and MatMul on cuBLAS (cublasGemmEx / cublasGemmStridedBatchedEx, the
// 64-bit-index forms). float32 computes in CUBLAS_COMPUTE_32F with the
// handle's math mode reset to the default (no TF32), so results match the
// CPU kernels (plugins/cpu/math_gemm_matmul.cc) to float rounding; float16 and
// bfloat16 store in their type and accumulate in float (COMPUTE_32F, no
// reduced-precision split-K reduction).
//
// Loom tensors are row-major and cuBLAS is column-major: a row-major
// Y [M, N] is the column-major Y^T [N, M] = op(B)^T op(A)^T, so every call
// passes B first and A second with m = N, n = M.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"
#include "ops/semantics/gemm.h"
#include "plugins/cuda/math_gemm_matmul.h"
#include "plugins/cuda/cuda_status.h"
#include "plugins/cuda/handles.h"
#include "plugins/cuda/kernels.h"

namespace loom {
namespace cuda {
namespace {

const std::vector<LoomDataType> kGemmTypes = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16};

using semantics::ShapeStr;

std::string Label(const sdk::KernelInfo& info) { return info.op_type() + " '" + info.op_name() + "'"; }

bool CudaType(LoomDataType t, cudaDataType* out) {
  switch (t) {
    case LOOM_DTYPE_FLOAT: *out = CUDA_R_32F; return true;
    case LOOM_DTYPE_FLOAT16: *out = CUDA_R_16F; return true;
    case LOOM_DTYPE_BFLOAT16: *out = CUDA_R_16BF; return true;
    default: return false;
  }
}

// The calling thread's handle on `stream`, set up for these kernels: host
// alpha/beta and the default math mode (another kernel on this thread may
// have changed either; the default mode excludes TF32 for float32), plus no
// reduced-precision reductions for half outputs.
sdk::Status GemmHandle(void* stream, cublasHandle_t* h) {
  LOOM_SDK_RETURN_IF_ERROR(GetCublas(static_cast<cudaStream_t>(stream), h));
  LOOM_CUBLAS_RETURN_IF_ERROR(cublasSetPointerMode(*h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
  LOOM_CUBLAS_RETURN_IF_ERROR(
      cublasSetMathMode(*h, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                                      CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
      "cublasSetMathMode");
  return sdk::Status::Ok();
}

// The cuBLAS (column-major) arguments of a row-major product
// Y [M, N] = op(A) [M, K] * op(B) [K, N], where A is stored [M, K] ([K, M]
// when trans_a) and B [K, N] ([N, K] when trans_b), both dense: the first
// cuBLAS operand is B, the second A, and cuBLAS computes Y^T [N, M].
struct ColumnMajorArgs {
  cublasOperation_t op_first, op_second;  // applied to B, to A
  int64_t m, n, k;                        // N, M, K
  int64_t ld_first, ld_second, ldc;       // of B, A, Y
};

ColumnMajorArgs ToColumnMajor(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K) {
  ColumnMajorArgs c;
  c.op_first = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  c.op_second = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  c.m = N;
  c.n = M;
  c.k = K;
  c.ld_first = trans_b ? K : N;   // B as column-major: [N, K] (ld N) or, transposed storage, [K, N] (ld K)
  c.ld_second = trans_a ? M : K;  // A as column-major: [K, M] (ld K) or, transposed storage, [M, K] (ld M)
  c.ldc = N;
  return c;
}

// Row-major Y_i [M, N] = alpha * op(A_i) [M, K] * op(B_i) [K, N] + beta * Y_i
// for i < batch, where A_i = A + i * stride_a elements (likewise B, Y; a
// stride may be 0 to reuse one matrix). Layouts as in ToColumnMajor; Y is
// dense [M, N]. All sizes must be >= 1. With beta = 0, Y need not be
// initialized.
sdk::Status RowMajorGemm(cublasHandle_t h, cudaDataType dt, bool trans_a, bool trans_b, int64_t M, int64_t N,
                         int64_t K, float alpha, const void* A, int64_t stride_a, const void* B, int64_t stride_b,
                         float beta, void* Y, int64_t stride_y, int64_t batch, const std::string& label) {
  const ColumnMajorArgs c = ToColumnMajor(trans_a, trans_b, M, N, K);
  if (batch == 1) {
    LOOM_CUBLAS_RETURN_IF_ERROR(cublasGemmEx_64(h, c.op_first, c.op_second, c.m, c.n, c.k, &alpha, B, dt, c.ld_first,
                                                A, dt, c.ld_second, &beta, Y, dt, c.ldc, CUBLAS_COMPUTE_32F,
                                                CUBLAS_GEMM_DEFAULT),
                                label + ": cublasGemmEx_64");
    return sdk::Status::Ok();
  }
  LOOM_CUBLAS_RETURN_IF_ERROR(
      cublasGemmStridedBatchedEx_64(h, c.op_first, c.op_second, c.m, c.n, c.k, &alpha, B, dt, c.ld_first, stride_b, A,
                                    dt, c.ld_second, stride_a, &beta, Y, dt, c.ldc, stride_y, batch,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
      label + ": cublasGemmStridedBatchedEx_64");
  return sdk::Status::Ok();
}

// One (strided-batched) product of a MatMul: Y_i = A_i * B_i for i < batch
// with A_i = A + off_a + i * stride_a elements, likewise B and Y; A_i is
// dense [m, K], B_i [K, N], Y_i [m, N].
struct MatMulCall {
  int64_t m;
  int64_t off_a, off_b, off_y;
  int64_t stride_a, stride_b, stride_y;
  int64_t batch;
};

// Plans MatMul of A [batch_a..., M, K] x B [batch_b..., K, N] (batch shapes
// right-aligned, already checked to broadcast to `batch`; M, N, K >= 1 and
// no batch dim 0). When B is one matrix for every batch, A's batches fold
// into M (one GEMM of [batch * M, K] x [K, N]); otherwise the longest
// trailing run of batch dims over which A's and B's offsets are affine in
// the flat batch index (stride 0 for a broadcast operand) is one
// strided-batched call, and the leading batch dims loop over such calls.
std::vector<MatMulCall> PlanMatMul(const std::vector<int64_t>& batch_a, const std::vector<int64_t>& batch_b,
                                   int64_t M, int64_t N, int64_t K) {
  const size_t ra = batch_a.size(), rb = batch_b.size(), r = std::max(ra, rb);
  // Non-1 batch dims (size-1 dims index nothing) with each operand's stride
  // in matrices (0 where it is broadcast).
  std::vector<int64_t> bd, sa, sb;
  int64_t ma = 1, mb = 1, total = 1;
  for (size_t i = r; i-- > 0;) {
    const int64_t da = i + ra >= r ? batch_a[i + ra - r] : 1, db = i + rb >= r ? batch_b[i + rb - r] : 1;
    const int64_t d = da == 1 ? db : da;
    if (d != 1) {
      bd.insert(bd.begin(), d);
      sa.insert(sa.begin(), da == 1 ? 0 : ma);
      sb.insert(sb.begin(), db == 1 ? 0 : mb);
      total *= d;
    }
    ma *= da;
    mb *= db;
  }
  const int64_t a_mat = M * K, b_mat = K * N, y_mat = M * N;
  bool b_single = true;
  for (int64_t s : sb) b_single = b_single && s == 0;
  if (b_single) {
    // Then every non-1 batch dim is A's, so A's batches are contiguous and
    // stack into the rows of one [total * M, K] operand.
    return {MatMulCall{total * M, 0, 0, 0, 0, 0, 0, 1}};
  }
  const size_t n = bd.size();
  size_t j = n - 1;
  while (j > 0 && sa[j - 1] == sa[j] * bd[j] && sb[j - 1] == sb[j] * bd[j]) --j;
  int64_t inner = 1, outer = 1;
  for (size_t i = j; i < n; ++i) inner *= bd[i];
  for (size_t i = 0; i < j; ++i) outer *= bd[i];
  std::vector<MatMulCall> calls;
  for (int64_t o = 0; o < outer; ++o) {
    int64_t rem = o, off_a = 0, off_b = 0;  // in matrices
    for (size_t i = j; i-- > 0;) {
      const int64_t idx = rem % bd[i];
      rem /= bd[i];
      off_a += idx * sa[i];
      off_b += idx * sb[i];
    }
    calls.push_back(MatMulCall{M, off_a * a_mat, off_b * b_mat, o * inner * y_mat, sa[n - 1] * a_mat,
                               sb[n - 1] * b_mat, y_mat, inner});
  }
  return calls;
}

// ONNX Gemm-13 (also the Gemm-7..11 forms; `broadcast` of Gemm-6 is
// ignored): Y [M, N] = alpha * A' * B' + beta * C with A' = transA ? A^T : A
// ([M, K]) and B' = transB ? B^T : B ([K, N]); the optional C (rank <= 2) is
// unidirectionally broadcast to [M, N] and ignored when beta = 0, as on the
// CPU. float32, float16, bfloat16. Errors (InvalidArgument): A or B not 2-D,
// K of A' and B' differ, C not broadcastable to [M, N].
class GemmKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = Label(info);
    LOOM_SDK_RETURN_IF_ERROR(gemm_.Read(info));
    alpha_ = gemm_.alpha;
    beta_ = gemm_.beta;
    trans_a_ = gemm_.trans_a;
    trans_b_ = gemm_.trans_b;
    return sdk::Status::Ok();
  }

  sdk::Status Compute(sdk::KernelContext& ctx) {
    sdk::Tensor a = ctx.Input(0), b = ctx.Input(1), c = ctx.Input(2), y;
    int64_t M = 0, K = 0, N = 0;
    LOOM_SDK_RETURN_IF_ERROR(gemm_.Dims(label_, a.shape(), b.shape(), &M, &K, &N));
    cudaDataType dt;
    if (!CudaType(a.dtype(), &dt) || b.dtype() != a.dtype()) {
      return sdk::InvalidArgument(label_ + ": A and B must both be float32, float16 or bfloat16 on CUDA; found " +
                                  sdk::DTypeName(a.dtype()) + " and " + sdk::DTypeName(b.dtype()));
    }
    const bool use_c = c.present() && beta_ != 0.0f;
    int64_t s0 = 0, s1 = 0;  // C's element strides over Y's rows and columns (0: broadcast)
    if (use_c) {
      const std::vector<int64_t> cs = c.shape();
      // Right-aligned to [M, N]; each dim equal or 1.
      const int64_t c0 = cs.size() == 2 ? cs[0] : 1, c1 = cs.empty() ? 1 : cs.back();
      if (cs.size() > 2 || (c0 != M && c0 != 1) || (c1 != N && c1 != 1) || c.dtype() != a.dtype()) {
        return sdk::InvalidArgument(label_ + ": input C " + sdk::DTypeName(c.dtype()) + ShapeStr(cs) +
                                    " does not broadcast to Y " + sdk::DTypeName(a.dtype()) + ShapeStr({M, N}));
      }
      s1 = c1 == 1 ? 0 : 1;
      s0 = c0 == 1 ? 0 : c1;
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, a.dtype(), {M, N}, &y));
    if (M == 0 || N == 0) return sdk::Status::Ok();
    cudaStream_t stream = static_cast<cudaStream_t>(ctx.stream());
    if (K == 0) {  // A' * B' is all zeros: Y = beta * C (or 0)
      if (!use_c) {
        return CudaStatus(cudaMemsetAsync(y.raw_data(), 0, static_cast<size_t>(M * N) * sdk::DTypeSize(a.dtype()),
                                          stream),
                          "Gemm: cudaMemsetAsync");
      }
      return CudaStatus(LaunchBroadcastScale(a.dtype(), M, N, c.raw_data(), s0, s1, beta_, y.raw_data(), stream),
                        "Gemm: broadcast C");
    }
    if (use_c) {
      // Y = C broadcast, then cuBLAS adds alpha * A' * B' to beta * Y.
      LOOM_SDK_RETURN_IF_ERROR(
          CudaStatus(LaunchBroadcastScale(a.dtype(), M, N, c.raw_data(), s0, s1, 1.0f, y.raw_data(), stream),
                     "Gemm: broadcast C"));
    }
    cublasHandle_t h;
    LOOM_SDK_RETURN_IF_ERROR(GemmHandle(ctx.stream(), &h));
    return RowMajorGemm(h, dt, trans_a_, trans_b_, M, N, K, alpha_, a.raw_data(), 0, b.raw_data(), 0,
                        use_c ? beta_ : 0.0f, y.raw_data(), 0, 1, label_);
  }

 private:
  std::string label_;
  semantics::GemmAttrs gemm_;
  float alpha_ = 1, beta_ = 1;
  bool trans_a_ = false, trans_b_ = false;
};

// ONNX MatMul-13 (numpy.matmul): A [..., M, K] x B [..., K, N] ->
// Y [..., M, N] with the batch dims broadcast (numpy rules); a 1-D A is
// [1, K] and a 1-D B is [K, 1], the added dim removed from Y. float32,
// float16, bfloat16. Errors (InvalidArgument): a rank-0 operand, K differs,
// batch dims that do not broadcast. Batches as planned by PlanMatMul.
class MatMulKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = Label(info);
    return sdk::Status::Ok();
  }

  sdk::Status Compute(sdk::KernelContext& ctx) {
    sdk::Tensor a = ctx.Input(0), b = ctx.Input(1), y;
    std::vector<int64_t> as = a.shape(), bs = b.shape();
    if (as.empty() || bs.empty()) {
      return sdk::InvalidArgument(label_ + ": A and B must have rank >= 1; found " + ShapeStr(as) + " and " +
                                  ShapeStr(bs));
    }
    cudaDataType dt;
    if (!CudaType(a.dtype(), &dt) || b.dtype() != a.dtype()) {
      return sdk::InvalidArgument(label_ + ": A and B must both be float32, float16 or bfloat16 on CUDA; found " +
                                  sdk::DTypeName(a.dtype()) + " and " + sdk::DTypeName(b.dtype()));
    }
    const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
    if (a_vec) as.insert(as.begin(), 1);
    if (b_vec) bs.push_back(1);
    const int64_t M = as[as.size() - 2], K = as.back(), KB = bs[bs.size() - 2], N = bs.back();
    if (K != KB) {
      return sdk::InvalidArgument(label_ + ": inner dimensions differ: A " + ShapeStr(a.shape()) + " has K = " +
                                  std::to_string(K) + ", B " + ShapeStr(b.shape()) + " has K = " + std::to_string(KB));
    }
    // Batch dims, right-aligned; each pair equal or one of them 1.
    const std::vector<int64_t> batch_a(as.begin(), as.end() - 2), batch_b(bs.begin(), bs.end() - 2);
    const size_t ra = batch_a.size(), rb = batch_b.size(), r = std::max(ra, rb);
    std::vector<int64_t> out(r);
    for (size_t i = 0; i < r; ++i) {
      const int64_t da = i + ra >= r ? batch_a[i + ra - r] : 1, db = i + rb >= r ? batch_b[i + rb - r] : 1;
      if (da != db && da != 1 && db != 1) {
        return sdk::InvalidArgument(label_ + ": batch dimensions of A " + ShapeStr(a.shape()) + " and B " +
                                    ShapeStr(b.shape()) + " do not broadcast");
      }
      out[i] = da == 1 ? db : da;
    }
    if (!a_vec) out.push_back(M);
    if (!b_vec) out.push_back(N);
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, a.dtype(), out, &y));
    if (y.num_elements() == 0) return sdk::Status::Ok();
    const size_t es = sdk::DTypeSize(a.dtype());
    if (K == 0) {
      return CudaStatus(cudaMemsetAsync(y.raw_data(), 0, static_cast<size_t>(y.num_elements()) * es,
                                        static_cast<cudaStream_t>(ctx.stream())),
                        "MatMul: cudaMemsetAsync");
    }
    cublasHandle_t h;
    LOOM_SDK_RETURN_IF_ERROR(GemmHandle(ctx.stream(), &h));
    const char* A = static_cast<const char*>(a.raw_data());
    const char* B = static_cast<const char*>(b.raw_data());
    char* Y = static_cast<char*>(y.raw_data());
    for (const MatMulCall& c : PlanMatMul(batch_a, batch_b, M, N, K)) {
      LOOM_SDK_RETURN_IF_ERROR(RowMajorGemm(h, dt, false, false, c.m, N, K, 1.0f, A + c.off_a * es, c.stride_a,
                                            B + c.off_b * es, c.stride_b, 0.0f, Y + c.off_y * es, c.stride_y, c.batch,
                                            label_));
    }
    return sdk::Status::Ok();
  }

 private:
  std::string label_;
};

sdk::KernelOptions Cuda() { return {"CUDA", "", 0, {{"T", kGemmTypes}}}; }

}  // namespace

sdk::Status RegisterMathGemmMatMulKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GemmKernel>("Gemm", Cuda()));
  return reg.Kernel<MatMulKernel>("MatMul", Cuda());
}

}  // namespace cuda
}  // namespace loom
