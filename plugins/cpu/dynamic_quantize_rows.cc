#include "plugins/cpu/dynamic_quantize_rows.h"

#include <algorithm>
#include <limits>
#include <mutex>

#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/vector_clones.h"

namespace loom {
namespace cpu {
namespace {

// The selects keep a NaN out (it compares false) and vectorize to min/max.
LOOM_VECTOR_CLONES void MinMaxRow(const float* x, int64_t n, float* lo_out, float* hi_out) {
  float lo = *lo_out, hi = *hi_out;
  for (int64_t i = 0; i < n; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  *lo_out = lo;
  *hi_out = hi;
}

LOOM_VECTOR_CLONES void QuantizeRow(const float* x, int64_t n, float scale, int32_t zero_point, uint8_t* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = semantics::QuantizeValue<uint8_t>(x[i], scale, zero_point);
}

}  // namespace

semantics::DynamicQuantParams DynamicUint8Range(const float* x, int64_t n, int threads) {
  // Each chunk's range, merged under a lock: min and max do not depend on
  // the order.
  float l = std::numeric_limits<float>::infinity(), h = -l;
  std::mutex mu;
  ParallelRange(n, n, threads, [&](int64_t begin, int64_t end) {
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    MinMaxRow(x + begin, end - begin, &lo, &hi);
    std::lock_guard<std::mutex> lock(mu);
    l = std::min(l, lo);
    h = std::max(h, hi);
  });
  if (!(l <= h)) l = h = 0.0f;  // no elements, or all NaN
  return semantics::DynamicUint8Params(l, h);
}

void DynamicQuantizeUint8(const float* x, int64_t n, const semantics::DynamicQuantParams& p, int threads, uint8_t* y) {
  if (p.scale == 0.0f) {
    std::fill_n(y, n, uint8_t{0});
    return;
  }
  ParallelRange(n, n, threads, [&](int64_t begin, int64_t end) {
    QuantizeRow(x + begin, end - begin, p.scale, p.zero_point, y + begin);
  });
}

}  // namespace cpu
}  // namespace loom
