// Host side of the CUDA BatchNormalization (inference) kernel
// (nn_batch_norm.cu), with the CPU plugin's semantics and errors
// (plugins/cpu/nn_batch_norm.cc).
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"
#include "ops/semantics/normalization.h"
#include "ops/semantics/shape_math.h"
#include "plugins/cuda/cuda_status.h"
#include "plugins/cuda/kernel_util.h"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/nn_batch_norm.h"

namespace loom {
namespace cuda {
namespace {

// ONNX BatchNormalization-15, inference (float32, float16, bfloat16): for X
// [N, C, D...] (rank >= 2) and per-channel scale, B, input_mean, input_var
// (each [C], X's dtype), Y = (X - input_mean) / sqrt(input_var + epsilon) *
// scale + B, computed in float. momentum is accepted and unused. Errors:
// training_mode = 1 or a request for running_mean / running_var
// (UNIMPLEMENTED), X of rank < 2, a per-channel input that is not [C] or of
// another dtype (INVALID_ARGUMENT).
class BatchNormKernel : public semantics::AttrsKernel<semantics::BatchNormAttrs> {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(AttrsKernel::Init(info));
    if (attrs_.training) {
      return sdk::Unimplemented(label_ + ": training_mode = 1 is not supported (inference only)");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    if (ctx.OutputRequested(1) || ctx.OutputRequested(2)) {
      return sdk::Unimplemented(label_ + ": outputs running_mean and running_var exist only in training mode, "
                                         "which is not supported");
    }
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 2) return sdk::InvalidArgument(label_ + ": input X must be [N, C, D...]; found " + ShapeStr(xs));
    const int64_t N = xs[0], C = xs[1];
    static const char* const kNames[] = {"X", "scale", "B", "input_mean", "input_var"};
    for (size_t i = 1; i < 5; ++i) {
      Tensor t = ctx.Input(i);
      if (!t.present() || t.rank() != 1 || t.dim(0) != C) {
        return sdk::InvalidArgument(label_ + ": input " + kNames[i] + " must be [" + std::to_string(C) + "] (C of X " +
                                    ShapeStr(xs) + "); found " + (t.present() ? ShapeStr(t.shape()) : "none"));
      }
      if (t.dtype() != x.dtype()) return UnsupportedDtype(label_, kNames[i], t.dtype(), sdk::DTypeName(x.dtype()));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &y));
    return CudaStatus(LaunchBatchNormInference(x.dtype(), N, C, semantics::Product(xs, 2, xs.size()), attrs_.epsilon, x.raw_data(),
                                               ctx.Input(1).raw_data(), ctx.Input(2).raw_data(),
                                               ctx.Input(3).raw_data(), ctx.Input(4).raw_data(), y.raw_data(),
                                               StreamOf(ctx)),
                      label_.c_str());
  }
};

}  // namespace

sdk::Status RegisterNnBatchNormKernels(sdk::Registrar& reg) {
  return reg.Kernel<BatchNormKernel>(
      "BatchNormalization", {"CUDA", "", 0, {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16}}}});
}

}  // namespace cuda
}  // namespace loom
