// The CUDA plugin's entry point: registers the CUDA device and the kernels.
// With no usable GPU (no driver, no device) it still loads: the device
// reports 0 GPUs and nets placed on CUDA fail when they allocate.
#include "plugins/cuda/cuda_device.h"
#include "plugins/cuda/kernels.h"

LOOM_PLUGIN("cuda", "0.1.0", reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Device(loom::cuda::CudaDeviceDef()));
  using namespace loom::cuda;
  return reg.Each({
    RegisterMathElementwiseKernels, RegisterMathGemmMatMulKernels, RegisterReductionSumMeanMaxMinKernels,
    RegisterNnConvKernels, RegisterNnPoolKernels, RegisterNnBatchNormKernels, RegisterTensorShapeCopyCastKernels,
    RegisterRnnKernels,
  });
}
