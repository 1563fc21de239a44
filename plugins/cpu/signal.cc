// HannWindow, HammingWindow, BlackmanWindow (ONNX opset 17; ops/signal.cc):
// the window in double, stored as output_datatype.
#include <cmath>
#include <cstdint>
#include <string>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

enum class WindowKind { kHann, kHamming, kBlackman };

template <WindowKind K>
class WindowKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    periodic_ = info.IntOr("periodic", 1) != 0;
    dtype_ = static_cast<LoomDataType>(info.IntOr("output_datatype", LOOM_DTYPE_FLOAT));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor size_t_ = ctx.Input(0), y;
    if (size_t_.num_elements() != 1) {
      return sdk::InvalidArgument(label_ + ": input size must have one element; found " + ShapeStr(size_t_.shape()));
    }
    const int64_t n = size_t_.dtype() == LOOM_DTYPE_INT64 ? size_t_.data<int64_t>()[0] : size_t_.data<int32_t>()[0];
    if (n < 0) return sdk::InvalidArgument(label_ + ": input size must be >= 0; found " + std::to_string(n));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dtype_, {n}, &y));
    const double N = periodic_ ? static_cast<double>(n) : static_cast<double>(n - 1);
    auto fill = [&](auto tag) -> Status {
      using T = decltype(tag);
      T* out = y.data<T>();
      for (int64_t i = 0; i < n; ++i) {
        const double a = N > 0 ? 2.0 * M_PI * static_cast<double>(i) / N : 0.0;
        double w = 1.0;  // a one-point symmetric window
        if (N > 0) {
          if (K == WindowKind::kHann) w = 0.5 - 0.5 * std::cos(a);
          if (K == WindowKind::kHamming) w = 25.0 / 46.0 - 21.0 / 46.0 * std::cos(a);
          if (K == WindowKind::kBlackman) w = 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2.0 * a);
        }
        out[i] = Num<T>::Store(static_cast<typename Num<T>::C>(w));
      }
      return Status::Ok();
    };
    LOOM_CPU_DISPATCH_NUMERIC(dtype_, fill)
    return UnsupportedDtype(label_ + " output_datatype", dtype_);
  }

 private:
  std::string label_;
  bool periodic_ = true;
  LoomDataType dtype_ = LOOM_DTYPE_FLOAT;
};

}  // namespace

Status RegisterSignalKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<WindowKernel<WindowKind::kHann>>("HannWindow", {"CPU", "", 0, {}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<WindowKernel<WindowKind::kHamming>>("HammingWindow", {"CPU", "", 0, {}}));
  return reg.Kernel<WindowKernel<WindowKind::kBlackman>>("BlackmanWindow", {"CPU", "", 0, {}});
}

}  // namespace cpu
}  // namespace loom
