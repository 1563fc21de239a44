// A 256-entry byte table applied to int8 or uint8 values: QLinearLookup's
// kernel (quantized_lookup.cc), also applied in place by NhwcQLinearConv to
// its output when the int8 channels-last rewrite fused a lookup into it.
#ifndef LOOM_PLUGINS_CPU_BYTE_LOOKUP_H_
#define LOOM_PLUGINS_CPU_BYTE_LOOKUP_H_

#include <cstdint>

namespace loom {
namespace cpu {

// y[i] = table[x[i] ^ flip] for i < n: flip 0x80 indexes an int8 x's
// -128..127 as 0..255, 0 a uint8 x as it is. y may be x (in place). AVX-512
// VBMI permutes where the CPU has them, else a byte loop.
void LookupBytes(const uint8_t* x, int64_t n, const uint8_t* table, uint8_t flip, uint8_t* y);

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_BYTE_LOOKUP_H_
