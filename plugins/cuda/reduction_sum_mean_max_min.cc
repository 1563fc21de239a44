// Host side of the CUDA reduction family: Softmax / LogSoftmax and
// ReduceSum / ReduceMean / ReduceMax / ReduceMin, with the attribute
// handling, shapes and errors of the CPU kernels (plugins/cpu/math_elementwise.cc
// SoftmaxKernel, plugins/cpu/reduction_sum_mean_max_min.cc); the device code
// is reduction_sum_mean_max_min.cu.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/reduction.h"
#include "plugins/cuda/cuda_status.h"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/reduction_sum_mean_max_min.h"

namespace loom {
namespace cuda {
namespace {

const std::vector<LoomDataType> kFloatTypes = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16};
const std::vector<LoomDataType> kReduceTypes = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16,
                                                LOOM_DTYPE_INT32, LOOM_DTYPE_INT64};

using semantics::ShapeStr;

std::string Label(const sdk::KernelInfo& info) { return info.op_type() + " '" + info.op_name() + "'"; }

// ONNX Softmax-13 / LogSoftmax-13: normalizes along the single axis `axis`
// (default -1, negative counts from the end) of a tensor of any rank >= 1.
// float32, float16, bfloat16 (computed in float). Errors (InvalidArgument):
// a rank-0 input, axis out of range.
//
// The opset < 13 form (flatten to 2-D at `axis` and normalize over all the
// trailing dims) is not available: like the CPU kernel this one follows the
// schema's opset 13, and a kernel cannot see a model's opset. That form would
// be LaunchSoftmax(outer = prod(dims[:axis]), len = prod(dims[axis:]), 1).
template <bool kLog>
class SoftmaxKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = Label(info);
    return info.GetInt("axis", &axis_);
  }

  sdk::Status Compute(sdk::KernelContext& ctx) {
    sdk::Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> shape = x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    if (rank == 0 || axis < 0 || axis >= rank) {
      return sdk::InvalidArgument(label_ + ": axis " + std::to_string(axis_) + " is out of range for input shape " +
                                  ShapeStr(shape));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), shape, &y));
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= shape[d];
    if (x.num_elements() == 0) return sdk::Status::Ok();
    return CudaStatus(LaunchSoftmax(kLog, x.dtype(), outer, shape[axis], inner, x.raw_data(), y.raw_data(),
                                    static_cast<cudaStream_t>(ctx.stream())),
                      label_.c_str());
  }

 private:
  std::string label_;
  int64_t axis_ = -1;
};

// Fills *l for reducing `shape` over the dims marked in `reduce`: size-1
// dims dropped, neighbouring dims of the same kind merged (as the CPU
// kernel's MakeLayout). False if there are more than kMaxReduceDims merged
// dims of either kind (an input of rank > 16).
bool MakeLayout(const std::vector<int64_t>& shape, const std::vector<bool>& reduce, ReduceLayout* l) {
  std::vector<int64_t> dims;
  std::vector<bool> red;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!dims.empty() && red.back() == reduce[d]) {
      dims.back() *= shape[d];
    } else {
      dims.push_back(shape[d]);
      red.push_back(reduce[d]);
    }
  }
  std::vector<int64_t> kd, ks, rd, rs;
  int64_t stride = 1;
  for (size_t j = dims.size(); j-- > 0;) {
    (red[j] ? rd : kd).insert((red[j] ? rd : kd).begin(), dims[j]);
    (red[j] ? rs : ks).insert((red[j] ? rs : ks).begin(), stride);
    stride *= dims[j];
  }
  if (kd.size() > static_cast<size_t>(kMaxReduceDims) || rd.size() > static_cast<size_t>(kMaxReduceDims)) return false;
  *l = ReduceLayout();
  l->nk = static_cast<int>(kd.size());
  l->nr = static_cast<int>(rd.size());
  for (size_t i = 0; i < kd.size(); ++i) {
    l->kdims[i] = kd[i];
    l->kstrides[i] = ks[i];
    l->n_out *= kd[i];
  }
  for (size_t i = 0; i < rd.size(); ++i) {
    l->rdims[i] = rd[i];
    l->rstrides[i] = rs[i];
    l->count *= rd[i];
  }
  l->inner_reduced = !red.empty() && red.back();
  return true;
}

