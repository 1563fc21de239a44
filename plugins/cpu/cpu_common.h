// Shared helpers of the CPU plugin's kernels: dtype dispatch, storage and
// compute types (float16/bfloat16 compute in float), broadcasting, errors.
#ifndef LOOM_PLUGINS_CPU_CPU_COMMON_H_
#define LOOM_PLUGINS_CPU_CPU_COMMON_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"
#include "ops/semantics/shape_math.h"

namespace loom {
namespace cpu {

using sdk::BFloat16;
using sdk::Float16;
using sdk::KernelContext;
using sdk::KernelInfo;
using sdk::Status;
using sdk::Tensor;

// Elementwise loops go parallel above this many elements (small tensors stay
// on the calling thread: no OpenMP fork/join cost on tiny ops).
constexpr int64_t kParallelThreshold = 1 << 15;

// Storage type S computes as Num<S>::C.
template <typename S> struct Num {
  using C = S;
  static C Load(S v) { return v; }
  static S Store(C v) { return v; }
};
template <> struct Num<Float16> {
  using C = float;
  static float Load(Float16 v) { return Float16::ToFloat(v.bits); }
  static Float16 Store(float v) { Float16 h; h.bits = Float16::FromFloat(v); return h; }
};
template <> struct Num<BFloat16> {
  using C = float;
  static float Load(BFloat16 v) { return BFloat16::ToFloat(v.bits); }
  static BFloat16 Store(float v) { BFloat16 h; h.bits = BFloat16::FromFloat(v); return h; }
};

using semantics::ShapeStr;  // "[2, 3]"
// "Add 'name'": how kernel errors name the op.
std::string OpLabel(const KernelInfo& info);

// Numpy broadcast of shapes (false if they do not broadcast) and the
// element strides of an input seen through the broadcast shape.
using semantics::BroadcastShape;
using semantics::BroadcastStrides;

// Normalizes a possibly negative axis for a tensor of `rank`; false if out of range.
bool NormalizeAxis(int64_t* axis, int64_t rank);

// Reads an int64 or int32 tensor's values (shape/axes/indices inputs).
bool ReadInts(const Tensor& t, std::vector<int64_t>* out);
// The one value of `t`, an int32/int64 tensor of one element (input `name`
// of `label`'s op, named in the INVALID_ARGUMENT otherwise).
Status ReadScalarInt(const std::string& label, const Tensor& t, const char* name, int64_t* v);

// A gradient op's operands that pair element by element: dY (input 0) and
// the forward tensor (input 1, named `other` in the error), which must
// match it in shape and dtype (INVALID_ARGUMENT naming both otherwise);
// dX (output 0) sized like them. The activations' and softmax's gradients.
Status ElementwiseGradientOperands(KernelContext& ctx, const std::string& label, const char* other, Tensor* dy,
                                   Tensor* v, Tensor* dx);

// Calls f(T{}) with T the C++ type of `dtype`, for the float dtypes.
#define LOOM_CPU_DISPATCH_FLOAT(dtype, F)                       \
  switch (dtype) {                                              \
    case LOOM_DTYPE_FLOAT: return F(float{});                   \
    case LOOM_DTYPE_DOUBLE: return F(double{});                 \
    case LOOM_DTYPE_FLOAT16: return F(::loom::sdk::Float16{});  \
    case LOOM_DTYPE_BFLOAT16: return F(::loom::sdk::BFloat16{}); \
    default: break;                                             \
  }

// The float dtypes and the integer ones.
#define LOOM_CPU_DISPATCH_NUMERIC(dtype, F) \
  LOOM_CPU_DISPATCH_FLOAT(dtype, F)         \
  switch (dtype) {                          \
    case LOOM_DTYPE_INT8: return F(int8_t{});   \
    case LOOM_DTYPE_UINT8: return F(uint8_t{}); \
    case LOOM_DTYPE_INT16: return F(int16_t{}); \
    case LOOM_DTYPE_UINT16: return F(uint16_t{}); \
    case LOOM_DTYPE_INT32: return F(int32_t{}); \
    case LOOM_DTYPE_UINT32: return F(uint32_t{}); \
    case LOOM_DTYPE_INT64: return F(int64_t{}); \
    case LOOM_DTYPE_UINT64: return F(uint64_t{}); \
    default: break;                         \
  }

// Every dtype, by element size only (for ops that only move bytes).
#define LOOM_CPU_DISPATCH_BYTES(dtype, F)                         \
  switch (::loom::sdk::DTypeSize(dtype)) {                        \
    case 1: return F(uint8_t{});                                  \
    case 2: return F(uint16_t{});                                 \
    case 4: return F(uint32_t{});                                 \
    case 8: return F(uint64_t{});                                 \
    default: break;                                               \
  }

// Base of the kernels that name their op in errors: label_ is OpLabel's
// "Add 'name'". Its Init is the whole Init of a kernel without attributes.
class LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return Status::Ok();
  }

 protected:
  std::string label_;
};

// The options of a CPU kernel whose type constraint "T" is float32 or
// float64 (oneDNN's float32 beside float64 loops).
inline sdk::KernelOptions CpuFloatAndDouble() { return {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}}}, ""}; }

inline Status UnsupportedDtype(const std::string& op, LoomDataType dt) {
  return sdk::InvalidArgument(op + ": dtype " + sdk::DTypeName(dt) + " is not supported by this kernel");
}

// f(T{}) with T the C++ type of `dt` among the float dtypes (the numeric
// ones; one unsigned type per element size), or UnsupportedDtype(label, dt).
template <typename F>
Status DispatchFloat(LoomDataType dt, const std::string& label, F&& f) {
  LOOM_CPU_DISPATCH_FLOAT(dt, f)
  return UnsupportedDtype(label, dt);
}
template <typename F>
Status DispatchNumeric(LoomDataType dt, const std::string& label, F&& f) {
  LOOM_CPU_DISPATCH_NUMERIC(dt, f)
  return UnsupportedDtype(label, dt);
}
// DispatchNumeric, and bool as f(B{}).
template <typename B, typename F>
Status DispatchNumericOrBool(LoomDataType dt, const std::string& label, F&& f) {
  if (dt == LOOM_DTYPE_BOOL) return f(B{});
  return DispatchNumeric(dt, label, f);
}
template <typename F>
Status DispatchBytes(LoomDataType dt, const std::string& label, F&& f) {
  LOOM_CPU_DISPATCH_BYTES(dt, f)
  return UnsupportedDtype(label, dt);
}

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_CPU_COMMON_H_
