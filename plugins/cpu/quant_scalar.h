// ScalarOf: a one-element parameter of the int8 kernels (QLinearConv,
// QLinearMatMul, QLinearAdd): a float32 scale, which must be positive and
// finite (ONNX's scales are; 0 or NaN would requantize to undefined int8
// values), or an int8/uint8 zero point. Errors name the op and the input.
#ifndef LOOM_PLUGINS_CPU_QUANT_SCALAR_H_
#define LOOM_PLUGINS_CPU_QUANT_SCALAR_H_

#include <cmath>
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

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_QUANT_SCALAR_H_
