// Gemm and MatMul on oneDNN's matmul primitive. Primitives are cached per
// shape in the kernel, so a steady-state run only executes.
#include <cstring>

#include "plugins/cpu/dnnl_common.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

const std::vector<LoomDataType> kF32 = {LOOM_DTYPE_FLOAT};

// ONNX Gemm-13: Y = alpha * op(A) * op(B) + beta * C.
class GemmKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("alpha", &alpha_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("beta", &beta_));
    int64_t ta = 0, tb = 0;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("transA", &ta));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("transB", &tb));
    trans_a_ = ta != 0;
    trans_b_ = tb != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), c = ctx.Input(2), y;
    if (a.rank() != 2 || b.rank() != 2) {
      return sdk::InvalidArgument(label_ + ": A and B must be 2-D; found " + ShapeStr(a.shape()) + " and " + ShapeStr(b.shape()));
    }
    const int64_t M = trans_a_ ? a.dim(1) : a.dim(0), K = trans_a_ ? a.dim(0) : a.dim(1);
    const int64_t KB = trans_b_ ? b.dim(1) : b.dim(0), N = trans_b_ ? b.dim(0) : b.dim(1);
    if (K != KB) {
      return sdk::InvalidArgument(label_ + ": inner dimensions differ: A" + (trans_a_ ? "^T" : "") + " " + ShapeStr(a.shape()) +
                                  " and B" + (trans_b_ ? "^T" : "") + " " + ShapeStr(b.shape()));
    }
    int mode = 0;  // 0: no C, 1: C as oneDNN bias, 2: Y prefilled with C, then a sum post-op
    if (c.present() && beta_ != 0) {
      std::vector<int64_t> cs = c.shape(), bc;
      if (cs.size() > 2 || !BroadcastShape(cs, {M, N}, &bc) || bc != std::vector<int64_t>{M, N}) {
        return sdk::InvalidArgument(label_ + ": C " + ShapeStr(cs) + " does not broadcast to [" + std::to_string(M) + ", " +
                                    std::to_string(N) + "]");
      }
      bool row = c.num_elements() == N && (cs.size() == 1 || cs[0] == 1);
      mode = (row && alpha_ == 1.0f && beta_ == 1.0f && N > 1) ? 1 : 2;
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, {M, N}, &y));
    float* yp = y.data<float>();
    if (M == 0 || N == 0) return Status::Ok();
    if (mode == 2) {
      const std::vector<int64_t> cs = c.shape();
      const std::vector<int64_t> st = BroadcastStrides(cs, {M, N});
      const float* cp = c.data<float>();
      for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < N; ++j) yp[i * N + j] = cp[i * st[0] + j * st[1]];
      }
    }
    if (K == 0) {
      if (mode == 0) std::memset(yp, 0, sizeof(float) * M * N);
      if (mode == 1) for (int64_t i = 0; i < M; ++i) std::memcpy(yp + i * N, c.data<float>(), sizeof(float) * N);
      if (mode == 2) for (int64_t i = 0; i < M * N; ++i) yp[i] *= beta_;
      return Status::Ok();
    }
    std::vector<int64_t> key = {M, K, N, mode};
    if (key != key_) {
      try {
        memory::desc a_md({M, K}, memory::data_type::f32, trans_a_ ? memory::dims{1, M} : memory::dims{K, 1});
        memory::desc b_md({K, N}, memory::data_type::f32, trans_b_ ? memory::dims{1, K} : memory::dims{N, 1});
        memory::desc y_md({M, N}, memory::data_type::f32, memory::dims{N, 1});
        memory::desc bias_md({1, N}, memory::data_type::f32, memory::dims{N, 1});
        dnnl::primitive_attr attr;
        if (alpha_ != 1.0f) attr.set_output_scales(0, {alpha_});
        if (mode == 2) {
          dnnl::post_ops ops;
          ops.append_sum(beta_);
          attr.set_post_ops(ops);
        }
        dnnl::matmul::desc d = mode == 1 ? dnnl::matmul::desc(a_md, b_md, bias_md, y_md) : dnnl::matmul::desc(a_md, b_md, y_md);
        prim_ = dnnl::matmul(dnnl::matmul::primitive_desc(d, attr, DnnlEngine()));
        a_mem_ = memory(a_md, DnnlEngine(), nullptr);
        b_mem_ = memory(b_md, DnnlEngine(), nullptr);
        y_mem_ = memory(y_md, DnnlEngine(), nullptr);
        bias_mem_ = memory(bias_md, DnnlEngine(), nullptr);
      } catch (const dnnl::error& e) {
        return sdk::Internal(label_ + ": oneDNN: " + e.what());
      }
      key_ = key;
    }
    a_mem_.set_data_handle(a.raw_data());
    b_mem_.set_data_handle(b.raw_data());
    y_mem_.set_data_handle(yp);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, a_mem_}, {DNNL_ARG_WEIGHTS, b_mem_}, {DNNL_ARG_DST, y_mem_}};
    if (mode == 1) {
      bias_mem_.set_data_handle(c.raw_data());
      args[DNNL_ARG_BIAS] = bias_mem_;
    }
    return DnnlExecute(label_, prim_, args, ctx.num_threads());
  }

 private:
  std::string label_;
  float alpha_ = 1, beta_ = 1;
  bool trans_a_ = false, trans_b_ = false;
  std::vector<int64_t> key_;
  dnnl::matmul prim_;
  memory a_mem_, b_mem_, y_mem_, bias_mem_;
};

