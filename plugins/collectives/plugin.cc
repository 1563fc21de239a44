// The collectives plugin: Caffe2's CreateCommonWorld, Allreduce, Broadcast
// and Barrier on Gloo (CPU tensors, TCP), and with --config=cuda Allreduce
// and Broadcast on NCCL (CUDA tensors), for data-parallel training
// (core/autodiff/data_parallel.h).
#include "plugins/collectives/collectives_ops.h"

LOOM_PLUGIN("collectives", "0.1.0", reg) {
  LOOM_SDK_RETURN_IF_ERROR(loom::collectives::RegisterCollectiveOps(reg));
#ifdef LOOM_WITH_NCCL
  LOOM_SDK_RETURN_IF_ERROR(loom::collectives::RegisterNcclKernels(reg));
#endif
  return loom::sdk::Status::Ok();
}
