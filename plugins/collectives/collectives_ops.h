// Registration of the collectives plugin's operators.
#ifndef LOOM_PLUGINS_COLLECTIVES_COLLECTIVES_OPS_H_
#define LOOM_PLUGINS_COLLECTIVES_COLLECTIVES_OPS_H_

#include "core/api/loom_sdk.h"

namespace loom {
namespace collectives {

// The SDK names the kernel files of this plugin use.
using sdk::KernelContext;
using sdk::KernelInfo;
using sdk::Status;
using sdk::Tensor;

// collective_ops.cc: CreateCommonWorld, Allreduce, Broadcast, Barrier
// (schemas and CPU kernels over Gloo).
sdk::Status RegisterCollectiveOps(sdk::Registrar& reg);

// nccl_kernels.cc (--config=cuda): Allreduce and Broadcast on CUDA tensors
// with NCCL, engine "NCCL".
sdk::Status RegisterNcclKernels(sdk::Registrar& reg);

}  // namespace collectives
}  // namespace loom

#endif  // LOOM_PLUGINS_COLLECTIVES_COLLECTIVES_OPS_H_
