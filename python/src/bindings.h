// The parts of the `loom._loom` extension module, each adding its classes
// and functions to the module (module.cc calls them in order).
#ifndef LOOM_PYTHON_SRC_BINDINGS_H_
#define LOOM_PYTHON_SRC_BINDINGS_H_

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "core/registry.h"

namespace loom {
namespace python {

void BindRegistry(pybind11::module_& m);   // registry_module.cc: Registry
void BindSession(pybind11::module_& m);    // session_module.cc: Session, TensorInfo
void BindWorkspace(pybind11::module_& m);  // workspace_module.cc: Workspace, Trace
void BindTraining(pybind11::module_& m);   // training_module.cc: backward, optimizer, data parallel
void BindRnn(pybind11::module_& m);        // rnn_module.cc: RecurrentNetwork and cell builders

// Registry listings as lists of dicts (Registry.ops()/plugins(), Session's).
pybind11::list RegistryOps(const Registry& r);
pybind11::list RegistryPlugins(const Registry& r);
// Each plugin MakeRegistry skipped as a Python RuntimeWarning (warnings.warn),
// so a broken plugin in LOOM_PLUGIN_PATH is not silently missing.
void WarnSkippedPlugins(const std::vector<std::string>& warnings);

}  // namespace python
}  // namespace loom

#endif  // LOOM_PYTHON_SRC_BINDINGS_H_
