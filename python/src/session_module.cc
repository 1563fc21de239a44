// loom.Session: loom::Session (session/session.h) with numpy arrays in and
// out. Inputs that are C-contiguous, aligned and native are read in place;
// outputs are arrays over the tensors the run returned. Run releases the
// GIL, so Python threads run a session concurrently. Feeds follow ONNX
// Runtime's Python API (numpy_tensor.h FeedValue): string arrays, lists as
// sequences, None as an empty optional, by each input's declared type.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/proto_io.h"
#include "python/src/bindings.h"
#include "python/src/numpy_tensor.h"
#include "python/src/status.h"
#include "session/session.h"

namespace py = pybind11;

namespace loom {
namespace python {
namespace {

py::object InfoShape(const TensorInfo& info) {
  if (!info.shape_known) return py::none();
  py::list dims;
  for (size_t i = 0; i < info.dims.size(); ++i) {
    if (info.dims[i] >= 0) {
      dims.append(info.dims[i]);
    } else if (!info.dim_names[i].empty()) {
      dims.append(info.dim_names[i]);
    } else {
      dims.append(py::none());
    }
  }
  return dims;
}

py::object InfoDtype(const TensorInfo& info) {
  if (info.dtype == DataType::kUndefined) return py::none();
  try {
    return NumpyDtype(info.dtype);
  } catch (const py::type_error&) {
    return py::str(DataTypeName(info.dtype));
  }
}

std::unique_ptr<Session> Load(const py::object& model, const SessionOptions& o) {
  if (py::isinstance<py::bytes>(model)) {
    std::string bytes = model.cast<std::string>();
    py::gil_scoped_release nogil;
    return Value(Session::FromOnnxBytes(bytes, o));
  }
  const std::string path = py::str(model);  // str or os.PathLike
  py::gil_scoped_release nogil;
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0) return Value(Session::FromOnnxFile(path, o));
  return Value(Session::FromNetDef(Value(ReadNetDef(path)), o));
}

py::list Run(const Session& s, const py::object& output_names, const py::dict& feed) {
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [k, v] : feed) {
    const std::string name = py::str(k);
    DataType declared = DataType::kUndefined;
    for (const TensorInfo& i : s.inputs()) {
      if (i.name == name) declared = i.dtype;
    }
    feeds.emplace_back(name, FeedValue(v, declared, "input '" + name + "'"));
  }
  std::vector<std::string> fetches;
  if (!output_names.is_none()) fetches = output_names.cast<std::vector<std::string>>();
  absl::StatusOr<std::vector<Tensor>> out;
  {
    py::gil_scoped_release nogil;
    out = s.Run(feeds, fetches);
  }
  py::list result;
  for (Tensor& t : Value(std::move(out))) result.append(ShareValue(std::move(t)));
  return result;
}

}  // namespace

void BindSession(py::module_& m) {
  py::class_<TensorInfo>(m, "TensorInfo", "A model input or output: name, numpy dtype (None: undeclared), shape.")
      .def_property_readonly("name", [](const TensorInfo& i) { return i.name; })
      .def_property_readonly("dtype", &InfoDtype)
      .def_property_readonly("shape", &InfoShape,
                             "list of int (fixed), str (a symbolic dim such as 'batch') or None (open, unnamed); "
                             "None when the model declares no shape")
      .def("__repr__", [](const TensorInfo& i) {
        return "TensorInfo(name=" + std::string(py::repr(py::str(i.name))) + ", dtype=" + std::string(py::repr(InfoDtype(i))) +
               ", shape=" + std::string(py::repr(InfoShape(i))) + ")";
      });

  py::class_<Session>(m, "Session")
      .def(py::init([](const py::object& model, int threads, const std::string& device,
                       const std::vector<std::string>& plugins, int optimization_level, bool plan_memory,
                       int64_t max_tensor_bytes, const std::string& fpmath_mode, const std::string& external_data_dir) {
             SessionOptions o;
             o.num_threads = threads;
             o.device = device;
             o.plugins = plugins;
             o.optimization_level = optimization_level;
             o.plan_memory = plan_memory;
             o.max_tensor_bytes = max_tensor_bytes;
             o.fpmath_mode = Value(ParseFpMathMode(fpmath_mode));
             o.external_data_dir = external_data_dir;
             std::unique_ptr<Session> session = Load(model, o);
             WarnSkippedPlugins(session->warnings());
             return session;
           }),
           py::arg("model"), py::kw_only(), py::arg("threads") = 0, py::arg("device") = "",
           py::arg("plugins") = std::vector<std::string>{}, py::arg("optimization_level") = 1,
           py::arg("plan_memory") = true, py::arg("max_tensor_bytes") = kDefaultMaxTensorBytes,
           py::arg("fpmath_mode") = "strict", py::arg("external_data_dir") = "")
      .def_property_readonly("inputs", [](const Session& s) { return s.inputs(); })
      .def_property_readonly("outputs", [](const Session& s) { return s.outputs(); })
      .def("run", &Run, py::arg("output_names"), py::arg("feed"))
      .def_property_readonly("runners", &Session::runners)
      .def_property_readonly("warnings", &Session::warnings,
                             "Plugins of LOOM_PLUGIN_PATH or the default folder that did not load (also warned)")
      .def("ops", [](const Session& s) { return RegistryOps(s.registry()); },
           "The ops this session can run (its default plugins and plugins=...), as loom.ops()")
      .def("plugins", [](const Session& s) { return RegistryPlugins(s.registry()); },
           "The plugins this session loaded, as loom.plugins()");
}

}  // namespace python
}  // namespace loom
