// Loom's QLinearAdd (ops/quantization.cc; ONNX Runtime's com.microsoft op),
// made by the QDQ rewrite (transforms/fuse_qdq.h) from DequantizeLinear ->
// Add -> QuantizeLinear: int8 or uint8 A and B with numpy broadcasting,
// each element two fused multiply-adds in float32, B's term into the
// constant zc - (ka * za + kb * zb) and then A's, saturated and rounded half
// to even: ONNX Runtime's MLAS kernel on AVX2, operation for operation, so
// the two give the same values (a sum within float rounding of .5 rounds
// the same way).
#include <cmath>
#include <cstdint>
#include <limits>
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
inline Q AddOne(Q x, Q y, float ka, float kb, float offset) {
  constexpr float lo = std::numeric_limits<Q>::min(), hi = std::numeric_limits<Q>::max();
  float v = std::fma(static_cast<float>(x), ka, std::fma(static_cast<float>(y), kb, offset));
  v = v < lo ? lo : v;  // selects, not branches: saturation is common
  v = v > hi ? hi : v;
  return static_cast<Q>(static_cast<int32_t>(semantics::RoundHalfEven(v)));
}

// Same-shape operands: its own function, not inlined, with the parameters
// as values, so that GCC vectorizes the loop: inlined into the kernel (or
// reading captured values through a reference, which a store through Q*,
// a char type, may alias) it stayed scalar, 3.5 ns an element.
template <typename Q>
LOOM_VECTOR_CLONES void AddRow(const Q* a, const Q* b, int64_t n, float ka, float kb, float offset, Q* c) {
  for (int64_t i = 0; i < n; ++i) c[i] = AddOne(a[i], b[i], ka, kb, offset);
}

template <typename Q>
void AddQuantized(const BroadcastPlan& plan, const Q* a, const Q* b, float ka, float kb, float offset, int threads,
                  Q* c) {
  if (plan.kind == BroadcastPlan::Kind::kSame) {
    ParallelRange(plan.size, plan.size, threads,
                  [&](int64_t lo, int64_t hi) { AddRow(a + lo, b + lo, hi - lo, ka, kb, offset, c + lo); });
    return;
  }
  ForEachBroadcast(plan, a, b, c, threads, [=](Q x, Q y) { return AddOne(x, y, ka, kb, offset); });
}

class QLinearAddKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    const Tensor a = ctx.Input(0), b = ctx.Input(3);
    const LoomDataType dt = a.dtype();
    if (b.dtype() != dt) {
      return sdk::InvalidArgument(label_ + ": A and B must have one type; found " + sdk::DTypeName(dt) + " and " +
                                  sdk::DTypeName(b.dtype()));
    }
    // Scales float32 and zero points A's type (the schema's constraints).
    const char* names[] = {"A_scale", "A_zero_point", "B_scale", "B_zero_point", "C_scale", "C_zero_point"};
    const size_t inputs[] = {1, 2, 4, 5, 6, 7};
    double v[6];
    LOOM_SDK_RETURN_IF_ERROR(ScaleZeroPointPairs(ctx, label_, names, inputs, dt, v));
    const float sa = static_cast<float>(v[0]), za = static_cast<float>(v[1]), sb = static_cast<float>(v[2]),
                zb = static_cast<float>(v[3]), sc = static_cast<float>(v[4]), zc = static_cast<float>(v[5]);
    BroadcastPlan& plan = ThreadLocalPlan();
    LOOM_SDK_RETURN_IF_ERROR(PlanBroadcastOf(label_, "A", a, "B", b, &plan));
    Tensor c;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, plan.out, &c));
    const float ka = sa / sc, kb = sb / sc, offset = zc - std::fma(ka, za, kb * zb);
    if (dt == LOOM_DTYPE_INT8) {
      AddQuantized(plan, a.data<int8_t>(), b.data<int8_t>(), ka, kb, offset, ctx.num_threads(), c.data<int8_t>());
    } else {
      AddQuantized(plan, a.data<uint8_t>(), b.data<uint8_t>(), ka, kb, offset, ctx.num_threads(), c.data<uint8_t>());
    }
    return Status::Ok();
  }
};

}  // namespace

Status RegisterQuantizedAddKernels(sdk::Registrar& reg) {
  return reg.Kernel<QLinearAddKernel>("QLinearAdd", {"CPU", "", 0, {{"T", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8}}}});
}

}  // namespace cpu
}  // namespace loom
