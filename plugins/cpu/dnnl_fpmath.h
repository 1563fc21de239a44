// NetOptions::fpmath_mode on oneDNN (core/fpmath_mode.h): the data type the
// float32 convolutions (nn_conv.cc) and matmuls (dnnl_matmul.h: Gemm,
// MatMul, FC) compute in. oneDNN 2.6's own primitive_attr::set_fpmath_mode
// changes nothing on a CPU without AMX (its f32 brgconv:avx512_core kept
// running with fpmath_mode bf16 on AVX-512 BF16), so the kernels ask for
// bf16 operands explicitly: X is rounded by the reorder into the primitive's
// layout (into per-run scratch), a constant W is packed as bf16 once, Y and
// the bias stay float32 (oneDNN's avx512_core_bf16 kernels accumulate in
// float32). Where a bf16 primitive would be one of oneDNN's slow kernels,
// the kernel stays float32.
#ifndef LOOM_PLUGINS_CPU_DNNL_FPMATH_H_
#define LOOM_PLUGINS_CPU_DNNL_FPMATH_H_

#include "plugins/cpu/dnnl_common.h"

namespace loom {
namespace cpu {

// oneDNN runs bf16 arithmetic in hardware here (AVX-512 BF16 or AMX); on an
// AVX-512 CPU without them it would emulate bf16, slower than float32.
inline bool DnnlHasBf16() {
  // oneDNN's ISA values are nested bit masks.
  const auto bf16 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_bf16);
  return (static_cast<unsigned>(dnnl::get_effective_cpu_isa()) & bf16) == bf16;
}

// bf16 when the net's fpmath_mode allows it and the CPU has it, else f32.
inline dnnl::memory::data_type ComputeDataType(const sdk::PrepareContext& ctx) {
  return ctx.fpmath_mode() == LOOM_FPMATH_MODE_BF16 && DnnlHasBf16() ? dnnl::memory::data_type::bf16
                                                                      : dnnl::memory::data_type::f32;
}

// `md` with elements of `dt`: the same dims and layout (strides and blocks
// count elements, not bytes).
inline dnnl::memory::desc WithDataType(const dnnl::memory::desc& md, dnnl::memory::data_type dt) {
  dnnl::memory::desc out = md;
  out.data.data_type = static_cast<dnnl_data_type_t>(dt);
  return out;
}

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_DNNL_FPMATH_H_
