// Schema of RoiAlign (ONNX opset 16, registered from opset 10): bilinear
// pooling of regions of interest (semantics::RoiAlignAttrs and the sampling
// rules in ops/semantics/roi_align.h).
#include <cstdint>
#include <vector>

#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/roi_align.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Y: X's dtype, [num_rois, C, output_height, output_width] once the input
// shapes are known; bad attributes and shapes are errors.
sdk::Status InferRoiAlign(sdk::InferenceContext& ctx) {
  semantics::RoiAlignAttrs attrs;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Read(ctx.info()));
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> x, rois, idx, y;
  if (!ctx.InputShape(0, &x) || !ctx.InputShape(1, &rois) || !ctx.InputShape(2, &idx)) return sdk::Status::Ok();
  LOOM_SDK_RETURN_IF_ERROR(attrs.OutputShape(ctx.info().op_type(), x, rois, idx, &y));
  ctx.SetOutputShape(0, y);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterDetectionRoiAlignSchemas(sdk::Registrar& reg) {
  return RegisterOps(
      reg,
      {{"RoiAlign", 10,
        "ONNX RoiAlign-16 (Mask R-CNN's RoI Align): Y[r, c] pools X[batch_indices[r], c] over region r, "
        "rois[r] = (x1, y1, x2, y2) times spatial_scale, split into output_height x output_width bins. Each bin "
        "has sampling_ratio x sampling_ratio points, evenly inside it (sampling_ratio 0: ceil(region height / "
        "output_height) by ceil(region width / output_width), at least 1), each bilinearly interpolated from its "
        "4 nearest pixels (a point more than 1 pixel outside X reads 0; points between -1 and 0, or past the "
        "last pixel, read the edge); the bin is their average (mode avg) or their maximum (mode max). "
        "coordinate_transformation_mode half_pixel shifts the region by -0.5 pixel; output_half_pixel does not, "
        "and makes regions at least 1 x 1 pixel (the legacy rule). Registered from opset 10: RoiAlign-10 has no "
        "coordinate_transformation_mode and behaves as output_half_pixel, which the ONNX importer states for "
        "a RoiAlign node of an opset-10 to 15 model. Mode "
        "max takes the maximum of the points' interpolated values, as the description says (ONNX Runtime and "
        "the ONNX reference implementation take the maximum of the 4 weighted pixel values of each point "
        "instead). A region with non-finite coordinates gives NaN.",
        {"X:T1|[N, C, H, W]", "rois:T1|[num_rois, 4]: (x1, y1, x2, y2) in the coordinates spatial_scale maps to X's",
         "batch_indices:T2|[num_rois], each in [0, N)"},
        {"Y:T1|[num_rois, C, output_height, output_width]"},
        {{"T1", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16}},
         {"T2", {LOOM_DTYPE_INT64}}},
        {"coordinate_transformation_mode:string=half_pixel|half_pixel (shift by -0.5) or output_half_pixel "
         "(opset 16)",
         "mode:string=avg|avg or max: how a bin pools its points", "output_height:int=1|Y's height, >= 1",
         "output_width:int=1|Y's width, >= 1",
         "sampling_ratio:int=0|points per bin along each axis, 0 to 2^20; 0: ceil(region extent / bins), at least 1 "
         "(a region needing more than 2^20 is an error)",
         "spatial_scale:float=1|factor from the rois' coordinates to X's pixels"},
        Fn<&InferRoiAlign>()}});
}

}  // namespace ops
}  // namespace loom
