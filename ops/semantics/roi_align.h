// ONNX RoiAlign-16's rules, shared by the schema (attribute and shape
// checks) and every device's kernel: the attributes read and checked once,
// the output shape, and where each region's sampling points fall and how
// each is bilinearly interpolated (the Mask R-CNN / Detectron rules ONNX
// RoiAlign-16 describes). One axis at a time: a point's value is the
// product of its row's and its column's weights.
#ifndef LOOM_OPS_SEMANTICS_ROI_ALIGN_H_
#define LOOM_OPS_SEMANTICS_ROI_ALIGN_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"

namespace loom {
namespace semantics {

// Most sampling points per bin along one axis (the attribute sampling_ratio,
// or ceil(region size / bins) when it is 0); a region needing more is an
// error.
inline constexpr int64_t kRoiAlignMaxGrid = int64_t{1} << 20;

struct RoiAlignAttrs {
  bool half_pixel = true;  // coordinate_transformation_mode half_pixel (else output_half_pixel)
  bool max = false;        // mode max (else avg)
  int64_t output_height = 1, output_width = 1, sampling_ratio = 0;
  float spatial_scale = 1.0f;

  // coordinate_transformation_mode half_pixel or output_half_pixel; mode
  // avg or max; output_height and output_width >= 1; sampling_ratio in
  // [0, kRoiAlignMaxGrid]; spatial_scale finite. INVALID_ARGUMENT names
  // the op and the attribute.
  sdk::Status Read(const sdk::KernelInfo& info) {
    const std::string label = OpLabel(info);
    const std::string ctm = info.StringOr("coordinate_transformation_mode", "half_pixel");
    if (ctm == "half_pixel") half_pixel = true;
    else if (ctm == "output_half_pixel") half_pixel = false;
    else {
      return sdk::InvalidArgument(label + ": attribute 'coordinate_transformation_mode' must be half_pixel or "
                                  "output_half_pixel; found '" + ctm + "'");
    }
    const std::string m = info.StringOr("mode", "avg");
    if (m == "avg") max = false;
    else if (m == "max") max = true;
    else return sdk::InvalidArgument(label + ": attribute 'mode' must be avg or max; found '" + m + "'");
    output_height = info.IntOr("output_height", 1);
    output_width = info.IntOr("output_width", 1);
    sampling_ratio = info.IntOr("sampling_ratio", 0);
    spatial_scale = info.FloatOr("spatial_scale", 1.0f);
    if (output_height < 1 || output_width < 1) {
      return sdk::InvalidArgument(label + ": attributes 'output_height' and 'output_width' must be >= 1; found " +
                                  std::to_string(output_height) + " and " + std::to_string(output_width));
    }
    if (sampling_ratio < 0 || sampling_ratio > kRoiAlignMaxGrid) {
      return sdk::InvalidArgument(label + ": attribute 'sampling_ratio' must be in [0, " +
                                  std::to_string(kRoiAlignMaxGrid) + "]; found " + std::to_string(sampling_ratio));
    }
    if (!std::isfinite(spatial_scale)) {
      return sdk::InvalidArgument(label + ": attribute 'spatial_scale' must be finite; found " +
                                  std::to_string(spatial_scale));
    }
    return sdk::Status::Ok();
  }

