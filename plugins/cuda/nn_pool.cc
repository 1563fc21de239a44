// Host side of the CUDA pools: MaxPool, AveragePool, GlobalAveragePool and
// GlobalMaxPool as CUDA kernels (nn_pool.cu). ONNX semantics, window
// arithmetic and errors follow the CPU plugin (plugins/cpu/nn_pool.cc,
// ops/semantics/window.h).
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/shape_math.h"
#include "ops/semantics/window.h"
#include "plugins/cuda/cuda_status.h"
#include "plugins/cuda/kernel_util.h"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/nn_pool.h"

namespace loom {
namespace cuda {
namespace {

using semantics::To3;
using semantics::Window;
using semantics::WindowAttrs;

// ONNX MaxPool-12 (kMax; float32, float16, bfloat16, int8, uint8, with the
// optional Indices output, storage_order) and AveragePool-19 (float32,
// float16, bfloat16; count_include_pad) over X [N, C, D1..Dn], n = 1..3.
// Attributes: kernel_shape (required), strides, dilations, pads, auto_pad,
// ceil_mode. A max window entirely in padding gives the dtype's lowest
// value. Errors (INVALID_ARGUMENT): X's rank, attribute ranks, an input
// smaller than the window, an empty X with a non-empty Y (without Indices,
// like the CPU kernel).
template <bool kMax>
class PoolKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Read(info, label_));
    if (attrs_.kernel.empty()) return sdk::InvalidArgument(label_ + ": attribute kernel_shape is required");
    include_pad_ = info.IntOr("count_include_pad", 0) != 0;
    col_major_ = info.IntOr("storage_order", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y, indices;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 3 || xs.size() > 5) {
      return sdk::InvalidArgument(label_ + ": input X must be [N, C, D...] with 1 to 3 spatial dims; found " +
                                  ShapeStr(xs));
    }
    const std::vector<int64_t> spatial(xs.begin() + 2, xs.end());
    Window win;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, spatial, attrs_.kernel, &win));
    std::vector<int64_t> ys = {xs[0], xs[1]};
    ys.insert(ys.end(), win.out.begin(), win.out.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    const bool want_indices = kMax && ctx.OutputRequested(1);
    if (want_indices) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_INT64, ys, &indices));
    if (y.num_elements() == 0) return Status::Ok();
    if (x.num_elements() == 0 && !want_indices) {
      return sdk::InvalidArgument(label_ + ": input X " + ShapeStr(xs) + " is empty but Y " + ShapeStr(ys) + " is not");
    }
    const size_t n = spatial.size();
    const std::vector<int64_t> in3 = To3(spatial, 1), out3 = To3(win.out, 1), k3 = To3(win.kernel, 1);
    const std::vector<int64_t> s3 = To3(win.strides, 1), d3 = To3(win.dilations, 1), pb3 = To3(win.pads_begin, 0);
    std::vector<int64_t> limit(n);
    for (size_t i = 0; i < n; ++i) limit[i] = spatial[i] + win.pads_end[i];
    const std::vector<int64_t> limit3 = To3(limit, 1);
    PoolParams p;
    p.planes = xs[0] * xs[1];
    for (int d = 0; d < 3; ++d) {
      p.in[d] = in3[d];
      p.out[d] = out3[d];
      p.kernel[d] = k3[d];
      p.stride[d] = s3[d];
      p.dilation[d] = d3[d];
      p.pad_begin[d] = pb3[d];
      p.limit[d] = limit3[d];
    }
    // Indices over the real spatial dims, row-major (storage_order 0) or
    // column-major (1), as the CPU kernel.
    const std::vector<int64_t> istride = semantics::PoolIndexStrides3(spatial, col_major_);
    for (int d = 0; d < 3; ++d) p.index_stride[d] = istride[d];
    const PoolMode mode = kMax ? PoolMode::kMax : (include_pad_ ? PoolMode::kAvgIncludePad : PoolMode::kAvgExcludePad);
    return CudaStatus(LaunchPool(mode, x.dtype(), p, x.raw_data(), y.raw_data(),
                                 want_indices ? indices.data<int64_t>() : nullptr,
                                 StreamOf(ctx)),
                      label_.c_str());
  }

 private:
  std::string label_;
  WindowAttrs attrs_;
  bool include_pad_ = false, col_major_ = false;
};

// ONNX GlobalAveragePool-1 / GlobalMaxPool-1 (float32, float16, bfloat16):
// X [N, C, D...] -> Y [N, C, 1...], the mean (accumulated in double) or the
// maximum over all spatial dims; an empty spatial extent gives NaN (mean) or
// -inf (max). INVALID_ARGUMENT for X of rank < 2.
template <bool kMax>
class GlobalPoolKernel : public semantics::AttrsKernel<semantics::NoAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    std::vector<int64_t> ys;
    LOOM_SDK_RETURN_IF_ERROR(semantics::GlobalPoolShape(this->label_, xs, &ys));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    return CudaStatus(LaunchGlobalPool(kMax, x.dtype(), xs[0] * xs[1], semantics::Product(xs, 2, xs.size()), x.raw_data(), y.raw_data(),
                                       StreamOf(ctx)),
                      this->label_.c_str());
  }
};

sdk::KernelOptions Cuda(std::vector<LoomDataType> types) { return {"CUDA", "", 0, {{"T", std::move(types)}}}; }

}  // namespace

sdk::Status RegisterNnPoolKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> f = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PoolKernel<true>>(
      "MaxPool", Cuda({LOOM_DTYPE_FLOAT, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PoolKernel<false>>("AveragePool", Cuda(f)));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GlobalPoolKernel<false>>("GlobalAveragePool", Cuda(f)));
  return reg.Kernel<GlobalPoolKernel<true>>("GlobalMaxPool", Cuda(f));
}

}  // namespace cuda
}  // namespace loom
