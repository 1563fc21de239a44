// Training from Python: the backward builder, the optimizer update, the
// learning-rate schedules, data parallelism (core/autodiff/) and the ONNX
// import for training or inference (frontend/onnx, transforms/). NetDefs
// cross as bytes; python/loom/training.py is the public face.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/autodiff/backward.h"
#include "core/autodiff/data_parallel.h"
#include "core/autodiff/optimizer.h"
#include "core/external_data.h"
#include "frontend/onnx/onnx_importer.h"
#include "python/src/bindings.h"
#include "python/src/proto_bytes.h"
#include "python/src/status.h"
#include "transforms/batchnorm_training.h"
#include "transforms/optimize.h"

namespace py = pybind11;

namespace loom {
namespace python {
namespace {

py::tuple AddBackwardBytes(const Registry& registry, const py::bytes& net_bytes, const std::vector<std::string>& losses,
                           const std::vector<std::string>& wrt, const std::set<std::string>& stop_gradients,
                           const std::map<std::string, std::string>& output_gradients, bool accumulate) {
  NetDef net = ParseBytes<NetDef>(net_bytes, "the net");
  BackwardOptions o;
  o.wrt = wrt;
  o.stop_gradients = stop_gradients;
  o.output_gradients = output_gradients;
  o.accumulate = accumulate;
  BackwardResult r;
  {
    py::gil_scoped_release nogil;
    r = Value(AddBackward(registry, losses, o, &net));
  }
  return py::make_tuple(ToBytes(net), r.gradients, r.forward_ops, r.backward_ops);
}

py::bytes AddOptimizerBytes(const py::bytes& net_bytes, const std::map<std::string, std::string>& gradients,
                            const std::string& type, const std::vector<py::bytes>& attributes,
                            const std::string& learning_rate, const std::string& step, double max_gradient_norm,
                            bool write_back_running_statistics) {
  NetDef net = ParseBytes<NetDef>(net_bytes, "the net");
  BackwardResult b;
  b.gradients = gradients;
  OptimizerOptions o;
  o.type = type;
  for (const py::bytes& a : attributes) o.attributes.push_back(ParseBytes<Argument>(a, "an optimizer attribute"));
  o.learning_rate = learning_rate;
  o.step = step;
  o.max_gradient_norm = max_gradient_norm;
  Check(AddOptimizer(b, o, &net));
  if (write_back_running_statistics) transforms::AppendRunningStatisticsWriteBack(&net);
  return ToBytes(net);
}

py::bytes ForInference(const py::bytes& net_bytes) {
  NetDef net = ParseBytes<NetDef>(net_bytes, "the net");
  transforms::TrainingOpsForInference(&net);
  return ToBytes(net);
}

// An ONNX model (a path or the model's bytes) as a NetDef, optimized as
// Session does (level 1) or for training (gradient-safe passes only).
py::bytes ImportOnnx(const py::object& model, bool training, int optimization_level) {
  absl::StatusOr<NetDef> net;
  if (py::isinstance<py::bytes>(model)) {
    const std::string bytes = model.cast<std::string>();
    py::gil_scoped_release nogil;
    net = onnx_import::ImportOnnxModel(bytes);
  } else {
    const std::string path = py::str(model);
    py::gil_scoped_release nogil;
    net = onnx_import::ImportOnnxFile(path);
  }
  NetDef def = Value(std::move(net));
  if (optimization_level != 0 && optimization_level != 1) {
    Check(absl::InvalidArgumentError("import_onnx: optimization_level must be 0 or 1; found " +
                                     std::to_string(optimization_level)));
  }
  transforms::OptimizeOptions o;
  o.level = optimization_level;
  o.training = training;
  transforms::Optimize(&def, o);
  Check(InlineExternalData(&def));  // the bytes go to Python, where no file location is kept
  return ToBytes(def);
}

py::tuple AddAllreduceBytes(const py::bytes& net_bytes, const std::map<std::string, std::string>& gradients,
                            const DataParallelOptions& options) {
  NetDef net = ParseBytes<NetDef>(net_bytes, "the net");
  BackwardResult b;
  b.gradients = gradients;
  BackwardResult r = Value(AddAllreduce(b, options, &net));
  return py::make_tuple(ToBytes(net), r.gradients);
}

py::bytes SplitBytes(const py::bytes& net_bytes, const std::vector<std::string>& batch_inputs, const std::string& loss,
                     int contexts) {
  return ToBytes(Value(SplitAcrossContexts(ParseBytes<NetDef>(net_bytes, "the net"), batch_inputs, loss, contexts)));
}

}  // namespace

void BindTraining(py::module_& m) {
  m.def("_add_backward", &AddBackwardBytes, py::arg("registry"), py::arg("net"), py::arg("losses"), py::arg("wrt"),
        py::arg("stop_gradients"), py::arg("output_gradients"), py::arg("accumulate"));
  m.def("_add_optimizer", &AddOptimizerBytes, py::arg("net"), py::arg("gradients"), py::arg("type"),
        py::arg("attributes"), py::arg("learning_rate"), py::arg("step"), py::arg("max_gradient_norm"),
        py::arg("write_back_running_statistics"));
  m.def("_for_inference", &ForInference, py::arg("net"));
  m.def("_import_onnx", &ImportOnnx, py::arg("model"), py::arg("training"), py::arg("optimization_level"));
  m.def("_add_allreduce", &AddAllreduceBytes, py::arg("net"), py::arg("gradients"), py::arg("options"));
  m.def("_broadcast_net", [](const std::vector<std::string>& blobs, const DataParallelOptions& o) {
    return ToBytes(BroadcastNet(blobs, o));
  }, py::arg("blobs"), py::arg("options"));
  m.def("_split_across_contexts", &SplitBytes, py::arg("net"), py::arg("batch_inputs"), py::arg("loss"),
        py::arg("contexts"));

  py::class_<DataParallelOptions>(m, "DataParallelOptions")
      .def(py::init([](int world_size, int rank, const std::string& rendezvous, const std::string& run_id,
                       int timeout_ms, const std::string& hostname, size_t bucket_bytes, bool overlap) {
             DataParallelOptions o;
             o.world_size = world_size;
             o.rank = rank;
             o.rendezvous = rendezvous;
             o.run_id = run_id;
             o.timeout_ms = timeout_ms;
             o.hostname = hostname;
             o.bucket_bytes = bucket_bytes;
             o.overlap = overlap;
             return o;
           }),
           py::kw_only(), py::arg("world_size") = 1, py::arg("rank") = 0, py::arg("rendezvous") = "",
           py::arg("run_id") = "", py::arg("timeout_ms") = 30000, py::arg("hostname") = "127.0.0.1",
           py::arg("bucket_bytes") = size_t{1} << 20, py::arg("overlap") = true)
      .def_readonly("world_size", &DataParallelOptions::world_size)
      .def_readonly("rank", &DataParallelOptions::rank)
      .def_readonly("rendezvous", &DataParallelOptions::rendezvous)
      .def_readonly("run_id", &DataParallelOptions::run_id)
      .def_readonly("timeout_ms", &DataParallelOptions::timeout_ms)
      .def_readonly("hostname", &DataParallelOptions::hostname)
      .def_readonly("bucket_bytes", &DataParallelOptions::bucket_bytes)
      .def_readonly("overlap", &DataParallelOptions::overlap);

  py::class_<LearningRateSchedule> schedule(m, "LearningRateSchedule");
  py::enum_<LearningRateSchedule::Kind>(schedule, "Kind")
      .value("constant", LearningRateSchedule::Kind::kConstant)
      .value("step", LearningRateSchedule::Kind::kStep)
      .value("exponential", LearningRateSchedule::Kind::kExponential);
  schedule
      .def(py::init([](LearningRateSchedule::Kind kind, double base, double gamma, int64_t step_size) {
             LearningRateSchedule s;
             s.kind = kind;
             s.base = base;
             s.gamma = gamma;
             s.step_size = step_size;
             return s;
           }),
           py::arg("kind"), py::arg("base"), py::arg("gamma") = 0.1, py::arg("step_size") = 1)
      .def("at", &LearningRateSchedule::At, py::arg("step"))
      .def_readonly("base", &LearningRateSchedule::base)
      .def_readonly("gamma", &LearningRateSchedule::gamma)
      .def_readonly("step_size", &LearningRateSchedule::step_size);
}

}  // namespace python
}  // namespace loom
