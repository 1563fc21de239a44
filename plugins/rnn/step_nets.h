// The step workspaces and step nets of one RecurrentNetwork op, shared by
// every kernel the op gets (one per plan of its net: each input signature,
// e.g. each bucket of MXNet-style bucketing, has its own plan and kernels)
// and by its RecurrentNetworkGradient's kernels. So the timesteps'
// workspaces, forward and backward step nets exist once, for the longest
// T seen, instead of once per bucket; and the gradient finds the forward's
// kept workspaces here (Caffe2 passed them as the op's step_workspaces
// output). Destroyed with the last kernel that holds it: the backward nets
// first (they run in the forward's workspaces), then the forward nets, then
// the workspaces.
#ifndef LOOM_PLUGINS_RNN_STEP_NETS_H_
#define LOOM_PLUGINS_RNN_STEP_NETS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"

namespace loom {
namespace rnn {

struct StepNets {
  std::vector<LoomWorkspace*> workspaces;  // timestep t's child workspace of the op's workspace
  std::vector<LoomNet*> forward;           // the step net, in workspaces[t]
  std::vector<LoomNet*> backward;          // the backward step net, in workspaces[t]
  // The last forward run: its T, and whether its timesteps kept their
  // intermediates (forward_only = 0) for a backward pass not yet run.
  int64_t last_T = -1;
  bool kept = false;

  ~StepNets();
};

// The StepNets of the op whose first output is `first_output`, in the
// workspace ctx's op runs in: made on first use, shared while some kernel
// holds it (a per-op resource of that workspace, ABI 11's
// LoomKernelContextApi::OpResource_*).
sdk::Status SharedStepNets(sdk::KernelContext& ctx, const std::string& first_output, std::shared_ptr<StepNets>* out);

}  // namespace rnn
}  // namespace loom

#endif  // LOOM_PLUGINS_RNN_STEP_NETS_H_
