// Schemas of the detection post-processing ops: NonMaxSuppression (ONNX
// opset 11).
#include <cstdint>
#include <vector>

#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// selected_indices: int64 [num_selected, 3]; num_selected is known only
// when the kernel runs.
sdk::Status InferNonMaxSuppression(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterDetectionSchemas(sdk::Registrar& reg) {
  return RegisterOps(
      reg, {{"NonMaxSuppression", 11,
             "ONNX NonMaxSuppression-11: per batch and class, the boxes whose score is above score_threshold, "
             "greedily by decreasing score (ties: the lower box index first), each dropping the later boxes whose "
             "intersection over union with it exceeds iou_threshold, at most max_output_boxes_per_class of them (0: "
             "none); a box of zero area overlaps nothing. Output rows (batch, class, box), batch then class then "
             "selection order (as ONNX Runtime).",
             {"boxes:tensor(float)|[num_batches, spatial_dimension, 4]: [y1, x1, y2, x2] (any diagonal corners), or "
              "[x_center, y_center, width, height] with center_point_box 1",
              "scores:tensor(float)|[num_batches, num_classes, spatial_dimension]",
              "max_output_boxes_per_class:tensor(int64)?|one element; default 0",
              "iou_threshold:tensor(float)?|one element in [0, 1]; default 0",
              "score_threshold:tensor(float)?|one element; default none (every box is a candidate)"},
             {"selected_indices:tensor(int64)|[num_selected, 3]"}, {},
             {"center_point_box:int=0|0: boxes are corners [y1, x1, y2, x2]; 1: [x_center, y_center, width, "
              "height]"},
             Fn<&InferNonMaxSuppression>()}});
}

}  // namespace ops
}  // namespace loom
