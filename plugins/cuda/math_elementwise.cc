// Host side of the CUDA elementwise family: shape checks, numpy broadcasting
// (ONNX, opset 13+), the variadic ops folded pairwise, and registration; the
// device code is math_elementwise.cu.
// Semantics match the CPU plugin's kernels of the same names.
#include <algorithm>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/cuda/cuda_status.h"
#include "plugins/cuda/math_elementwise.h"
#include "plugins/cuda/kernels.h"

namespace loom {
namespace cuda {

bool PlanBroadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out,
                   BroadcastIndex* ix) {
  size_t r = std::max(a.size(), b.size());
  if (r > static_cast<size_t>(kMaxRank)) return false;
  out->assign(r, 1);
  std::vector<int64_t> da(r, 1), db(r, 1);
  for (size_t i = 0; i < a.size(); ++i) da[r - a.size() + i] = a[i];
  for (size_t i = 0; i < b.size(); ++i) db[r - b.size() + i] = b[i];
  for (size_t i = 0; i < r; ++i) {
    if (da[i] != db[i] && da[i] != 1 && db[i] != 1) return false;
    (*out)[i] = da[i] == 1 ? db[i] : da[i];
  }
  ix->rank = static_cast<int>(r);
  int64_t sa = 1, sb = 1;
  for (int i = static_cast<int>(r) - 1; i >= 0; --i) {
    ix->dims[i] = (*out)[i];
    ix->sa[i] = da[i] == 1 ? 0 : sa;
    ix->sb[i] = db[i] == 1 ? 0 : sb;
    sa *= da[i];
    sb *= db[i];
  }
  return true;
}

namespace {

const std::vector<LoomDataType> kFloatTypes = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16};

std::string ShapeString(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

template <BinaryOp K>
class BinaryKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = info.op_type() + " '" + info.op_name() + "'";
    return sdk::Status::Ok();
  }
  sdk::Status Compute(sdk::KernelContext& ctx) {
    sdk::Tensor a = ctx.Input(0), b = ctx.Input(1);
    if (a.dtype() != b.dtype()) {  // Pow's exponent may have another dtype on CPU
      return sdk::InvalidArgument(label_ + ": on CUDA both inputs must have the same dtype; found " +
                                  sdk::DTypeName(a.dtype()) + " and " + sdk::DTypeName(b.dtype()));
    }
    std::vector<int64_t> out;
    BroadcastIndex ix;
    if (!PlanBroadcast(a.shape(), b.shape(), &out, &ix)) {
      return sdk::InvalidArgument(label_ + ": shapes " + ShapeString(a.shape()) + " and " + ShapeString(b.shape()) +
                                  " do not broadcast (or rank > 8)");
    }
    sdk::Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, a.dtype(), out, &y));
    return CudaStatus(LaunchBinary(K, a.dtype(), ix, y.num_elements(), a.raw_data(), b.raw_data(), y.raw_data(),
                                   static_cast<cudaStream_t>(ctx.stream())),
                      label_.c_str());
  }

 private:
  std::string label_;
};

// Unary ops; `alpha_attr`/`beta_attr` name the float attributes read (or "").
template <UnaryOp K>
class UnaryKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = info.op_type() + " '" + info.op_name() + "'";
    if constexpr (K == UnaryOp::kLeakyRelu || K == UnaryOp::kElu || K == UnaryOp::kSelu ||
                  K == UnaryOp::kHardSigmoid) {
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("alpha", &alpha_));
    }
    if constexpr (K == UnaryOp::kHardSigmoid) LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("beta", &beta_));
    if constexpr (K == UnaryOp::kSelu) LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("gamma", &beta_));
    if constexpr (K == UnaryOp::kClip) {
      // Opset 6 attributes; opset 11+ passes min and max as inputs 1 and 2.
      alpha_ = -3.402823466e38f;
      beta_ = 3.402823466e38f;
      if (info.Has("min")) LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("min", &alpha_));
      if (info.Has("max")) LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("max", &beta_));
    }
    return sdk::Status::Ok();
  }
  sdk::Status Compute(sdk::KernelContext& ctx) {
    sdk::Tensor x = ctx.Input(0);
    float alpha = alpha_, beta = beta_;
    if constexpr (K == UnaryOp::kClip) {
      // min/max inputs live on the device: read them back (two scalars).
      for (size_t i = 1; i < 3 && i < ctx.num_inputs(); ++i) {
        sdk::Tensor bound = ctx.Input(i);
        if (!bound.present()) continue;
        if (bound.dtype() != LOOM_DTYPE_FLOAT) return sdk::InvalidArgument(label_ + ": min/max must be float32 on CUDA");
        float v = 0;
        LOOM_SDK_RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(&v, bound.raw_data(), sizeof(float), cudaMemcpyDeviceToHost,
                                                            static_cast<cudaStream_t>(ctx.stream())),
                                            "Clip bound"));
        LOOM_SDK_RETURN_IF_ERROR(CudaStatus(cudaStreamSynchronize(static_cast<cudaStream_t>(ctx.stream())), "Clip bound"));
        (i == 1 ? alpha : beta) = v;
      }
    }
    sdk::Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    return CudaStatus(LaunchUnary(K, x.dtype(), x.num_elements(), x.raw_data(), y.raw_data(), alpha, beta,
                                  static_cast<cudaStream_t>(ctx.stream())),
                      label_.c_str());
  }

 private:
  std::string label_;
  float alpha_ = 0.f, beta_ = 0.f;
};

