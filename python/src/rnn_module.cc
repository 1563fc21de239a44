// Recurrent networks from Python: plugins/rnn/builder.h's RecurrentNetwork
// builder and its LSTM, GRU and RNN cell helpers, over NetDef bytes.
// python/loom/rnn.py (Caffe2's recurrent_net arguments) is the public face,
// so Python and C++ build the very same op.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "plugins/rnn/builder.h"
#include "python/src/bindings.h"
#include "python/src/proto_bytes.h"
#include "python/src/status.h"

namespace py = pybind11;

namespace loom {
namespace python {
namespace {

using Pair = std::pair<std::string, std::string>;
using Alias = std::tuple<std::string, std::string, int>;
using State = std::tuple<std::string, std::string, std::string, std::string>;

py::bytes BuildRecurrentNetworkBytes(const std::string& name, const py::bytes& cell_net,
                                     const std::vector<Pair>& inputs, const std::vector<State>& states,
                                     const std::vector<std::string>& params, const std::vector<Alias>& aliases,
                                     const std::string& timestep, bool reverse, bool use_threaded_executor,
                                     int num_threads, int max_parallel_timesteps, bool forward_only) {
  rnn::RecurrentNetSpec spec;
  spec.name = name;
  spec.cell_net = ParseBytes<NetDef>(cell_net, "the cell net");
  for (const auto& [external, internal] : inputs) spec.inputs.push_back({external, internal});
  for (const auto& [state, initial, read, write] : states) spec.states.push_back({state, initial, read, write});
  spec.params = params;
  for (const auto& [state, output, offset] : aliases) spec.aliases.push_back({state, output, offset});
  spec.timestep = timestep;
  spec.reverse = reverse;
  spec.use_threaded_executor = use_threaded_executor;
  spec.num_threads = num_threads;
  spec.max_parallel_timesteps = max_parallel_timesteps;
  spec.forward_only = forward_only;
  return ToBytes(Value(rnn::BuildRecurrentNetwork(spec)));
}

py::bytes AddLstmCellBytes(const py::bytes& cell, const std::string& prefix, const std::string& x_t,
                           const std::string& h_prev, const std::string& c_prev, const std::vector<std::string>& w,
                           const std::string& h_next, const std::string& c_next, bool fused,
                           const std::string& seq_lengths, const std::string& timestep) {
  NetDef net = ParseBytes<NetDef>(cell, "the cell net");
  if (w.size() != 3) Check(absl::InvalidArgumentError("lstm_cell: weights must be (W, R, B)"));
  rnn::AddLstmCell(&net, prefix, x_t, h_prev, c_prev, {w[0], w[1], w[2]}, h_next, c_next, fused, seq_lengths, timestep);
  return ToBytes(net);
}

py::bytes AddGruCellBytes(const py::bytes& cell, const std::string& prefix, const std::string& x_t,
                          const std::string& h_prev, const std::vector<std::string>& w, const std::string& h_next,
                          bool linear_before_reset, bool fused) {
  NetDef net = ParseBytes<NetDef>(cell, "the cell net");
  if (w.size() != 5) Check(absl::InvalidArgumentError("gru_cell: weights must be (W, R_rz, R_n, B, B_rn)"));
  rnn::AddGruCell(&net, prefix, x_t, h_prev, {w[0], w[1], w[2], w[3], w[4]}, h_next, linear_before_reset, fused);
  return ToBytes(net);
}

py::bytes AddRnnCellBytes(const py::bytes& cell, const std::string& prefix, const std::string& x_t,
                          const std::string& h_prev, const std::vector<std::string>& w, const std::string& h_next,
                          const std::string& activation) {
  NetDef net = ParseBytes<NetDef>(cell, "the cell net");
  if (w.size() != 3) Check(absl::InvalidArgumentError("rnn_cell: weights must be (W, R, B)"));
  if (activation != "Tanh" && activation != "Relu") {
    Check(absl::InvalidArgumentError("rnn_cell: activation must be 'Tanh' or 'Relu'; found '" + activation + "'"));
  }
  rnn::AddRnnCell(&net, prefix, x_t, h_prev, {w[0], w[1], w[2]}, h_next,
                  activation == "Relu" ? rnn::RnnActivation::kRelu : rnn::RnnActivation::kTanh);
  return ToBytes(net);
}

py::bytes StackedLstmBytes(const std::string& name, const std::string& input, const std::vector<std::vector<std::string>>& weights,
                           const std::vector<std::string>& h0, const std::vector<std::string>& c0,
                           const std::string& output, bool reverse, bool threaded, int num_threads,
                           int max_parallel_timesteps, bool fused, bool forward_only, const std::string& seq_lengths) {
  std::vector<rnn::LstmWeights> w;
  for (const auto& l : weights) {
    if (l.size() != 3) Check(absl::InvalidArgumentError("stacked_lstm: each layer's weights must be (W, R, B)"));
    w.push_back({l[0], l[1], l[2]});
  }
  return ToBytes(Value(rnn::BuildStackedLstm(name, input, w, h0, c0, output, reverse, threaded, num_threads,
                                             max_parallel_timesteps, fused, forward_only, seq_lengths)));
}

}  // namespace

void BindRnn(py::module_& m) {
  m.def("_build_recurrent_network", &BuildRecurrentNetworkBytes, py::arg("name"), py::arg("cell_net"),
        py::arg("inputs"), py::arg("states"), py::arg("params"), py::arg("aliases"), py::arg("timestep"),
        py::arg("reverse"), py::arg("use_threaded_executor"), py::arg("num_threads"),
        py::arg("max_parallel_timesteps"), py::arg("forward_only"));
  m.def("_add_lstm_cell", &AddLstmCellBytes, py::arg("cell"), py::arg("prefix"), py::arg("x_t"), py::arg("h_prev"),
        py::arg("c_prev"), py::arg("weights"), py::arg("h_next"), py::arg("c_next"), py::arg("fused"),
        py::arg("seq_lengths"), py::arg("timestep"));
  m.def("_add_gru_cell", &AddGruCellBytes, py::arg("cell"), py::arg("prefix"), py::arg("x_t"), py::arg("h_prev"),
        py::arg("weights"), py::arg("h_next"), py::arg("linear_before_reset"), py::arg("fused"));
  m.def("_add_rnn_cell", &AddRnnCellBytes, py::arg("cell"), py::arg("prefix"), py::arg("x_t"), py::arg("h_prev"),
        py::arg("weights"), py::arg("h_next"), py::arg("activation"));
  m.def("_stacked_lstm", &StackedLstmBytes, py::arg("name"), py::arg("input"), py::arg("weights"), py::arg("h0"),
        py::arg("c0"), py::arg("output"), py::arg("reverse"), py::arg("threaded"), py::arg("num_threads"),
        py::arg("max_parallel_timesteps"), py::arg("fused"), py::arg("forward_only"), py::arg("seq_lengths"));
}

}  // namespace python
}  // namespace loom
