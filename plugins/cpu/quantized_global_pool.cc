// Loom's QLinearGlobalAveragePool (ops/quantization.cc; ONNX Runtime's
// com.microsoft op), made by the QDQ rewrite (transforms/fuse_qdq.h) from
// DequantizeLinear -> GlobalAveragePool -> QuantizeLinear: the sum of each
// channel exact in int64, one rounding at the end. Channels-last X (what the
// int8 channels-last rewrite gives it) sums rows of C contiguous channels.
#include <cstdint>
#include <string>
#include <vector>

#include "ops/semantics/quantization.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/quant_scalar.h"

namespace loom {
namespace cpu {
namespace {

// y[c] for channels [c0, c1) of one image: X's plane p of channel c at
// x[c * plane_stride + p * pixel_stride].
template <typename Q>
void PoolChannels(const Q* x, int64_t c0, int64_t c1, int64_t pixels, int64_t plane_stride, int64_t pixel_stride,
                  double k, int32_t x_zero, int32_t y_zero, Q* y) {
  if (pixel_stride == 1) {  // NCHW: one contiguous plane per channel
    for (int64_t c = c0; c < c1; ++c) {
      const Q* p = x + c * plane_stride;
      int64_t sum = 0;
      for (int64_t i = 0; i < pixels; ++i) sum += p[i];
      y[c] = semantics::SaturateRounded<Q>(static_cast<float>((sum - x_zero * pixels) * k), y_zero);
    }
    return;
  }
  // Channels-last: accumulate rows of [c0, c1) (contiguous) pixel by pixel.
  std::vector<int64_t> sum(static_cast<size_t>(c1 - c0), 0);
  for (int64_t i = 0; i < pixels; ++i) {
    const Q* row = x + i * pixel_stride + c0;
    for (int64_t c = 0; c < c1 - c0; ++c) sum[static_cast<size_t>(c)] += row[c];
  }
  for (int64_t c = c0; c < c1; ++c) {
    const int64_t s = sum[static_cast<size_t>(c - c0)] - static_cast<int64_t>(x_zero) * pixels;
    y[c] = semantics::SaturateRounded<Q>(static_cast<float>(static_cast<double>(s) * k), y_zero);
  }
}

class QLinearGlobalAveragePoolKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    channels_last_ = info.IntOr("channels_last", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    const Tensor x = ctx.Input(0);
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 3) {
      return sdk::InvalidArgument(label_ + ": X must have rank >= 3 ([N, C, D...]); found " + ShapeStr(xs));
    }
    const char* names[] = {"x_scale", "x_zero_point", "y_scale", "y_zero_point"};
    const size_t inputs[] = {1, 2, 3, 4};
    double v[4];
    LOOM_SDK_RETURN_IF_ERROR(ScaleZeroPointPairs(ctx, label_, names, inputs, x.dtype(), v));
    const int64_t N = xs[0], C = channels_last_ ? xs.back() : xs[1];
    int64_t pixels = 1;
    for (size_t d = channels_last_ ? 1 : 2; d < xs.size() - (channels_last_ ? 1 : 0); ++d) pixels *= xs[d];
    std::vector<int64_t> ys(xs.size(), 1);
    ys[0] = N;
    (channels_last_ ? ys.back() : ys[1]) = C;
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    // mean * x_scale / y_scale, from the integer sum.
    const double k = pixels > 0 ? v[0] / (static_cast<double>(pixels) * v[2]) : 0.0;
    const int32_t xz = static_cast<int32_t>(v[1]), yz = static_cast<int32_t>(v[3]);
    const int64_t plane_stride = channels_last_ ? 1 : pixels, pixel_stride = channels_last_ ? C : 1;
    auto run = [&](auto* in, auto* out) {
      for (int64_t n = 0; n < N; ++n) {
        ParallelRange(C, C * pixels, ctx.num_threads(), [&](int64_t c0, int64_t c1) {
          PoolChannels(in + n * C * pixels, c0, c1, pixels, plane_stride, pixel_stride, k, xz, yz, out + n * C);
        });
      }
    };
    if (x.dtype() == LOOM_DTYPE_INT8) {
      run(x.data<int8_t>(), y.data<int8_t>());
    } else {
      run(x.data<uint8_t>(), y.data<uint8_t>());
    }
    return Status::Ok();
  }

 private:
  bool channels_last_ = false;
};

}  // namespace

Status RegisterQuantizedGlobalPoolKernels(sdk::Registrar& reg) {
  return reg.Kernel<QLinearGlobalAveragePoolKernel>("QLinearGlobalAveragePool",
                                                    {"CPU", "", 0, {{"T", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8}}}});
}

}  // namespace cpu
}  // namespace loom
