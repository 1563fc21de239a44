#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {

sdk::Status RegisterDnnlKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(RegisterDnnlMatmulKernels(reg));
  LOOM_SDK_RETURN_IF_ERROR(RegisterDnnlRnnKernels(reg));
  return RegisterDnnlConvPoolKernels(reg);
}

}  // namespace cpu
}  // namespace loom
