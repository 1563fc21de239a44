// ONNX shape arithmetic shared by the schemas and every device's kernels:
// axis normalization (negative axes count from the end), numpy
// broadcasting (ONNX's multidirectional broadcasting), row-major strides and
// products of dims.
#ifndef LOOM_OPS_SEMANTICS_SHAPE_MATH_H_
#define LOOM_OPS_SEMANTICS_SHAPE_MATH_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"

namespace loom {
namespace semantics {

// Product of s[begin, end) (1 for an empty range).
inline int64_t Product(const std::vector<int64_t>& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}
inline int64_t Product(const std::vector<int64_t>& s) { return Product(s, 0, s.size()); }

// Row-major element strides of a shape.
inline std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) st[k - 1] = st[k] * shape[k];
  return st;
}

// Normalizes `axis` from [-rank, rank - 1] to [0, rank - 1]. INVALID_ARGUMENT
// naming `label`, what the axis is for (`what`) and the range otherwise.
inline sdk::Status NormalizeAxisOr(int64_t* axis, int64_t rank, const std::string& label, const char* what) {
  if (*axis < -rank || *axis >= rank) {
    return sdk::InvalidArgument(label + ": " + what + " " + std::to_string(*axis) + " is out of range for rank " +
                                std::to_string(rank) + " (expected [" + std::to_string(-rank) + ", " +
                                std::to_string(rank - 1) + "])");
  }
  if (*axis < 0) *axis += rank;
  return sdk::Status::Ok();
}

// Numpy broadcast of two shapes (any rank, right-aligned); false if they do
// not broadcast.
inline bool BroadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out) {
  const size_t r = std::max(a.size(), b.size());
  out->assign(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[i] = da == 1 ? db : da;
  }
  return true;
}

// numpy.matmul's output shape for A `a` [..., M, K] and B `b` [..., K, N]:
// batch dims broadcast, a 1-D operand promoted (A to [1, K], B to [K, 1])
// and the added dim dropped. False when a shape is empty, the K differ or
// the batch dims do not broadcast. MatMul, BatchMatMul, MatMulInteger,
// QLinearMatMul.
inline bool MatMulShape(std::vector<int64_t> a, std::vector<int64_t> b, std::vector<int64_t>* out) {
  if (a.empty() || b.empty()) return false;
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  if (a.back() != b[b.size() - 2]) return false;
  if (!BroadcastShape({a.begin(), a.end() - 2}, {b.begin(), b.end() - 2}, out)) return false;
  if (!a_vec) out->push_back(a[a.size() - 2]);
  if (!b_vec) out->push_back(b.back());
  return true;
}

// Element strides of `in` seen through its broadcast shape `out` (0 on
// broadcast dims), right-aligned.
inline std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t s = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t i = in.size() - 1 - k, o = out.size() - 1 - k;
    strides[o] = in[i] == 1 ? 0 : s;
    s *= in[i];
  }
  return strides;
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_SHAPE_MATH_H_
