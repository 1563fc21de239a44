#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

std::string ShapeStr(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string OpLabel(const KernelInfo& info) { return info.op_type() + " '" + info.op_name() + "'"; }

bool BroadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out) {
  size_t r = std::max(a.size(), b.size());
  out->assign(r, 1);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[i] = da == 1 ? db : da;
  }
  return true;
}

std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t s = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    size_t i = in.size() - 1 - k, o = out.size() - 1 - k;
    strides[o] = in[i] == 1 ? 0 : s;
    s *= in[i];
  }
  return strides;
}

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
