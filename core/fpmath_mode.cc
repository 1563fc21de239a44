#include "core/fpmath_mode.h"

#include "absl/strings/str_cat.h"

namespace loom {

absl::StatusOr<FpMathMode> ParseFpMathMode(absl::string_view name) {
  if (name == "strict") return FpMathMode::kStrict;
  if (name == "bf16") return FpMathMode::kBf16;
  return absl::InvalidArgumentError(absl::StrCat("fpmath_mode must be \"strict\" or \"bf16\"; found \"", name, "\""));
}

const char* FpMathModeName(FpMathMode mode) { return mode == FpMathMode::kBf16 ? "bf16" : "strict"; }

}  // namespace loom
