// The floating-point math mode of a net (oneDNN's fpmath_mode; PyTorch's
// float32 matmul precision): whether kernels may compute float32
// convolutions and matrix products with bfloat16 inputs. A NetOptions field
// (core/net.h), handed to kernels at plan time (the ABI's
// LoomKernelContextApi::Prepare_FpMathMode) and inherited by nested nets.
#ifndef LOOM_CORE_FPMATH_MODE_H_
#define LOOM_CORE_FPMATH_MODE_H_

#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "core/api/loom_c_api.h"

namespace loom {

enum class FpMathMode {
  // float32 arithmetic as the model says (the default).
  kStrict = LOOM_FPMATH_MODE_STRICT,
  // Convolutions and matmuls with float32 inputs may round X and W to
  // bfloat16 (8 significant bits) and accumulate in float32, where the
  // device has bf16 arithmetic (the CPU plugin: AVX-512 BF16 or AMX);
  // elsewhere, and for every other op, float32.
  kBf16 = LOOM_FPMATH_MODE_BF16,
};

// "strict" or "bf16" (oneDNN's names); INVALID_ARGUMENT naming what was
// found and the names allowed otherwise.
absl::StatusOr<FpMathMode> ParseFpMathMode(absl::string_view name);
const char* FpMathModeName(FpMathMode mode);

}  // namespace loom

#endif  // LOOM_CORE_FPMATH_MODE_H_
