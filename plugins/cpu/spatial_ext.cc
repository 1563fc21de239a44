// The spatial-ext kernel family: ConvTranspose (spatial_ext_deconv.cc) and
// Resize / Upsample (spatial_ext_resize.cc).
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/spatial_ext.h"

namespace loom {
namespace cpu {

sdk::Status RegisterSpatialExtKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(RegisterResizeKernels(reg));
  return RegisterConvTransposeKernels(reg);
}

}  // namespace cpu
}  // namespace loom
