// Schemas of Resize (ONNX opsets 10, 11 and 13) and Upsample (opset 9,
// deprecated). Shape inference is lenient: what it cannot derive
// (non-constant scales/sizes) is left unknown and the kernel reports the
// error.
#include <cmath>
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"

namespace loom {
namespace ops {
namespace {

// Float values of a float/double tensor; false for other dtypes.
bool ReadFloats(const sdk::Tensor& t, std::vector<double>* out) {
  out->clear();
  const int64_t n = t.num_elements();
  if (t.dtype() == LOOM_DTYPE_FLOAT) {
    for (int64_t i = 0; i < n; ++i) out->push_back(t.data<float>()[i]);
    return true;
  }
  if (t.dtype() == LOOM_DTYPE_DOUBLE) {
    for (int64_t i = 0; i < n; ++i) out->push_back(t.data<double>()[i]);
    return true;
  }
  return false;
}

// Resize / Upsample: Y's shape from constant `sizes`, or floor(D * scale)
// from constant scales (Resize-10's and Upsample's scales are input 1;
// Resize-11/13's input 2, Resize-11/13's sizes input 3).
LoomStatus* ResizeInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> x;
  if (!ctx.InputShape(0, &x)) return nullptr;
  const sdk::KernelInfo info = ctx.info();
  const bool upsample = info.op_type() == "Upsample";
  if (!upsample && ctx.num_inputs() >= 4) {
    sdk::Tensor sizes = ctx.InputConstant(3);
    if (sizes.present() && sizes.num_elements() > 0) {
      if (sizes.dtype() != LOOM_DTYPE_INT64 || sizes.num_elements() != static_cast<int64_t>(x.size())) return nullptr;
      const int64_t* s = sizes.data<int64_t>();
      ctx.SetOutputShape(0, std::vector<int64_t>(s, s + x.size()));
      return nullptr;
    }
  }
  std::vector<double> scales;
  const bool scales_attr = upsample && ctx.num_inputs() < 2;
  if (scales_attr) {
    for (float f : info.FloatsOr("scales", {})) scales.push_back(f);
  } else {
    const size_t idx = (upsample || ctx.num_inputs() == 2) ? 1 : 2;
    if (idx >= ctx.num_inputs()) return nullptr;
    sdk::Tensor t = ctx.InputConstant(idx);
    if (!t.present() || !ReadFloats(t, &scales)) return nullptr;
  }
  if (scales.size() != x.size()) return nullptr;
  // tf_crop_and_resize scales the roi's extent (not known here).
  if (info.StringOr("coordinate_transformation_mode", "") == "tf_crop_and_resize") return nullptr;
  std::vector<int64_t> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (!(scales[i] > 0)) return nullptr;  // the kernel reports it
    // An infinite scale, or one that takes the dim past int64, has no
    // output shape (and no int64 conversion).
    const double d = std::floor(static_cast<double>(x[i]) * scales[i]);
    if (!std::isfinite(scales[i]) || !(d < 9223372036854775808.0)) {
      return sdk::InvalidArgument(std::string(scales_attr ? "attribute" : "input") +
                                  " 'scales' must be finite and > 0 with floor(dim * scale) below 2^63; found " +
                                  std::to_string(scales[i]) + " for dim " + std::to_string(x[i]) + " of axis " +
                                  std::to_string(i))
          .release();
    }
    out[i] = static_cast<int64_t>(d);
  }
  ctx.SetOutputShape(0, out);
  return nullptr;
}

}  // namespace

sdk::Status RegisterTensorResizeUpsampleSchemas(sdk::Registrar& reg) {
  return RegisterOps(reg, {
      {"Resize", 13,
       "ONNX Resize-13 (also the Resize-10 form Resize(X, scales) and Resize-11's tf_half_pixel_for_nn): "
       "resizes X to `sizes`, or to floor(D * scale) per axis, by nearest / linear / cubic interpolation, one axis "
       "at a time, with the coordinate_transformation_mode mapping output to input coordinates.",
       {"X:T1|any rank",
        "roi:T2?|[starts..., ends...] normalized, used by tf_crop_and_resize (Resize-10: this slot holds scales)",
        "scales:tensor(float)?|one scale per axis (empty when sizes is given)",
        "sizes:tensor(int64)?|output shape (instead of scales)"},
       {"Y:T1|X resized"}, {{"T1", NumericTypes()}, {"T2", FloatTypes()}},
       {"mode:string=nearest|nearest, linear or cubic",
        "coordinate_transformation_mode:string=half_pixel|half_pixel, asymmetric, align_corners, "
        "pytorch_half_pixel, tf_crop_and_resize or tf_half_pixel_for_nn (Resize-11)",
        "nearest_mode:string=round_prefer_floor|round_prefer_floor, round_prefer_ceil, floor or ceil",
        "cubic_coeff_a:float=-0.75|the cubic kernel's A",
        "exclude_outside:int=0|nonzero: taps outside X get weight 0 and the rest are renormalized",
        "extrapolation_value:float=0|tf_crop_and_resize: value of outputs mapped outside X"},
       &ResizeInfer},
      {"Upsample", 9,
       "ONNX Upsample-9 (deprecated): Y = X resized to floor(D * scale) per axis, nearest (floor of the asymmetric "
       "source coordinate) or linear (asymmetric coordinates). Upsample-7's scales attribute is accepted.",
       {"X:T|any rank", "scales:tensor(float)?|one scale >= 1 per axis (Upsample-9)"}, {"Y:T|X upsampled"},
       {{"T", AllTypes()}},
       {"mode:string=nearest|nearest or linear (bilinear accepted as linear)",
        "scales:floats?|Upsample-7: one scale per axis (when there is no scales input)"},
       &ResizeInfer},
  });
}

}  // namespace ops
}  // namespace loom
