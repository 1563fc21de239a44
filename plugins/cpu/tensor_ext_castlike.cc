// CastLike-15 kernel: Cast to the dtype of the second input. ONNX semantics
// as Cast-13 (tensor_cast.cc): the conversion rules below are a copy of that
// file's (which keeps them file-local and is not this family's to edit); the
// tests check CastLike against Cast, so the two cannot drift apart unseen.
// TODO(lead): move Convert into a shared header and drop this copy.
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

class CastLikeKernel {
 public:
  Status Init(const KernelInfo& info) { label_ = OpLabel(info); return Status::Ok(); }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const LoomDataType to_dt = ctx.Input(1).dtype();
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, to_dt, x.shape(), &y));
    const int64_t n = x.num_elements();
    if (x.dtype() == to_dt) {
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
      LOOM_TENSOR_DISPATCH_ALL(to_dt, to)
      return UnsupportedDtype(label_, to_dt);
    };
    LOOM_TENSOR_DISPATCH_ALL(x.dtype(), from)
    return UnsupportedDtype(label_, x.dtype());
  }

 private:
  std::string label_;
};

}  // namespace

// CastLike; called by RegisterTensorExtKernels.
Status RegisterTensorExtCastLikeKernels(sdk::Registrar& reg) {
  return reg.Kernel<CastLikeKernel>("CastLike", {"CPU", "", 0, {{"T1", AllDTypes()}, {"T2", AllDTypes()}}});
}

}  // namespace cpu
}  // namespace loom
