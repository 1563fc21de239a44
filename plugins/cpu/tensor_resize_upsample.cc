// Resize (ONNX opsets 10, 11, 13) and Upsample (opset 9) on plain loops.
//
// The interpolation is separable, as in ONNX's reference implementation:
// each axis is resized on its own with per-output-index taps (source indices
// and weights) computed once per axis. Nearest gathers the source element
// directly (exact for every dtype); linear and cubic run axis by axis on a
// double buffer and convert to the output dtype at the end.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

enum class Mode { kNearest, kLinear, kCubic };

// The resize settings shared by Resize and Upsample.
struct ResizeAttrs {
  Mode mode = Mode::kNearest;
  std::string ctm = "half_pixel";             // coordinate_transformation_mode
  std::string nearest_mode = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
};

// The taps of one axis: output index j reads source indices idx[j * taps + t]
// (clamped into the input) with weights w[j * taps + t]; extrap[j] marks
// outputs mapped outside the input by tf_crop_and_resize.
struct AxisPlan {
  int taps = 1;
  std::vector<int64_t> idx;
  std::vector<double> w;
  std::vector<char> extrap;
  bool identity = false;
};

// The ONNX reference's cubic kernel weights for a fractional offset `r` in
// (0, 1] from the second of four taps.
void CubicCoeffs(double r, double a, double* c) {
  const double r1 = r + 1, s = 1 - r, s1 = s + 1;
  c[0] = ((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a;
  c[1] = ((a + 2) * r - (a + 3)) * r * r + 1;
  c[2] = ((a + 2) * s - (a + 3)) * s * s + 1;
  c[3] = ((a * s1 - 5 * a) * s1 + 8 * a) * s1 - 4 * a;
}

// Plans one axis of size `in` resized to `out` with scale `scale`
// (out = floor(in * scale) for scales, scale = out / in for sizes) and the
// roi [roi_start, roi_end] (tf_crop_and_resize only). Follows ONNX's
// reference interpolate_1d_with_x: the source coordinate x_ori, the taps
// around floor(x_ori) (x_ori - 1 when x_ori is integral, with ratio 1), edge
// clamping, and exclude_outside renormalization.
AxisPlan PlanAxis(const ResizeAttrs& a, int64_t in, int64_t out, double scale, double out_width, double roi_start,
                  double roi_end) {
  AxisPlan p;
  const std::string& ctm = a.ctm;
  p.identity = out == in && scale == 1.0 &&
               (ctm == "half_pixel" || ctm == "asymmetric" || ctm == "align_corners" || ctm == "pytorch_half_pixel");
  const int n = a.mode == Mode::kCubic ? 4 : 2;
  p.taps = a.mode == Mode::kNearest ? 1 : n;
  p.idx.assign(out * p.taps, 0);
  p.w.assign(out * p.taps, 0.0);
  p.extrap.assign(out, 0);
  for (int64_t j = 0; j < out; ++j) {
    const double x = static_cast<double>(j);
    double xo;
    if (ctm == "align_corners") {
      xo = out_width == 1 ? 0.0 : x * (in - 1) / (out_width - 1);
    } else if (ctm == "asymmetric") {
      xo = x / scale;
    } else if (ctm == "tf_crop_and_resize") {
      xo = out_width == 1 ? (roi_end - roi_start) * (in - 1) / 2 : x * (roi_end - roi_start) * (in - 1) / (out_width - 1);
      xo += roi_start * (in - 1);
      if (xo < 0 || xo > in - 1) {
        p.extrap[j] = 1;
        continue;
      }
    } else if (ctm == "pytorch_half_pixel") {
      xo = out_width == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    } else if (ctm == "tf_half_pixel_for_nn") {
      xo = (x + 0.5) / scale;
    } else {  // half_pixel
      xo = (x + 0.5) / scale - 0.5;
    }
    const double fl = std::floor(xo);
    const bool integral = fl == xo;
    const int64_t base = static_cast<int64_t>(fl) - (integral ? 1 : 0);
    const double ratio = integral ? 1.0 : xo - fl;
    const int64_t start = base - (n / 2 - 1);
    auto clamp = [in](int64_t i) { return i < 0 ? 0 : (i >= in ? in - 1 : i); };
    if (a.mode == Mode::kNearest) {
      // The reference's nearest_coeffs: weight 1 on base (floor) or base + 1.
      bool upper;
      if (integral || a.nearest_mode == "ceil") {
        upper = true;
      } else if (a.nearest_mode == "floor") {
        upper = false;
      } else if (a.nearest_mode == "round_prefer_ceil") {
        upper = ratio >= 0.5;
      } else {  // round_prefer_floor
        upper = ratio > 0.5;
      }
      p.idx[j] = clamp(start + (upper ? 1 : 0));
      p.w[j] = 1.0;
      continue;
    }
    double c[4];
    if (a.mode == Mode::kLinear) {
      c[0] = 1 - ratio;
      c[1] = ratio;
    } else {
      CubicCoeffs(ratio, a.cubic_a, c);
    }
    if (a.exclude_outside) {
      double sum = 0;
      for (int t = 0; t < n; ++t) {
        const int64_t i = start + t;
        if (i < 0 || i >= in) c[t] = 0;
        sum += c[t];
      }
      for (int t = 0; t < n; ++t) c[t] = sum != 0 ? c[t] / sum : 0.0;
    }
    for (int t = 0; t < n; ++t) {
      p.idx[j * n + t] = clamp(start + t);
      p.w[j * n + t] = c[t];
    }
  }
  return p;
}

// Resizes one axis of `src` viewed as [outer, n_in, inner] into
// dst [outer, n_out, inner].
void ResizeAxis(const double* src, double* dst, int64_t outer, int64_t n_in, int64_t n_out, int64_t inner,
                const AxisPlan& p, double extrapolation, int threads) {
  ParallelFor(
      outer * n_out, threads,
      [&](int64_t r) {
        const int64_t o = r / n_out, j = r % n_out;
        double* d = dst + r * inner;
        if (p.extrap[j]) {
          std::fill(d, d + inner, extrapolation);
          return;
        }
        const double* s = src + o * n_in * inner;
        std::fill(d, d + inner, 0.0);
        for (int t = 0; t < p.taps; ++t) {
          const double w = p.w[j * p.taps + t];
          if (w == 0) continue;
          const double* row = s + p.idx[j * p.taps + t] * inner;
          for (int64_t i = 0; i < inner; ++i) d[i] += w * row[i];
        }
      },
      inner * p.taps);
}

// A double as T: float types convert, integers round to nearest and
// saturate (as image pipelines resizing uint8 expect).
template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_integral<T>::value) {
    if (std::isnan(v)) return T(0);
    const double r = std::nearbyint(v);
    if (r <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
  } else {
    return Num<T>::Store(static_cast<typename Num<T>::C>(v));
  }
}

// Nearest: each output element copies one source element (or, for
// tf_crop_and_resize outside the roi, the extrapolation value).
template <typename T>
void GatherNearest(const Tensor& x, Tensor& y, const std::vector<AxisPlan>& plans, double extrapolation, int threads) {
  const std::vector<int64_t> xs = x.shape(), ys = y.shape();
  const size_t r = xs.size();
  std::vector<int64_t> in_strides(r, 1);
  for (size_t k = r; k-- > 1;) in_strides[k - 1] = in_strides[k] * xs[k];
  const T* xp = x.data<T>();
  T* yp = y.data<T>();
  const T ext = FromDouble<T>(extrapolation);
  const int64_t last = ys[r - 1], rows = y.num_elements() / last;
  const AxisPlan& lp = plans[r - 1];
  auto extrapolates = [](const AxisPlan& p) {
    return std::any_of(p.extrap.begin(), p.extrap.end(), [](char e) { return e != 0; });
  };
  const bool last_extrap = extrapolates(lp);
  if (r >= 2 && lp.identity && !last_extrap && !extrapolates(plans[r - 2])) {
    // The last axis kept whole (a channels-last tensor's C): rows of the
    // last two axes, each pixel a copy of C contiguous values, rather than
    // a row (and its index arithmetic) per pixel.
    const AxisPlan& wp = plans[r - 2];
    const int64_t W = ys[r - 2], row2 = W * last, rows2 = y.num_elements() / row2;
    ParallelRange(rows2, y.num_elements(), threads, [&](int64_t lo, int64_t hi) {
      int64_t prev = -1;
      for (int64_t row = lo; row < hi; ++row) {
        T* d = yp + row * row2;
        int64_t off = 0, rem = row;
        bool outside = false;
        for (size_t k = r - 2; k-- > 0;) {
          const int64_t j = rem % ys[k];
          rem /= ys[k];
          if (plans[k].extrap[j]) outside = true;
          off += plans[k].idx[j] * in_strides[k];
        }
        if (outside) {
          std::fill(d, d + row2, ext);
          prev = -1;
        } else if (off == prev) {
          std::memcpy(d, d - row2, static_cast<size_t>(row2) * sizeof(T));
        } else {
          for (int64_t w = 0; w < W; ++w) {
            std::memcpy(d + w * last, xp + off + wp.idx[w] * in_strides[r - 2], static_cast<size_t>(last) * sizeof(T));
          }
          prev = off;
        }
      }
    });
    return;
  }
  // Rows in chunks: an output row reading the same source row as the one
  // before it in the chunk (every row but one of each group when
  // upsampling) is a copy of it (PP-OCR's 4x upsampling of 24 channels to
  // 240x240: 6.3 ms at one thread as a gather per element).
  ParallelRange(rows, rows * last, threads, [&](int64_t lo, int64_t hi) {
    int64_t prev = -1;  // the previous row's source offset in this chunk; -1: none
    for (int64_t row = lo; row < hi; ++row) {
      T* d = yp + row * last;
      int64_t off = 0, rem = row;
      bool outside = false;
      for (size_t k = r - 1; k-- > 0;) {
        const int64_t j = rem % ys[k];
        rem /= ys[k];
        if (plans[k].extrap[j]) outside = true;
        off += plans[k].idx[j] * in_strides[k];
      }
      if (outside) {
        std::fill(d, d + last, ext);
        prev = -1;
        continue;
      }
      if (off == prev) {
        std::memcpy(d, d - last, static_cast<size_t>(last) * sizeof(T));
        continue;
      }
      if (last_extrap) {
        for (int64_t j = 0; j < last; ++j) d[j] = lp.extrap[j] ? ext : xp[off + lp.idx[j]];
      } else {
        const T* src = xp + off;
        for (int64_t j = 0; j < last; ++j) d[j] = src[lp.idx[j]];
      }
      prev = off;
    }
  });
}

// Linear / cubic: axis by axis on a double buffer.
template <typename T>
void Interpolate(const Tensor& x, Tensor& y, const std::vector<AxisPlan>& plans, double extrapolation, int threads) {
  std::vector<int64_t> cur = x.shape();
  const std::vector<int64_t> ys = y.shape();
  const T* xp = x.data<T>();
  std::vector<double> a(x.num_elements()), b;
  ParallelRange(x.num_elements(), x.num_elements(), threads, [&](int64_t b0, int64_t b1) {
    for (int64_t i = b0; i < b1; ++i) a[i] = static_cast<double>(Num<T>::Load(xp[i]));
  });
  for (size_t k = cur.size(); k-- > 0;) {
    if (plans[k].identity) continue;
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < k; ++i) outer *= cur[i];
    for (size_t i = k + 1; i < cur.size(); ++i) inner *= cur[i];
    b.assign(outer * ys[k] * inner, 0.0);
    ResizeAxis(a.data(), b.data(), outer, cur[k], ys[k], inner, plans[k], extrapolation, threads);
    cur[k] = ys[k];
    a.swap(b);
  }
  T* yp = y.data<T>();
  ParallelRange(y.num_elements(), y.num_elements(), threads, [&](int64_t b0, int64_t b1) {
    for (int64_t i = b0; i < b1; ++i) yp[i] = FromDouble<T>(a[i]);
  });
}

