// The gradients of ONNX LSTM, GRU and RNN, through the step net: the maker
// writes the op as its graph (onnx_recurrent_graph.h: the weights split
// and transposed, a RecurrentNetwork per direction with forward_only = 0,
// Y, Y_h, Y_c read out of the states) and has the core's backward builder
// differentiate it (Grad_NetBackward): RecurrentNetworkGradient runs the
// backward step nets over the kept timesteps, and the weights' gradients
// flow back through the splits and transposes to W, R, B, P and the
// initial states. Every configuration the STEPNET engine runs is covered
// (directions, layouts, sequence_lens, clip, input_forget, peepholes,
// every activation, linear_before_reset); sequence_lens has no gradient.
//
// The graph runs the forward again in the backward pass (the forward op
// itself may be oneDNN's fused kernel, which keeps nothing for a backward
// pass), so a training step costs one more forward through the step nets:
// Caffe2's recompute_blobs_on_backward, for the whole op. Registered with
// RegisterGradient (ABI 7): the ops' schemas are the core's.
#include <string>
#include <utility>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/rnn.h"
#include "plugins/rnn/onnx_recurrent_graph.h"
#include "plugins/rnn/rnn_ops.h"

namespace loom {
namespace rnn {
namespace {

using sdk::GradientContext;
using semantics::RnnCell;

template <RnnCell K>
Status OnnxRecurrentGradient(GradientContext& c) {
  const char* kName = K == RnnCell::kLstm ? "LSTM" : K == RnnCell::kGru ? "GRU" : "RNN";
  semantics::RnnAttrs attrs;
  LOOM_SDK_RETURN_IF_ERROR(attrs.Read(c.info(), std::string(kName) + " '" + c.info().op_name() + "'", K));
  if (c.num_inputs() > 4) c.NoGradient(4);  // sequence_lens: integers
  std::vector<size_t> wanted;
  for (size_t k = 0; k < c.num_inputs(); ++k) {
    if (k != 4 && !c.GI(k).empty()) wanted.push_back(k);
  }
  if (wanted.empty()) return Status::Ok();
  std::vector<std::string> inputs(8);
  for (size_t k = 0; k < c.num_inputs() && k < inputs.size(); ++k) inputs[k] = c.I(k);
  const std::string prefix = c.Temp("onnx_rnn_");
  std::vector<std::string> graph_outputs;
  const std::string graph = OnnxRecurrentGraph(attrs, inputs, prefix, /*forward_only=*/false, &graph_outputs).Serialize();
  std::vector<std::string> outputs, output_grads;
  for (size_t i = 0; i < c.num_outputs() && i < graph_outputs.size(); ++i) {
    if (c.GO(i).empty()) continue;
    outputs.push_back(graph_outputs[i]);
    output_grads.push_back(c.GO(i));
  }
  // The graph reads input k through its copy "<prefix>in<k>" (so that the
  // gradients it names do not collide with the enclosing net's).
  std::vector<std::string> wrt;
  for (size_t k : wanted) wrt.push_back(prefix + "in" + std::to_string(k));
  std::string backward;
  std::vector<std::string> grads;
  LOOM_SDK_RETURN_IF_ERROR(c.NetBackward(graph, outputs, output_grads, wrt, &backward, &grads));
  LOOM_SDK_RETURN_IF_ERROR(c.AddNet(graph));
  LOOM_SDK_RETURN_IF_ERROR(c.AddNet(backward));
  for (size_t j = 0; j < wanted.size(); ++j) {
    const size_t k = wanted[j];
    if (!grads[j].empty()) {
      LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Identity", {grads[j]}, {c.GI(k)}));
      continue;
    }
    // No output that has a gradient depends on input k: zeros.
    const std::string shape = c.Temp("onnx_rnn_zero_shape" + std::to_string(k));
    const std::string zeros = c.Temp("onnx_rnn_zeros" + std::to_string(k));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("Shape", {c.I(k)}, {shape}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("ConstantOfShape", {shape}, {zeros}));
    LOOM_SDK_RETURN_IF_ERROR(c.AddOp("CastLike", {zeros, c.I(k)}, {c.GI(k)}));
  }
  return Status::Ok();
}

}  // namespace

// A registry without the standard ONNX ops (NOT_FOUND), or whose schemas
// bring their own maker (ALREADY_EXISTS), keeps the rest of the plugin.
sdk::Status RegisterOnnxRecurrentGradients(sdk::Registrar& reg) {
  auto tolerated = [](sdk::Status s) {
    return s.ok() || s.code() == LOOM_NOT_FOUND || s.code() == LOOM_ALREADY_EXISTS ? sdk::Status::Ok() : std::move(s);
  };
  LOOM_SDK_RETURN_IF_ERROR(tolerated(reg.Gradient<&OnnxRecurrentGradient<RnnCell::kLstm>>("LSTM")));
  LOOM_SDK_RETURN_IF_ERROR(tolerated(reg.Gradient<&OnnxRecurrentGradient<RnnCell::kGru>>("GRU")));
  return tolerated(reg.Gradient<&OnnxRecurrentGradient<RnnCell::kRnn>>("RNN"));
}

}  // namespace rnn
}  // namespace loom
