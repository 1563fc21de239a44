// loom.Registry: the ops and plugins a workspace, session or net builder
// works with (session/registry_setup.h's MakeRegistry), their schemas, and
// the build-time check of one op (loom.NetBuilder).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "core/attributes.h"
#include "core/checked_net.h"
#include "core/registry.h"
#include "core/workspace.h"
#include "python/src/bindings.h"
#include "python/src/proto_bytes.h"
#include "python/src/status.h"
#include "session/registry_setup.h"

namespace py = pybind11;

namespace loom {
namespace python {
namespace {

const char* ParamOptionName(LoomParamOption o) {
  switch (o) {
    case LOOM_PARAM_OPTIONAL: return "optional";
    case LOOM_PARAM_VARIADIC: return "variadic";
    default: return "single";
  }
}

py::list Params(const std::vector<FormalParam>& params) {
  py::list out;
  for (const FormalParam& p : params) {
    py::dict d;
    d["name"] = p.name;
    d["type"] = p.type_str;
    d["option"] = ParamOptionName(p.option);
    out.append(d);
  }
  return out;
}

// The schema ResolveSchema(domain, op_type) finds, as a dict.
py::dict Schema(const Registry& r, const std::string& op_type, const std::string& domain) {
  const OpSchema* s = Value(r.ResolveSchema(domain, op_type));
  py::dict d;
  d["op_type"] = s->op_type;
  d["domain"] = s->domain;
  d["since_version"] = s->since_version;
  d["doc"] = s->doc;
  d["inputs"] = Params(s->inputs);
  d["outputs"] = Params(s->outputs);
  d["min_inputs"] = s->min_inputs;
  d["max_inputs"] = s->max_inputs;
  d["min_outputs"] = s->min_outputs;
  d["max_outputs"] = s->max_outputs;
  py::dict attrs;
  for (const AttrSpec& a : s->attrs) {
    py::dict ad;
    ad["type"] = AttrTypeName(a.type);
    ad["required"] = a.required;
    ad["doc"] = a.doc;
    attrs[py::str(a.name)] = ad;
  }
  d["attributes"] = attrs;
  d["allow_unknown_attributes"] = s->allow_unknown_attrs;
  d["differentiable"] = r.FindGradient(*s) != nullptr;
  d["plugin"] = s->plugin;
  return d;
}

// CheckNet's checks of one op (schema, input and output counts, attributes,
// a kernel on its device), its inputs taken as given.
void CheckOp(const Registry& r, const py::bytes& op_bytes) {
  NetDef net;
  *net.add_op() = ParseBytes<OperatorDef>(op_bytes, "the operator");
  for (const std::string& in : net.op(0).input()) {
    if (!in.empty()) net.add_external_input(in);
  }
  Workspace ws;
  Check(CheckNet(net, r, ws).status());
}

py::list OpsOf(const Registry& r) {
  py::list ops;
  for (const OpSchema* schema : r.Schemas()) {
    py::dict op;
    op["op_type"] = schema->op_type;
    op["domain"] = schema->domain;  // "" for ONNX's default domain, as onnx.defs has it
    op["since_version"] = schema->since_version;
    op["plugin"] = schema->plugin;
    op["differentiable"] = r.FindGradient(*schema) != nullptr;
    py::list kernels;
    for (const KernelDef* k : r.KernelsFor(schema->key())) {
      py::dict kd;
      kd["device"] = k->device;
      kd["engine"] = k->engine;
      kd["priority"] = k->priority;
      kd["plugin"] = k->plugin;
      kernels.append(kd);
    }
    op["kernels"] = kernels;
    ops.append(op);
  }
  return ops;
}

py::list PluginsOf(const Registry& r) {
  py::list out;
  for (const PluginRecord& p : r.Plugins()) {
    py::dict d;
    d["name"] = p.name;
    d["version"] = p.version;
    d["abi_version"] = p.abi_version;
    d["path"] = p.path;
    d["schemas"] = p.schemas.size();
    d["kernels"] = p.kernels.size();
    d["devices"] = p.devices;
    out.append(d);
  }
  return out;
}

}  // namespace

void WarnSkippedPlugins(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) {
    if (PyErr_WarnEx(PyExc_RuntimeWarning, ("loom: plugin skipped: " + w).c_str(), 1) < 0) {
      throw pybind11::error_already_set();  // warnings turned into errors
    }
  }
}

py::list RegistryOps(const Registry& r) { return OpsOf(r); }
py::list RegistryPlugins(const Registry& r) { return PluginsOf(r); }

void BindRegistry(py::module_& m) {
  py::class_<Registry, std::shared_ptr<Registry>>(m, "Registry")
      .def(py::init([](const std::vector<std::string>& plugins) {
             std::vector<std::string> warnings;
             auto registry = std::shared_ptr<Registry>(Value(MakeRegistry(plugins, &warnings)));
             WarnSkippedPlugins(warnings);
             return registry;
           }),
           py::arg("plugins"))
      .def("ops", &OpsOf)
      .def("plugins", &PluginsOf)
      .def("schema", &Schema, py::arg("op_type"), py::arg("domain") = "")
      .def("check_op", &CheckOp, py::arg("op"));
}

}  // namespace python
}  // namespace loom
