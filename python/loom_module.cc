// The `loom._loom` extension module (pybind11): loom::Session with numpy
// arrays in and out, and the registry listing. python/loom/__init__.py is
// the public face; python/README.md documents it.
//
// Arrays: an input that is C-contiguous, aligned, in native byte order and
// of a dtype Loom holds is read in place (Tensor::Borrow, no copy); others
// are copied once into such an array. Outputs are numpy arrays over the
// tensor the run returned (no copy beyond the one out of the run's reused
// buffers). Run releases the GIL, so Python threads run a session
// concurrently.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/proto_io.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "session/session.h"
#include "session/registry_setup.h"

namespace py = pybind11;

namespace loom {
namespace {

// An absl::Status as a Python exception (loom.Error, a RuntimeError); its
// text starts with the code ("INVALID_ARGUMENT: ...").
struct StatusError : std::runtime_error {
  explicit StatusError(const absl::Status& s) : std::runtime_error(s.ToString()) {}
};

void Check(const absl::Status& s) {
  if (!s.ok()) throw StatusError(s);
}
template <typename T>
T Value(absl::StatusOr<T> v) {
  Check(v.status());
  return *std::move(v);
}

// numpy dtype <-> Loom dtype. bfloat16 has no numpy dtype.
py::dtype NumpyDtype(DataType t) {
  switch (t) {
    case DataType::kFloat32: return py::dtype::of<float>();
    case DataType::kFloat64: return py::dtype::of<double>();
    case DataType::kFloat16: return py::dtype("float16");
    case DataType::kInt8: return py::dtype::of<int8_t>();
    case DataType::kUInt8: return py::dtype::of<uint8_t>();
    case DataType::kInt16: return py::dtype::of<int16_t>();
    case DataType::kUInt16: return py::dtype::of<uint16_t>();
    case DataType::kInt32: return py::dtype::of<int32_t>();
    case DataType::kUInt32: return py::dtype::of<uint32_t>();
    case DataType::kInt64: return py::dtype::of<int64_t>();
    case DataType::kUInt64: return py::dtype::of<uint64_t>();
    case DataType::kBool: return py::dtype::of<bool>();
    default:
      throw py::type_error(std::string("loom: no numpy dtype for ") + DataTypeName(t));
  }
}

DataType LoomDtype(const py::dtype& d, const std::string& input) {
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kInt8, DataType::kUInt8,
                     DataType::kInt16, DataType::kUInt16, DataType::kInt32, DataType::kUInt32, DataType::kInt64,
                     DataType::kUInt64, DataType::kBool}) {
    if (NumpyDtype(t).is(d) || NumpyDtype(t).equal(d)) return t;
  }
  throw py::type_error("loom: input '" + input + "' has numpy dtype " + std::string(py::str(py::object(d))) +
                       ", which Loom does not hold (expected a bool, integer or float dtype)");
}

// A tensor over `a`'s memory (C-contiguous, aligned, native order); the
// array stays alive, released with the GIL held, while any tensor uses it.
Tensor TensorOver(const py::array& a, DataType dtype) {
  Shape dims(a.shape(), a.shape() + a.ndim());
  std::shared_ptr<void> owner(new py::object(a), [](void* o) {
    py::gil_scoped_acquire gil;
    delete static_cast<py::object*>(o);
  });
  return Value(Tensor::Borrow(dtype, std::move(dims), const_cast<void*>(a.data()), std::move(owner)));
}

Tensor FeedTensor(const py::handle& value, const std::string& name) {
  py::array a = py::array::ensure(value);
  if (!a) throw py::type_error("loom: input '" + name + "' is not convertible to a numpy array");
  const bool in_place = (a.flags() & py::array::c_style) && reinterpret_cast<uintptr_t>(a.data()) % a.itemsize() == 0 &&
                        a.dtype().byteorder() != '>' && a.dtype().byteorder() != '<';
  if (!in_place) {
    // One copy into a C-contiguous, native-order array of the same dtype.
    a = py::array::ensure(py::module_::import("numpy").attr("ascontiguousarray")(
        a, a.dtype().attr("newbyteorder")("=")));
  }
  return TensorOver(a, LoomDtype(a.dtype(), name));
}

