// Registration functions of the spatial-ext kernel files (ConvTranspose,
// Resize, Upsample); RegisterSpatialExtKernels (spatial_ext.cc) calls them.
#ifndef LOOM_PLUGINS_CPU_SPATIAL_EXT_H_
#define LOOM_PLUGINS_CPU_SPATIAL_EXT_H_

#include "core/api/loom_sdk.h"

namespace loom {
namespace cpu {

sdk::Status RegisterResizeKernels(sdk::Registrar& reg);         // spatial_ext_resize.cc: Resize, Upsample
sdk::Status RegisterConvTransposeKernels(sdk::Registrar& reg);  // spatial_ext_deconv.cc: ConvTranspose (oneDNN)

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_SPATIAL_EXT_H_
