// Schema of GridSample (ONNX opset 16): X sampled at the points of a
// normalized flow-field grid (semantics::GridSampleAttrs, as
// torch.nn.functional.grid_sample, which ONNX GridSample-16 refers to).
#include <cstdint>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/grid_sample.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Y: X's dtype, [N, C, H_out, W_out] once X's and grid's shapes are known;
// bad attributes and shapes are errors.
sdk::Status InferGridSample(sdk::InferenceContext& ctx) {
  semantics::GridSampleAttrs attrs;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Read(ctx.info()));
  ctx.SetOutputDType(0, ctx.InputDType(0));
  std::vector<int64_t> x, grid, y;
  if (!ctx.InputShape(0, &x) || !ctx.InputShape(1, &grid)) return sdk::Status::Ok();
  LOOM_SDK_RETURN_IF_ERROR(semantics::GridSampleAttrs::OutputShape(ctx.info().op_type(), x, grid, &y));
  ctx.SetOutputShape(0, y);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterTensorGridSampleSchemas(sdk::Registrar& reg) {
  return RegisterOps(
      reg,
      {{"GridSample", 16,
        "ONNX GridSample-16 (as torch.nn.functional.grid_sample, which it refers to): Y[n, c, h, w] is X[n, c] "
        "sampled at the point grid[n, h, w] = (x, y), x along W_in and y along H_in, normalized so that -1 and 1 "
        "are the centers of the edge pixels (align_corners 1: x_pix = (x + 1) / 2 * (W_in - 1)) or their outer "
        "edges (align_corners 0: x_pix = ((x + 1) * W_in - 1) / 2). mode bilinear: the 4 pixels around the point, "
        "weighted by distance; nearest: the pixel at the point rounded (halves to even); bicubic: the 4x4 pixels "
        "around it, weighted by the cubic convolution kernel with A = -0.75. padding_mode zeros: pixels outside X "
        "count as 0; border: bilinear and nearest clamp the point into [0, W_in - 1] x [0, H_in - 1], bicubic "
        "clamps each of its 16 taps; reflection: the point (bicubic: each tap) is reflected at the edges (the edge "
        "pixels' centers with align_corners 1, their outer edges with 0) until inside, then clamped. A NaN grid "
        "value gives NaN. Rank-4 X only (as opset 16); border and reflection need H_in, W_in >= 1.",
        {"X:T1|[N, C, H_in, W_in]", "grid:T2|[N, H_out, W_out, 2]: (x, y) points, normally in [-1, 1]"},
        {"Y:T1|[N, C, H_out, W_out]"},
        {{"T1", FloatTypes(), "ONNX allows any type; Loom interpolates float types"}, {"T2", FloatTypes()}},
        {"align_corners:int=0|1: -1 and 1 are the centers of the corner pixels; 0: their outer corners",
         "mode:string=bilinear|bilinear, nearest or bicubic",
         "padding_mode:string=zeros|zeros, border or reflection: what points (taps) outside X read"},
        Fn<&InferGridSample>()}});
}

}  // namespace ops
}  // namespace loom
