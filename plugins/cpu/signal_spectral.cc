// DFT, STFT and MelWeightMatrix (ONNX DFT-17, STFT-17, MelWeightMatrix-17;
// schemas in ops/signal_spectral.cc, shapes and checks in
// ops/semantics/spectral.h). Transforms run in double: an iterative radix-2
// FFT for power-of-two lengths, else the direct O(n * bins) sum over a
// twiddle table; results are stored as the input's dtype. Independent
// transforms (DFT lines, STFT frames) run in parallel.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/semantics/spectral.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

using Complex = std::complex<double>;

// Transforms with more work (lines x n x bins) than this go parallel.
constexpr int64_t kParallelWork = 1 << 16;

// A DFT of length n: out[k] = scale * sum_{t<n} x[t] exp(sign 2 pi i k t / n)
// for k < bins, sign -1 forward and +1 inverse, scale 1 forward and 1/n
// inverse; x is the first min(len, n) samples given, zero-padded to n.
class DftPlan {
 public:
  DftPlan(int64_t n, bool inverse) : n_(n), scale_(inverse ? 1.0 / static_cast<double>(n) : 1.0) {
    pow2_ = n > 1 && (n & (n - 1)) == 0;
    const double sign = inverse ? 1.0 : -1.0;
    tw_.resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      const double a = 2.0 * M_PI * static_cast<double>(j) / static_cast<double>(n);
      tw_[j] = Complex(std::cos(a), sign * std::sin(a));
    }
  }

  // x: n complex values (the signal zero-padded; overwritten by the FFT).
  void Run(std::vector<Complex>& x, int64_t bins, Complex* out) const {
    if (pow2_) {
      Fft(x);
      for (int64_t k = 0; k < bins; ++k) out[k] = x[k] * scale_;
      return;
    }
    for (int64_t k = 0; k < bins; ++k) {
      Complex s = 0.0;
      int64_t j = 0;  // k * t mod n
      for (int64_t t = 0; t < n_; ++t) {
        s += x[t] * tw_[j];
        j += k;
        if (j >= n_) j -= n_;
      }
      out[k] = s * scale_;
    }
  }

 private:
  // In-place iterative radix-2 (decimation in time) over tw_.
  void Fft(std::vector<Complex>& a) const {
    for (int64_t i = 1, j = 0; i < n_; ++i) {  // bit-reversal permutation
      int64_t bit = n_ >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    for (int64_t len = 2; len <= n_; len <<= 1) {
      const int64_t half = len / 2, step = n_ / len;
      for (int64_t i = 0; i < n_; i += len) {
        for (int64_t j = 0; j < half; ++j) {
          const Complex u = a[i + j], v = a[i + j + half] * tw_[j * step];
          a[i + j] = u + v;
          a[i + j + half] = u - v;
        }
      }
    }
  }

  int64_t n_;
  double scale_;
  bool pow2_ = false;
  std::vector<Complex> tw_;
};

template <typename T>
double Load(T v) {
  return static_cast<double>(Num<T>::Load(v));
}
template <typename T>
T Store(double v) {
  return Num<T>::Store(static_cast<typename Num<T>::C>(v));
}

class DftKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), len = ctx.Input(1), y;
    int64_t dft_length = -1;
    if (len.present()) LOOM_SDK_RETURN_IF_ERROR(ReadScalarInt(label_, len, "dft_length", &dft_length));
    semantics::DftGeometry g;
    LOOM_SDK_RETURN_IF_ERROR(semantics::DftGeometryOf(label_, x.shape(), attrs_, dft_length, &g));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), g.out_shape, &y));
    auto run = [&](auto tag) -> Status {
      using T = decltype(tag);
      const T* in = x.data<T>();
      T* out = y.data<T>();
      const int64_t c = g.complex ? 2 : 1, lines = g.outer * g.inner, m = std::min(g.length, g.n);
      const DftPlan plan(g.n, attrs_.inverse);
#pragma omp parallel if (lines > 1 && lines * g.n * g.bins > kParallelWork)
      {
        std::vector<Complex> buf(static_cast<size_t>(g.n)), res(static_cast<size_t>(g.bins));
#pragma omp for
        for (int64_t l = 0; l < lines; ++l) {
          const int64_t o = l / g.inner, i = l % g.inner;
          for (int64_t t = 0; t < g.n; ++t) {
            if (t < m) {
              const T* p = in + ((o * g.length + t) * g.inner + i) * c;
              buf[t] = Complex(Load(p[0]), c == 2 ? Load(p[1]) : 0.0);
            } else {
              buf[t] = 0.0;
            }
          }
          plan.Run(buf, g.bins, res.data());
          for (int64_t k = 0; k < g.bins; ++k) {
            T* q = out + ((o * g.bins + k) * g.inner + i) * 2;
            q[0] = Store<T>(res[k].real());
            q[1] = Store<T>(res[k].imag());
          }
        }
      }
      return Status::Ok();
    };
    return DispatchFloat(x.dtype(), label_ + " input", run);
  }

 private:
  std::string label_;
  semantics::DftAttrs attrs_;
};

class StftKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return semantics::ReadStftOnesided(info, label_, &onesided_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), window = ctx.Input(2), y;
    int64_t step = 0, window_length = -1, frame_length = -1;
    LOOM_SDK_RETURN_IF_ERROR(ReadScalarInt(label_, ctx.Input(1), "frame_step", &step));
    if (window.present()) {
      if (window.rank() != 1) {
        return sdk::InvalidArgument(label_ + ": input 'window' must be 1-D [frame_length]; found " +
                                    ShapeStr(window.shape()));
      }
      if (window.dtype() != x.dtype()) {
        return sdk::InvalidArgument(label_ + ": input 'window' must have the signal's dtype " +
                                    sdk::DTypeName(x.dtype()) + "; found " + sdk::DTypeName(window.dtype()));
      }
      window_length = window.dim(0);
    }
    if (ctx.Input(3).present()) {
      LOOM_SDK_RETURN_IF_ERROR(ReadScalarInt(label_, ctx.Input(3), "frame_length", &frame_length));
    }
    semantics::StftGeometry g;
    LOOM_SDK_RETURN_IF_ERROR(
        semantics::StftGeometryOf(label_, x.shape(), step, window_length, frame_length, onesided_, &g));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), g.out_shape, &y));
    auto run = [&](auto tag) -> Status {
      using T = decltype(tag);
      const T* in = x.data<T>();
      T* out = y.data<T>();
      const int64_t c = g.complex ? 2 : 1, n = g.frame_length, transforms = g.batch * g.frames;
      std::vector<double> w(static_cast<size_t>(n), 1.0);  // rectangular without a window
      if (window.present()) {
        for (int64_t t = 0; t < n; ++t) w[t] = Load(window.data<T>()[t]);
      }
      const DftPlan plan(n, false);
#pragma omp parallel if (transforms > 1 && transforms * n * g.bins > kParallelWork)
      {
        std::vector<Complex> buf(static_cast<size_t>(n)), res(static_cast<size_t>(g.bins));
#pragma omp for
        for (int64_t f = 0; f < transforms; ++f) {
          const int64_t b = f / g.frames, start = (f % g.frames) * g.frame_step;
          const T* p = in + (b * g.length + start) * c;
          for (int64_t t = 0; t < n; ++t) {
            buf[t] = Complex(Load(p[t * c]), c == 2 ? Load(p[t * c + 1]) : 0.0) * w[t];
          }
          plan.Run(buf, g.bins, res.data());
          T* q = out + f * g.bins * 2;
          for (int64_t k = 0; k < g.bins; ++k) {
            q[2 * k] = Store<T>(res[k].real());
            q[2 * k + 1] = Store<T>(res[k].imag());
          }
        }
      }
      return Status::Ok();
    };
    return DispatchFloat(x.dtype(), label_ + " signal", run);
  }

 private:
  std::string label_;
  bool onesided_ = true;
};

class MelWeightMatrixKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    dtype_ = static_cast<LoomDataType>(info.IntOr("output_datatype", LOOM_DTYPE_FLOAT));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    int64_t mel = 0, n = 0, rate = 0;
    LOOM_SDK_RETURN_IF_ERROR(ReadScalarInt(label_, ctx.Input(0), "num_mel_bins", &mel));
    LOOM_SDK_RETURN_IF_ERROR(ReadScalarInt(label_, ctx.Input(1), "dft_length", &n));
    LOOM_SDK_RETURN_IF_ERROR(ReadScalarInt(label_, ctx.Input(2), "sample_rate", &rate));
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckMelSizes(label_, mel, n, rate));
    double lo = 0, hi = 0;
    LOOM_SDK_RETURN_IF_ERROR(ScalarFloat(ctx.Input(3), "lower_edge_hertz", &lo));
    LOOM_SDK_RETURN_IF_ERROR(ScalarFloat(ctx.Input(4), "upper_edge_hertz", &hi));
    if (!(lo >= 0.0) || !(hi > lo) || !std::isfinite(hi)) {
      return sdk::InvalidArgument(label_ + ": needs 0 <= lower_edge_hertz < upper_edge_hertz (finite, Hz); found " +
                                  std::to_string(lo) + " and " + std::to_string(hi));
    }
    const int64_t bins = semantics::OneSidedBins(n);
    // Band edges in spectrum bins, as the ONNX reference computes them.
    auto to_mel = [](double f) { return 2595.0 * std::log10(1.0 + f / 700.0); };
    const double mel_lo = to_mel(lo), mel_step = (to_mel(hi) - mel_lo) / static_cast<double>(mel + 2);
    std::vector<int64_t> edge(static_cast<size_t>(mel + 2));
    for (int64_t i = 0; i < mel + 2; ++i) {
      const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * mel_step + mel_lo) / 2595.0) - 1.0);
      edge[i] = static_cast<int64_t>(std::floor(static_cast<double>(n + 1) * hz / static_cast<double>(rate)));
    }
    std::vector<double> w(static_cast<size_t>(bins * mel), 0.0);
    for (int64_t m = 0; m < mel; ++m) {
      const int64_t l = edge[m], c = edge[m + 1], r = edge[m + 2];
      for (int64_t j = std::max<int64_t>(l, 0); j < std::min(r, bins); ++j) {
        if (j < c) w[j * mel + m] = static_cast<double>(j - l) / static_cast<double>(c - l);
        if (j > c) w[j * mel + m] = static_cast<double>(r - j) / static_cast<double>(r - c);
      }
      if (c < bins) w[c * mel + m] = 1.0;  // the peak (also a band whose edges coincide)
    }
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dtype_, {bins, mel}, &y));
    auto fill = [&](auto tag) -> Status {
      using T = decltype(tag);
      T* out = y.data<T>();
      for (size_t i = 0; i < w.size(); ++i) out[i] = Num<T>::Store(static_cast<typename Num<T>::C>(w[i]));
      return Status::Ok();
    };
    return DispatchNumeric(dtype_, label_ + " output_datatype", fill);
  }

 private:
  // The one value of a scalar float input.
  Status ScalarFloat(const Tensor& t, const char* name, double* v) const {
    if (t.num_elements() != 1) {
      return sdk::InvalidArgument(label_ + ": input '" + name + "' must have one element; found " +
                                  ShapeStr(t.shape()));
    }
    return DispatchFloat(t.dtype(), label_ + " input '" + name + "'", [&](auto tag) -> Status {
      *v = Load(t.data<decltype(tag)>()[0]);
      return Status::Ok();
    });
  }

  std::string label_;
  LoomDataType dtype_ = LOOM_DTYPE_FLOAT;
};

}  // namespace

Status RegisterSignalSpectralKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<DftKernel>("DFT", {"CPU", "", 0, {}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<StftKernel>("STFT", {"CPU", "", 0, {}}));
  return reg.Kernel<MelWeightMatrixKernel>("MelWeightMatrix", {"CPU", "", 0, {}});
}

}  // namespace cpu
}  // namespace loom
