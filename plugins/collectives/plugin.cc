// The collectives plugin: Caffe2's CreateCommonWorld, Allreduce, Broadcast
// and Barrier on Gloo (CPU tensors, TCP), for data-parallel training
// (core/autodiff/data_parallel.h).
#include "plugins/collectives/collectives_ops.h"

LOOM_PLUGIN("collectives", "0.1.0", reg) { return loom::collectives::RegisterCollectiveOps(reg); }
