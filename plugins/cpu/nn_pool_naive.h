// MaxPool and AveragePool in plain loops, forward and backward, over the
// window geometry Conv's naive loops use (nn_conv_naive.h): the float64
// forward path of nn_pool.cc (oneDNN pools float32) and the pools'
// gradients (nn_pool_gradient.cc).
#ifndef LOOM_PLUGINS_CPU_NN_POOL_NAIVE_H_
#define LOOM_PLUGINS_CPU_NN_POOL_NAIVE_H_

#include <limits>
#include <vector>

#include "plugins/cpu/nn_conv_naive.h"

namespace loom {
namespace cpu {

// The window of a pool over X [N, C, in...]: one plane per (n, c).
struct PoolGeometry {
  ConvGeometry g;
  std::vector<int64_t> pads_end;
  int64_t planes, ins, outs;

  PoolGeometry(const std::vector<int64_t>& xs, const semantics::Window& w)
      : g(xs, {xs[1], 1}, 1, w), pads_end(w.pads_end), planes(xs[0] * xs[1]), ins(ConvGeometry::Product(g.in)),
        outs(ConvGeometry::Product(g.out)) {}

  // AveragePool-19's divisor per output position: the taps inside X
  // (count_include_pad = 0) or inside X and its explicit padding (1; a
  // ceil_mode window hanging past the end padding counts less).
  std::vector<double> Divisors(bool include_pad) const {
    std::vector<double> div(static_cast<size_t>(outs), 0.0);
    if (!include_pad) {
      g.ForEachTap([&](int64_t, int64_t, int64_t oi) { div[oi] += 1; });
      return div;
    }
    const size_t n = g.in.size();
    std::vector<int64_t> o(n);
    for (int64_t oi = 0; oi < outs; ++oi) {
      double count = 1;
      for (int64_t r = oi, d = static_cast<int64_t>(n) - 1; d >= 0; --d) {
        o[d] = r % g.out[d];
        r /= g.out[d];
      }
      for (size_t d = 0; d < n; ++d) {
        int64_t taps = 0;
        for (int64_t t = 0; t < g.k[d]; ++t) taps += o[d] * g.stride[d] - g.pad[d] + t * g.dil[d] < g.in[d] + pads_end[d];
        count *= static_cast<double>(taps);
      }
      div[oi] = count;
    }
    return div;
  }

  // For each output position, the offset in the plane of its window's first
  // maximum in window order (-1: no tap inside X).
  template <typename T>
  void ArgMax(const T* xp, std::vector<int64_t>* at) const {
    at->assign(static_cast<size_t>(outs), -1);
    g.ForEachTap([&](int64_t io, int64_t, int64_t oi) {
      int64_t& a = (*at)[oi];
      if (a < 0 || xp[io] > xp[a]) a = io;
    });
  }
};

// Y = MaxPool (kMax) or AveragePool of X.
template <typename T>
void PoolForwardNaive(const PoolGeometry& p, bool max, bool include_pad, const T* x, T* y, int threads) {
  const std::vector<double> div = max ? std::vector<double>() : p.Divisors(include_pad);
  ParallelFor(p.planes, threads, [&](int64_t plane) {
    const T* xp = x + plane * p.ins;
    T* yp = y + plane * p.outs;
    if (max) {
      std::vector<int64_t> at;
      p.ArgMax(xp, &at);
      for (int64_t oi = 0; oi < p.outs; ++oi) yp[oi] = at[oi] < 0 ? std::numeric_limits<T>::lowest() : xp[at[oi]];
      return;
    }
    std::vector<double> sum(static_cast<size_t>(p.outs), 0.0);
    p.g.ForEachTap([&](int64_t io, int64_t, int64_t oi) { sum[oi] += static_cast<double>(xp[io]); });
    for (int64_t oi = 0; oi < p.outs; ++oi) yp[oi] = static_cast<T>(sum[oi] / div[oi]);
  }, p.outs * ConvGeometry::Product(p.g.k));
}

// dX of MaxPool (each dY to its window's first maximum) or AveragePool (each
// dY / divisor to every tap inside X); overlapping windows add.
template <typename T>
void PoolBackwardNaive(const PoolGeometry& p, bool max, bool include_pad, const T* x, const T* dy, T* dx, int threads) {
  const std::vector<double> div = max ? std::vector<double>() : p.Divisors(include_pad);
  ParallelFor(p.planes, threads, [&](int64_t plane) {
    const T* gp = dy + plane * p.outs;
    std::vector<double> acc(static_cast<size_t>(p.ins), 0.0);
    if (max) {
      std::vector<int64_t> at;
      p.ArgMax(x + plane * p.ins, &at);
      for (int64_t oi = 0; oi < p.outs; ++oi) {
        if (at[oi] >= 0) acc[at[oi]] += static_cast<double>(gp[oi]);
      }
    } else {
      p.g.ForEachTap([&](int64_t io, int64_t, int64_t oi) { acc[io] += static_cast<double>(gp[oi]) / div[oi]; });
    }
    T* out = dx + plane * p.ins;
    for (int64_t i = 0; i < p.ins; ++i) out[i] = static_cast<T>(acc[i]);
  }, p.outs * ConvGeometry::Product(p.g.k));
}

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_NN_POOL_NAIVE_H_
