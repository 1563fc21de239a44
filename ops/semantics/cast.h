// ONNX Cast-13 / CastLike-15 element conversion rules, shared by the
// kernels that convert on the host: every dtype to every dtype,
// float16/bfloat16 through float with round-to-nearest-even (via
// sdk::Float16/BFloat16).
//
// Where ONNX leaves a conversion undefined we follow numpy's astype on x86
// (what the ONNX reference implementation runs): float to integer truncates
// toward zero, then wraps modulo 2^bits through int64 (-1.0 -> uint8 255);
// NaN gives 0 and values beyond int64 saturate. Integer to integer wraps
// (int32 300 -> uint8 44). To bool: nonzero (and NaN) is true.
#ifndef LOOM_OPS_SEMANTICS_CAST_H_
#define LOOM_OPS_SEMANTICS_CAST_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "core/api/loom_sdk.h"

namespace loom {
namespace semantics {

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, sdk::Float16> || std::is_same_v<T, sdk::BFloat16>;

// float16/bfloat16 compute as float; the others as themselves.
template <typename From>
auto Widen(From v) {
  if constexpr (kIsHalf<From>) return static_cast<float>(v);
  else return v;
}

// A float value to the integer type To (see the file comment).
template <typename To>
To FloatToInt(double x) {
  if (std::isnan(x)) return To(0);
  x = std::trunc(x);
  if constexpr (std::is_same_v<To, uint64_t>) {
    // Above int64's range only uint64 can hold the value.
    if (x >= 9223372036854775808.0) return x >= 18446744073709551616.0 ? std::numeric_limits<uint64_t>::max()
                                                                       : static_cast<uint64_t>(x);
  }
  int64_t i;
  if (x >= 9223372036854775808.0) i = std::numeric_limits<int64_t>::max();
  else if (x < -9223372036854775808.0) i = std::numeric_limits<int64_t>::min();
  else i = static_cast<int64_t>(x);
  return static_cast<To>(i);  // modulo 2^bits (GCC; C++20 defines it)
}

// A float value to the integer type To, saturating: NaN gives 0, values
// beyond To's range its min or max, the others truncate toward zero. For
// the kernels that compute an integer result in floating point (Clip's
// float bounds, Shrink, Pow with a float exponent, the integer log
// reductions): no undefined conversion, and the nearest value To holds.
// Cast itself keeps FloatToInt's numpy rules.
template <typename To>
To SaturateCast(double x) {
  static_assert(std::is_integral_v<To>, "SaturateCast converts to integer types");
  if (std::isnan(x)) return To(0);
  if constexpr (std::is_same_v<To, bool>) {
    return x != 0.0;
  } else {
    // min is 0 or -2^digits and max + 1 is 2^digits: both exact in double.
    const double lo = static_cast<double>(std::numeric_limits<To>::min());
    const double hi = std::ldexp(1.0, std::numeric_limits<To>::digits);
    if (x <= lo) return std::numeric_limits<To>::min();
    if (x >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(x);  // in (lo, hi): truncates to a value To holds
  }
}

// One element of storage type From converted to storage type To by ONNX
// Cast's rules (the file comment).
template <typename To, typename From>
To Convert(From v) {
  const auto w = Widen(v);
  using W = decltype(w);
  if constexpr (std::is_same_v<To, bool>) {
    return w != W(0);
  } else if constexpr (kIsHalf<To>) {
    return To(static_cast<float>(w));
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(w);
  } else if constexpr (std::is_floating_point_v<W>) {
    return FloatToInt<To>(static_cast<double>(w));
  } else {
    return static_cast<To>(w);
  }
}

// Reads Cast's `to` attribute (an ONNX TensorProto.DataType code) into *to.
// INVALID_ARGUMENT, naming `label`, when it is missing or not a dtype Loom
// holds.
inline sdk::Status ReadCastTo(const sdk::KernelInfo& info, const std::string& label, LoomDataType* to) {
  int64_t code = 0;
  LOOM_SDK_RETURN_IF_ERROR(info.GetInt("to", &code));
  *to = static_cast<LoomDataType>(code);
  if (sdk::DTypeSize(*to) == 0 && *to != LOOM_DTYPE_STRING) {
    return sdk::InvalidArgument(label + ": attribute 'to' = " + std::to_string(code) +
                                " is not a dtype Loom supports (ONNX TensorProto.DataType codes)");
  }
  return sdk::Status::Ok();
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_CAST_H_
