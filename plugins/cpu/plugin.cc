// The CPU plugin's entry point: oneDNN and OpenMP kernels for the standard
// operator set.
#include "plugins/cpu/kernels.h"

LOOM_PLUGIN("cpu", "0.1.0", reg) {
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterElementwiseKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterReductionKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterDnnlKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterElementwiseExtKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterTensorExtKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterIndexExtKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterLossKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterNormExtKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(loom::cpu::RegisterSpatialExtKernels(reg));
  return loom::sdk::Status::Ok();
}
