// Small helpers shared by the ONNX-semantics headers (ops/semantics/*.h):
// how shapes are printed in error messages. Header-only on the SDK, so the
// plugins can use it without linking anything from the core.
#ifndef LOOM_OPS_SEMANTICS_COMMON_H_
#define LOOM_OPS_SEMANTICS_COMMON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"

namespace loom {
namespace semantics {

// "[2, 3]": a shape or an int list as the kernels' error messages print it.
inline std::string ShapeStr(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_COMMON_H_
