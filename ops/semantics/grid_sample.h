// ONNX GridSample-16's rules, shared by the schema (attribute and shape
// checks) and every device's kernel: the attributes read and checked once,
// the output shape, and the coordinate math: grid values to pixel
// coordinates, border and reflection padding, the cubic convolution
// weights. ONNX GridSample-16 refers to torch.nn.functional.grid_sample,
// whose definitions these follow (written here from that documentation).
#ifndef LOOM_OPS_SEMANTICS_GRID_SAMPLE_H_
#define LOOM_OPS_SEMANTICS_GRID_SAMPLE_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"

namespace loom {
namespace semantics {

struct GridSampleAttrs {
  enum Mode { kBilinear, kNearest, kBicubic } mode = kBilinear;
  enum Padding { kZeros, kBorder, kReflection } padding = kZeros;
  bool align_corners = false;

  // mode bilinear, nearest or bicubic; padding_mode zeros, border or
  // reflection; align_corners 0 or 1. INVALID_ARGUMENT names the op and
  // the attribute.
  sdk::Status Read(const sdk::KernelInfo& info) {
    const std::string label = OpLabel(info);
    const std::string m = info.StringOr("mode", "bilinear");
    if (m == "bilinear") mode = kBilinear;
    else if (m == "nearest") mode = kNearest;
    else if (m == "bicubic") mode = kBicubic;
    else {
      return sdk::InvalidArgument(label + ": attribute 'mode' must be bilinear, nearest or bicubic; found '" + m +
                                  "'");
    }
    const std::string p = info.StringOr("padding_mode", "zeros");
    if (p == "zeros") padding = kZeros;
    else if (p == "border") padding = kBorder;
    else if (p == "reflection") padding = kReflection;
    else {
      return sdk::InvalidArgument(label + ": attribute 'padding_mode' must be zeros, border or reflection; found '" +
                                  p + "'");
    }
    const int64_t a = info.IntOr("align_corners", 0);
    if (a != 0 && a != 1) {
      return sdk::InvalidArgument(label + ": attribute 'align_corners' must be 0 or 1; found " + std::to_string(a));
    }
    align_corners = a == 1;
    return sdk::Status::Ok();
  }

  // Y's shape [N, C, H_out, W_out] from X [N, C, H_in, W_in] and grid
  // [N, H_out, W_out, 2]; INVALID_ARGUMENT (naming `label` and the input)
  // otherwise.
  static sdk::Status OutputShape(const std::string& label, const std::vector<int64_t>& x,
                                 const std::vector<int64_t>& grid, std::vector<int64_t>* out) {
    if (x.size() != 4) {
      return sdk::InvalidArgument(label + ": input 'X' must be 4-D [N, C, H_in, W_in]; found " + ShapeStr(x));
    }
    if (grid.size() != 4 || grid[3] != 2) {
      return sdk::InvalidArgument(label + ": input 'grid' must be [N, H_out, W_out, 2]; found " + ShapeStr(grid));
    }
    if (grid[0] != x[0]) {
      return sdk::InvalidArgument(label + ": input 'grid' must have X's batch size " + std::to_string(x[0]) +
                                  " as its dim 0; found " + ShapeStr(grid));
    }
    *out = {x[0], x[1], grid[1], grid[2]};
    return sdk::Status::Ok();
  }
};

// The pixel coordinate of normalized grid value g along an axis of `size`
// pixels: -1 and 1 are the centers of the edge pixels (align_corners) or
// their outer edges (x = ((g + 1) * size - 1) / 2).
template <typename C>
inline C GridUnnormalize(C g, int64_t size, bool align_corners) {
  const C s = static_cast<C>(size);
  return align_corners ? (g + 1) / 2 * (s - 1) : ((g + 1) * s - 1) / 2;
}

// x clamped into [0, size - 1] (NaN stays NaN).
template <typename C>
inline C GridClip(C x, int64_t size) {
  const C hi = static_cast<C>(size - 1);
  return x < 0 ? C(0) : (x > hi ? hi : x);
}

// x reflected at the axis' edges until inside, then clamped into
// [0, size - 1]: the edges are the centers of the edge pixels
// (align_corners: [0, size - 1]) or their outer edges ([-0.5, size - 0.5]).
// For size 1 with align_corners every x maps to 0. Infinite x gives NaN.
template <typename C>
inline C GridReflect(C x, int64_t size, bool align_corners) {
  const C lo = align_corners ? C(0) : C(-0.5);
  const C span = align_corners ? static_cast<C>(size - 1) : static_cast<C>(size);
  if (span <= 0) return C(0);
  const C d = std::fabs(x - lo);
  const C extra = std::fmod(d, span);
  const bool even = std::fmod(std::floor(d / span), C(2)) == 0;
  return GridClip(even ? lo + extra : lo + span - extra, size);
}

// The cubic convolution weights (A = -0.75) of the taps at floor(x) - 1,
// floor(x), floor(x) + 1 and floor(x) + 2 for t = x - floor(x) in [0, 1).
template <typename C>
inline void GridCubicWeights(C t, C w[4]) {
  const C A = C(-0.75);
  // |d| <= 1: ((A + 2)|d| - (A + 3))|d|^2 + 1; 1 < |d| < 2: A(|d|^3 - 5|d|^2 + 8|d| - 4).
  auto near = [&](C d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };
  auto far = [&](C d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_GRID_SAMPLE_H_
