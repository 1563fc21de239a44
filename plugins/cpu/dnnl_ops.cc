// RegisterDnnlKernels: every oneDNN-backed kernel family of the CPU plugin.
#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {

sdk::Status RegisterDnnlKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(RegisterDnnlGemmKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(RegisterDnnlConvKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(RegisterDnnlPoolKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(RegisterDnnlBatchNormKernels(reg));
  return RegisterDnnlRnnKernels(reg);
}

}  // namespace cpu
}  // namespace loom
