// Kernels of the gradient ops the standard gradient makers emit
// (ops/gradients.cc): SumReduceLike, ReluGradient, SigmoidGradient,
// TanhGradient; float32 and float64, accumulating in double.
#include <vector>

#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

const std::vector<LoomDataType> kFloats = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE};

// C [B's shape] = A summed over the dims along which B broadcasts to A.
class SumReduceLikeKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), c;
    const std::vector<int64_t> as = a.shape(), bs = b.shape();
    const size_t ra = as.size(), rb = bs.size();
    bool ok = rb <= ra;
    // B's stride along each dim of A (0 where B broadcasts).
    std::vector<int64_t> stride(ra, 0);
    int64_t s = 1;
    for (size_t k = 0; ok && k < rb; ++k) {
      const size_t bd = rb - 1 - k, ad = ra - 1 - k;
      ok = bs[bd] == as[ad] || bs[bd] == 1;
      stride[ad] = bs[bd] == 1 ? 0 : s;
      s *= bs[bd];
    }
    if (!ok) {
      return sdk::InvalidArgument(label_ + ": B " + ShapeStr(bs) + " does not broadcast to A " + ShapeStr(as));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, a.dtype(), bs, &c));
    if (a.dtype() == LOOM_DTYPE_FLOAT) Run<float>(a, as, stride, c);
    else Run<double>(a, as, stride, c);
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Run(const Tensor& a, const std::vector<int64_t>& as, const std::vector<int64_t>& stride, Tensor& c) {
    std::vector<double> acc(static_cast<size_t>(c.num_elements()), 0.0);
    std::vector<int64_t> idx(as.size(), 0);
    const T* ap = a.data<T>();
    int64_t off = 0;
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      acc[off] += ap[i];
      for (size_t d = as.size(); d-- > 0;) {  // next index, row-major
        off += stride[d];
        if (++idx[d] < as[d]) break;
        off -= stride[d] * as[d];
        idx[d] = 0;
      }
    }
    T* cp = c.data<T>();
    for (size_t i = 0; i < acc.size(); ++i) cp[i] = static_cast<T>(acc[i]);
  }
};

// dX from dY and the forward output Y, element by element.
enum class Act { kRelu, kSigmoid, kTanh };
template <Act kAct>
class ActivationGradientKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor dy = ctx.Input(0), y = ctx.Input(1), dx;
    if (dy.shape() != y.shape()) {
      return sdk::InvalidArgument(label_ + ": dY " + ShapeStr(dy.shape()) + " and Y " + ShapeStr(y.shape()) +
                                  " must have the same shape");
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dy.dtype(), dy.shape(), &dx));
    if (dy.dtype() == LOOM_DTYPE_FLOAT) Run<float>(dy, y, dx, ctx.num_threads());
    else Run<double>(dy, y, dx, ctx.num_threads());
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Run(const Tensor& dy, const Tensor& y, Tensor& dx, int threads) {
    const T *g = dy.data<T>(), *v = y.data<T>();
    T* out = dx.data<T>();
    ParallelFor(dy.num_elements(), threads, [&](int64_t i) {
      if (kAct == Act::kRelu) out[i] = v[i] > T(0) ? g[i] : T(0);
      if (kAct == Act::kSigmoid) out[i] = g[i] * v[i] * (T(1) - v[i]);
      if (kAct == Act::kTanh) out[i] = g[i] * (T(1) - v[i] * v[i]);
    });
  }
};

}  // namespace

Status RegisterGradientKernels(sdk::Registrar& reg) {
  const sdk::KernelOptions opts{"CPU", "", 0, {{"T", kFloats}}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SumReduceLikeKernel>("SumReduceLike", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ActivationGradientKernel<Act::kRelu>>("ReluGradient", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ActivationGradientKernel<Act::kSigmoid>>("SigmoidGradient", opts));
  return reg.Kernel<ActivationGradientKernel<Act::kTanh>>("TanhGradient", opts);
}

}  // namespace cpu
}  // namespace loom
