// BatchNormalizationGradient (the gradient of ONNX BatchNormalization-15,
// Caffe2's SpatialBNGradient math): dX, dScale, dB from X, scale, dY and, in
// inference mode, input_mean / input_var; float32 and float64 in plain
// loops, statistics in double.
#include <cmath>

#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

// Per channel c over its m = N * S elements, xhat = (x - mean) * inv_std:
//   dB = sum(dY), dScale = sum(dY * xhat);
//   training_mode = 1 (batch statistics of X, recomputed):
//     dX = scale * inv_std / m * (m dY - dB - xhat dScale);
//   training_mode = 0 (input_mean, input_var): dX = dY * scale * inv_std.
class BatchNormGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("epsilon", &epsilon_));
    training_ = info.IntOr("training_mode", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), dy = ctx.Input(2);
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 2) return sdk::InvalidArgument(label_ + ": input X must be [N, C, D...]; found " + ShapeStr(xs));
    const int64_t C = xs[1];
    static const char* const kNames[] = {"X", "scale", "dY", "input_mean", "input_var"};
    for (size_t i : {1, 3, 4}) {
      if (i > 1 && training_) continue;
      Tensor t = ctx.Input(i);
      if (t.shape() != std::vector<int64_t>{C} || t.dtype() != x.dtype()) {
        return sdk::InvalidArgument(label_ + ": input " + kNames[i] + " must be " + sdk::DTypeName(x.dtype()) + " [" +
                                    std::to_string(C) + "]; found " + sdk::DTypeName(t.dtype()) + ShapeStr(t.shape()));
      }
    }
    if (dy.shape() != xs || dy.dtype() != x.dtype()) {
      return sdk::InvalidArgument(label_ + ": dY must be " + sdk::DTypeName(x.dtype()) + ShapeStr(xs) + " (X's); found " +
                                  sdk::DTypeName(dy.dtype()) + ShapeStr(dy.shape()));
    }
    Tensor out[3];
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &out[0]));
    for (size_t k = 1; k < 3; ++k) {
      if (ctx.OutputRequested(k)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(k, x.dtype(), {C}, &out[k]));
    }
    if (x.dtype() == LOOM_DTYPE_FLOAT) Run<float>(ctx, x, dy, out);
    else Run<double>(ctx, x, dy, out);
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx, const Tensor& x, const Tensor& dy, Tensor* out) const {
    const int64_t N = x.dim(0), C = x.dim(1), S = N * C == 0 ? 0 : x.num_elements() / (N * C);
    const double m = static_cast<double>(N * S);
    const T *xv = x.data<T>(), *g = dy.data<T>(), *scale = ctx.Input(1).data<T>();
    const T* in_mean = training_ ? nullptr : ctx.Input(3).data<T>();
    const T* in_var = training_ ? nullptr : ctx.Input(4).data<T>();
    T* dx = out[0].data<T>();
    ParallelFor(C, ctx.num_threads(), [&](int64_t c) {
      double mean = 0, var = 0;
      if (training_) {
        for (int64_t n = 0; n < N; ++n) {
          for (int64_t s = 0; s < S; ++s) mean += xv[(n * C + c) * S + s];
        }
        mean = m > 0 ? mean / m : 0.0;
        for (int64_t n = 0; n < N; ++n) {
          for (int64_t s = 0; s < S; ++s) var += (xv[(n * C + c) * S + s] - mean) * (xv[(n * C + c) * S + s] - mean);
        }
        var = m > 0 ? var / m : 0.0;
      } else {
        mean = in_mean[c];
        var = in_var[c];
      }
      const double inv = 1.0 / std::sqrt(var + epsilon_);
      double db = 0, dscale = 0;
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t s = 0; s < S; ++s) {
          const int64_t i = (n * C + c) * S + s;
          db += g[i];
          dscale += g[i] * (xv[i] - mean) * inv;
        }
      }
      const double k = static_cast<double>(scale[c]) * inv;
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t s = 0; s < S; ++s) {
          const int64_t i = (n * C + c) * S + s;
          const double xhat = (xv[i] - mean) * inv;
          dx[i] = static_cast<T>(training_ ? k / m * (m * g[i] - db - xhat * dscale) : k * g[i]);
        }
      }
      if (out[1].present()) out[1].data<T>()[c] = static_cast<T>(dscale);
      if (out[2].present()) out[2].data<T>()[c] = static_cast<T>(db);
    });
  }

  float epsilon_ = 1e-5f;
  bool training_ = false;
};

}  // namespace

Status RegisterNnBatchNormGradientKernels(sdk::Registrar& reg) {
  return reg.Kernel<BatchNormGradientKernel>("BatchNormalizationGradient",
                                             {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}}}});
}

}  // namespace cpu
}  // namespace loom
