// LpPool (ONNX 18, which also covers the opset-11 attribute set) and
// GlobalLpPool (ONNX 2): plain OpenMP loops for every float dtype, sums in
// double. The window geometry is the one the other pools use
// (dnnl_window.h: auto_pad, pads, strides, dilations, ceil_mode).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "plugins/cpu/dnnl_window.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

const std::vector<LoomDataType> kFloatTypes = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16,
                                               LOOM_DTYPE_BFLOAT16};

// |v| ^ p and s ^ (1 / p), exact for the common p = 1 and p = 2.
inline double PowAbs(double v, int64_t p) {
  v = std::fabs(v);
  return p == 1 ? v : p == 2 ? v * v : std::pow(v, static_cast<double>(p));
}
inline double Root(double s, int64_t p) {
  return p == 1 ? s : p == 2 ? std::sqrt(s) : std::pow(s, 1.0 / static_cast<double>(p));
}

Status ReadP(const KernelInfo& info, const std::string& label, int64_t* p) {
  LOOM_SDK_RETURN_IF_ERROR(info.GetInt("p", p));
  if (*p < 1) return sdk::InvalidArgument(label + ": attribute p must be >= 1; found " + std::to_string(*p));
  return Status::Ok();
}

// ONNX LpPool-18 over X [N, C, D1..Dn] (n >= 1): Y[n, c, o...] =
// (sum over the window's taps inside X of |x| ^ p) ^ (1 / p); padding taps
// add nothing. Attributes kernel_shape (required), strides, pads, auto_pad,
// dilations, ceil_mode, p (>= 1). Dtypes: float32/64, float16, bfloat16.
// Errors (INVALID_ARGUMENT): rank < 3, attributes that do not match the
// spatial rank, a padded input smaller than the window, p < 1.
class LpPoolKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(ReadP(info, label_, &p_));
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    return DispatchFloat(ctx.Input(0).dtype(), label_, [&](auto tag) { return Run<decltype(tag)>(ctx); });
  }

 private:
  template <typename T>
  Status Run(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 3) {
      return sdk::InvalidArgument(label_ + ": input X must be [N, C, D1, ...] with at least one spatial dim; found " +
                                  ShapeStr(xs));
    }
    const std::vector<int64_t> in(xs.begin() + 2, xs.end());
    Window w;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, in, attrs_.kernel, &w));
    std::vector<int64_t> ys = {xs[0], xs[1]};
    ys.insert(ys.end(), w.out.begin(), w.out.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    const size_t nd = in.size();
    int64_t in_size = 1, out_size = 1, taps = 1;
    for (size_t d = 0; d < nd; ++d) {
      in_size *= in[d];
      out_size *= w.out[d];
      taps *= w.kernel[d];
    }
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    const int64_t p = p_;
    // One task per (n, c) plane; odometers over output positions and taps.
    ParallelFor(
        xs[0] * xs[1], ctx.num_threads(),
        [&](int64_t plane) {
          const T* xin = xp + plane * in_size;
          T* yout = yp + plane * out_size;
          std::vector<int64_t> o(nd, 0), k(nd, 0);
          for (int64_t oi = 0; oi < out_size; ++oi) {
            double sum = 0;
            std::fill(k.begin(), k.end(), 0);
            for (int64_t t = 0; t < taps; ++t) {
              int64_t off = 0;
              bool inside = true;
              for (size_t d = 0; d < nd && inside; ++d) {
                const int64_t c = o[d] * w.strides[d] - w.pads_begin[d] + k[d] * w.dilations[d];
                inside = c >= 0 && c < in[d];
                off = off * in[d] + c;
              }
              if (inside) sum += PowAbs(static_cast<double>(Num<T>::Load(xin[off])), p);
              for (size_t d = nd; d-- > 0;) {
                if (++k[d] < w.kernel[d]) break;
                k[d] = 0;
              }
            }
            yout[oi] = Num<T>::Store(static_cast<typename Num<T>::C>(Root(sum, p)));
            for (size_t d = nd; d-- > 0;) {
              if (++o[d] < w.out[d]) break;
              o[d] = 0;
            }
          }
        },
        out_size * taps);
    return Status::Ok();
  }

  std::string label_;
  WindowAttrs attrs_;
  int64_t p_ = 2;
};

// ONNX GlobalLpPool-2: X [N, C, D...] (rank >= 2) to Y [N, C, 1, ...] =
// (sum over the spatial dims of |x| ^ p) ^ (1 / p). Dtypes: float32/64,
// float16, bfloat16. Errors (INVALID_ARGUMENT): rank < 2, p < 1.
class GlobalLpPoolKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return ReadP(info, label_, &p_);
  }

  Status Compute(KernelContext& ctx) {
    return DispatchFloat(ctx.Input(0).dtype(), label_, [&](auto tag) { return Run<decltype(tag)>(ctx); });
  }

 private:
  template <typename T>
  Status Run(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    std::vector<int64_t> ys;
    LOOM_SDK_RETURN_IF_ERROR(semantics::GlobalPoolShape(label_, xs, &ys));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    int64_t S = 1;
    for (size_t d = 2; d < xs.size(); ++d) S *= xs[d];
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    const int64_t p = p_;
    ParallelFor(
        xs[0] * xs[1], ctx.num_threads(),
        [&](int64_t r) {
          double sum = 0;
          for (int64_t i = 0; i < S; ++i) sum += PowAbs(static_cast<double>(Num<T>::Load(xp[r * S + i])), p);
          yp[r] = Num<T>::Store(static_cast<typename Num<T>::C>(Root(sum, p)));
        },
        S);
    return Status::Ok();
  }

  std::string label_;
  int64_t p_ = 2;
};

}  // namespace

Status RegisterNnLpPoolKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<LpPoolKernel>("LpPool", {"CPU", "", 0, {{"T", kFloatTypes}}}));
  return reg.Kernel<GlobalLpPoolKernel>("GlobalLpPool", {"CPU", "", 0, {{"T", kFloatTypes}}});
}

}  // namespace cpu
}  // namespace loom
