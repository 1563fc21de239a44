#include "ops/shape_inference.h"

#include <algorithm>
#include <string>

namespace loom {
namespace ops {

bool Broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out) {
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

LoomStatus* SameShapeAsInput0(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> s;
  if (ctx.InputShape(0, &s)) ctx.SetOutputShape(0, s);
  return nullptr;
}

LoomStatus* BroadcastShapes(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> out;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    std::vector<int64_t> s;
    if (!ctx.InputShape(i, &s)) return nullptr;  // unknown: leave it
    std::vector<int64_t> next;
    if (i == 0) {
      out = s;
    } else if (!Broadcast(out, s, &next)) {
      auto str = [](const std::vector<int64_t>& v) {
        std::string r = "[";
        for (size_t k = 0; k < v.size(); ++k) r += (k ? ", " : "") + std::to_string(v[k]);
        return r + "]";
      };
      std::string msg = "input " + std::to_string(i) + " of shape " + str(s) + " does not broadcast with " + str(out);
      return sdk::Api().CreateStatus(LOOM_INVALID_ARGUMENT, msg.c_str());
    } else {
      out = next;
    }
  }
  ctx.SetOutputShape(0, out);
  return nullptr;
}

}  // namespace ops
}  // namespace loom
