// RoiAlign-16 kernel (ops/detection_roi_align.cc; sampling rules in
// ops/semantics/roi_align.h): per region and channel, the row and column
// sampling points found once, each bin the average or maximum of its
// points' bilinear interpolations. Float dtypes, computed in float
// (float16, bfloat16) or the dtype itself; parallel over (region,
// channel).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/semantics/roi_align.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

using semantics::RoiAlignAttrs;

class RoiAlignKernel : public semantics::AttrsKernel<RoiAlignAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), rois = ctx.Input(1), idx = ctx.Input(2), y;
    std::vector<int64_t> ys;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.OutputShape(label_, x.shape(), rois.shape(), idx.shape(), &ys));
    if (rois.dtype() != x.dtype()) {
      return sdk::InvalidArgument(label_ + ": input 'rois' must have X's dtype " + sdk::DTypeName(x.dtype()) +
                                  "; found " + sdk::DTypeName(rois.dtype()));
    }
    if (idx.dtype() != LOOM_DTYPE_INT64) {
      return sdk::InvalidArgument(label_ + ": input 'batch_indices' must be int64; found " +
                                  sdk::DTypeName(idx.dtype()));
    }
    const int64_t N = x.dim(0), R = ys[0];
    const int64_t* batch = idx.data<int64_t>();
    for (int64_t r = 0; r < R; ++r) {
      if (batch[r] < 0 || batch[r] >= N) {
        return sdk::InvalidArgument(label_ + ": batch_indices[" + std::to_string(r) + "] = " +
                                    std::to_string(batch[r]) + " is outside [0, " + std::to_string(N) + ")");
      }
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    return DispatchFloat(x.dtype(), label_,
                         [&](auto tag) -> Status { return Run<decltype(tag)>(ctx, x, rois, batch, y); });
  }

 private:
  template <typename T>
  Status Run(KernelContext& ctx, const Tensor& x, const Tensor& rois, const int64_t* batch, Tensor& y) {
    using Cm = typename Num<T>::C;
    const int64_t R = y.dim(0), C = y.dim(1), OH = attrs_.output_height, OW = attrs_.output_width;
    const int64_t H = x.dim(2), W = x.dim(3);
    // Each region's axes (finite[r] false: its coordinates are not finite
    // after scaling, its outputs are NaN).
    std::vector<semantics::RoiAxis<Cm>> ay(static_cast<size_t>(R)), ax(static_cast<size_t>(R));
    std::vector<char> finite(static_cast<size_t>(R));
    const T* rp = rois.data<T>();
    using semantics::RoiAxisResult;
    for (int64_t r = 0; r < R; ++r) {
      const Cm x1 = Num<T>::Load(rp[4 * r]), y1 = Num<T>::Load(rp[4 * r + 1]);
      const Cm x2 = Num<T>::Load(rp[4 * r + 2]), y2 = Num<T>::Load(rp[4 * r + 3]);
      const RoiAxisResult ry = semantics::RoiAlignAxis(attrs_, y1, y2, OH, &ay[r]);
      const RoiAxisResult rx = semantics::RoiAlignAxis(attrs_, x1, x2, OW, &ax[r]);
      finite[r] = ry != RoiAxisResult::kNotFinite && rx != RoiAxisResult::kNotFinite;
      if (finite[r] && (ry == RoiAxisResult::kTooManyPoints || rx == RoiAxisResult::kTooManyPoints)) {
        return sdk::InvalidArgument(label_ + ": region " + std::to_string(r) + " needs more than " +
                                    std::to_string(semantics::kRoiAlignMaxGrid) +
                                    " sampling points per bin along an axis (sampling_ratio 0); set sampling_ratio");
      }
    }
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    const int64_t bins = OH * OW;
    const int64_t cost = bins * (R > 0 ? ay[0].grid * ax[0].grid : 1) * 4;
    ParallelFor(R * C, ctx.num_threads(), [&](int64_t rc) {
      const int64_t r = rc / C, c = rc % C;
      T* out = yp + rc * bins;
      if (!finite[r]) {
        for (int64_t i = 0; i < bins; ++i) out[i] = Num<T>::Store(std::numeric_limits<Cm>::quiet_NaN());
        return;
      }
      std::vector<semantics::RoiSample<Cm>> rows, cols;
      semantics::RoiAlignSamples(ay[r], OH, H, &rows);
      semantics::RoiAlignSamples(ax[r], OW, W, &cols);
      const int64_t gh = ay[r].grid, gw = ax[r].grid;
      const T* plane = xp + (batch[r] * C + c) * H * W;
      for (int64_t ph = 0; ph < OH; ++ph) {
        for (int64_t pw = 0; pw < OW; ++pw) {
          Cm acc = attrs_.max ? -std::numeric_limits<Cm>::infinity() : Cm(0);
          for (int64_t iy = 0; iy < gh; ++iy) {
            const semantics::RoiSample<Cm>& sy = rows[ph * gh + iy];
            for (int64_t ix = 0; ix < gw; ++ix) {
              const semantics::RoiSample<Cm>& sx = cols[pw * gw + ix];
              Cm v = 0;
              if (sy.inside && sx.inside) {
                const T* lo = plane + sy.lo * W;
                const T* hi = plane + sy.hi * W;
                v = sy.w_lo * (sx.w_lo * Num<T>::Load(lo[sx.lo]) + sx.w_hi * Num<T>::Load(lo[sx.hi])) +
                    sy.w_hi * (sx.w_lo * Num<T>::Load(hi[sx.lo]) + sx.w_hi * Num<T>::Load(hi[sx.hi]));
              }
              // NaN wins the maximum as it spoils the average.
              acc = attrs_.max ? ((v > acc || std::isnan(v)) && !std::isnan(acc) ? v : acc) : acc + v;
            }
          }
          if (!attrs_.max) acc /= static_cast<Cm>(gh * gw);
          out[ph * OW + pw] = Num<T>::Store(acc);
        }
      }
    }, cost);
    return Status::Ok();
  }
};

}  // namespace

Status RegisterDetectionRoiAlignKernels(sdk::Registrar& reg) {
  return reg.Kernel<RoiAlignKernel>("RoiAlign", {"CPU", "", 0, {}});
}

}  // namespace cpu
}  // namespace loom
