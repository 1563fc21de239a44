// Cast-13 kernel: every dtype to every dtype (ONNX Cast; float16/bfloat16
// through float with round-to-nearest-even, via sdk::Float16/BFloat16).
//
// Where ONNX leaves a conversion undefined we follow numpy's astype on x86
// (what the ONNX reference implementation runs): float to integer truncates
// toward zero, then wraps modulo 2^bits through int64 (-1.0 -> uint8 255);
// NaN gives 0 and values beyond int64 saturate. Integer to integer wraps
// (int32 300 -> uint8 44). To bool: nonzero (and NaN) is true.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// float16/bfloat16 compute as float; the others as themselves.
template <typename From>
auto Widen(From v) {
  if constexpr (kIsHalf<From>) return static_cast<float>(v);
  else return v;
}

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

// Calls f(T{}) for T the storage type of `dtype`, any dtype.
#define LOOM_TENSOR_DISPATCH_ALL(dtype, F)          \
  switch (dtype) {                                  \
    case LOOM_DTYPE_FLOAT: return F(float{});       \
    case LOOM_DTYPE_DOUBLE: return F(double{});     \
    case LOOM_DTYPE_FLOAT16: return F(Float16{});   \
    case LOOM_DTYPE_BFLOAT16: return F(BFloat16{}); \
    case LOOM_DTYPE_INT8: return F(int8_t{});       \
    case LOOM_DTYPE_UINT8: return F(uint8_t{});     \
    case LOOM_DTYPE_INT16: return F(int16_t{});     \
    case LOOM_DTYPE_UINT16: return F(uint16_t{});   \
    case LOOM_DTYPE_INT32: return F(int32_t{});     \
    case LOOM_DTYPE_UINT32: return F(uint32_t{});   \
    case LOOM_DTYPE_INT64: return F(int64_t{});     \
    case LOOM_DTYPE_UINT64: return F(uint64_t{});   \
    case LOOM_DTYPE_BOOL: return F(bool{});         \
    default: break;                                 \
  }

class CastKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    int64_t to = 0;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("to", &to));
    to_ = static_cast<LoomDataType>(to);
    if (sdk::DTypeSize(to_) == 0) {
      return sdk::InvalidArgument(label_ + ": attribute 'to' = " + std::to_string(to) +
                                  " is not a dtype Loom supports (ONNX TensorProto.DataType codes)");
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, to_, x.shape(), &y));
    const int64_t n = x.num_elements();
    if (x.dtype() == to_) {
      CopyData(x, y);
      return Status::Ok();
    }
    const int threads = ctx.num_threads();
    auto from = [&](auto in_tag) -> Status {
      using From = decltype(in_tag);
      auto to = [&](auto out_tag) -> Status {
        using To = decltype(out_tag);
        const From* in = x.data<From>();
        To* out = y.data<To>();
#pragma omp parallel for if (n > kParallelThreshold) num_threads(threads)
        for (int64_t i = 0; i < n; ++i) out[i] = Convert<To, From>(in[i]);
        return Status::Ok();
      };
      LOOM_TENSOR_DISPATCH_ALL(to_, to)
      return UnsupportedDtype(label_, to_);
    };
    LOOM_TENSOR_DISPATCH_ALL(x.dtype(), from)
    return UnsupportedDtype(label_, x.dtype());
  }

 private:
  std::string label_;
  LoomDataType to_ = LOOM_DTYPE_FLOAT;
};

}  // namespace

Status RegisterCastKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllDTypes();
  return reg.Kernel<CastKernel>("Cast", {"CPU", "", 0, {{"T1", all}, {"T2", all}}});
}

}  // namespace cpu
}  // namespace loom
