// Builders for RecurrentNetwork operators, like Caffe2's
// `recurrent.recurrent_net` and its LSTM, GRU and plain RNN cell helpers
// (AddLstmCell, AddGruCell, AddRnnCell). They produce
// protos only (no core needed); link //plugins/rnn:builder.
#ifndef LOOM_PLUGINS_RNN_BUILDER_H_
#define LOOM_PLUGINS_RNN_BUILDER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/proto/loom.pb.h"

namespace loom {
namespace rnn {

// A sequence [T, N, ...] whose row t the cell net reads as `internal`.
struct SequenceInput {
  std::string external;  // outer blob
  std::string internal;  // cell-net blob, [1, N, ...]
};

// A recurrent state: output `name` [T+1, ...] with row 0 = `initial`; the
// cell net reads row t as `read` and writes row t+1 as `write`.
struct RecurrentState {
  std::string name;
  std::string initial;
  std::string read;
  std::string write;
};

// Exposes rows of a state as another output (offset as RecurrentNetwork's
// alias_offset: 1 = all steps [T, ...], -1 = the last [1, ...]).
struct StateAlias {
  std::string state;
  std::string output;
  int offset = 1;
};

struct RecurrentNetSpec {
  std::string name;                    // the operator's name
  NetDef cell_net;                     // one timestep
  std::vector<SequenceInput> inputs;   // the first sets T
  std::vector<RecurrentState> states;
  std::vector<std::string> params;     // outer blobs the cell reads (weights)
  std::vector<StateAlias> aliases;
  std::string timestep = "timestep";
  bool reverse = false;                // read the sequences from row T-1 down
  bool use_threaded_executor = true;
  int num_threads = 2;
  int max_parallel_timesteps = 2;
  // false: training (Caffe2's default): the step workspaces keep their
  // intermediates for RecurrentNetworkGradient.
  bool forward_only = true;
};

// The RecurrentNetwork OperatorDef for `spec`: inputs are the sequences,
// the initial states, then the params; outputs are the states, then the
// aliases. Checks the cell net first: every external input it reads must be
// a sequence's internal name, a state's `read`, the timestep blob or a
// param (INVALID_ARGUMENT names the blob), and every state must be linked:
// some op writes its `write` blob.
absl::StatusOr<OperatorDef> BuildRecurrentNetwork(const RecurrentNetSpec& spec);

// Weights of one LSTM layer, ONNX-free Caffe2 layout: W [I, 4H] and R [H, 4H]
// (right-multiplied), B [4H]; gate order i, f, o, g (LSTMUnit's).
struct LstmWeights {
  std::string w, r, b;
};

// Appends to `cell` the ops of one LSTM step:
//   gates = x_t @ W + h_prev @ R + B;  (h_next, c_next) = LSTMUnit(h_prev, c_prev, gates)
// With `fused` = false the unit is spelled out in standard ops (Split,
// Sigmoid, Tanh, Mul, Add). Blob names are prefixed with `prefix`. With
// `seq_lengths` (an int32 [N] blob; fused only) LSTMUnit also reads it and
// `timestep`: past a sequence's end the state is carried over.
void AddLstmCell(NetDef* cell, const std::string& prefix, const std::string& x_t, const std::string& h_prev,
                 const std::string& c_prev, const LstmWeights& w, const std::string& h_next, const std::string& c_next,
                 bool fused = true, const std::string& seq_lengths = "", const std::string& timestep = "timestep");

// Weights of one GRU layer, right-multiplied, gate order r, z, n
// (GRUUnit's): W [I, 3H]; R_rz [H, 2H] (recurrent weights of r and z);
// R_n [H, H] (of the candidate); B [3H] (input biases, with the recurrent
// biases of r and z folded in); B_rn [H] (the candidate's recurrent bias,
// which the reset gate scales as ONNX's Rbh).
struct GruWeights {
  std::string w, r_rz, r_n, b, b_rn;
};

// Appends to `cell` the ops of one GRU step (ONNX GRU semantics, Sigmoid
// and Tanh):
//   [xr, xz, xn] = x_t @ W + B;  [hr, hz] = h_prev @ R_rz
//   r = sigmoid(xr + hr);  z_pre = xz + hz
//   n_pre = xn + (r * h_prev) @ R_n + B_rn          (linear_before_reset = false)
//         = xn + r * (h_prev @ R_n + B_rn)          (linear_before_reset = true)
//   h_next = GRUUnit(h_prev, [r_pre, z_pre, n_pre])
//          = (1 - sigmoid(z_pre)) * tanh(n_pre) + sigmoid(z_pre) * h_prev
// With `fused` = false the unit is spelled out in standard ops (Sigmoid,
// Tanh, Sub, Mul, Add: h_next = n + z * (h_prev - n)). Shapes: x_t
// [..., N, I], h_prev [..., N, H]. Blob names are prefixed with `prefix`.
void AddGruCell(NetDef* cell, const std::string& prefix, const std::string& x_t, const std::string& h_prev,
                const GruWeights& w, const std::string& h_next, bool linear_before_reset = false, bool fused = true);

// Weights of one plain RNN layer: W [I, H], R [H, H] (right-multiplied), B [H].
struct RnnWeights {
  std::string w, r, b;
};

enum class RnnActivation { kTanh, kRelu };

// Appends to `cell` the standard ops of one plain RNN step:
//   h_next = act(x_t @ W + h_prev @ R + B), act = Tanh or Relu.
void AddRnnCell(NetDef* cell, const std::string& prefix, const std::string& x_t, const std::string& h_prev,
                const RnnWeights& w, const std::string& h_next, RnnActivation act = RnnActivation::kTanh);

// A stacked LSTM over `input` [T, N, I] as one RecurrentNetwork op: layer l
// reads layer l-1's hidden state at the same timestep. Per layer l:
// weights[l], initial states `h0[l]`, `c0[l]` ([1, N, H]). Outputs:
// `<output>_all` [T, 1, N, H] (top layer, every step), `<output>_last`
// [1, 1, N, H], and per layer the state tensors `<output>_h<l>`,
// `<output>_c<l>` [T+1, 1, N, H]. forward_only = false builds it for
// training (RecurrentNetworkGradient); `seq_lengths` (an int32 [N] blob,
// fused cells only) becomes a param that every layer's LSTMUnit reads.
absl::StatusOr<OperatorDef> BuildStackedLstm(const std::string& name, const std::string& input,
                                             const std::vector<LstmWeights>& weights,
                                             const std::vector<std::string>& h0, const std::vector<std::string>& c0,
                                             const std::string& output, bool reverse, bool threaded, int num_threads = 2,
                                             int max_parallel_timesteps = 2, bool fused = true, bool forward_only = true,
                                             const std::string& seq_lengths = "");

}  // namespace rnn
}  // namespace loom

#endif  // LOOM_PLUGINS_RNN_BUILDER_H_
