// ONNX linear quantization, one statement for every device: the element
// rules of QuantizeLinear-13, DequantizeLinear-13 and DynamicQuantizeLinear-11,
// the per-tensor or per-axis parameters they take, and the requantization of
// the integer ops of opset 10 (QLinearMatMul, QLinearConv):
//   q = saturate(round_half_even(x / scale) + zero_point)   into int8 or uint8
//   x = (q - zero_point) * scale
// x / scale is computed in float32, as the ONNX reference (numpy on float32
// arrays) does, so the rounding of a value on a .5 boundary matches it.
#ifndef LOOM_OPS_SEMANTICS_QUANTIZATION_H_
#define LOOM_OPS_SEMANTICS_QUANTIZATION_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"

namespace loom {
namespace semantics {

// v rounded to the nearest integer, ties to even (what nearbyint gives in
// the default rounding mode), for |v| below 2^22 (float) or 2^51 (double):
// adding and subtracting 1.5 * 2^23 (2^52) leaves no fraction bits, and the
// addition rounds ties to even. Inline arithmetic, where nearbyint is a
// libm call on x86-64 without SSE4.1: the per-element cost of requantizing
// a convolution's output. Callers clamp v first (values that large
// saturate anyway). Needs IEEE arithmetic as written: a file compiled with
// -ffast-math (-fassociative-math) may fold the pair away.
inline float RoundHalfEven(float v) {
  constexpr float kBig = 12582912.0f;
  return (v + kBig) - kBig;
}
inline double RoundHalfEven(double v) {
  constexpr double kBig = 6755399441055744.0;
  return (v + kBig) - kBig;
}

// round_half_even(v) + zero_point saturated to Q's range; NaN gives the
// zero point (ONNX leaves it undefined; ONNX Runtime does the same).
// Written without branches (selects), so that a loop of it vectorizes.
template <typename Q>
Q SaturateRounded(float v, int32_t zero_point) {
  v = v == v ? v : 0.0f;  // NaN
  v = v < -4194304.0f ? -4194304.0f : v;  // +-2^22: saturates below either way
  v = v > 4194304.0f ? 4194304.0f : v;
  float r = RoundHalfEven(v) + static_cast<float>(zero_point);
  const float lo = static_cast<float>(std::numeric_limits<Q>::min()), hi = static_cast<float>(std::numeric_limits<Q>::max());
  r = r < lo ? lo : r;
  r = r > hi ? hi : r;
  return static_cast<Q>(static_cast<int32_t>(r));
}

template <typename Q>
Q QuantizeValue(float x, float scale, int32_t zero_point) {
  return SaturateRounded<Q>(x / scale, zero_point);
}

template <typename Q>
float DequantizeValue(Q q, float scale, int32_t zero_point) {
  return static_cast<float>(static_cast<int32_t>(q) - zero_point) * scale;
}

// How the scale and zero point of QuantizeLinear/DequantizeLinear apply to
// X: per tensor (one element each) or per axis (1-D of X.dim(axis)
// elements), viewed as X [outer, channels, inner] with parameter c for
// channel c.
struct QuantAxis {
  int64_t outer = 1, channels = 1, inner = 1;
  bool per_axis = false;

  // From X's shape, the scale's and (if present) zero point's shapes and
  // the `axis` attribute (negative counts from the end). INVALID_ARGUMENT,
  // naming `label`, for a scale that is neither one element nor 1-D of
  // X.dim(axis), a zero point of another shape, or an axis out of range.
  sdk::Status Resolve(const std::string& label, const std::vector<int64_t>& xs, const std::vector<int64_t>& scale,
                      const std::vector<int64_t>* zero_point, int64_t axis) {
    int64_t n = 1, s = 1;
    for (int64_t d : xs) n *= d;
    for (int64_t d : scale) s *= d;
    if (zero_point != nullptr && *zero_point != scale) {
      int64_t z = 1;
      for (int64_t d : *zero_point) z *= d;
      if (!(z == 1 && s == 1)) {
        return sdk::InvalidArgument(label + ": the zero point's shape " + ShapeStr(*zero_point) +
                                    " differs from the scale's " + ShapeStr(scale));
      }
    }
    if (scale.size() <= 1 && s == 1) {
      per_axis = false;
      outer = 1;
      channels = 1;
      inner = n;
      return sdk::Status::Ok();
    }
    const int64_t r = static_cast<int64_t>(xs.size());
    if (axis < -r || axis >= r) {
      return sdk::InvalidArgument(label + ": axis " + std::to_string(axis) + " is out of range for X " + ShapeStr(xs));
    }
    if (axis < 0) axis += r;
    if (scale.size() != 1 || scale[0] != xs[static_cast<size_t>(axis)]) {
      return sdk::InvalidArgument(label + ": the scale must be one element (per tensor) or 1-D of X.dim(axis) = " +
                                  std::to_string(xs[static_cast<size_t>(axis)]) + " elements (per axis " +
                                  std::to_string(axis) + "); found " + ShapeStr(scale));
    }
    per_axis = true;
    outer = 1;
    inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= xs[static_cast<size_t>(i)];
    for (int64_t i = axis + 1; i < r; ++i) inner *= xs[static_cast<size_t>(i)];
    channels = xs[static_cast<size_t>(axis)];
    return sdk::Status::Ok();
  }
};

// DynamicQuantizeLinear-11's parameters for uint8 over values in [lo, hi]
// (X's min and max): the range is widened to include 0, scale = (max -
// min) / 255 (in double, then float32) and zero point = round_half_even(
// clip(-min / scale, 0, 255)). All-zero input (scale 0) gives scale 0 and
// zero point 0, whose quantized values are all 0 (ONNX divides by zero
// there; ONNX Runtime gives these).
struct DynamicQuantParams {
  float scale = 0;
  uint8_t zero_point = 0;
};

inline DynamicQuantParams DynamicUint8Params(float lo, float hi) {
  const double min = std::min(0.0, static_cast<double>(lo)), max = std::max(0.0, static_cast<double>(hi));
  DynamicQuantParams p;
  p.scale = static_cast<float>((max - min) / 255.0);
  if (p.scale == 0.0f) return p;
  const double zp = std::nearbyint(std::min(255.0, std::max(0.0, -min / static_cast<double>(p.scale))));
  p.zero_point = static_cast<uint8_t>(zp);
  return p;
}

// QLinearMatMul/QLinearConv: an int32 accumulator (of zero-point-corrected
// products, bias added) to the output's quantized type: acc * multiplier,
// rounded half to even, plus the output's zero point, saturated; the
// multiplier a_scale * b_scale / y_scale is formed in double.
inline double RequantizeMultiplier(float a_scale, float b_scale, float y_scale) {
  return static_cast<double>(a_scale) * static_cast<double>(b_scale) / static_cast<double>(y_scale);
}

// Clamps written as selects, which compile to minsd/maxsd: a convolution's
// outputs saturate often and unpredictably, and branches cost more.
inline double Clamp(double v, double lo, double hi) {
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

template <typename Q>
Q Requantize(int32_t acc, double multiplier, int32_t zero_point) {
  const double v = Clamp(static_cast<double>(acc) * multiplier, -1e15, 1e15);  // saturates either way
  const double r = RoundHalfEven(v) + zero_point;
  return static_cast<Q>(Clamp(r, std::numeric_limits<Q>::min(), std::numeric_limits<Q>::max()));
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_QUANTIZATION_H_
