#include "core/checked_net.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/attributes.h"

namespace loom {
namespace {

std::string Bounds(int mn, int mx) {
  if (mx < 0) return absl::StrCat("at least ", mn);
  if (mn == mx) return absl::StrCat(mn);
  return absl::StrCat(mn, " to ", mx);
}

}  // namespace

// Initializers of nets nested in `op`'s arguments, reduced the same way.
static void StripNested(OperatorDef* op) {
  for (Argument& a : *op->mutable_arg()) {
    if (a.has_n()) *a.mutable_n() = WithoutInitializerData(a.n());
    for (NetDef& n : *a.mutable_nets()) n = WithoutInitializerData(n);
  }
}

NetDef WithoutInitializerData(const NetDef& net) {
  NetDef d;
  if (net.has_name()) d.set_name(net.name());
  *d.mutable_op() = net.op();
  for (OperatorDef& op : *d.mutable_op()) StripNested(&op);
  if (net.has_type()) d.set_type(net.type());
  if (net.has_device_option()) *d.mutable_device_option() = net.device_option();
  *d.mutable_arg() = net.arg();
  *d.mutable_external_input() = net.external_input();
  *d.mutable_external_output() = net.external_output();
  for (const TensorProto& t : net.initializer()) *d.add_initializer() = InitializerMetadata(t);
  return d;
}

TensorProto InitializerMetadata(const TensorProto& t) {
  TensorProto meta;
  if (t.has_name()) meta.set_name(t.name());
  if (t.has_data_type()) meta.set_data_type(t.data_type());
  *meta.mutable_dims() = t.dims();
  return meta;
}

absl::StatusOr<std::unique_ptr<CheckedNet>> CheckNet(const NetDef& net, const Registry& registry, const Workspace& ws,
                                                     const std::set<std::string>& outer_constants) {
  auto out = std::make_unique<CheckedNet>();
  // The checked net keeps the NetDef without its initializers' data: the
  // weights live in the workspace, once.
  out->def = WithoutInitializerData(net);
  std::set<std::string> external(net.external_input().begin(), net.external_input().end());
  std::set<std::string> available = external;
  std::set<std::string> input_set;
  for (const std::string& e : net.external_input()) {
    if (input_set.insert(e).second) out->inputs.push_back(e);
  }
  for (int i = 0; i < net.op_size(); ++i) {
    const OperatorDef& op = net.op(i);
    std::string label = OpLabel(op, i);
    absl::StatusOr<const OpSchema*> resolved = registry.ResolveSchema(op.domain(), op.type());
    if (!resolved.ok()) return absl::Status(resolved.status().code(), absl::StrCat(label, ": ", resolved.status().message()));
    const OpSchema* schema = *resolved;
    int nin = op.input_size(), nout = op.output_size();
    // Trailing absent optional inputs do not count.
    while (nin > 0 && op.input(nin - 1).empty()) --nin;
    if (nin < schema->min_inputs || (schema->max_inputs >= 0 && nin > schema->max_inputs)) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": expected ", Bounds(schema->min_inputs, schema->max_inputs),
                                                     " inputs, found ", nin));
    }
    if (nout < schema->min_outputs || (schema->max_outputs >= 0 && nout > schema->max_outputs)) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": expected ", Bounds(schema->min_outputs, schema->max_outputs),
                                                     " outputs, found ", nout));
    }
    // An output that reuses one of the op's own inputs is resized while the
    // kernel still reads that input: only pairs the schema declares in-place
    // (Caffe2's AllowInplace; e.g. Relu X -> Y) may do it.
    for (int k = 0; k < nout; ++k) {
      for (int j = 0; j < nin; ++j) {
        if (op.output(k).empty() || op.output(k) != op.input(j)) continue;
        if (std::find(schema->inplace.begin(), schema->inplace.end(), std::make_pair(j, k)) != schema->inplace.end() ||
            std::find(schema->inplace.begin(), schema->inplace.end(),
                      std::make_pair(LOOM_INPLACE_SAME_SHAPE, LOOM_INPLACE_SAME_SHAPE)) != schema->inplace.end()) {
          continue;
        }
        return absl::InvalidArgumentError(absl::StrCat(label, ": output ", k, " '", op.output(k), "' is also input ", j,
                                                       "; ", op.type(), " may not write an input in place (its schema "
                                                       "declares no such pair): give the output another name"));
      }
    }
    for (int k = 0; k < nin; ++k) {
      const FormalParam* p = schema->InputParam(k);
      const std::string& name = op.input(k);
      if (name.empty()) {
        if (p && p->option != LOOM_PARAM_OPTIONAL) {
          return absl::InvalidArgumentError(absl::StrCat(label, ": input ", k, " ('", p->name, "') is required but empty"));
        }
        continue;
      }
      if (!available.count(name)) {
        if (ws.HasBlob(name)) {
          available.insert(name);
          if (input_set.insert(name).second) {
            out->inputs.push_back(name);
            out->initializers.push_back(name);
          }
        } else {
          return absl::InvalidArgumentError(absl::StrCat(label, ": input ", k, " '", name,
                                                         "' is not produced by an earlier op, not an external input, "
                                                         "and not in the workspace"));
        }
      }
    }
    absl::StatusOr<OperatorDef> normalized = CheckAttributes(op, i, *schema);
    if (!normalized.ok()) return normalized.status();

    CheckedOp c;
    c.index = i;
    c.label = label;
    c.schema = schema;
    const DeviceOption& dev = op.has_device_option() ? op.device_option() : net.device_option();
    c.device_type = dev.device_type();
    c.device_id = dev.device_id();
    c.engine = op.engine();
    if (registry.FindDevice(c.device_type, c.device_id) == nullptr) {
      return absl::NotFoundError(absl::StrCat(label, ": device ", c.device_type, ":", c.device_id,
                                              " is not available; registered device types: ",
                                              absl::StrJoin(registry.DeviceTypes(), ", ")));
    }
    if (!registry.HasKernelForDevice(schema->key(), c.device_type)) {
      std::vector<std::string> have;
      for (const KernelDef* k : registry.KernelsFor(schema->key())) have.push_back(k->Describe());
      return absl::NotFoundError(absl::StrCat(label, ": no kernel for device ", c.device_type, "; kernels that exist: ",
                                              have.empty() ? "none" : absl::StrJoin(have, "; ")));
    }
    c.info = std::make_unique<LoomKernelInfo>(*normalized, label, schema, op.arg_size());
    for (const std::string& o : op.output()) {
      if (!o.empty()) available.insert(o);
    }
    out->ops.push_back(std::move(c));
  }
  for (const std::string& o : net.external_output()) {
    if (!available.count(o)) {
      return absl::InvalidArgumentError(absl::StrCat("net '", net.name(), "': external output '", o,
                                                     "' is produced by no op and is not an input"));
    }
  }
  out->constants.insert(out->initializers.begin(), out->initializers.end());
  // Every initializer the NetDef declares, read here or not: nested nets (If,
  // Loop, Scan bodies) read outer-scope weights the enclosing ops do not list.
  for (const TensorProto& t : net.initializer()) out->constants.insert(t.name());
  // The enclosing net's constants stay constant here, read or not (a net
  // nested in this one may read them), unless this workspace's own blob (a
  // step's linked slice, a body's formal input) shadows the name.
  for (const std::string& name : outer_constants) {
    if (!ws.HasLocalBlob(name)) out->constants.insert(name);
  }
  for (const OperatorDef& op : net.op()) {
    for (const std::string& name : op.output()) out->constants.erase(name);
  }
  return out;
}

}  // namespace loom
