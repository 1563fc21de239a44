// GridSample-16 kernel (ops/tensor_grid_sample.cc; rules in
// ops/semantics/grid_sample.h, as torch.nn.functional.grid_sample): for
// each output point the taps (pixel offsets and weights: 1 nearest, 4
// bilinear, 16 bicubic) are found once and applied to every channel.
// Float dtypes, computed in float (float16, bfloat16) or the dtype itself;
// parallel over the output points.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/semantics/grid_sample.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

using semantics::GridSampleAttrs;

// The pixels one output point reads: offsets into an [H_in, W_in] plane
// and their weights (taps outside X under zeros padding are left out), or
// NaN when the point is.
template <typename C>
struct Taps {
  int count = 0;
  bool nan = false;
  int64_t offset[16];
  C weight[16];
  void Add(int64_t off, C w) {
    offset[count] = off;
    weight[count] = w;
    ++count;
  }
};

template <typename C>
class Sampler {
 public:
  Sampler(const GridSampleAttrs& a, int64_t h, int64_t w) : a_(a), h_(h), w_(w) {}

  // The taps of the point (gx, gy) of the grid.
  void Find(C gx, C gy, Taps<C>* t) const {
    t->count = 0;
    t->nan = false;
    C x = semantics::GridUnnormalize(gx, w_, a_.align_corners);
    C y = semantics::GridUnnormalize(gy, h_, a_.align_corners);
    if (a_.mode == GridSampleAttrs::kBicubic) return Bicubic(x, y, t);
    // Bilinear and nearest pad the point itself.
    if (a_.padding == GridSampleAttrs::kBorder) {
      x = semantics::GridClip(x, w_);
      y = semantics::GridClip(y, h_);
    } else if (a_.padding == GridSampleAttrs::kReflection) {
      x = semantics::GridReflect(x, w_, a_.align_corners);
      y = semantics::GridReflect(y, h_, a_.align_corners);
    }
    if (std::isnan(x) || std::isnan(y)) {
      t->nan = true;
      return;
    }
    // Zeros padding: a point this far out reads nothing either way; the
    // clamp keeps floor() within int64.
    x = Bound(x, w_);
    y = Bound(y, h_);
    if (a_.mode == GridSampleAttrs::kNearest) {
      const int64_t xi = static_cast<int64_t>(std::nearbyint(x)), yi = static_cast<int64_t>(std::nearbyint(y));
      if (Inside(xi, w_) && Inside(yi, h_)) t->Add(yi * w_ + xi, C(1));
      return;
    }
    const C fx = std::floor(x), fy = std::floor(y);
    const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
    const C tx = x - fx, ty = y - fy;
    const C wx[2] = {1 - tx, tx}, wy[2] = {1 - ty, ty};
    for (int j = 0; j < 2; ++j) {
      for (int i = 0; i < 2; ++i) {
        const int64_t xi = x0 + i, yi = y0 + j;
        if (Inside(xi, w_) && Inside(yi, h_)) t->Add(yi * w_ + xi, wy[j] * wx[i]);
      }
    }
  }

 private:
  static bool Inside(int64_t i, int64_t size) { return i >= 0 && i < size; }
  // x within [-3, size + 2]: beyond that no tap of any mode is inside, and
  // under border padding every bicubic tap reads the same edge pixel.
  static C Bound(C x, int64_t size) {
    return x < C(-3) ? C(-3) : (x > static_cast<C>(size + 2) ? static_cast<C>(size + 2) : x);
  }

  // The tap at integer index i along an axis of `size`: its index after
  // padding, or -1 when it reads 0 (zeros padding, outside).
  int64_t Pad(int64_t i, int64_t size) const {
    switch (a_.padding) {
      case GridSampleAttrs::kZeros: return Inside(i, size) ? i : -1;
      case GridSampleAttrs::kBorder: return std::min(std::max(i, int64_t{0}), size - 1);
      case GridSampleAttrs::kReflection:
        return static_cast<int64_t>(semantics::GridReflect(static_cast<C>(i), size, a_.align_corners));
    }
    return -1;
  }