// Max, Min, Sum, Mean (ONNX opset 13): numpy broadcasting of all inputs,
// folded pairwise: acc = op(acc, input k). Each step writes a buffer of the
// broadcast shape so far; the last one writes the output. Mean divides the
// sum by the number of inputs.
template <BinaryOp K, bool kMean = false>
class VariadicKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = info.op_type() + " '" + info.op_name() + "'";
    return sdk::Status::Ok();
  }
  sdk::Status Compute(sdk::KernelContext& ctx) {
    const size_t n = ctx.num_inputs();
    cudaStream_t stream = static_cast<cudaStream_t>(ctx.stream());
    std::vector<int64_t> shape = ctx.Input(0).shape(), next;
    BroadcastIndex ix;
    for (size_t k = 1; k < n; ++k) {
      if (!PlanBroadcast(shape, ctx.Input(k).shape(), &next, &ix)) {
        return sdk::InvalidArgument(label_ + ": input " + std::to_string(k) + " " + ShapeString(ctx.Input(k).shape()) +
                                    " does not broadcast with " + ShapeString(shape));
      }
      shape = next;
    }
    sdk::Tensor x0 = ctx.Input(0), y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x0.dtype(), shape, &y));
    const size_t esize = sdk::DTypeSize(x0.dtype());
    if (n == 1) {
      LOOM_SDK_RETURN_IF_ERROR(CudaStatus(
          cudaMemcpyAsync(y.raw_data(), x0.raw_data(), esize * x0.num_elements(), cudaMemcpyDeviceToDevice, stream),
          label_.c_str()));
    }
    // Intermediates alternate between two scratch buffers of the final size.
    void* scratch[2] = {nullptr, nullptr};
    sdk::Status status = sdk::Status::Ok();
    const void* acc = x0.raw_data();
    std::vector<int64_t> acc_shape = x0.shape();
    for (size_t k = 1; k < n && status.ok(); ++k) {
      sdk::Tensor b = ctx.Input(k);
      PlanBroadcast(acc_shape, b.shape(), &next, &ix);
      int64_t count = 1;
      for (int64_t d : next) count *= d;
      void* dst = y.raw_data();
      if (k + 1 < n) {
        void*& buf = scratch[k % 2];
        if (buf == nullptr) {
          status = CudaStatus(cudaMallocAsync(&buf, std::max<size_t>(1, esize * y.num_elements()), stream), label_.c_str());
          if (!status.ok()) break;
        }
        dst = buf;
      }
      status = CudaStatus(LaunchBinary(K, x0.dtype(), ix, count, acc, b.raw_data(), dst, stream), label_.c_str());
      acc = dst;
      acc_shape = next;
    }
    for (void* buf : scratch) {
      if (buf != nullptr) cudaFreeAsync(buf, stream);
    }
    if (!status.ok()) return status;
    if (kMean && n > 1) {
      return CudaStatus(LaunchUnary(UnaryOp::kScale, y.dtype(), y.num_elements(), y.raw_data(), y.raw_data(),
                                    1.0f / static_cast<float>(n), 0.f, stream),
                        label_.c_str());
    }
    return sdk::Status::Ok();
  }

 private:
  std::string label_;
};

sdk::KernelOptions Cuda() { return {"CUDA", "", 0, {{"T", kFloatTypes}}}; }

}  // namespace

sdk::Status RegisterMathElementwiseKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<BinaryKernel<BinaryOp::kAdd>>("Add", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<BinaryKernel<BinaryOp::kSub>>("Sub", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<BinaryKernel<BinaryOp::kMul>>("Mul", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<BinaryKernel<BinaryOp::kDiv>>("Div", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<BinaryKernel<BinaryOp::kPRelu>>("PRelu", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(
      reg.Kernel<BinaryKernel<BinaryOp::kPow>>("Pow", {"CUDA", "", 0, {{"T", kFloatTypes}, {"T1", kFloatTypes}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<VariadicKernel<BinaryOp::kMax>>("Max", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<VariadicKernel<BinaryOp::kMin>>("Min", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<VariadicKernel<BinaryOp::kAdd>>("Sum", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR((reg.Kernel<VariadicKernel<BinaryOp::kAdd, true>>("Mean", Cuda())));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kRelu>>("Relu", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kSigmoid>>("Sigmoid", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kTanh>>("Tanh", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kExp>>("Exp", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kLog>>("Log", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kSqrt>>("Sqrt", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kReciprocal>>("Reciprocal", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kNeg>>("Neg", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kAbs>>("Abs", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kFloor>>("Floor", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kCeil>>("Ceil", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kErf>>("Erf", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kLeakyRelu>>("LeakyRelu", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kElu>>("Elu", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kSelu>>("Selu", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kHardSigmoid>>("HardSigmoid", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kSoftplus>>("Softplus", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kSoftsign>>("Softsign", Cuda()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<UnaryOp::kClip>>("Clip", Cuda()));
  return reg.Kernel<UnaryKernel<UnaryOp::kIdentity>>("Identity", Cuda());
}

}  // namespace cuda
}  // namespace loom