// Values of a float tensor (float32/float64/float16/bfloat16) as doubles.
bool ReadDoubles(const Tensor& t, std::vector<double>* out) {
  out->clear();
  bool ok = false;
  auto read = [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < t.num_elements(); ++i) out->push_back(static_cast<double>(Num<T>::Load(t.data<T>()[i])));
    ok = true;
  };
  switch (t.dtype()) {
    case LOOM_DTYPE_FLOAT: read(float{}); break;
    case LOOM_DTYPE_DOUBLE: read(double{}); break;
    case LOOM_DTYPE_FLOAT16: read(Float16{}); break;
    case LOOM_DTYPE_BFLOAT16: read(BFloat16{}); break;
    default: break;
  }
  return ok;
}

// Resize-10/11/13 and Upsample-7/9. X any rank >= 1 (any numeric dtype;
// Upsample's nearest also bool); the output shape comes from `sizes` or
// floor(D * scale). Errors (INVALID_ARGUMENT): unknown mode strings, both
// or neither of scales and sizes, their length differing from X's rank,
// non-positive scales, a bad roi for tf_crop_and_resize, resizing an empty
// axis to a non-empty one, linear/cubic on bool.
class ResizeKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    upsample_ = info.op_type() == "Upsample";
    const std::string mode = info.StringOr("mode", "nearest");
    if (mode == "nearest") {
      a_.mode = Mode::kNearest;
    } else if (mode == "linear" || (upsample_ && mode == "bilinear")) {
      a_.mode = Mode::kLinear;
    } else if (mode == "cubic" && !upsample_) {
      a_.mode = Mode::kCubic;
    } else {
      return sdk::InvalidArgument(label_ + ": attribute mode must be nearest, linear" +
                                  std::string(upsample_ ? "" : " or cubic") + "; found '" + mode + "'");
    }
    if (upsample_) {
      // Upsample: asymmetric coordinates, nearest takes the floor.
      a_.ctm = "asymmetric";
      a_.nearest_mode = "floor";
      scales_attr_ = info.FloatsOr("scales", {});
      return Status::Ok();
    }
    a_.ctm = info.StringOr("coordinate_transformation_mode", "half_pixel");
    a_.nearest_mode = info.StringOr("nearest_mode", "round_prefer_floor");
    a_.cubic_a = info.FloatOr("cubic_coeff_a", -0.75f);
    a_.exclude_outside = info.IntOr("exclude_outside", 0) != 0;
    a_.extrapolation = info.FloatOr("extrapolation_value", 0.0f);
    static const char* kCtm[] = {"half_pixel",         "asymmetric",         "align_corners",
                                 "pytorch_half_pixel", "tf_crop_and_resize", "tf_half_pixel_for_nn"};
    bool ok = false;
    for (const char* c : kCtm) ok = ok || a_.ctm == c;
    if (!ok) {
      return sdk::InvalidArgument(label_ + ": unknown coordinate_transformation_mode '" + a_.ctm +
                                  "'; expected half_pixel, asymmetric, align_corners, pytorch_half_pixel, "
                                  "tf_crop_and_resize or tf_half_pixel_for_nn");
    }
    if (a_.nearest_mode != "round_prefer_floor" && a_.nearest_mode != "round_prefer_ceil" && a_.nearest_mode != "floor" &&
        a_.nearest_mode != "ceil") {
      return sdk::InvalidArgument(label_ + ": unknown nearest_mode '" + a_.nearest_mode +
                                  "'; expected round_prefer_floor, round_prefer_ceil, floor or ceil");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    const size_t r = xs.size();
    if (r == 0) return sdk::InvalidArgument(label_ + ": input X must have rank >= 1; found a scalar");
    std::vector<double> scales, roi;
    std::vector<int64_t> sizes;
    Tensor ts, tz, tr;
    if (upsample_ || ctx.num_inputs() == 2) {
      ts = ctx.Input(1);  // Upsample-9 / Resize-10: (X, scales)
    } else {
      tr = ctx.Input(1);
      ts = ctx.Input(2);
      tz = ctx.Input(3);
    }
    if (ts.present() && ts.num_elements() > 0) {
      if (!ReadDoubles(ts, &scales)) return sdk::InvalidArgument(label_ + ": input scales must be float");
    } else if (upsample_ && !ts.present()) {
      scales.assign(scales_attr_.begin(), scales_attr_.end());
    }
    if (tz.present() && tz.num_elements() > 0 && !ReadInts(tz, &sizes)) {
      return sdk::InvalidArgument(label_ + ": input sizes must be int64");
    }
    if (scales.empty() == sizes.empty()) {
      return sdk::InvalidArgument(label_ + ": exactly one of scales and sizes must be given (non-empty); found " +
                                  (scales.empty() ? "neither" : "both"));
    }
    const size_t given = scales.empty() ? sizes.size() : scales.size();
    if (given != r) {
      return sdk::InvalidArgument(label_ + ": input " + (scales.empty() ? "sizes" : "scales") + " must have " +
                                  std::to_string(r) + " values (X's rank); found " + std::to_string(given));
    }
    const bool crop = a_.ctm == "tf_crop_and_resize";
    if (crop) {
      if (!tr.present() || !ReadDoubles(tr, &roi) || roi.size() != 2 * r) {
        return sdk::InvalidArgument(label_ + ": tf_crop_and_resize needs input roi with " + std::to_string(2 * r) +
                                    " float values [starts..., ends...]; found " +
                                    (tr.present() ? ShapeStr(tr.shape()) : std::string("none")));
      }
    }
    std::vector<int64_t> ys(r);
    std::vector<double> scale(r), width(r);
    for (size_t k = 0; k < r; ++k) {
      const double extent = crop ? roi[r + k] - roi[k] : 1.0;
      if (!scales.empty()) {
        if (!(scales[k] > 0)) {
          return sdk::InvalidArgument(label_ + ": scales must be > 0; found " + std::to_string(scales[k]) + " at axis " +
                                      std::to_string(k));
        }
        scale[k] = scales[k];
        width[k] = static_cast<double>(xs[k]) * extent * scales[k];
        // An infinite scale (or roi extent), or an output dim past int64,
        // has no shape (and no int64 conversion).
        const double d = std::floor(width[k]);
        if (!std::isfinite(scales[k]) || !(d >= 0 && d < 9223372036854775808.0)) {
          return sdk::InvalidArgument(label_ + ": scales must be finite and > 0 with floor(dim * scale) in [0, 2^63); "
                                      "found " + std::to_string(scales[k]) + " for dim " + std::to_string(xs[k]) +
                                      " of axis " + std::to_string(k) +
                                      (crop ? " (roi extent " + std::to_string(extent) + ")" : std::string()));
        }
        ys[k] = static_cast<int64_t>(d);
        if (!crop) width[k] = static_cast<double>(xs[k]) * scales[k];
      } else {
        if (sizes[k] < 0) return sdk::InvalidArgument(label_ + ": sizes must be >= 0; found " + ShapeStr(sizes));
        ys[k] = sizes[k];
        scale[k] = xs[k] > 0 ? static_cast<double>(sizes[k]) / static_cast<double>(xs[k]) : 1.0;
        width[k] = static_cast<double>(sizes[k]);
      }
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    if (x.num_elements() == 0) {
      return sdk::InvalidArgument(label_ + ": cannot resize the empty X " + ShapeStr(xs) + " to " + ShapeStr(ys));
    }
    std::vector<AxisPlan> plans(r);
    for (size_t k = 0; k < r; ++k) {
      plans[k] = PlanAxis(a_, xs[k], ys[k], scale[k], width[k], crop ? roi[k] : 0.0, crop ? roi[r + k] : 1.0);
    }
    const int threads = ctx.num_threads();
    const LoomDataType dt = x.dtype();
    if (a_.mode == Mode::kNearest) {
      return DispatchNumericOrBool<uint8_t>(dt, label_, [&](auto tag) -> Status {
        GatherNearest<decltype(tag)>(x, y, plans, a_.extrapolation, threads);
        return Status::Ok();
      });
    }
    return DispatchNumeric(dt, label_, [&](auto tag) -> Status {
      Interpolate<decltype(tag)>(x, y, plans, a_.extrapolation, threads);
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  bool upsample_ = false;
  ResizeAttrs a_;
  std::vector<float> scales_attr_;
};

}  // namespace

sdk::Status RegisterTensorResizeUpsampleKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> numeric = {
      LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_INT8,
      LOOM_DTYPE_INT16, LOOM_DTYPE_INT32,  LOOM_DTYPE_INT64,   LOOM_DTYPE_UINT8,    LOOM_DTYPE_UINT16,
      LOOM_DTYPE_UINT32, LOOM_DTYPE_UINT64};
  std::vector<LoomDataType> all = numeric;
  all.push_back(LOOM_DTYPE_BOOL);
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ResizeKernel>(
      "Resize", {"CPU", "", 0, {{"T1", numeric}, {"T2", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16,
                                                           LOOM_DTYPE_BFLOAT16}}}}));
  return reg.Kernel<ResizeKernel>("Upsample", {"CPU", "", 0, {{"T", all}}});
}

}  // namespace cpu
}  // namespace loom
