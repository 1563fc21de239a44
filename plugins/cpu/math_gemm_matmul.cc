// Gemm and MatMul (float32) on oneDNN's matmul primitive. The tensors'
// buffers are bound to the primitive directly (transposes are strides, not
// copies), and the primitive is built in Prepare for the planned shapes (or
// at the first run with new shapes), so a steady-state run is one oneDNN
// execute. A constant B (FC's W) is packed in Prepare into the layout the
// matmul picks, in a copy shared with every kernel packing it the same way
// (DnnlMatmul::PackConstant, ABI 8); a B fed as an input is read as it is.
#include <algorithm>
#include <cstring>

#include "ops/semantics/gemm.h"
#include "plugins/cpu/dnnl_matmul.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

const std::vector<LoomDataType> kF32 = {LOOM_DTYPE_FLOAT};

// ONNX Gemm-13: Y [M, N] = alpha * A' * B' + beta * C, where
// A' = transA ? A^T : A is [M, K], B' = transB ? B^T : B is [K, N], and the
// optional C is unidirectionally broadcast to [M, N]. float32 on oneDNN;
// float64 in plain loops (oneDNN has no f64 matmul).
// Errors: A or B not 2-D, K of A' and B' differ, C not broadcastable.
class GemmKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(gemm_.Read(info));
    alpha_ = gemm_.alpha;
    beta_ = gemm_.beta;
    trans_a_ = gemm_.trans_a;
    trans_b_ = gemm_.trans_b;
    has_c_ = info.num_inputs() > 2 && !info.input_name(2).empty();
    return Status::Ok();
  }

  // Checks the shapes and builds the primitive when the plan knows them;
  // packs a constant B (float32) into the matmul's layout, shared.
  Status Prepare(const sdk::PrepareContext& ctx) {
    mm_.SetComputeType(ctx);
    std::vector<int64_t> as, bs, cs;
    if (!ctx.InputShape(0, &as) || !ctx.InputShape(1, &bs) || (has_c_ && !ctx.InputShape(2, &cs))) return Status::Ok();
    const bool pack = ctx.InputDType(1) == LOOM_DTYPE_FLOAT && ctx.InputConstant(1).present();
    LOOM_SDK_RETURN_IF_ERROR(Configure(as, bs, cs, ctx.num_threads(), pack));
    if (!pack || !mm_.built() || mm_.PackConstant(ctx, 1, label_, ctx.num_threads())) return Status::Ok();
    return Configure(as, bs, cs, ctx.num_threads(), false);  // no copy made: B read as it is
  }

  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), c = ctx.Input(2), y;
    if (a.dtype() == LOOM_DTYPE_DOUBLE) return ComputeDouble(ctx, a, b, c);
    const int threads = ctx.num_threads();
    const bool b_freed = mm_.BFreed(b, bs_);
    if (!ShapeIs(a, as_) || (!b_freed && !ShapeIs(b, bs_)) || (has_c_ && !ShapeIs(c, cs_)) ||
        threads != threads_ || !configured_) {
      if (b_freed) return PackedInputFreedError(label_, "B", "A", as_, threads_, a.shape(), threads);
      LOOM_SDK_RETURN_IF_ERROR(Configure(a.shape(), b.shape(), has_c_ ? c.shape() : std::vector<int64_t>{}, threads, false));
    }
    const int64_t M = M_, K = K_, N = N_;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, {M, N}, &y));
    float* yp = y.data<float>();
    if (M == 0 || N == 0) return Status::Ok();
    if (use_ == CUse::kSum) {
      const float* cp = c.data<float>();
      const int64_t s0 = c_strides_[0], s1 = c_strides_[1];
      ParallelFor(M, threads, [&](int64_t i) {
        for (int64_t j = 0; j < N; ++j) yp[i * N + j] = cp[i * s0 + j * s1];
      }, N);
    }
    if (K == 0) {  // A' * B' is all zeros: Y = beta * C (or 0)
      if (use_ == CUse::kNone) std::memset(yp, 0, sizeof(float) * M * N);
      if (use_ == CUse::kBias) for (int64_t i = 0; i < M; ++i) std::memcpy(yp + i * N, c.raw_data(), sizeof(float) * N);
      if (use_ == CUse::kSum) for (int64_t i = 0; i < M * N; ++i) yp[i] *= beta_;
      return Status::Ok();
    }
    const void* bias = use_ == CUse::kBias ? c.raw_data() : nullptr;
    return mm_.Execute(ctx, label_, threads, a.raw_data(), b.raw_data(), yp, bias);
  }

 private:
  enum class CUse { kNone, kBias, kSum };  // how C enters Y

  // float64 (oneDNN has no f64 matmul): plain loops, for gradient checks
  // and double models.
  Status ComputeDouble(KernelContext& ctx, const Tensor& a, const Tensor& b, const Tensor& c) {
    int64_t M = 0, K = 0, N = 0;
    LOOM_SDK_RETURN_IF_ERROR(gemm_.Dims(label_, a.shape(), b.shape(), &M, &K, &N));
    const std::vector<int64_t> mn = {M, N};
    std::vector<int64_t> cst = {0, 0};
    const bool use_c = has_c_ && beta_ != 0.0f;
    if (use_c) {
      std::vector<int64_t> bc;
      if (c.rank() > 2 || !BroadcastShape(c.shape(), mn, &bc) || bc != mn) {
        return sdk::InvalidArgument(label_ + ": input C " + ShapeStr(c.shape()) + " does not broadcast to Y " + ShapeStr(mn));
      }
      cst = BroadcastStrides(c.shape(), mn);
    }
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_DOUBLE, mn, &y));
    const double *ap = a.data<double>(), *bp = b.data<double>(), *cp = use_c ? c.data<double>() : nullptr;
    double* yp = y.data<double>();
    ParallelFor(M, ctx.num_threads(), [&](int64_t i) {
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) {
          acc += (trans_a_ ? ap[k * M + i] : ap[i * K + k]) * (trans_b_ ? bp[j * K + k] : bp[k * N + j]);
        }
        yp[i * N + j] = alpha_ * acc + (use_c ? beta_ * cp[i * cst[0] + j * cst[1]] : 0.0);
      }
    }, N * K);
    return Status::Ok();
  }

  // Checks A, B and C, decides how C enters Y and (unless Y or K is empty)
  // builds the matmul primitive; with `pack`, B in the layout the matmul
  // picks (b_md_), for Prepare to pack.
  Status Configure(const std::vector<int64_t>& as, const std::vector<int64_t>& bs, const std::vector<int64_t>& cs,
                   int threads, bool pack) {
    configured_ = false;
    mm_.Reset();
    int64_t M = 0, K = 0, N = 0;
    LOOM_SDK_RETURN_IF_ERROR(gemm_.Dims(label_, as, bs, &M, &K, &N));
    CUse use = CUse::kNone;
    std::vector<int64_t> c_strides;
    if (has_c_ && beta_ != 0.0f) {
      const std::vector<int64_t> mn = {M, N};
      std::vector<int64_t> bc;
      if (cs.size() > 2 || !BroadcastShape(cs, mn, &bc) || bc != mn) {
        return sdk::InvalidArgument(label_ + ": input C " + ShapeStr(cs) + " does not broadcast to Y " + ShapeStr(mn));
      }
      c_strides = BroadcastStrides(cs, mn);
      // A C that is one row ([N], [1, N]) with alpha = beta = 1 is oneDNN's
      // bias (no pass over Y); any other C is copied into Y and added by a
      // sum post-op scaled by beta (oneDNN applies alpha before it).
      const bool row = c_strides[0] == 0 && (c_strides[1] == 1 || N == 1);
      use = row && alpha_ == 1.0f && beta_ == 1.0f ? CUse::kBias : CUse::kSum;
    }
    if (M != 0 && N != 0 && K != 0) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
        // Row-major A [M, K] has strides (K, 1); its transpose viewed as
        // [M, K] has strides (1, M). Likewise for B.
        const memory::desc a_md({M, K}, memory::data_type::f32, trans_a_ ? memory::dims{1, M} : memory::dims{K, 1});
        const memory::desc b_md({K, N}, memory::data_type::f32, trans_b_ ? memory::dims{1, K} : memory::dims{N, 1});
        dnnl::primitive_attr attr;
        if (alpha_ != 1.0f) attr.set_output_scales(0, {alpha_});
        if (use == CUse::kSum) {
          dnnl::post_ops ops;
          ops.append_sum(beta_);
          attr.set_post_ops(ops);
        }
        mm_.Build(a_md, b_md, pack, use == CUse::kBias ? PlainDesc({1, N}) : memory::desc(), PlainDesc({M, N}), attr);
      }));
    }
    as_ = as;
    bs_ = bs;
    cs_ = cs;
    M_ = M;
    K_ = K;
    N_ = N;
    use_ = use;
    c_strides_ = c_strides;
    threads_ = threads;
    configured_ = true;
    return Status::Ok();
  }

  std::string label_;
  semantics::GemmAttrs gemm_;
  float alpha_ = 1, beta_ = 1;
  bool trans_a_ = false, trans_b_ = false, has_c_ = false;
  // What the primitive was configured for.
  std::vector<int64_t> as_, bs_, cs_, c_strides_;
  int64_t M_ = 0, K_ = 0, N_ = 0;
  CUse use_ = CUse::kNone;
  int threads_ = 0;
  bool configured_ = false;
  DnnlMatmul mm_;
};

