// Det-11 kernel (ops/math_det.cc): LU decomposition with partial pivoting
// in double, one matrix at a time.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

// The determinant of the row-major M x M matrix `a` (overwritten).
double Determinant(std::vector<double>& a, int64_t M) {
  double det = 1;
  for (int64_t k = 0; k < M; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < M; ++i) {
      if (std::fabs(a[i * M + k]) > std::fabs(a[p * M + k])) p = i;
    }
    if (a[p * M + k] == 0) return 0;
    if (p != k) {
      for (int64_t j = 0; j < M; ++j) std::swap(a[k * M + j], a[p * M + j]);
      det = -det;
    }
    det *= a[k * M + k];
    for (int64_t i = k + 1; i < M; ++i) {
      const double f = a[i * M + k] / a[k * M + k];
      for (int64_t j = k + 1; j < M; ++j) a[i * M + j] -= f * a[k * M + j];
    }
  }
  return det;
}

class DetKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 2 || xs[xs.size() - 1] != xs[xs.size() - 2]) {
      return sdk::InvalidArgument(label_ + ": X must be [*, M, M] (square matrices); found " + ShapeStr(xs));
    }
    const int64_t M = xs.back();
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), std::vector<int64_t>(xs.begin(), xs.end() - 2), &y));
    const int64_t count = y.num_elements();
    auto run = [&](auto tag) -> Status {
      using T = decltype(tag);
      std::vector<double> a(static_cast<size_t>(M * M));
      for (int64_t m = 0; m < count; ++m) {
        for (int64_t i = 0; i < M * M; ++i) a[i] = static_cast<double>(Num<T>::Load(x.data<T>()[m * M * M + i]));
        y.data<T>()[m] = Num<T>::Store(static_cast<typename Num<T>::C>(Determinant(a, M)));
      }
      return Status::Ok();
    };
    LOOM_CPU_DISPATCH_FLOAT(x.dtype(), run)
    return UnsupportedDtype(label_, x.dtype());
  }

 private:
  std::string label_;
};

}  // namespace

Status RegisterMathDetKernels(sdk::Registrar& reg) { return reg.Kernel<DetKernel>("Det", {"CPU", "", 0, {}}); }

}  // namespace cpu
}  // namespace loom
