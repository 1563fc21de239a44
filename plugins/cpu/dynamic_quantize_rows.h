// DynamicQuantizeLinear-11's two passes over float32 values
// (ops/semantics/quantization.h's rules), vectorized (vector_clones.h) for
// the DynamicQuantizeLinear kernel (quantization.cc) and
// DynamicQuantizeMatMul (quantized_dynamic_matmul.cc), which quantizes its A
// the same way.
#ifndef LOOM_PLUGINS_CPU_DYNAMIC_QUANTIZE_ROWS_H_
#define LOOM_PLUGINS_CPU_DYNAMIC_QUANTIZE_ROWS_H_

#include <cstdint>

#include "ops/semantics/quantization.h"

namespace loom {
namespace cpu {

// The parameters of x[0, n): x's range (NaN left out) widened to include 0
// (semantics::DynamicUint8Params), over `threads` OpenMP threads.
semantics::DynamicQuantParams DynamicUint8Range(const float* x, int64_t n, int threads);

// y[i] = saturate(round_half_even(x[i] / p.scale) + p.zero_point) for
// i < n; all zeros for scale 0 (an all-zero x).
void DynamicQuantizeUint8(const float* x, int64_t n, const semantics::DynamicQuantParams& p, int threads, uint8_t* y);

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_DYNAMIC_QUANTIZE_ROWS_H_
