#include "plugins/rnn/step_nets.h"

#include <map>
#include <mutex>

namespace loom {
namespace rnn {

StepNets::~StepNets() {
  for (LoomNet* n : backward) sdk::Api().Net_Release(n);
  for (LoomNet* n : forward) sdk::Api().Net_Release(n);
  for (LoomWorkspace* w : workspaces) sdk::Api().Workspace_Release(w);
}

std::shared_ptr<StepNets> SharedStepNets(LoomWorkspace* parent, const std::string& first_output) {
  // A blob's tensor is one object per (workspace, name) for the workspace's
  // life: its address tells the workspace apart (an expired entry at a
  // reused address is replaced).
  const LoomTensor* key = sdk::Api().Workspace_CreateBlob(parent, ("__rnn_steps_" + first_output).c_str());
  static std::mutex mu;
  static std::map<const LoomTensor*, std::weak_ptr<StepNets>> live;
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = live.begin(); it != live.end();) it = it->second.expired() ? live.erase(it) : std::next(it);
  std::shared_ptr<StepNets> s = live[key].lock();
  if (s == nullptr) {
    s = std::make_shared<StepNets>();
    live[key] = s;
  }
  return s;
}

}  // namespace rnn
}  // namespace loom
