#include "plugins/cpu/broadcast.h"

#include <algorithm>

namespace loom {
namespace cpu {

bool PlanBroadcast(const int64_t* a, size_t ra, const int64_t* b, size_t rb, BroadcastPlan* plan) {
  std::vector<int64_t>& out = plan->out;  // PlanBroadcastTo sees it is already in place
  if (ra == rb && std::equal(a, a + ra, b)) {
    // The common case, and the one tiny ops hit: a flat loop, nothing to merge.
    out.assign(a, a + ra);
    plan->size = 1;
    for (size_t i = 0; i < ra; ++i) plan->size *= a[i];
    plan->kind = BroadcastPlan::Kind::kSame;
    plan->dims.clear();
    plan->sa.clear();
    plan->sb.clear();
    return true;
  }
  const size_t r = std::max(ra, rb);
  out.assign(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - ra ? 1 : a[i - (r - ra)];
    const int64_t db = i < r - rb ? 1 : b[i - (r - rb)];
    if (da != db && da != 1 && db != 1) return false;
    out[i] = da == 1 ? db : da;
  }
  return PlanBroadcastTo(a, ra, b, rb, out.data(), out.size(), plan);
}

bool PlanBroadcastTo(const int64_t* a, size_t ra, const int64_t* b, size_t rb, const int64_t* out, size_t rout,
                     BroadcastPlan* plan) {
  if (ra > rout || rb > rout) return false;
  if (plan->out.data() != out) plan->out.assign(out, out + rout);
  plan->dims.clear();
  plan->sa.clear();
  plan->sb.clear();
  plan->size = 1;
  // Per merged dim: does A (B) span it, or is it broadcast along it?
  std::vector<bool>& a_full = plan->a_full;
  std::vector<bool>& b_full = plan->b_full;
  a_full.clear();
  b_full.clear();
  for (size_t i = 0; i < rout; ++i) {
    const int64_t od = out[i];
    const int64_t da = i < rout - ra ? 1 : a[i - (rout - ra)];
    const int64_t db = i < rout - rb ? 1 : b[i - (rout - rb)];
    if ((da != od && da != 1) || (db != od && db != 1)) return false;
    plan->size *= od;
    if (od == 1) continue;  // contributes nothing to iteration
    const bool fa = da == od, fb = db == od;
    if (!plan->dims.empty() && a_full.back() == fa && b_full.back() == fb) {
      plan->dims.back() *= od;
    } else {
      plan->dims.push_back(od);
      a_full.push_back(fa);
      b_full.push_back(fb);
    }
  }
  const size_t k = plan->dims.size();
  plan->sa.assign(k, 0);
  plan->sb.assign(k, 0);
  int64_t stride_a = 1, stride_b = 1;
  bool all_a = true, all_b = true, none_a = true, none_b = true;
  for (size_t j = k; j-- > 0;) {
    if (a_full[j]) { plan->sa[j] = stride_a; stride_a *= plan->dims[j]; none_a = false; } else { all_a = false; }
    if (b_full[j]) { plan->sb[j] = stride_b; stride_b *= plan->dims[j]; none_b = false; } else { all_b = false; }
  }
  using Kind = BroadcastPlan::Kind;
  if (all_a && all_b) {
    plan->kind = Kind::kSame;  // includes rank 0 and all-ones shapes
  } else if (none_a && all_b) {
    plan->kind = Kind::kScalarA;
  } else if (all_a && none_b) {
    plan->kind = Kind::kScalarB;
  } else {
    plan->kind = Kind::kGeneral;
  }
  return true;
}

}  // namespace cpu
}  // namespace loom