// ONNX MatMul-13 (numpy.matmul): batched, batch dims broadcast; a 1-D A is
// [1, K] and a 1-D B is [K, 1], the added dim removed from Y.
class MatMulKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), y;
    std::vector<int64_t> as = a.shape(), bs = b.shape();
    if (as.empty() || bs.empty()) return sdk::InvalidArgument(label_ + ": operands must have rank >= 1");
    const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
    if (a_vec) as.insert(as.begin(), 1);
    if (b_vec) bs.push_back(1);
    const int64_t M = as[as.size() - 2], K = as.back(), KB = bs[bs.size() - 2], N = bs.back();
    if (K != KB) {
      return sdk::InvalidArgument(label_ + ": inner dimensions differ: " + ShapeStr(a.shape()) + " x " + ShapeStr(b.shape()));
    }
    std::vector<int64_t> ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2), batch;
    if (!BroadcastShape(ab, bb, &batch)) {
      return sdk::InvalidArgument(label_ + ": batch dimensions do not broadcast: " + ShapeStr(a.shape()) + " x " +
                                  ShapeStr(b.shape()));
    }
    std::vector<int64_t> out = batch;
    if (!a_vec) out.push_back(M);
    if (!b_vec) out.push_back(N);
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, out, &y));
    if (y.num_elements() == 0) return Status::Ok();
    if (K == 0) {
      std::memset(y.raw_data(), 0, sizeof(float) * y.num_elements());
      return Status::Ok();
    }
    // oneDNN wants equal ranks: pad batch dims with leading 1s.
    const size_t r = batch.size() + 2;
    while (as.size() < r) as.insert(as.begin(), 1);
    while (bs.size() < r) bs.insert(bs.begin(), 1);
    std::vector<int64_t> ys = batch;
    ys.push_back(M);
    ys.push_back(N);
    std::vector<int64_t> key = as;
    key.insert(key.end(), bs.begin(), bs.end());
    if (key != key_) {
      try {
        memory::desc a_md = PlainDesc(as), b_md = PlainDesc(bs), y_md = PlainDesc(ys);
        prim_ = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, y_md), DnnlEngine()));
        a_mem_ = memory(a_md, DnnlEngine(), nullptr);
        b_mem_ = memory(b_md, DnnlEngine(), nullptr);
        y_mem_ = memory(y_md, DnnlEngine(), nullptr);
      } catch (const dnnl::error& e) {
        return sdk::Internal(label_ + ": oneDNN: " + e.what());
      }
      key_ = key;
    }
    a_mem_.set_data_handle(a.raw_data());
    b_mem_.set_data_handle(b.raw_data());
    y_mem_.set_data_handle(y.raw_data());
    return DnnlExecute(label_, prim_, {{DNNL_ARG_SRC, a_mem_}, {DNNL_ARG_WEIGHTS, b_mem_}, {DNNL_ARG_DST, y_mem_}},
                       ctx.num_threads());
  }

 private:
  std::string label_;
  std::vector<int64_t> key_;
  dnnl::matmul prim_;
  memory a_mem_, b_mem_, y_mem_;
};

}  // namespace

sdk::Status RegisterDnnlMatmulKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GemmKernel>("Gemm", {"CPU", "", 0, {{"T", kF32}}}));
  return reg.Kernel<MatMulKernel>("MatMul", {"CPU", "", 0, {{"T", kF32}}});
}

}  // namespace cpu
}  // namespace loom
