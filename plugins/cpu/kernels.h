// One registration function per kernel family of the CPU plugin.
#ifndef LOOM_PLUGINS_CPU_KERNELS_H_
#define LOOM_PLUGINS_CPU_KERNELS_H_

#include "core/api/loom_sdk.h"

namespace loom {
namespace cpu {

sdk::Status RegisterElementwiseKernels(sdk::Registrar& reg);  // elementwise.cc (OpenMP)
sdk::Status RegisterReductionKernels(sdk::Registrar& reg);    // reduction.cc (OpenMP)
sdk::Status RegisterDnnlKernels(sdk::Registrar& reg);         // dnnl_*.cc (oneDNN)
sdk::Status RegisterTensorKernels(sdk::Registrar& reg);       // tensor_ops.cc
sdk::Status RegisterElementwiseExtKernels(sdk::Registrar& reg);  // elementwise_ext.cc
sdk::Status RegisterTensorExtKernels(sdk::Registrar& reg);       // tensor_ext.cc
sdk::Status RegisterIndexExtKernels(sdk::Registrar& reg);        // index_ext.cc
sdk::Status RegisterLossKernels(sdk::Registrar& reg);  // loss*.cc
sdk::Status RegisterNormExtKernels(sdk::Registrar& reg);  // norm_ext*.cc
sdk::Status RegisterSpatialExtKernels(sdk::Registrar& reg);  // spatial_ext*.cc

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_KERNELS_H_
