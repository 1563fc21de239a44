// ONNX LSTM, GRU and RNN (opset 7-14) as nets of standard ops around
// Caffe2's RecurrentNetwork: the step nets that engine STEPNET runs
// (onnx_recurrent.cc), and the whole op as a graph (weights split and
// transposed, initial states, sequence_lens as seq and a mask, the outputs
// Y, Y_h, Y_c read out of the states), which the op's gradient
// differentiates (onnx_recurrent_gradient.cc) and engine STEPNET runs in
// float64.
//
// The cell equations (ONNX's; see onnx_recurrent.cc's comment for them):
// gates from the input and recurrent matmuls, the fused LSTMUnit/GRUUnit
// where the configuration allows, else the standard ops (Split, the
// activations, Clip, Mul, Add, Sub, Where for states past sequence ends).
#ifndef LOOM_PLUGINS_RNN_ONNX_RECURRENT_GRAPH_H_
#define LOOM_PLUGINS_RNN_ONNX_RECURRENT_GRAPH_H_

#include <string>
#include <utility>
#include <vector>

#include "ops/semantics/rnn.h"
#include "plugins/nested/netdef_writer.h"

namespace loom {
namespace rnn {

// What the step net looks like.
struct StepConfig {
  bool fused = false;      // LSTMUnit / GRUUnit
  bool peepholes = false;  // LSTM standard-op cell with P
  bool mask = false;       // standard-op cell carrying states past sequence ends (reads m_t)
  // The matmuls: false, Caffe2 FC over ONNX's [G*H, K] weights as they are
  // with a bias (STEPNET's prepared blobs); true, MatMul over the weights
  // transposed to [K, G*H] then Add of the bias (every op differentiable).
  bool matmul = false;
  // The input projection x_t W^T + bias of every timestep done before the
  // loop, as one FC over X [T, N, I] (Caffe2's recurrent helpers and ONNX
  // Runtime's LSTM do the same): one large matmul instead of T small ones.
  // The step net's link x_t then reads that projection's rows
  // [1, N, G*H]. Only with matmul = false (STEPNET's float32 path).
  bool hoist_input = false;
  // The weight and bias blobs (and peepholes) are constant while the nets
  // live (the op's W, R, B, P are initializers): they are not declared as
  // inputs of the nets, so the nets' kernels see them as constants and
  // pack them once (FC: one shared copy for all timesteps).
  bool constant_weights = false;
};

// Scalar constants a step net reads as blobs: (name, value).
using StepConsts = std::vector<std::pair<std::string, float>>;

// The step net of direction d. Reads the links x_t (with cfg.hoist_input
// and not cfg.matmul: the projected row, bias included), h_prev (c_prev),
// m_t (with cfg.mask), `timestep`, and, as blobs of the enclosing workspace
// named with `prefix`: seq, the weights (W<d> unless hoisted, R<d>; GRU:
// W unless hoisted, Rzr, Rh), the biases (b<d> unless hoisted, zero<d>;
// GRU: Wb unless hoisted, Rbzr, Rbh), the peepholes (Pi, Po, Pf)
// and the constants it appends to `consts`. Writes h_next (c_next).
nested::NetSpec OnnxStepNet(const semantics::RnnAttrs& attrs, const StepConfig& cfg, int64_t d,
                            const std::string& prefix, StepConsts* consts);

// One RecurrentNetwork op per direction over blobs named with `prefix`
// (with cfg.hoist_input, after an FC of X per direction into XW<d>):
// X [T, N, I], h0_<d> (c0_<d>) [S...] ([1, N, H] for STEPNET, [N, H] in
// the graph), seq [N] int32, M [T, N, 1] bool (with cfg.mask) and the step
// nets' blobs; writes the states H<d> (C<d>) [T + 1, S...] in run order
// (row 0 the initial state). `forward_only` 0 keeps each timestep's
// intermediates for RecurrentNetworkGradient.
nested::NetSpec OnnxRecurrentNetworks(const semantics::RnnAttrs& attrs, const StepConfig& cfg,
                                      const std::string& prefix, bool forward_only, StepConsts* consts);

// The whole ONNX op as a graph. `inputs` are the op's inputs (X, W, R, B,
// sequence_lens, initial_h, initial_c, P; "" where absent), read under
// their names; every other blob is named with `prefix`. `outputs` gets the
// blobs holding Y, Y_h (and LSTM's Y_c), shaped as ONNX says for the
// layout. The cell is fused where the attributes allow (LSTM: default
// activations, no clip, no input_forget, no P input; GRU: default
// activations, no clip); every op it uses has a gradient. Float32 or
// float64, from X's dtype.
nested::NetSpec OnnxRecurrentGraph(const semantics::RnnAttrs& attrs, const std::vector<std::string>& inputs,
                                   const std::string& prefix, bool forward_only, std::vector<std::string>* outputs);

}  // namespace rnn
}  // namespace loom

#endif  // LOOM_PLUGINS_RNN_ONNX_RECURRENT_GRAPH_H_
