// Convolution in plain loops, forward and backward, for float64 (oneDNN's
// convolutions are float32) and for the gradient: ONNX Conv's geometry
// (groups, strides, dilations, pads; 1 to 3 spatial dims), accumulating in
// double. Used by Conv's and ConvTranspose's float64 paths and their
// gradients (nn_conv.cc, nn_conv_transpose.cc, nn_conv_gradient.cc,
// nn_conv_transpose_gradient.cc).
#ifndef LOOM_PLUGINS_CPU_NN_CONV_NAIVE_H_
#define LOOM_PLUGINS_CPU_NN_CONV_NAIVE_H_

#include <cstdint>
#include <vector>

#include "ops/semantics/window.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {

// X [N, C, in...], W [M, C / G, k...], Y [N, M, out...].
struct ConvGeometry {
  int64_t N = 0, C = 0, M = 0, G = 1;
  std::vector<int64_t> in, k, out, stride, dil, pad;  // per spatial dim; pad = the leading pad

  ConvGeometry(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, int64_t group, const semantics::Window& w)
      : N(xs[0]), C(xs[1]), M(ws[0]), G(group), in(xs.begin() + 2, xs.end()), k(w.kernel), out(w.out),
        stride(w.strides), dil(w.dilations), pad(w.pads_begin) {}

  // ConvTranspose-11 as the adjoint of a Conv: Y [N, M, out...] =
  // ConvTranspose(X [N, C, in...], W [C, M / G, k...]) is the transpose of
  // the Conv from Y's shape to X's with weights W read as Conv's [C, M / G,
  // k...] (Conv's M = C, its C = M); `t` (ConvTransposeAttrs::Resolve) gives
  // Y's size and padding. Its ForEachTap visits (Y offset, tap, X offset).
  static ConvGeometry ForTranspose(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, int64_t group,
                                   const semantics::ConvTransposeGeometry& t) {
    semantics::Window w;
    w.kernel.assign(ws.begin() + 2, ws.end());
    w.out.assign(xs.begin() + 2, xs.end());
    w.strides = t.strides;
    w.dilations = t.dilations;
    w.pads_begin = t.pads_begin;
    std::vector<int64_t> ys = t.OutputShape(xs[0], ws[1] * group);
    return ConvGeometry(ys, {xs[1]}, group, w);
  }

  static int64_t Product(const std::vector<int64_t>& v) {
    int64_t p = 1;
    for (int64_t d : v) p *= d;
    return p;
  }

  // Calls f(in_offset, kernel_offset, out_offset) for every output position
  // and kernel tap that lands inside the input (offsets within one spatial
  // plane).
  template <typename F>
  void ForEachTap(F&& f) const {
    const size_t n = in.size();
    const int64_t outs = Product(out), taps = Product(k);
    std::vector<int64_t> o(n), t(n);
    for (int64_t oi = 0; oi < outs; ++oi) {
      for (int64_t r = oi, d = static_cast<int64_t>(n) - 1; d >= 0; --d) {
        o[d] = r % out[d];
        r /= out[d];
      }
      for (int64_t ti = 0; ti < taps; ++ti) {
        int64_t r = ti, offset = 0;
        bool inside = true;
        for (int64_t d = static_cast<int64_t>(n) - 1; d >= 0; --d) {
          t[d] = r % k[d];
          r /= k[d];
        }
        for (size_t d = 0; d < n && inside; ++d) {
          const int64_t pos = o[d] * stride[d] - pad[d] + t[d] * dil[d];
          inside = pos >= 0 && pos < in[d];
          offset = offset * in[d] + pos;
        }
        if (inside) f(offset, ti, oi);
      }
    }
  }
};

// Y = conv(X, W) + B (B may be null).
template <typename T>
void ConvForwardNaive(const ConvGeometry& g, const T* x, const T* w, const T* b, T* y, int threads) {
  const int64_t ins = ConvGeometry::Product(g.in), outs = ConvGeometry::Product(g.out), taps = ConvGeometry::Product(g.k);
  const int64_t cg = g.C / g.G, mg = g.M / g.G;
  ParallelFor(g.N * g.M, threads, [&](int64_t nm) {
    const int64_t n = nm / g.M, m = nm % g.M, grp = m / mg;
    std::vector<double> acc(outs, b != nullptr ? static_cast<double>(b[m]) : 0.0);
    for (int64_t c = 0; c < cg; ++c) {
      const T* xp = x + (n * g.C + grp * cg + c) * ins;
      const T* wp = w + (m * cg + c) * taps;
      g.ForEachTap([&](int64_t io, int64_t ti, int64_t oi) { acc[oi] += static_cast<double>(xp[io]) * wp[ti]; });
    }
    for (int64_t oi = 0; oi < outs; ++oi) y[nm * outs + oi] = static_cast<T>(acc[oi]);
  }, cg * outs * taps);
}

// dX, dW, dB from dY (each may be null when not wanted; x too when dW is).
template <typename T>
void ConvBackwardNaive(const ConvGeometry& g, const T* x, const T* w, const T* dy, T* dx, T* dw, T* db) {
  const int64_t ins = ConvGeometry::Product(g.in), outs = ConvGeometry::Product(g.out), taps = ConvGeometry::Product(g.k);
  const int64_t cg = g.C / g.G, mg = g.M / g.G;
  std::vector<double> gx(dx != nullptr ? g.N * g.C * ins : 0, 0.0), gw(dw != nullptr ? g.M * cg * taps : 0, 0.0);
  std::vector<double> gb(db != nullptr ? g.M : 0, 0.0);
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t m = 0; m < g.M; ++m) {
      const int64_t grp = m / mg;
      const T* dyp = dy + (n * g.M + m) * outs;
      if (db != nullptr) {
        for (int64_t oi = 0; oi < outs; ++oi) gb[m] += dyp[oi];
      }
      for (int64_t c = 0; c < cg; ++c) {
        const int64_t xc = n * g.C + grp * cg + c;
        const T* xp = dw != nullptr ? x + xc * ins : nullptr;  // x may be null when dW is not wanted
        const T* wp = w + (m * cg + c) * taps;
        g.ForEachTap([&](int64_t io, int64_t ti, int64_t oi) {
          if (dx != nullptr) gx[xc * ins + io] += static_cast<double>(wp[ti]) * dyp[oi];
          if (dw != nullptr) gw[(m * cg + c) * taps + ti] += static_cast<double>(xp[io]) * dyp[oi];
        });
      }
    }
  }
  for (size_t i = 0; i < gx.size(); ++i) dx[i] = static_cast<T>(gx[i]);
  for (size_t i = 0; i < gw.size(); ++i) dw[i] = static_cast<T>(gw[i]);
  for (size_t i = 0; i < gb.size(); ++i) db[i] = static_cast<T>(gb[i]);
}

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_NN_CONV_NAIVE_H_