// ONNX MatMul-13 (numpy.matmul), float32 (oneDNN) and float64 (plain loops):
// A [..., M, K] x B [..., K, N] ->
// Y [..., M, N] with the batch dims broadcast; a 1-D A is [1, K] and a 1-D B
// is [K, 1], the added dim removed from Y. Caffe2 BatchMatMul too: trans_a
// / trans_b read A as [..., K, M] / B as [..., N, K] (through oneDNN
// strides, no transposed copy); both operands of rank >= 2. Errors: a
// rank-0 operand (rank < 2 for BatchMatMul), K differs, batch dims that do
// not broadcast.
class MatMulKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    batch_matmul_ = info.op_type() == "BatchMatMul";
    trans_a_ = info.IntOr("trans_a", 0) != 0;
    trans_b_ = info.IntOr("trans_b", 0) != 0;
    return Status::Ok();
  }

  // Checks the shapes and builds the primitive when the plan knows them;
  // packs a constant B (float32) into the matmul's layout, shared.
  Status Prepare(const sdk::PrepareContext& ctx) {
    mm_.SetComputeType(ctx);
    std::vector<int64_t> as, bs;
    if (!ctx.InputShape(0, &as) || !ctx.InputShape(1, &bs)) return Status::Ok();
    const bool pack = ctx.InputDType(1) == LOOM_DTYPE_FLOAT && ctx.InputConstant(1).present();
    LOOM_SDK_RETURN_IF_ERROR(Configure(as, bs, ctx.num_threads(), pack));
    if (!pack || !mm_.built() || mm_.PackConstant(ctx, 1, label_, ctx.num_threads())) return Status::Ok();
    return Configure(as, bs, ctx.num_threads(), false);  // no copy made: B read as it is
  }

  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), y;
    const int threads = ctx.num_threads();
    const bool b_freed = mm_.BFreed(b, bs_);
    if (!ShapeIs(a, as_) || (!b_freed && !ShapeIs(b, bs_)) || threads != threads_ || !configured_) {
      if (b_freed) return PackedInputFreedError(label_, "B", "A", as_, threads_, a.shape(), threads);
      LOOM_SDK_RETURN_IF_ERROR(Configure(a.shape(), b.shape(), threads, false));
    }
    if (a.dtype() == LOOM_DTYPE_DOUBLE) return ComputeDouble(ctx, a, b);
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys_, &y));
    if (y.num_elements() == 0) return Status::Ok();
    if (!mm_.built()) {  // K == 0
      std::memset(y.raw_data(), 0, sizeof(float) * y.num_elements());
      return Status::Ok();
    }
    return mm_.Execute(ctx, label_, threads, a.raw_data(), b.raw_data(), y.raw_data());
  }

 private:
  // float64 in plain loops (oneDNN has no f64 matmul), after Configure
  // checked the shapes: operands padded to one rank, batch dims broadcast.
  Status ComputeDouble(KernelContext& ctx, const Tensor& a, const Tensor& b) {
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_DOUBLE, ys_, &y));
    std::vector<int64_t> as = Logical(a.shape(), trans_a_), bs = Logical(b.shape(), trans_b_);
    if (as.size() == 1) as.insert(as.begin(), 1);
    if (bs.size() == 1) bs.push_back(1);
    const size_t r = std::max(as.size(), bs.size());
    as.insert(as.begin(), r - as.size(), 1);
    bs.insert(bs.begin(), r - bs.size(), 1);
    const int64_t M = as[r - 2], K = as[r - 1], N = bs[r - 1];
    std::vector<int64_t> batch(r - 2), a_step(r - 2), b_step(r - 2);
    int64_t sa = M * K, sb = K * N, count = 1;
    for (size_t d = r - 2; d-- > 0;) {
      batch[d] = std::max(as[d], bs[d]);
      a_step[d] = as[d] == 1 ? 0 : sa;
      b_step[d] = bs[d] == 1 ? 0 : sb;
      sa *= as[d];
      sb *= bs[d];
      count *= batch[d];
    }
    const double *ap = a.data<double>(), *bp = b.data<double>();
    double* yp = y.data<double>();
    // Element strides of A's (i, k) and B's (k, j), transposed or not.
    const int64_t a_i = trans_a_ ? 1 : K, a_k = trans_a_ ? M : 1, b_k = trans_b_ ? 1 : N, b_j = trans_b_ ? K : 1;
    ParallelFor(count, ctx.num_threads(), [&](int64_t n) {
      int64_t ao = 0, bo = 0, rest = n;
      for (size_t d = batch.size(); d-- > 0;) {
        const int64_t i = rest % batch[d];
        rest /= batch[d];
        ao += i * a_step[d];
        bo += i * b_step[d];
      }
      for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < N; ++j) {
          double acc = 0;
          for (int64_t k = 0; k < K; ++k) acc += ap[ao + i * a_i + k * a_k] * bp[bo + k * b_k + j * b_j];
          yp[(n * M + i) * N + j] = acc;
        }
      }
    }, M * N * K);
    return Status::Ok();
  }

  // Checks A and B, sizes Y and (unless Y or K is empty) builds the
  // primitive; with `pack`, B in the layout the matmul picks (b_md_), for
  // Prepare to pack.
  Status Configure(const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape, int threads, bool pack) {
    configured_ = false;
    mm_.Reset();
    const size_t min_rank = batch_matmul_ ? 2 : 1;
    if (a_shape.size() < min_rank || b_shape.size() < min_rank) {
      return sdk::InvalidArgument(label_ + ": A and B must have rank >= " + std::to_string(min_rank) + "; found " +
                                  ShapeStr(a_shape) + " and " + ShapeStr(b_shape));
    }
    std::vector<int64_t> as = Logical(a_shape, trans_a_), bs = Logical(b_shape, trans_b_);
    const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
    if (a_vec) as.insert(as.begin(), 1);
    if (b_vec) bs.push_back(1);
    const int64_t M = as[as.size() - 2], K = as.back(), KB = bs[bs.size() - 2], N = bs.back();
    if (K != KB) {
      return sdk::InvalidArgument(label_ + ": inner dimensions differ: A " + ShapeStr(a_shape) + " has K = " +
                                  std::to_string(K) + ", B " + ShapeStr(b_shape) + " has K = " + std::to_string(KB));
    }
    std::vector<int64_t> batch;
    if (!BroadcastShape({as.begin(), as.end() - 2}, {bs.begin(), bs.end() - 2}, &batch)) {
      return sdk::InvalidArgument(label_ + ": batch dimensions of A " + ShapeStr(a_shape) + " and B " +
                                  ShapeStr(b_shape) + " do not broadcast");
    }
    std::vector<int64_t> out = batch;
    if (!a_vec) out.push_back(M);
    if (!b_vec) out.push_back(N);
    int64_t out_n = 1;
    for (int64_t d : out) out_n *= d;
    if (out_n != 0 && K != 0) {
      // oneDNN wants equal ranks (it broadcasts batch dims of size 1): pad
      // with leading 1s.
      const size_t r = batch.size() + 2;
      as.insert(as.begin(), r - as.size(), 1);
      bs.insert(bs.begin(), r - bs.size(), 1);
      std::vector<int64_t> ys = batch;
      ys.push_back(M);
      ys.push_back(N);
      LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
        mm_.Build(Strided(as, trans_a_), Strided(bs, trans_b_), pack, memory::desc(), PlainDesc(ys), {});
      }));
    }
    as_ = a_shape;
    bs_ = b_shape;
    ys_ = out;
    threads_ = threads;
    configured_ = true;
    return Status::Ok();
  }

  // BatchMatMul's operand as the product reads it: the last two dims
  // swapped when transposed.
  static std::vector<int64_t> Logical(std::vector<int64_t> s, bool trans) {
    if (trans && s.size() >= 2) std::swap(s[s.size() - 1], s[s.size() - 2]);
    return s;
  }
  // A row-major tensor of logical dims `dims`, stored transposed (the last
  // two dims swapped) when `trans`: the plain strides of the stored shape,
  // the last two swapped.
  static memory::desc Strided(const std::vector<int64_t>& dims, bool trans) {
    if (!trans) return PlainDesc(dims);
    memory::dims strides = PlainStrides(Logical(dims, true));
    std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
    return memory::desc(Dims(dims), memory::data_type::f32, strides);
  }

  std::string label_;
  bool batch_matmul_ = false, trans_a_ = false, trans_b_ = false;
  // What the primitive was configured for (A and B as given, Y).
  std::vector<int64_t> as_, bs_, ys_;
  int threads_ = 0;
  bool configured_ = false;
  DnnlMatmul mm_;  // built when Y is non-empty and K > 0
};

}  // namespace

