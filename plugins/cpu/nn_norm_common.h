// What the normalization kernels (nn_normalization.cc) and
// LayerNormalization's gradient (nn_normalization_gradient.cc) share: the
// statistics of a row and where Scale and B (broadcast to the normalized
// dims X.shape[axis:]) are read.
#ifndef LOOM_PLUGINS_CPU_NN_NORM_COMMON_H_
#define LOOM_PLUGINS_CPU_NN_NORM_COMMON_H_

#include <cmath>
#include <string>
#include <vector>

#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

// Mean and 1 / sqrt(variance + eps) of n values at x[0], x[stride], ...
// (two passes in double). n == 0 gives NaN statistics, as numpy's mean.
template <typename T>
void RowStats(const T* x, int64_t n, int64_t stride, double eps, double* mean, double* inv_std) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(Num<T>::Load(x[i * stride]));
  const double m = sum / static_cast<double>(n);
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(Num<T>::Load(x[i * stride])) - m;
    sq += d * d;
  }
  *mean = m;
  *inv_std = 1.0 / std::sqrt(sq / static_cast<double>(n) + eps);
}

// LayerNormalization's `axis` attribute for X of shape `xs`, normalized to
// [0, rank); INVALID_ARGUMENT naming `label` for rank 0 or an axis out of
// [-rank, rank). The forward kernel and its gradient both check it so.
inline Status LayerNormAxis(const std::string& label, int64_t axis_attr, const std::vector<int64_t>& xs, int64_t* axis) {
  const int64_t rank = static_cast<int64_t>(xs.size());
  *axis = axis_attr;
  if (rank == 0 || !NormalizeAxis(axis, rank)) {
    return sdk::InvalidArgument(label + ": axis " + std::to_string(axis_attr) + " is out of range for X of rank " +
                                std::to_string(rank) + " " + ShapeStr(xs) + " (expected [-rank, rank))");
  }
  return Status::Ok();
}

// For a parameter of shape `ps` (right-aligned against X's shape `xs`; 1 on
// the dims before `axis`, 1 or equal on the normalized ones), the flat
// offset into it of each of the prod(X.shape[axis:]) normalized positions.
// INVALID_ARGUMENT, naming `label` and input `name`, when it does not
// broadcast so.
inline Status NormParamOffsets(const std::vector<int64_t>& ps, const std::vector<int64_t>& xs, size_t axis,
                               const char* name, const std::string& label, std::vector<int64_t>* offsets) {
  const std::vector<int64_t> norm(xs.begin() + axis, xs.end());
  bool ok = ps.size() <= xs.size();
  for (size_t i = 0; ok && i < ps.size(); ++i) {
    const size_t xd = xs.size() - ps.size() + i;
    ok = ps[i] == 1 || (xd >= axis && ps[i] == xs[xd]);
  }
  if (!ok) {
    return sdk::InvalidArgument(label + ": input " + name + " must broadcast to the normalized dims X.shape[" +
                                std::to_string(axis) + ":] = " + ShapeStr(norm) + " of X " + ShapeStr(xs) +
                                "; found " + ShapeStr(ps));
  }
  // Strip the leading dims (all 1) and broadcast the rest over `norm`.
  const std::vector<int64_t> tail(ps.size() > norm.size() ? ps.end() - norm.size() : ps.begin(), ps.end());
  const std::vector<int64_t> strides = BroadcastStrides(tail, norm);
  int64_t inner = 1;
  for (int64_t d : norm) inner *= d;
  offsets->resize(static_cast<size_t>(inner));
  std::vector<int64_t> c(norm.size(), 0);
  for (int64_t i = 0; i < inner; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < norm.size(); ++d) off += c[d] * strides[d];
    (*offsets)[i] = off;
    for (size_t d = norm.size(); d-- > 0;) {
      if (++c[d] < norm[d]) break;
      c[d] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_NN_NORM_COMMON_H_
