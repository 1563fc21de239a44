// SoftmaxGradient and LogSoftmaxGradient (the gradients of ONNX Softmax-13
// and LogSoftmax-13, ops/gradients.cc): dX from dY and the forward output Y
// along one axis. float32 runs oneDNN's softmax / logsoftmax backward;
// float64 runs the loops below, the reference math_softmax_gradient_test.cc
// holds oneDNN to and the finite-difference checks (tests/autodiff_test.cc)
// hold to the definition.
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

// Y and dY seen as [outer, len, inner], the axis in the middle:
//   Softmax:    dX = Y * (dY - sum_k dY_k Y_k)
//   LogSoftmax: dX = dY - exp(Y) * sum_k dY_k
// Errors (INVALID_ARGUMENT): dY and Y of different shapes or dtypes, an axis
// out of range.
template <bool kLog>
class SoftmaxGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    return info.GetInt("axis", &axis_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor dy, y, dx;
    LOOM_SDK_RETURN_IF_ERROR(ElementwiseGradientOperands(ctx, label_, "Y", &dy, &y, &dx));
    const std::vector<int64_t> shape = y.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    int64_t axis = axis_;
    if (rank == 0 || !NormalizeAxis(&axis, rank)) {
      return sdk::InvalidArgument(label_ + ": axis " + std::to_string(axis_) + " is out of range for Y " +
                                  ShapeStr(shape));
    }
    if (y.num_elements() == 0) return Status::Ok();
    const std::vector<int64_t> dims = {semantics::Product(shape, 0, static_cast<size_t>(axis)), shape[axis],
                                       semantics::Product(shape, static_cast<size_t>(axis) + 1, shape.size())};
    if (y.dtype() == LOOM_DTYPE_FLOAT) return RunDnnl(ctx, dims, dy, y, dx);
    Reference(dims, dy.data<double>(), y.data<double>(), dx.data<double>(), ctx.num_threads());
    return Status::Ok();
  }

 private:
  Status RunDnnl(KernelContext& ctx, const std::vector<int64_t>& dims, const Tensor& dy, const Tensor& y, Tensor& dx) {
    const int threads = DnnlThreadsFor(y.num_elements(), ctx.num_threads());
    if (dims != dims_ || threads != threads_) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
        const dnnl::memory::desc md = PlainDesc(dims);
        if (kLog) {
          const dnnl::logsoftmax_forward::primitive_desc hint(
              dnnl::logsoftmax_forward::desc(dnnl::prop_kind::forward_training, md, 1), DnnlEngine());
          const dnnl::logsoftmax_backward::primitive_desc pd(dnnl::logsoftmax_backward::desc(md, md, 1),
                                                             UserScratchpad(), DnnlEngine(), hint);
          prim_ = dnnl::logsoftmax_backward(pd);
          scratchpad_.Reset(pd.scratchpad_desc());
        } else {
          const dnnl::softmax_forward::primitive_desc hint(
              dnnl::softmax_forward::desc(dnnl::prop_kind::forward_training, md, 1), DnnlEngine());
          const dnnl::softmax_backward::primitive_desc pd(dnnl::softmax_backward::desc(md, md, 1), UserScratchpad(),
                                                          DnnlEngine(), hint);
          prim_ = dnnl::softmax_backward(pd);
          scratchpad_.Reset(pd.scratchpad_desc());
        }
        dy_ = UnboundMemory(md), y_ = UnboundMemory(md), dx_ = UnboundMemory(md);
      }));
      dims_ = dims, threads_ = threads;
    }
    dy_.set_data_handle(const_cast<float*>(dy.data<float>()));
    y_.set_data_handle(const_cast<float*>(y.data<float>()));
    dx_.set_data_handle(dx.data<float>());
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_DIFF_DST, dy_}, {DNNL_ARG_DST, y_}, {DNNL_ARG_DIFF_SRC, dx_}};
    LOOM_SDK_RETURN_IF_ERROR(scratchpad_.Bind(ctx, &args));
    return DnnlExecute(label_, prim_, args, threads);
  }

  // The float64 definition, one (outer, inner) line at a time.
  static void Reference(const std::vector<int64_t>& dims, const double* g, const double* y, double* out, int threads) {
    const int64_t len = dims[1], inner = dims[2];
    ParallelFor(dims[0] * inner, threads, [&](int64_t line) {
      const int64_t base = (line / inner) * len * inner + line % inner;
      double sum = 0;
      for (int64_t k = 0; k < len; ++k) sum += kLog ? g[base + k * inner] : g[base + k * inner] * y[base + k * inner];
      for (int64_t k = 0; k < len; ++k) {
        const int64_t i = base + k * inner;
        out[i] = kLog ? g[i] - std::exp(y[i]) * sum : y[i] * (g[i] - sum);
      }
    }, len);
  }

  int64_t axis_ = -1;
  std::vector<int64_t> dims_;
  int threads_ = 0;
  dnnl::primitive prim_;
  dnnl::memory dy_, y_, dx_;
  DnnlScratchpad scratchpad_;
};

}  // namespace

Status RegisterSoftmaxGradientKernels(sdk::Registrar& reg) {
  const sdk::KernelOptions opts = CpuFloatAndDouble();
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SoftmaxGradientKernel<false>>("SoftmaxGradient", opts));
  return reg.Kernel<SoftmaxGradientKernel<true>>("LogSoftmaxGradient", opts);
}

}  // namespace cpu
}  // namespace loom
