// Loom's QLinearLookup (ops/quantization.cc), made by the QDQ rewrite
// (transforms/fuse_qdq.h) from DequantizeLinear -> element-wise float ops ->
// QuantizeLinear: Y[i] = table[X[i] - lowest(T1)], int8 or uint8 each side;
// or from DequantizeLinear -> element-wise float ops read as float: a
// float32 table and Y. With AVX-512 VBMI a 256-entry byte table is four
// 64-byte registers and 64 elements map in two byte permutes and a blend;
// elsewhere, and for float tables, a loop.
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "plugins/cpu/byte_lookup.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

// idx[i] ^ flip indexes the table: flip 0x80 maps int8's -128..127 to
// 0..255, 0 leaves uint8 as it is.
void LookupScalar(const uint8_t* x, int64_t n, const uint8_t* table, uint8_t flip, uint8_t* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = table[x[i] ^ flip];
}

void LookupFloat(const uint8_t* x, int64_t n, const float* table, uint8_t flip, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = table[x[i] ^ flip];
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void LookupVbmi(const uint8_t* x, int64_t n,
                                                                       const uint8_t* table, uint8_t flip,
                                                                       uint8_t* y) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64),
                t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  const __m512i f = _mm512_set1_epi8(static_cast<char>(flip));
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i idx = _mm512_xor_si512(_mm512_loadu_si512(x + i), f);
    // Bits 0-6 pick one of 128 bytes of each half; bit 7 picks the half.
    const __m512i lo = _mm512_permutex2var_epi8(t0, idx, t1), hi = _mm512_permutex2var_epi8(t2, idx, t3);
    _mm512_storeu_si512(y + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi));
  }
  LookupScalar(x + i, n - i, table, flip, y + i);
}

bool HasVbmi() {
  static const bool has = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
  return has;
}
#endif


}  // namespace

void LookupBytes(const uint8_t* x, int64_t n, const uint8_t* table, uint8_t flip, uint8_t* y) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (HasVbmi()) return LookupVbmi(x, n, table, flip, y);
#endif
  LookupScalar(x, n, table, flip, y);
}

namespace {

class QLinearLookupKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    const Tensor x = ctx.Input(0), table = ctx.Input(1);
    if (table.num_elements() != 256) {
      return sdk::InvalidArgument(label_ + ": table must have 256 elements; found " + ShapeStr(table.shape()));
    }
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, table.dtype(), x.shape(), &y));
    const uint8_t flip = x.dtype() == LOOM_DTYPE_INT8 ? 0x80 : 0;
    const auto* in = static_cast<const uint8_t*>(x.raw_data());
    const auto* t = static_cast<const uint8_t*>(table.raw_data());
    auto* out = static_cast<uint8_t*>(y.raw_data());
    const int64_t n = x.num_elements();
    const bool to_float = table.dtype() == LOOM_DTYPE_FLOAT;
    // Whole 64-element blocks per thread.
    ParallelRange((n + 63) / 64, n, ctx.num_threads(), [&](int64_t lo, int64_t hi) {
      const int64_t begin = lo * 64, end = hi * 64 < n ? hi * 64 : n;
      if (to_float) {
        LookupFloat(in + begin, end - begin, table.data<float>(), flip, y.data<float>() + begin);
      } else {
        LookupBytes(in + begin, end - begin, t, flip, out + begin);
      }
    });
    return Status::Ok();
  }
};

}  // namespace

Status RegisterQuantizedLookupKernels(sdk::Registrar& reg) {
  return reg.Kernel<QLinearLookupKernel>(
      "QLinearLookup",
      {"CPU",
       "",
       0,
       {{"T1", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8}}, {"T2", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8, LOOM_DTYPE_FLOAT}}}});
}

}  // namespace cpu
}  // namespace loom
