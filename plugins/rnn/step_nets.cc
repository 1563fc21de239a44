#include "plugins/rnn/step_nets.h"

namespace loom {
namespace rnn {

StepNets::~StepNets() {
  for (LoomNet* n : backward) sdk::Api().Net_Release(n);
  for (LoomNet* n : forward) sdk::Api().Net_Release(n);
  for (LoomWorkspace* w : workspaces) sdk::Api().Workspace_Release(w);
}

sdk::Status SharedStepNets(sdk::KernelContext& ctx, const std::string& first_output, std::shared_ptr<StepNets>* out) {
  return sdk::AcquireOpResource(ctx.handle(), "rnn.step_nets." + first_output, out);
}

}  // namespace rnn
}  // namespace loom