  // Bicubic pads each of its 4x4 taps, not the point.
  void Bicubic(C x, C y, Taps<C>* t) const {
    if (std::isnan(x) || std::isnan(y)) {
      t->nan = true;
      return;
    }
    if (a_.padding == GridSampleAttrs::kReflection) {
      // Reflection repeats every `period` pixels: shifting a far point by
      // whole periods reads the same taps (and keeps floor() within int64).
      if (!std::isfinite(x) || !std::isfinite(y)) {
        t->nan = true;
        return;
      }
      x = Periodic(x, w_);
      y = Periodic(y, h_);
    } else {
      x = Bound(x, w_);
      y = Bound(y, h_);
    }
    const C fx = std::floor(x), fy = std::floor(y);
    const int64_t x0 = static_cast<int64_t>(fx) - 1, y0 = static_cast<int64_t>(fy) - 1;
    C wx[4], wy[4];
    semantics::GridCubicWeights(x - fx, wx);
    semantics::GridCubicWeights(y - fy, wy);
    int64_t xs[4], ys[4];
    for (int i = 0; i < 4; ++i) {
      xs[i] = Pad(x0 + i, w_);
      ys[i] = Pad(y0 + i, h_);
    }
    for (int j = 0; j < 4; ++j) {
      if (ys[j] < 0) continue;
      for (int i = 0; i < 4; ++i) {
        if (xs[i] >= 0) t->Add(ys[j] * w_ + xs[i], wy[j] * wx[i]);
      }
    }
  }

  C Periodic(C x, int64_t size) const {
    const C period = static_cast<C>(a_.align_corners ? 2 * (size - 1) : 2 * size);
    if (period <= 0) return C(0);
    if (x >= -period && x <= 2 * period) return x;
    return x - period * std::floor(x / period);
  }

  GridSampleAttrs a_;
  int64_t h_, w_;
};

class GridSampleKernel : public semantics::AttrsKernel<GridSampleAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), grid = ctx.Input(1), y;
    std::vector<int64_t> ys;
    LOOM_SDK_RETURN_IF_ERROR(GridSampleAttrs::OutputShape(label_, x.shape(), grid.shape(), &ys));
    const int64_t N = ys[0], C = ys[1], H = x.dim(2), W = x.dim(3), points = ys[2] * ys[3];
    if ((H == 0 || W == 0) && attrs_.padding != GridSampleAttrs::kZeros && N * C * points > 0) {
      return sdk::InvalidArgument(label_ + ": input 'X' has no pixels to pad from (spatial dims " +
                                  ShapeStr({H, W}) + ") under padding_mode " +
                                  (attrs_.padding == GridSampleAttrs::kBorder ? "border" : "reflection"));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    if (N * C * points == 0) return Status::Ok();
    return DispatchFloat(x.dtype(), label_, [&](auto tag) -> Status {
      using T = decltype(tag);
      using Cm = typename Num<T>::C;
      // The grid as the compute type (it may be another float dtype than X).
      std::vector<Cm> g(static_cast<size_t>(grid.num_elements()));
      LOOM_SDK_RETURN_IF_ERROR(DispatchFloat(grid.dtype(), label_, [&](auto gtag) -> Status {
        using G = decltype(gtag);
        const G* p = grid.data<G>();
        for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<Cm>(Num<G>::Load(p[i]));
        return Status::Ok();
      }));
      const Sampler<Cm> sampler(attrs_, H, W);
      const T* xp = x.data<T>();
      T* yp = y.data<T>();
      const int64_t plane = H * W;
      const int64_t cost = C * (attrs_.mode == GridSampleAttrs::kBicubic ? 16 : 4);
      ParallelFor(N * points, ctx.num_threads(), [&](int64_t np) {
        const int64_t n = np / points, p = np % points;
        Taps<Cm> t;
        sampler.Find(g[2 * np], g[2 * np + 1], &t);
        const T* xn = xp + n * C * plane;
        T* yn = yp + n * C * points + p;
        for (int64_t c = 0; c < C; ++c) {
          const T* xc = xn + c * plane;
          Cm v = t.nan ? std::numeric_limits<Cm>::quiet_NaN() : Cm(0);
          for (int k = 0; k < t.count; ++k) v += t.weight[k] * Num<T>::Load(xc[t.offset[k]]);
          yn[c * points] = Num<T>::Store(v);
        }
      }, cost);
      return Status::Ok();
    });
  }
};

}  // namespace

Status RegisterTensorGridSampleKernels(sdk::Registrar& reg) {
  return reg.Kernel<GridSampleKernel>("GridSample", {"CPU", "", 0, {}});
}

}  // namespace cpu
}  // namespace loom
