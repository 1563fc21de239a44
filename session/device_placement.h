// Device placement for a Session (SessionOptions::device) and loom_run's
// --device: putting a net's ops on one device, and its weights there once
// before the timed runs.
#ifndef LOOM_SESSION_DEVICE_PLACEMENT_H_
#define LOOM_SESSION_DEVICE_PLACEMENT_H_

#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"
#include "core/workspace.h"

namespace loom {

// "CPU", "CUDA" or "CUDA:<id>" as a DeviceOption. INVALID_ARGUMENT ("expected
// TYPE or TYPE:<id>") otherwise; callers prefix the flag or option.
absl::StatusOr<DeviceOption> ParseDeviceName(const std::string& name);

// Makes `device` usable in `registry`: for CUDA, loads the CUDA plugin from
// `cuda_plugin` (a path or a name LoadPlugin resolves) unless a plugin named
// "cuda" is loaded; then NOT_FOUND listing the registered device types when
// the device (type and ordinal) is not there. Callers prefix the messages.
absl::Status RequireDevice(const DeviceOption& device, Registry* registry, const std::string& cuda_plugin);

// Places every op of `net` and of the nets nested in its ops' arguments
// (step nets, control-flow bodies) on `device`. With `fallback`, an op
// whose type has no kernel for that device stays on the host (its type goes
// into *on_host) and the planner copies tensors across.
void PlaceOnDevice(NetDef* net, const DeviceOption& device, const Registry& registry, bool fallback,
                   std::set<std::string>* on_host);

// Copies the large float initializers of `net` (float32/16, >= 1024
// elements) to `device` once: each becomes a device tensor of the same name
// in `ws`, so Net::Create keeps it and the planner does not copy it on
// every run. Those that an op on another device reads stay on the host, as
// do smaller or other ones (shape-like constants are read on the host
// during inference). Returns how many tensors moved; on an error (a bad
// initializer, or the copies failing to run) no device copy is left in `ws`.
absl::StatusOr<int> PreloadWeights(const NetDef& net, const DeviceOption& device, Workspace* ws, Registry* registry);

}  // namespace loom

#endif  // LOOM_SESSION_DEVICE_PLACEMENT_H_
