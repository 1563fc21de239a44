// ONNX Gemm-13 (also the Gemm-7..11 forms) attribute and shape resolution
// shared by every device's Gemm kernel: Y [M, N] = alpha * A' * B' + beta * C
// with A' = transA ? A^T : A ([M, K]) and B' = transB ? B^T : B ([K, N]).
#ifndef LOOM_OPS_SEMANTICS_GEMM_H_
#define LOOM_OPS_SEMANTICS_GEMM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"

namespace loom {
namespace semantics {

struct GemmAttrs {
  float alpha = 1.0f, beta = 1.0f;
  bool trans_a = false, trans_b = false;

  // Reads alpha, beta, transA and transB (defaults from the schema).
  sdk::Status Read(const sdk::KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("alpha", &alpha));
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("beta", &beta));
    int64_t ta = 0, tb = 0;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("transA", &ta));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("transB", &tb));
    trans_a = ta != 0;
    trans_b = tb != 0;
    return sdk::Status::Ok();
  }

  // M, K, N of A [.., ..] and B [.., ..] (shapes `as`, `bs`). INVALID_ARGUMENT,
  // naming `label`, when A or B is not 2-D or the K of A' and B' differ.
  sdk::Status Dims(const std::string& label, const std::vector<int64_t>& as, const std::vector<int64_t>& bs,
                   int64_t* M, int64_t* K, int64_t* N) const {
    if (as.size() != 2) return sdk::InvalidArgument(label + ": input A must be 2-D; found " + ShapeStr(as));
    if (bs.size() != 2) return sdk::InvalidArgument(label + ": input B must be 2-D; found " + ShapeStr(bs));
    *M = trans_a ? as[1] : as[0];
    *K = trans_a ? as[0] : as[1];
    const int64_t KB = trans_b ? bs[1] : bs[0];
    *N = trans_b ? bs[0] : bs[1];
    if (*K != KB) {
      return sdk::InvalidArgument(label + ": inner dimensions differ: A " + ShapeStr(as) +
                                  (trans_a ? " (transA)" : "") + " has K = " + std::to_string(*K) + ", B " +
                                  ShapeStr(bs) + (trans_b ? " (transB)" : "") + " has K = " + std::to_string(KB));
    }
    return sdk::Status::Ok();
  }

  // Y's shape [M, N] for A's shape `as` and B's `bs` (errors as Dims).
  sdk::Status OutputShape(const std::string& label, const std::vector<int64_t>& as, const std::vector<int64_t>& bs,
                          std::vector<int64_t>* out) const {
    int64_t M = 0, K = 0, N = 0;
    LOOM_SDK_RETURN_IF_ERROR(Dims(label, as, bs, &M, &K, &N));
    *out = {M, N};
    return sdk::Status::Ok();
  }
};

// Caffe2 FC's shapes: X flattened at `axis` to [M, K], W at `axis_w` to
// [N, K] (negative axes count from the end); Y is X.dims[:axis] + [N].
// False when an axis is out of range or the two K differ.
inline bool FCOutputShape(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, int64_t axis, int64_t axis_w,
                          std::vector<int64_t>* ys, int64_t* M, int64_t* K, int64_t* N) {
  const int64_t xr = static_cast<int64_t>(xs.size()), wr = static_cast<int64_t>(ws.size());
  if (axis < 0) axis += xr;
  if (axis_w < 0) axis_w += wr;
  if (axis < 0 || axis > xr || axis_w < 0 || axis_w > wr) return false;
  int64_t m = 1, k = 1, n = 1, kw = 1;
  for (int64_t i = 0; i < xr; ++i) (i < axis ? m : k) *= xs[i];
  for (int64_t i = 0; i < wr; ++i) (i < axis_w ? n : kw) *= ws[i];
  if (k != kw) return false;
  ys->assign(xs.begin(), xs.begin() + axis);
  ys->push_back(n);
  if (M != nullptr) *M = m;
  if (K != nullptr) *K = k;
  if (N != nullptr) *N = n;
  return true;
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_GEMM_H_