// A numpy array over `t` (kept alive by the array's base object).
py::array ToNumpy(Tensor t) {
  py::dtype dtype = NumpyDtype(t.dtype());
  std::vector<py::ssize_t> shape(t.dims().begin(), t.dims().end());
  auto* held = new Tensor(std::move(t));
  py::capsule base(held, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(dtype, shape, held->raw_data(), base);
}

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

SessionOptions Options(int threads, const std::string& device, const std::vector<std::string>& plugins,
                       int optimization_level, bool plan_memory) {
  SessionOptions o;
  o.num_threads = threads;
  o.device = device;
  o.plugins = plugins;
  o.optimization_level = optimization_level;
  o.plan_memory = plan_memory;
  return o;
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
    feeds.emplace_back(name, FeedTensor(v, name));
  }
  std::vector<std::string> fetches;
  if (!output_names.is_none()) fetches = output_names.cast<std::vector<std::string>>();
  absl::StatusOr<std::vector<Tensor>> out;
  {
    py::gil_scoped_release nogil;
    out = s.Run(feeds, fetches);
  }
  py::list result;
  for (Tensor& t : Value(std::move(out))) result.append(ToNumpy(std::move(t)));
  return result;
}

// The registry a session with these plugins would have.
std::unique_ptr<Registry> MakeRegistry(const std::vector<std::string>& plugins) {
  std::vector<std::string> warnings;
  return Value(loom::MakeRegistry(plugins, &warnings));
}

// Every op `r` holds (loom.ops(), Session.ops()).
py::list OpsOf(const Registry* r) {
  py::list ops;
  for (const OpSchema* schema : r->Schemas()) {
    py::dict op;
    op["op_type"] = schema->op_type;
    op["domain"] = schema->domain;  // "" for ONNX's default domain, as onnx.defs has it
    op["since_version"] = schema->since_version;
    op["plugin"] = schema->plugin;
    op["differentiable"] = r->FindGradient(*schema) != nullptr;
    py::list kernels;
    for (const KernelDef* k : r->KernelsFor(schema->key())) {
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

// The plugins `r` loaded (loom.plugins(), Session.plugins()).
py::list PluginsOf(const Registry* r) {
  py::list out;
  for (const PluginRecord& p : r->Plugins()) {
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

py::list Ops(const std::vector<std::string>& plugins) { return OpsOf(MakeRegistry(plugins).get()); }
py::list Plugins(const std::vector<std::string>& plugins) { return PluginsOf(MakeRegistry(plugins).get()); }

}  // namespace
}  // namespace loom

PYBIND11_MODULE(_loom, m) {
  using namespace loom;
  m.doc() = "Loom's extension module; use the `loom` package (python/loom/__init__.py).";
  py::register_exception<StatusError>(m, "Error", PyExc_RuntimeError);

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
                       const std::vector<std::string>& plugins, int optimization_level, bool plan_memory) {
             return Load(model, Options(threads, device, plugins, optimization_level, plan_memory));
           }),
           py::arg("model"), py::kw_only(), py::arg("threads") = 0, py::arg("device") = "",
           py::arg("plugins") = std::vector<std::string>{}, py::arg("optimization_level") = 1,
           py::arg("plan_memory") = true)
      .def_property_readonly("inputs", [](const Session& s) { return s.inputs(); })
      .def_property_readonly("outputs", [](const Session& s) { return s.outputs(); })
      .def("run", &Run, py::arg("output_names"), py::arg("feed"))
      .def_property_readonly("runners", &Session::runners)
      .def("ops", [](const Session& s) { return OpsOf(&s.registry()); },
           "The ops this session can run (its default plugins and plugins=...), as loom.ops()")
      .def("plugins", [](const Session& s) { return PluginsOf(&s.registry()); },
           "The plugins this session loaded, as loom.plugins()");

  m.def("_ops", &Ops, py::arg("plugins"));
  m.def("_plugins", &Plugins, py::arg("plugins"));
}
