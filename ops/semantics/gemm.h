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

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_GEMM_H_
