// The `loom._loom` extension module (pybind11); python/loom/ is the public
// face and python/README.md documents it.
#include <pybind11/pybind11.h>

#include "python/src/bindings.h"
#include "python/src/status.h"

PYBIND11_MODULE(_loom, m) {
  m.doc() = "Loom's extension module; use the `loom` package (python/loom/__init__.py).";
  pybind11::register_exception<loom::python::StatusError>(m, "Error", PyExc_RuntimeError);
  loom::python::BindRegistry(m);
  loom::python::BindSession(m);
  loom::python::BindWorkspace(m);
  loom::python::BindTraining(m);
  loom::python::BindRnn(m);
}
