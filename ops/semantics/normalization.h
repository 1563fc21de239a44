// ONNX BatchNormalization-15's attributes, read once for every kernel of the
// op and of its gradient (CPU and CUDA).
#ifndef LOOM_OPS_SEMANTICS_NORMALIZATION_H_
#define LOOM_OPS_SEMANTICS_NORMALIZATION_H_

#include "core/api/loom_sdk.h"

namespace loom {
namespace semantics {

// epsilon (added to the variance), momentum (of the running statistics),
// training_mode (batch statistics instead of input_mean / input_var) and
// Loom's running_var_unbiased (the running variance from the unbiased batch
// variance, PyTorch's rule). Defaults are ONNX's.
struct BatchNormAttrs {
  float epsilon = 1e-5f;
  float momentum = 0.9f;
  bool training = false;
  bool unbiased = false;

  sdk::Status Read(const sdk::KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("epsilon", &epsilon));
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("momentum", &momentum));
    training = info.IntOr("training_mode", 0) != 0;
    unbiased = info.IntOr("running_var_unbiased", 0) != 0;
    return sdk::Status::Ok();
  }
};

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_NORMALIZATION_H_
