// The tensor family's kernels (shape and data movement), registered per
// sub-family: tensor_shape.cc, tensor_copy.cc, tensor_cast.cc.
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {

sdk::Status RegisterTensorKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(RegisterTensorShapeKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(RegisterTensorCopyKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(RegisterCastKernels(reg));
  return sdk::Status::Ok();
}

}  // namespace cpu
}  // namespace loom
