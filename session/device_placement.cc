#include "session/device_placement.h"

#include <map>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "core/proto_io.h"
#include "session/registry_setup.h"

namespace loom {

absl::StatusOr<DeviceOption> ParseDeviceName(const std::string& name) {
  DeviceOption d;
  std::vector<std::string> parts = absl::StrSplit(name, absl::MaxSplits(':', 1));
  int id = 0;
  if (parts[0].empty() || (parts.size() == 2 && (!absl::SimpleAtoi(parts[1], &id) || id < 0))) {
    return absl::InvalidArgumentError("expected TYPE or TYPE:<id> (CPU, CUDA, CUDA:1)");
  }
  d.set_device_type(parts[0]);
  d.set_device_id(id);
  return d;
}

absl::Status RequireDevice(const DeviceOption& device, Registry* registry, const std::string& cuda_plugin) {
  const std::string& type = device.device_type();
  if (type == "CUDA" && !registry->FindPlugin("cuda").has_value()) {
    absl::Status s = LoadPlugin(registry, cuda_plugin, PluginSearchPath());
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("cannot load the CUDA plugin (pass its path as a plugin): ", s.message()));
  }
  if (registry->FindDevice(type, device.device_id()) == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "no such device (registered device types: ", absl::StrJoin(registry->DeviceTypes(), ", "),
        type == "CUDA" ? "; for CUDA the plugin is loaded but cudaGetDeviceCount found no usable GPU with that id" : "",
        ")"));
  }
  return absl::OkStatus();
}

void PlaceOnDevice(NetDef* net, const DeviceOption& device, const Registry& registry, bool fallback,
                   std::set<std::string>* on_host) {
  *net->mutable_device_option() = device;
  for (OperatorDef& op : *net->mutable_op()) {
    absl::StatusOr<const OpSchema*> schema = registry.ResolveSchema(op.domain(), op.type());
    if (fallback && schema.ok() && !registry.HasKernelForDevice((*schema)->key(), device.device_type())) {
      op.mutable_device_option()->set_device_type("CPU");
      op.mutable_device_option()->set_device_id(0);
      on_host->insert(op.type());
      continue;
    }
    *op.mutable_device_option() = device;
    for (Argument& a : *op.mutable_arg()) {
      if (a.has_n()) PlaceOnDevice(a.mutable_n(), device, registry, fallback, on_host);
      for (NetDef& n : *a.mutable_nets()) PlaceOnDevice(&n, device, registry, fallback, on_host);
    }
  }
}

absl::StatusOr<int> PreloadWeights(const NetDef& net, const DeviceOption& device, Workspace* ws, Registry* registry) {
  // A net of Identity ops on the device, each from a host copy named
  // "<name>@host_preload" to <name>.
  NetDef init;
  init.set_name(net.name() + "_preload");
  *init.mutable_device_option() = device;
  // Only tensors that every reader reads on the device (a host reader would
  // copy it back on every run).
  std::map<std::string, bool> all_on_device;
  for (const OperatorDef& op : net.op()) {
    const DeviceOption& d = op.has_device_option() ? op.device_option() : net.device_option();
    bool on = d.device_type() == device.device_type() && d.device_id() == device.device_id();
    for (const std::string& in : op.input()) {
      auto [it, inserted] = all_on_device.emplace(in, on);
      if (!inserted) it->second = it->second && on;
    }
  }
  for (const TensorProto& p : net.initializer()) {
    if (ws->HasBlob(p.name())) continue;
    auto used = all_on_device.find(p.name());
    if (used == all_on_device.end() || !used->second) continue;
    auto t = TensorFromProto(p);
    if (!t.ok()) return t.status();
    if ((t->dtype() != DataType::kFloat32 && t->dtype() != DataType::kFloat16) || t->num_elements() < 1024) continue;
    std::string host = p.name() + "@host_preload";
    ws->SetBlob(host, *std::move(t));
    init.add_external_input(host);
    OperatorDef* op = init.add_op();
    op->set_type("Identity");
    op->set_name("preload_" + p.name());
    op->add_input(host);
    op->add_output(p.name());
    *op->mutable_device_option() = device;
  }
  if (init.op_size() == 0) return 0;
  absl::Status s;
  {
    auto n = Net::Create(init, ws, registry);
    s = n.ok() ? (*n)->Run() : n.status();
  }
  for (const OperatorDef& op : init.op()) {
    ws->RemoveBlob(op.input(0));
    if (!s.ok()) ws->RemoveBlob(op.output(0));  // Net::Create then puts the host initializer back
  }
  if (!s.ok()) return s;
  return init.op_size();
}

}  // namespace loom
