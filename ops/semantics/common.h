// Small helpers shared by the ONNX-semantics headers (ops/semantics/*.h):
// how shapes and operators are named in error messages, and the base of a
// kernel that reads one attribute struct. Header-only on the SDK, so the
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

// "Conv 'conv1'": how the kernels' errors name an operator.
inline std::string OpLabel(const sdk::KernelInfo& info) { return info.op_type() + " '" + info.op_name() + "'"; }

// The attribute struct of an operator without attributes.
struct NoAttrs {
  sdk::Status Read(const sdk::KernelInfo&) { return sdk::Status::Ok(); }
};

// The base of a kernel (any device) whose creation reads one attribute
// struct of ops/semantics (`sdk::Status Read(const sdk::KernelInfo&)`):
// Init keeps the op label and the attributes; the kernel adds Compute (and
// Prepare).
template <typename Attrs>
class AttrsKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = OpLabel(info);
    return attrs_.Read(info);
  }

 protected:
  std::string label_;
  Attrs attrs_;
};

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_COMMON_H_