// ReduceSum-13 / ReduceMean-18 / ReduceMax-18 / ReduceMin-18 and their older
// forms: the axes are the optional 1-D int64 (or int32) input or the `axes`
// attribute (not both); negative axes count from the end; empty axes reduce
// every dim unless noop_with_empty_axes (then a copy); keepdims keeps the
// reduced dims as 1. Empty reductions give the identity (see LaunchReduce).
// float32, float16, bfloat16, int32, int64. Errors (InvalidArgument): axes
// both as input and attribute, a bad axes input, an axis out of range or
// repeated.
template <ReduceOp K>
class ReduceKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = Label(info);
    return attrs_.Read(info, label_);
  }

  sdk::Status Compute(sdk::KernelContext& ctx) {
    sdk::Tensor x = ctx.Input(0), axes_in = ctx.Input(1), y;
    const std::vector<int64_t> shape = x.shape();
    cudaStream_t stream = static_cast<cudaStream_t>(ctx.stream());
    std::vector<int64_t> axes = attrs_.axes;
    if (axes_in.present()) LOOM_SDK_RETURN_IF_ERROR(ReadAxes(axes_in, stream, &axes));
    semantics::ReduceGeometry g;
    LOOM_SDK_RETURN_IF_ERROR(semantics::ResolveReduceAxes(label_, shape, axes, attrs_, &g));
    const std::vector<bool>& reduce = g.reduce;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), g.out_shape, &y));
    if (y.num_elements() == 0) return sdk::Status::Ok();
    ReduceLayout l;
    if (!MakeLayout(shape, reduce, &l)) {
      return sdk::Unimplemented(label_ + ": input shape " + ShapeStr(shape) + " has more than " +
                                std::to_string(kMaxReduceDims) + " separate kept or reduced dims on CUDA");
    }
    if (l.count == 1) {
      // Nothing reduced (noop, or only size-1 dims): every op gives x itself.
      return CudaStatus(cudaMemcpyAsync(y.raw_data(), x.raw_data(),
                                        static_cast<size_t>(x.num_elements()) * sdk::DTypeSize(x.dtype()),
                                        cudaMemcpyDeviceToDevice, stream),
                        label_.c_str());
    }
    return CudaStatus(LaunchReduce(K, x.dtype(), l, x.raw_data(), y.raw_data(), stream), label_.c_str());
  }

 private:
  // The axes input (device memory) read back to the host.
  sdk::Status ReadAxes(const sdk::Tensor& t, cudaStream_t stream, std::vector<int64_t>* axes) const {
    const LoomDataType dt = t.dtype();
    if (t.rank() > 1 || (dt != LOOM_DTYPE_INT64 && dt != LOOM_DTYPE_INT32)) {
      return sdk::InvalidArgument(label_ + ": input 'axes' must be a 1-D int64 tensor; found " + sdk::DTypeName(dt) +
                                  ShapeStr(t.shape()));
    }
    const int64_t n = t.num_elements();
    axes->clear();
    if (n == 0) return sdk::Status::Ok();
    if (dt == LOOM_DTYPE_INT64) {
      axes->resize(static_cast<size_t>(n));
      LOOM_SDK_RETURN_IF_ERROR(CudaStatus(
          cudaMemcpyAsync(axes->data(), t.raw_data(), sizeof(int64_t) * n, cudaMemcpyDefault, stream), "read axes"));
      return CudaStatus(cudaStreamSynchronize(stream), "read axes");
    }
    std::vector<int32_t> v(static_cast<size_t>(n));
    LOOM_SDK_RETURN_IF_ERROR(
        CudaStatus(cudaMemcpyAsync(v.data(), t.raw_data(), sizeof(int32_t) * n, cudaMemcpyDefault, stream), "read axes"));
    LOOM_SDK_RETURN_IF_ERROR(CudaStatus(cudaStreamSynchronize(stream), "read axes"));
    axes->assign(v.begin(), v.end());
    return sdk::Status::Ok();
  }

  std::string label_;
  semantics::ReduceAttrs attrs_;
};

sdk::KernelOptions Cuda(const std::vector<LoomDataType>& types) { return {"CUDA", "", 0, {{"T", types}}}; }

}  // namespace

sdk::Status RegisterReductionSumMeanMaxMinKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SoftmaxKernel<false>>("Softmax", Cuda(kFloatTypes)));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SoftmaxKernel<true>>("LogSoftmax", Cuda(kFloatTypes)));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReduceKernel<ReduceOp::kSum>>("ReduceSum", Cuda(kReduceTypes)));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReduceKernel<ReduceOp::kMean>>("ReduceMean", Cuda(kReduceTypes)));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReduceKernel<ReduceOp::kMax>>("ReduceMax", Cuda(kReduceTypes)));
  return reg.Kernel<ReduceKernel<ReduceOp::kMin>>("ReduceMin", Cuda(kReduceTypes));
}

}  // namespace cuda
}  // namespace loom
