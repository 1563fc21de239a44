// MaxUnpool-11 kernel (ops/nn_unpool.cc): Y zeroed, then each X value
// written at its index (flat in the default output shape, whose
// coordinates a larger output_shape keeps).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

class MaxUnpoolKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    kernel_ = info.IntsOr("kernel_shape", {});
    strides_ = info.IntsOr("strides", {});
    pads_ = info.IntsOr("pads", {});
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), idx = ctx.Input(1), out_shape = ctx.Input(2), y;
    const std::vector<int64_t> xs = x.shape();
    const size_t n = kernel_.size();
    if (xs.size() < 3 || n != xs.size() - 2 || idx.shape() != xs) {
      return sdk::InvalidArgument(label_ + ": X must be [N, C, D...] with one kernel_shape entry per D, and I of X's "
                                  "shape; found X " + ShapeStr(xs) + ", I " + ShapeStr(idx.shape()) + ", kernel_shape " +
                                  ShapeStr(kernel_));
    }
    // The default shape, which I indexes; output_shape may be larger (the
    // extra positions at the end of each dim stay 0), as ONNX's reference.
    std::vector<int64_t> ds = xs;
    for (size_t i = 0; i < n; ++i) {
      const int64_t s = strides_.size() == n ? strides_[i] : 1;
      const int64_t pb = pads_.size() == 2 * n ? pads_[i] : 0, pe = pads_.size() == 2 * n ? pads_[i + n] : 0;
      ds[i + 2] = (xs[i + 2] - 1) * s - pb - pe + kernel_[i];
    }
    std::vector<int64_t> ys = ds;
    if (out_shape.present()) {
      ys.assign(out_shape.data<int64_t>(), out_shape.data<int64_t>() + out_shape.num_elements());
      bool fits = ys.size() == ds.size();
      for (size_t i = 0; fits && i < ys.size(); ++i) fits = i < 2 ? ys[i] == ds[i] : ys[i] >= ds[i];
      if (!fits) {
        return sdk::InvalidArgument(label_ + ": output_shape must be of X's rank, X's N and C, and at least the "
                                    "default " + ShapeStr(ds) + "; found " + ShapeStr(ys));
      }
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    const int64_t total = y.num_elements();
    const size_t es = sdk::DTypeSize(x.dtype());
    std::memset(y.raw_data(), 0, static_cast<size_t>(total) * es);
    const char* src = static_cast<const char*>(x.raw_data());
    char* dst = static_cast<char*>(y.raw_data());
    int64_t default_total = 1;
    for (int64_t d : ds) default_total *= d;
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      int64_t k = idx.data<int64_t>()[i];
      if (k < 0 || k >= default_total) {
        return sdk::InvalidArgument(label_ + ": I[" + std::to_string(i) + "] = " + std::to_string(k) +
                                    " is outside the default output's " + std::to_string(default_total) +
                                    " elements " + ShapeStr(ds));
      }
      // k's coordinates in the default shape, raveled in Y's.
      int64_t flat = 0, stride = 1;
      for (size_t d = ds.size(); d-- > 0;) {
        flat += (k % ds[d]) * stride;
        k /= ds[d];
        stride *= ys[d];
      }
      std::memcpy(dst + flat * es, src + i * es, es);
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  std::vector<int64_t> kernel_, strides_, pads_;
};

}  // namespace

Status RegisterNnUnpoolKernels(sdk::Registrar& reg) { return reg.Kernel<MaxUnpoolKernel>("MaxUnpool", {"CPU", "", 0, {}}); }

}  // namespace cpu
}  // namespace loom
