// Limits that keep a hostile but well-formed model from taking the process
// down: a per-tensor byte cap (declared shapes that would need terabytes), a
// nesting depth for nets inside nets (If/Loop/Scan bodies, step nets), and a
// trip-count cap for Loop. Each is a NetOptions field (core/net.h) a user
// may raise; nested nets inherit their enclosing net's limits. Exceeding one
// is RESOURCE_EXHAUSTED with a message naming the op, the output or
// attribute, what was found, the limit, and how to raise it.
#ifndef LOOM_CORE_LIMITS_H_
#define LOOM_CORE_LIMITS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/dtype.h"

namespace loom {

// 16 GiB: far above any tensor of the models Loom runs, far below the
// petabytes a hostile Reshape/Expand/Tile/ConstantOfShape can declare.
inline constexpr int64_t kDefaultMaxTensorBytes = int64_t{16} << 30;
inline constexpr int kDefaultMaxNestingDepth = 64;
inline constexpr int64_t kDefaultMaxLoopIterations = 10'000'000;

struct NetLimits {
  // Bytes one tensor (an op's output, a nested net's blob) may take; <= 0:
  // no cap (int64 overflow is still an error).
  int64_t max_tensor_bytes = kDefaultMaxTensorBytes;
  // Nets nested inside nets: a top-level net is depth 0, an If/Loop/Scan body
  // or a step net one more than the net it runs in. <= 0: no limit.
  int max_nesting_depth = kDefaultMaxNestingDepth;
  // Iterations one Loop op may run in one call, whatever its trip count M
  // and condition say (the controlflow plugin reads it through the ABI's
  // Ctx_Limit). <= 0: no limit.
  int64_t max_loop_iterations = kDefaultMaxLoopIterations;
  // This net's depth (0: top level).
  int nesting_depth = 0;
};

// The defaults above (a top-level net's limits when NetOptions sets none).
const NetLimits& DefaultLimits();

// Element count of `dims`: INVALID_ARGUMENT for a negative dim or a product
// that overflows int64 (the message names the shape; callers prefix what).
absl::StatusOr<int64_t> CheckedNumElements(absl::Span<const int64_t> dims);
// Bytes of a dtype x dims tensor, with the same errors (and overflow of the
// byte count).
absl::StatusOr<int64_t> CheckedNumBytes(DataType dtype, absl::Span<const int64_t> dims);

// "16 GiB", "3.5 EiB", "512 bytes".
std::string HumanBytes(double bytes);

// OK when a dtype x dims tensor fits `limits.max_tensor_bytes`. `what`
// names it ("op #3 'r' (Reshape): output 0 'y'"). Errors:
// RESOURCE_EXHAUSTED "<what> would be float32[1000000, 1000000, 1000000]:
// 4000000000000000000 bytes (3.5 EiB), over the limit max_tensor_bytes =
// 17179869184 (16 GiB); raise it with NetOptions::max_tensor_bytes or
// loom_run --max_tensor_bytes"; INVALID_ARGUMENT for a negative dim or an
// element/byte count that overflows int64.
absl::Status CheckTensorSize(const NetLimits& limits, const std::string& what, DataType dtype,
                             absl::Span<const int64_t> dims);

}  // namespace loom

#endif  // LOOM_CORE_LIMITS_H_
