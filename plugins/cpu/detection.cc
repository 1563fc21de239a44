// NonMaxSuppression-11 (ops/detection.cc): per batch and class, greedy
// selection by decreasing score with intersection-over-union suppression,
// as ONNX Runtime computes it (its rules for ties, thresholds and
// zero-area boxes).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

// A box as its corners, y1 <= y2 and x1 <= x2.
struct Corners {
  float y1, x1, y2, x2;
};

Corners ToCorners(const float* b, bool center_point) {
  if (center_point) {  // [x_center, y_center, width, height]
    const float hw = b[2] / 2, hh = b[3] / 2;
    return {b[1] - hh, b[0] - hw, b[1] + hh, b[0] + hw};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

// Whether a and b overlap by more than `threshold` (intersection over
// union); a box of no area overlaps nothing.
bool Suppresses(const Corners& a, const Corners& b, float threshold) {
  const float area_a = (a.y2 - a.y1) * (a.x2 - a.x1), area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
  if (area_a <= 0 || area_b <= 0) return false;
  const float h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1), w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (h <= 0 || w <= 0) return false;
  const float inter = h * w;
  return inter / (area_a + area_b - inter) > threshold;
}

class NonMaxSuppressionKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    const int64_t c = info.IntOr("center_point_box", 0);
    if (c != 0 && c != 1) return sdk::InvalidArgument(label_ + ": center_point_box must be 0 or 1; found " + std::to_string(c));
    center_point_ = c == 1;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor boxes = ctx.Input(0), scores = ctx.Input(1), y;
    const std::vector<int64_t> bs = boxes.shape(), ss = scores.shape();
    if (bs.size() != 3 || bs[2] != 4 || ss.size() != 3 || ss[0] != bs[0] || ss[2] != bs[1]) {
      return sdk::InvalidArgument(label_ + ": boxes must be [num_batches, spatial_dimension, 4] and scores "
                                  "[num_batches, num_classes, spatial_dimension]; found boxes " + ShapeStr(bs) +
                                  ", scores " + ShapeStr(ss));
    }
    int64_t max_out = 0;
    float iou = 0, score_min = 0;
    bool has_score_min = false;
    LOOM_SDK_RETURN_IF_ERROR(Scalar(ctx.Input(2), "max_output_boxes_per_class", &max_out));
    LOOM_SDK_RETURN_IF_ERROR(Scalar(ctx.Input(3), "iou_threshold", &iou));
    const Tensor st = ctx.Input(4);
    if (st.present()) {
      LOOM_SDK_RETURN_IF_ERROR(Scalar(st, "score_threshold", &score_min));
      has_score_min = true;
    }
    if (!(iou >= 0 && iou <= 1)) {
      return sdk::InvalidArgument(label_ + ": iou_threshold must be in [0, 1]; found " + std::to_string(iou));
    }
    const int64_t B = bs[0], S = bs[1], C = ss[1];
    std::vector<int64_t> selected;  // (batch, class, box) triples
    std::vector<Corners> corners(static_cast<size_t>(S));
    std::vector<int64_t> order, kept;
    for (int64_t b = 0; b < B && max_out > 0; ++b) {
      for (int64_t s = 0; s < S; ++s) corners[s] = ToCorners(boxes.data<float>() + (b * S + s) * 4, center_point_);
      for (int64_t c = 0; c < C; ++c) {
        const float* sc = scores.data<float>() + (b * C + c) * S;
        order.clear();
        for (int64_t s = 0; s < S; ++s) {
          if (!has_score_min || sc[s] > score_min) order.push_back(s);
        }
        // Decreasing score; equal scores: the lower index first.
        std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return sc[i] > sc[j]; });
        kept.clear();
        for (int64_t s : order) {
          if (static_cast<int64_t>(kept.size()) >= max_out) break;
          bool suppressed = false;
          for (int64_t k : kept) {
            if (Suppresses(corners[k], corners[s], iou)) {
              suppressed = true;
              break;
            }
          }
          if (suppressed) continue;
          kept.push_back(s);
          selected.insert(selected.end(), {b, c, s});
        }
      }
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT64, {static_cast<int64_t>(selected.size() / 3), 3}, &y));
    std::copy(selected.begin(), selected.end(), y.data<int64_t>());
    return Status::Ok();
  }

 private:
  // An optional one-element input (absent: *out stays the default).
  template <typename T>
  Status Scalar(const Tensor& t, const char* name, T* out) const {
    if (!t.present()) return Status::Ok();
    if (t.num_elements() != 1) {
      return sdk::InvalidArgument(label_ + ": input " + name + " must have one element; found " + ShapeStr(t.shape()));
    }
    *out = t.data<T>()[0];
    return Status::Ok();
  }

  std::string label_;
  bool center_point_ = false;
};

}  // namespace

Status RegisterDetectionKernels(sdk::Registrar& reg) {
  return reg.Kernel<NonMaxSuppressionKernel>("NonMaxSuppression", {"CPU", "", 0, {}});
}

}  // namespace cpu
}  // namespace loom
