// What the fused cell units (cell_units.cc: LSTMUnit, GRUUnit) and their
// gradients (cell_unit_gradients.cc: LSTMUnitGradient, GRUUnitGradient)
// share, so both read shapes, gate orders and the seq_lengths/timestep mask
// the same way (Caffe2's caffe2/operators/lstm_unit_op.h, gru_unit_op.h).
// Internal to the rnn plugin.
#ifndef LOOM_PLUGINS_RNN_CELL_UNIT_COMMON_H_
#define LOOM_PLUGINS_RNN_CELL_UNIT_COMMON_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"

namespace loom {
namespace rnn {
namespace cell_unit {

template <typename T>
inline T Sigmoid(T x) { return T(1) / (T(1) + std::exp(-x)); }

// N (the product of all but the last dim) and D (the last dim) of a state
// [..., N, D] or gates [..., N, kD] tensor; false for a scalar.
inline bool SplitND(const sdk::Tensor& t, int64_t* n, int64_t* d) {
  if (t.rank() < 1) return false;
  *d = t.dim(t.rank() - 1);
  *n = *d == 0 ? 0 : t.num_elements() / *d;
  return true;
}

// "[2, 3]" for error messages.
inline std::string ShapeStr(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// Per batch entry n of N: 1 when the step is inside the sequence
// (timestep < seq_lengths[n], or no seq_lengths given), 0 past its end.
// Reads seq_lengths (int32 [N]) and timestep (int32 scalar) from inputs
// `lengths_index` and `lengths_index` + 1 of the op, both optional
// (seq_lengths without timestep is an error); `op` names the op in errors.
inline sdk::Status ValidMask(sdk::KernelContext& ctx, size_t lengths_index, int64_t n, const std::string& op,
                             std::vector<char>* valid) {
  valid->assign(static_cast<size_t>(n), 1);
  sdk::Tensor lengths = ctx.Input(lengths_index), timestep = ctx.Input(lengths_index + 1);
  if (!lengths.present()) return sdk::Status::Ok();
  if (!timestep.present()) return sdk::InvalidArgument(op + ": seq_lengths given without timestep");
  if (lengths.dtype() != LOOM_DTYPE_INT32 || lengths.num_elements() != n) {
    return sdk::InvalidArgument(op + ": seq_lengths must be int32 [" + std::to_string(n) + "], found " +
                                sdk::DTypeName(lengths.dtype()) + ShapeStr(lengths.shape()));
  }
  if (timestep.dtype() != LOOM_DTYPE_INT32 || timestep.num_elements() != 1) {
    return sdk::InvalidArgument(op + ": timestep must be an int32 scalar");
  }
  const int32_t t = timestep.data<int32_t>()[0];
  for (int64_t i = 0; i < n; ++i) (*valid)[i] = t < lengths.data<int32_t>()[i];
  return sdk::Status::Ok();
}

// The LSTM attribute gate_order (the letters i, f, o, g, each once, in the
// order of the four D-wide blocks of gates [..., N, 4D]): slot[k] is the
// block of gate "ifog"[k]. "ifog" (Caffe2's) gives {0, 1, 2, 3}, "iofg"
// (ONNX's i, o, f, c) gives {0, 2, 1, 3}.
inline sdk::Status ReadGateOrder(const sdk::KernelInfo& info, const std::string& op, int64_t slot[4]) {
  std::string order;
  LOOM_SDK_RETURN_IF_ERROR(info.GetString("gate_order", &order));
  const std::string letters = "ifog";
  bool ok = order.size() == 4;
  for (size_t k = 0; ok && k < 4; ++k) {
    const size_t at = order.find(letters[k]);
    ok = at != std::string::npos && order.find(letters[k], at + 1) == std::string::npos;
    if (ok) slot[k] = static_cast<int64_t>(at);
  }
  if (!ok) {
    return sdk::InvalidArgument(op + " '" + info.op_name() + "': gate_order must order the letters i, f, o, g (e.g. "
                                "\"ifog\", \"iofg\"); found \"" + order + "\"");
  }
  return sdk::Status::Ok();
}

// The attribute drop_states (int, 0 or not) as a bool.
inline sdk::Status ReadDropStates(const sdk::KernelInfo& info, bool* drop_states) {
  int64_t drop = 0;
  LOOM_SDK_RETURN_IF_ERROR(info.GetInt("drop_states", &drop));
  *drop_states = drop != 0;
  return sdk::Status::Ok();
}

// The doc of drop_states, shared by the four schemas.
constexpr char kDropStatesDoc[] = "past a sequence's end: 1 zeroes the state, 0 carries it over";

}  // namespace cell_unit
}  // namespace rnn
}  // namespace loom

#endif  // LOOM_PLUGINS_RNN_CELL_UNIT_COMMON_H_
