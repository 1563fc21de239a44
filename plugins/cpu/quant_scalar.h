// ScalarOf: a one-element parameter of the int8 kernels (QLinearConv,
// QLinearMatMul, QLinearAdd, ...): a float32 scale, which must be positive and
// finite (ONNX's scales are; 0 or NaN would requantize to undefined int8
// values), or an int8/uint8 zero point. Errors name the op and the input.
#ifndef LOOM_PLUGINS_CPU_QUANT_SCALAR_H_
#define LOOM_PLUGINS_CPU_QUANT_SCALAR_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "plugins/cpu/cpu_common.h"

namespace loom {
namespace cpu {

inline Status ScalarOf(const std::string& label, const char* name, const Tensor& t, double* out) {
  if (!t.present() || t.num_elements() != 1) {
    return sdk::InvalidArgument(label + ": " + name + " must be one element; found " +
                                (t.present() ? ShapeStr(t.shape()) : std::string("none")));
  }
  switch (t.dtype()) {
    case LOOM_DTYPE_FLOAT:
      *out = *t.data<float>();
      if (!(std::isfinite(*out) && *out > 0)) {
        return sdk::InvalidArgument(label + ": " + name + " must be a positive finite scale; found " +
                                    std::to_string(*out));
      }
      break;
    case LOOM_DTYPE_INT8: *out = *t.data<int8_t>(); break;
    case LOOM_DTYPE_UINT8: *out = *t.data<uint8_t>(); break;
    default: return UnsupportedDtype(label + " " + name, t.dtype());
  }
  return Status::Ok();
}

// Scale / zero point pairs of an element-wise int8 kernel: input inputs[i]
// is named names[i], a float32 scale at even i and a zero point of
// `zero_point_dtype` at odd i; their values into out[i] (ScalarOf's rules).
// INVALID_ARGUMENT naming the input for another dtype or shape.
template <size_t kCount>
Status ScaleZeroPointPairs(sdk::KernelContext& ctx, const std::string& label, const char* (&names)[kCount],
                           const size_t (&inputs)[kCount], LoomDataType zero_point_dtype, double (&out)[kCount]) {
  for (size_t i = 0; i < kCount; ++i) {
    const Tensor t = ctx.Input(inputs[i]);
    const LoomDataType want = i % 2 == 0 ? LOOM_DTYPE_FLOAT : zero_point_dtype;
    if (t.present() && t.dtype() != want) {
      return sdk::InvalidArgument(label + ": " + names[i] + " must be " + sdk::DTypeName(want) + "; found " +
                                  sdk::DTypeName(t.dtype()));
    }
    LOOM_SDK_RETURN_IF_ERROR(ScalarOf(label, names[i], t, &out[i]));
  }
  return Status::Ok();
}

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_QUANT_SCALAR_H_
