#include "ops/families.h"

namespace loom {
namespace ops {

sdk::Status RegisterNormExtSchemas(sdk::Registrar& reg) {
  (void)reg;
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
