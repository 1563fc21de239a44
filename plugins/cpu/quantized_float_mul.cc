// Loom's QLinearFloatMul (ops/quantization.cc), made by the QDQ rewrite
// (transforms/fuse_qdq.h) from DequantizeLinear(A) -> Mul by a float32 B ->
// QuantizeLinear: the gate of a squeeze-and-excitation block applied to an
// int8 tensor without dequantizing it. Numpy broadcasting (the gate
// [N, C, 1, 1], or [N, 1, 1, C] channels-last, against A).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/semantics/quantization.h"
#include "plugins/cpu/broadcast.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/quant_scalar.h"
#include "plugins/cpu/vector_clones.h"

namespace loom {
namespace cpu {
namespace {

template <typename Q>
inline Q MulOne(Q x, float g, float za, float k, int32_t zc) {
  return semantics::SaturateRounded<Q>((static_cast<float>(x) - za) * g * k, zc);
}

// Rows as their own functions with the parameters as values, so that GCC
// vectorizes them (see quantized_add.cc): a row of A against a row of as
// many gates, or against one gate (a plane of NCHW).
template <typename Q>
LOOM_VECTOR_CLONES void MulRow(const Q* a, const float* g, int64_t n, float za, float k, int32_t zc, Q* c) {
  for (int64_t i = 0; i < n; ++i) c[i] = MulOne(a[i], g[i], za, k, zc);
}
template <typename Q>
LOOM_VECTOR_CLONES void MulRowByOne(const Q* a, float g, int64_t n, float za, float k, int32_t zc, Q* c) {
  for (int64_t i = 0; i < n; ++i) c[i] = MulOne(a[i], g, za, k, zc);
}

// How a gate B [N or 1, ...] applies to A [N, ...] of the output's shape:
// one value per (image, last dim) (channels-last [N, 1, ..., 1, C]), per
// (image, dim 1) (NCHW [N, C, 1, ..., 1]), or neither (numpy's general
// broadcast).
enum class Gate { kGeneral, kChannelsLast, kPlanar };

Gate GateOf(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const std::vector<int64_t>& out) {
  if (a != out || b.size() != a.size() || a.size() < 3 || (b[0] != a[0] && b[0] != 1)) return Gate::kGeneral;
  bool inner_ones = true;
  for (size_t d = 2; d + 1 < a.size(); ++d) inner_ones = inner_ones && b[d] == 1;
  if (!inner_ones) return Gate::kGeneral;
  if (b[1] == 1 && b.back() == a.back()) return Gate::kChannelsLast;
  if (b[1] == a[1] && b.back() == 1) return Gate::kPlanar;
  return Gate::kGeneral;
}

template <typename Q>
void MulQuantized(const BroadcastPlan& plan, const std::vector<int64_t>& as, const std::vector<int64_t>& bs,
                  const Q* a, const float* b, float za, float k, int32_t zc, int threads, Q* c) {
  const Gate gate = GateOf(as, bs, plan.out);
  if (plan.size == 0) return;
  if (gate == Gate::kGeneral) {
    ForEachBroadcast(plan, a, b, c, threads, [=](Q x, float g) { return MulOne(x, g, za, k, zc); });
    return;
  }
  // Rows: channels-last, one pixel's C values; planar, one channel's plane.
  const int64_t N = as[0], per_image = plan.size / (N > 0 ? N : 1);
  const int64_t row = gate == Gate::kChannelsLast ? as.back() : per_image / as[1];
  const int64_t rows = row > 0 ? plan.size / row : 0, rows_per_image = row > 0 ? per_image / row : 0;
  const int64_t gates_per_image = gate == Gate::kChannelsLast ? as.back() : as[1];
  const int64_t b_image = bs[0] == 1 ? 0 : gates_per_image;
  if (gate == Gate::kPlanar) {
    ParallelRange(rows, plan.size, threads, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const float* g = b + (r / rows_per_image) * b_image;
        MulRowByOne(a + r * row, g[r % rows_per_image], row, za, k, zc, c + r * row);
      }
    });
    return;
  }
  // Channels-last: a pixel's row of C values is too short a loop (its
  // vector remainder runs scalar), so the gates are repeated over a span
  // of pixels and each span is one loop.
  const int64_t span = std::max<int64_t>(1, 4096 / row);
  std::vector<float> repeated(static_cast<size_t>(span * row));
  for (int64_t n = 0; n < N; ++n) {
    const float* g = b + n * b_image;
    for (int64_t p = 0; p < span; ++p) std::copy(g, g + row, repeated.begin() + p * row);
    const int64_t spans = (rows_per_image + span - 1) / span;
    ParallelRange(spans, per_image, threads, [&](int64_t lo, int64_t hi) {
      for (int64_t s = lo; s < hi; ++s) {
        const int64_t first = n * rows_per_image + s * span;
        const int64_t count = std::min(span, rows_per_image - s * span);
        MulRow(a + first * row, repeated.data(), count * row, za, k, zc, c + first * row);
      }
    });
  }
}

class QLinearFloatMulKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    const Tensor a = ctx.Input(0), b = ctx.Input(3);
    const LoomDataType dt = a.dtype();
    // B float32 and the zero points A's type: the schema's constraints.
    const char* names[] = {"A_scale", "A_zero_point", "C_scale", "C_zero_point"};
    const size_t inputs[] = {1, 2, 4, 5};
    double v[4];
    LOOM_SDK_RETURN_IF_ERROR(ScaleZeroPointPairs(ctx, label_, names, inputs, dt, v));
    BroadcastPlan& plan = ThreadLocalPlan();
    LOOM_SDK_RETURN_IF_ERROR(PlanBroadcastOf(label_, "A", a, "B", b, &plan));
    Tensor c;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, plan.out, &c));
    const float za = static_cast<float>(v[1]), k = static_cast<float>(v[0] / v[2]);
    const int32_t zc = static_cast<int32_t>(v[3]);
    if (dt == LOOM_DTYPE_INT8) {
      MulQuantized(plan, a.shape(), b.shape(), a.data<int8_t>(), b.data<float>(), za, k, zc, ctx.num_threads(),
                   c.data<int8_t>());
    } else {
      MulQuantized(plan, a.shape(), b.shape(), a.data<uint8_t>(), b.data<float>(), za, k, zc, ctx.num_threads(),
                   c.data<uint8_t>());
    }
    return Status::Ok();
  }
};

}  // namespace

Status RegisterQuantizedFloatMulKernels(sdk::Registrar& reg) {
  return reg.Kernel<QLinearFloatMulKernel>("QLinearFloatMul",
                                           {"CPU", "", 0, {{"T", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8}}}});
}

}  // namespace cpu
}  // namespace loom
