#include "core/limits.h"

#include <cstdio>
#include <limits>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"

namespace loom {
const NetLimits& DefaultLimits() {
  static const NetLimits kDefaults;
  return kDefaults;
}

absl::StatusOr<int64_t> CheckedNumElements(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : dims) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("negative dimension in shape ", ShapeToString(dims)));
  }
  for (int64_t d : dims) {
    if (d == 0) return int64_t{0};  // zero elements, whatever the other dims
  }
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n)) overflow = true;
  }
  if (overflow) {
    return absl::InvalidArgumentError(
        absl::StrCat("the element count of shape ", ShapeToString(dims), " overflows int64 (max ",
                     std::numeric_limits<int64_t>::max(), ")"));
  }
  return n;
}

absl::StatusOr<int64_t> CheckedNumBytes(DataType dtype, absl::Span<const int64_t> dims) {
  absl::StatusOr<int64_t> n = CheckedNumElements(dims);
  if (!n.ok()) return n.status();
  int64_t bytes = 0;
  if (__builtin_mul_overflow(*n, static_cast<int64_t>(DataTypeSize(dtype)), &bytes)) {
    return absl::InvalidArgumentError(absl::StrCat("the byte count of ", DataTypeName(dtype), ShapeToString(dims),
                                                   " overflows int64"));
  }
  return bytes;
}

std::string HumanBytes(double bytes) {
  static const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  char buf[64];
  if (u == 0 || bytes == static_cast<double>(static_cast<int64_t>(bytes))) {
    std::snprintf(buf, sizeof(buf), "%.0f %s", bytes, kUnits[u]);
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f %s", bytes, kUnits[u]);
  }
  return buf;
}

absl::Status CheckTensorSize(const NetLimits& limits, const std::string& what, DataType dtype,
                             absl::Span<const int64_t> dims) {
  absl::StatusOr<int64_t> bytes = CheckedNumBytes(dtype, dims);
  if (!bytes.ok()) return absl::Status(bytes.status().code(), absl::StrCat(what, ": ", bytes.status().message()));
  if (limits.max_tensor_bytes > 0 && *bytes > limits.max_tensor_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        what, " would be ", DataTypeName(dtype), ShapeToString(dims), ": ", *bytes, " bytes (",
        HumanBytes(static_cast<double>(*bytes)), "), over the limit max_tensor_bytes = ", limits.max_tensor_bytes,
        " (", HumanBytes(static_cast<double>(limits.max_tensor_bytes)),
        "); raise it with NetOptions::max_tensor_bytes or loom_run --max_tensor_bytes"));
  }
  return absl::OkStatus();
}

}  // namespace loom
