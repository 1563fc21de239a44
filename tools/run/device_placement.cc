#include "tools/run/device_placement.h"

#include <map>

#include "core/net.h"
#include "core/proto_io.h"

namespace loom {
namespace tools {

void PlaceOnDevice(NetDef* net, const DeviceOption& device, const Registry& registry, bool fallback,
                   std::set<std::string>* on_host) {
  *net->mutable_device_option() = device;
  for (OperatorDef& op : *net->mutable_op()) {
    if (fallback && !registry.HasKernelForDevice(op.type(), device.device_type())) {
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

}  // namespace tools
}  // namespace loom
