#include "plugins/cpu/dnnl_common.h"

namespace loom {
namespace cpu {

sdk::Status RegisterDnnlRnnKernels(sdk::Registrar& reg) {
  (void)reg;
  return sdk::Status::Ok();
}

}  // namespace cpu
}  // namespace loom