  // Y's shape [num_rois, C, output_height, output_width] from X [N, C, H,
  // W], rois [num_rois, 4] and batch_indices [num_rois]; INVALID_ARGUMENT
  // (naming `label` and the input) otherwise.
  sdk::Status OutputShape(const std::string& label, const std::vector<int64_t>& x, const std::vector<int64_t>& rois,
                          const std::vector<int64_t>& batch_indices, std::vector<int64_t>* out) const {
    if (x.size() != 4) {
      return sdk::InvalidArgument(label + ": input 'X' must be 4-D [N, C, H, W]; found " + ShapeStr(x));
    }
    if (rois.size() != 2 || rois[1] != 4) {
      return sdk::InvalidArgument(label + ": input 'rois' must be [num_rois, 4]; found " + ShapeStr(rois));
    }
    if (batch_indices.size() != 1 || batch_indices[0] != rois[0]) {
      return sdk::InvalidArgument(label + ": input 'batch_indices' must be [num_rois] = [" + std::to_string(rois[0]) +
                                  "]; found " + ShapeStr(batch_indices));
    }
    *out = {rois[0], x[1], output_height, output_width};
    return sdk::Status::Ok();
  }
};

// One axis of a region: where it starts in X's pixel coordinates, its
// extent, and the sampling points per bin.
template <typename C>
struct RoiAxis {
  C start = 0, size = 0;
  int64_t grid = 1;
};

// The axis from x1 to x2 (rois' coordinates) over `bins` output bins:
// start = x1 * spatial_scale - offset and size = (x2 - x1) * spatial_scale,
// offset 0.5 for half_pixel and 0 for output_half_pixel, which also makes
// the size at least 1 (the legacy rule). grid = sampling_ratio, or
// ceil(size / bins) when 0, and at least 1. kNotFinite or kTooManyPoints
// (grid past kRoiAlignMaxGrid) set nothing.
enum class RoiAxisResult { kOk, kNotFinite, kTooManyPoints };
template <typename C>
inline RoiAxisResult RoiAlignAxis(const RoiAlignAttrs& a, C x1, C x2, int64_t bins, RoiAxis<C>* ax) {
  const C offset = a.half_pixel ? C(0.5) : C(0);
  const C scale = static_cast<C>(a.spatial_scale);
  const C start = x1 * scale - offset, end = x2 * scale - offset;
  C size = end - start;
  if (!a.half_pixel) size = std::max(size, C(1));
  if (!std::isfinite(start) || !std::isfinite(size)) return RoiAxisResult::kNotFinite;
  int64_t grid = a.sampling_ratio;
  if (grid == 0) {
    const C g = std::ceil(size / static_cast<C>(bins));
    if (g > static_cast<C>(kRoiAlignMaxGrid)) return RoiAxisResult::kTooManyPoints;
    grid = g < 1 ? 1 : static_cast<int64_t>(g);
  }
  *ax = {start, size, grid};
  return RoiAxisResult::kOk;
}

// One sampling point along an axis of `extent` pixels: it reads pixels lo
// and hi with weights w_lo and w_hi, or nothing (reads 0) when !inside.
template <typename C>
struct RoiSample {
  int64_t lo = 0, hi = 0;
  C w_lo = 0, w_hi = 0;
  bool inside = false;
};

// The sampling points of every bin of the axis: bin b's point i (of grid)
// is at start + b * bin + (i + 0.5) * bin / grid, bin = size / bins. A
// point before -1 or past `extent` reads 0; others are clamped at 0 and
// interpolate between floor(p) and floor(p) + 1, or read the last pixel
// alone from extent - 1 on. out[b * grid + i].
template <typename C>
inline void RoiAlignSamples(const RoiAxis<C>& ax, int64_t bins, int64_t extent, std::vector<RoiSample<C>>* out) {
  out->assign(static_cast<size_t>(bins * ax.grid), RoiSample<C>{});
  const C bin = ax.size / static_cast<C>(bins);
  for (int64_t b = 0; b < bins; ++b) {
    for (int64_t i = 0; i < ax.grid; ++i) {
      C p = ax.start + static_cast<C>(b) * bin + (static_cast<C>(i) + C(0.5)) * bin / static_cast<C>(ax.grid);
      RoiSample<C>& s = (*out)[b * ax.grid + i];
      if (extent <= 0 || p < C(-1) || p > static_cast<C>(extent)) continue;
      if (p < 0) p = 0;
      s.inside = true;
      s.lo = static_cast<int64_t>(p);
      if (s.lo >= extent - 1) {
        s.lo = s.hi = extent - 1;
        p = static_cast<C>(s.lo);
      } else {
        s.hi = s.lo + 1;
      }
      s.w_hi = p - static_cast<C>(s.lo);
      s.w_lo = 1 - s.w_hi;
    }
  }
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_ROI_ALIGN_H_
