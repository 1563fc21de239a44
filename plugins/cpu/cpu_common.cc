#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

std::string OpLabel(const KernelInfo& info) { return info.op_type() + " '" + info.op_name() + "'"; }

bool NormalizeAxis(int64_t* axis, int64_t rank) {
  if (*axis < -rank || *axis >= std::max<int64_t>(rank, 1)) return false;
  if (*axis < 0) *axis += rank;
  return true;
}

bool ReadInts(const Tensor& t, std::vector<int64_t>* out) {
  out->clear();
  if (t.dtype() == LOOM_DTYPE_INT64) {
    const int64_t* d = t.data<int64_t>();
    out->assign(d, d + t.num_elements());
    return true;
  }
  if (t.dtype() == LOOM_DTYPE_INT32) {
    const int32_t* d = t.data<int32_t>();
    out->assign(d, d + t.num_elements());
    return true;
  }
  return false;
}

}  // namespace cpu
}  // namespace loom