// Caffe2 FC, float32: Y = X' W'^T + b (shapes in ops/math_gemm_matmul.cc,
// semantics::FCOutputShape). One oneDNN matmul reading W [N, K] through
// transposed strides and b as its bias, so a step net's gates need no
// transposed copy of the weights and no separate Add. A constant W (an
// initializer, or an enclosing net's constant in a step net) is packed at
// plan time into the layout the matmul picks, in a copy shared by every FC
// packing it the same way (PackConstantShared: the 50 timestep nets of a
// step-net LSTM hold one copy); a W that is not constant is read as it is
// on every run. The optional Sum (Loom's) is added through a binary add
// post-op. Errors: the axes out of range, the two K differing, b not [N],
// Sum not Y's shape.
class FCKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    has_sum_ = info.num_inputs() > 3 && !info.input_name(3).empty();
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("axis", &axis_));
    return info.GetInt("axis_w", &axis_w_);
  }

  Status Prepare(const sdk::PrepareContext& ctx) {
    mm_.SetComputeType(ctx);
    std::vector<int64_t> xs, ws, bs;
    if (!ctx.InputShape(0, &xs) || !ctx.InputShape(1, &ws) || !ctx.InputShape(2, &bs)) return Status::Ok();
    const bool pack = ctx.InputConstant(1).present();
    LOOM_SDK_RETURN_IF_ERROR(Configure(xs, ws, bs, ctx.num_threads(), pack));
    if (!pack || !mm_.built() || mm_.PackConstant(ctx, 1, label_, ctx.num_threads())) return Status::Ok();
    return Configure(xs, ws, bs, ctx.num_threads(), false);  // no copy made: W read as it is
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), b = ctx.Input(2), y;
    const int threads = ctx.num_threads();
    const bool w_freed = mm_.BFreed(w, ws_);
    if (!ShapeIs(x, xs_) || (!w_freed && !ShapeIs(w, ws_)) || !ShapeIs(b, bs_) || threads != threads_ ||
        !configured_) {
      if (w_freed) return PackedInputFreedError(label_, "W", "X", xs_, threads_, x.shape(), threads);
      LOOM_SDK_RETURN_IF_ERROR(Configure(x.shape(), w.shape(), b.shape(), threads, false));
    }
    const Tensor sum = has_sum_ ? ctx.Input(3) : Tensor();
    if (has_sum_ && (sum.dtype() != LOOM_DTYPE_FLOAT || WithoutLeadingOnes(sum.shape()) != WithoutLeadingOnes(ys_))) {
      return sdk::InvalidArgument(label_ + ": input Sum must be float32 " + ShapeStr(ys_) + " (Y's shape, leading 1s "
                                  "aside); found " + ShapeStr(sum.shape()));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys_, &y));
    if (y.num_elements() == 0) return Status::Ok();
    float* yp = y.data<float>();
    if (K_ == 0) {  // X' W'^T is all zeros: Y = b (+ Sum) in every row
      for (int64_t i = 0; i < M_; ++i) {
        for (int64_t j = 0; j < N_; ++j) yp[i * N_ + j] = b.data<float>()[j] + (has_sum_ ? sum.data<float>()[i * N_ + j] : 0.0f);
      }
      return Status::Ok();
    }
    std::unordered_map<int, memory> post_op_args;
    if (has_sum_) {
      sum_mem_.set_data_handle(sum.raw_data());
      post_op_args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = sum_mem_;
    }
    return mm_.Execute(ctx, label_, threads, x.raw_data(), w.raw_data(), yp, b.raw_data(), std::move(post_op_args));
  }

 private:
  static std::vector<int64_t> WithoutLeadingOnes(std::vector<int64_t> s) {
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), [](int64_t d) { return d != 1; }));
    return s;
  }

  // `pack`: W's layout is the matmul's choice (w_md_), for a constant W
  // that Prepare packs; else the plain view of W [N, K] as [K, N].
  Status Configure(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, const std::vector<int64_t>& bs,
                   int threads, bool pack) {
    configured_ = false;
    mm_.Reset();
    std::vector<int64_t> ys;
    int64_t M = 0, K = 0, N = 0;
    if (!semantics::FCOutputShape(xs, ws, axis_, axis_w_, &ys, &M, &K, &N)) {
      return sdk::InvalidArgument(label_ + ": X " + ShapeStr(xs) + " flattened at axis " + std::to_string(axis_) +
                                  " and W " + ShapeStr(ws) + " at axis_w " + std::to_string(axis_w_) +
                                  " must give [M, K] and [N, K] with the same K");
    }
    if (bs.size() != 1 || bs[0] != N) {
      return sdk::InvalidArgument(label_ + ": input b must be [" + std::to_string(N) + "]; found " + ShapeStr(bs));
    }
    if (M != 0 && N != 0 && K != 0) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
        // W [N, K] row-major viewed as [K, N] has strides (1, K).
        const memory::desc x_md({M, K}, memory::data_type::f32, memory::dims{K, 1});
        const memory::desc w_md({K, N}, memory::data_type::f32, memory::dims{1, K});
        const memory::desc y_md = PlainDesc({M, N});
        dnnl::primitive_attr attr;
        if (has_sum_) {
          dnnl::post_ops ops;
          ops.append_binary(dnnl::algorithm::binary_add, y_md);
          attr.set_post_ops(ops);
          sum_mem_ = UnboundMemory(y_md);
        }
        mm_.Build(x_md, w_md, pack, PlainDesc({1, N}), y_md, attr);
      }));
    }
    xs_ = xs;
    ws_ = ws;
    bs_ = bs;
    ys_ = ys;
    M_ = M;
    K_ = K;
    N_ = N;
    threads_ = threads;
    configured_ = true;
    return Status::Ok();
  }

  std::string label_;
  int64_t axis_ = 1, axis_w_ = 1;
  bool has_sum_ = false;  // input 3, Sum
  std::vector<int64_t> xs_, ws_, bs_, ys_;
  int64_t M_ = 0, K_ = 0, N_ = 0;
  int threads_ = 0;
  bool configured_ = false;
  DnnlMatmul mm_;   // W is its B, b its bias
  memory sum_mem_;  // the add post-op's operand
};

sdk::Status RegisterMathGemmMatMulKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GemmKernel>("Gemm", CpuFloatAndDouble()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<FCKernel>("FC", {"CPU", "", 0, {{"T", kF32}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<MatMulKernel>("BatchMatMul", CpuFloatAndDouble()));
  return reg.Kernel<MatMulKernel>("MatMul", CpuFloatAndDouble());
}

}  // namespace cpu
}  // namespace loom
