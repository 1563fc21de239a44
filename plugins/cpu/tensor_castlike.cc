// CastLike-15 kernel: Cast to the dtype of the second input, with Cast-13's
// conversion (CastTensor in tensor_cast.cc, ops/semantics/cast.h).
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

class CastLikeKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const LoomDataType to_dt = ctx.Input(1).dtype();
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, to_dt, x.shape(), &y));
    return CastTensor(label_, x, to_dt, y, ctx.num_threads());
  }
};

}  // namespace

Status RegisterTensorCastLikeKernels(sdk::Registrar& reg) {
  return reg.Kernel<CastLikeKernel>("CastLike", {"CPU", "", 0, {{"T1", AllDTypes()}, {"T2", AllDTypes()}}});
}

}  // namespace cpu
}  // namespace loom
