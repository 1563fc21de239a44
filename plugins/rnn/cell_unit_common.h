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

// The cells' nonlinearities. float32: tanh(x) = x P(x^2) / Q(x^2), a
// rational fit of degree 4 over 4 in x^2 on [-9, 9] (tools/numerics/
// fit_tanh.py makes the coefficients), x clamped to that range (tanh(9)
// is 1 - 3e-8) and the result to [-1, 1] (the fit's float32 rounding
// reaches 1 + 1.2e-7 near 9); within 4e-7 of tanh everywhere (absolute),
// and sigmoid(x) = (1 + tanh(x / 2)) / 2, in [0, 1], within 2.6e-7
// (cell_unit_common_test).
// Only multiply-adds and one division, no exp and no branch, so the cell
// loops vectorize: about a third of the time of exp-based forms (one LSTM
// step of N = 32, D = 512 on AVX-512: 27 against 76 us on one core). Same
// approach as ONNX Runtime's MLAS (MlasComputeTanh, MlasComputeLogistic).
// float64: libm, what the finite-difference checks differentiate.
inline float Tanh(float x) {
  float a = x < -9.0f ? -9.0f : x;  // NaN passes through the clamp
  a = a > 9.0f ? 9.0f : a;
  const float s = a * a;
  const float p = (((1.34113529e-08f * s + 2.06463919e-05f) * s + 3.49768181e-03f) * s + 1.33827239e-01f) * s + 9.9999994e-01f;
  const float q = (((7.79872494e-07f * s + 3.28918453e-04f) * s + 2.58847531e-02f) * s + 4.67160374e-01f) * s + 1.0f;
  const float t = a * p / q;
  return t > 1.0f ? 1.0f : (t < -1.0f ? -1.0f : t);
}
inline float Sigmoid(float x) { return 0.5f * Tanh(0.5f * x) + 0.5f; }
inline double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline double Tanh(double x) { return std::tanh(x); }

// The cell loops are built for three ISA levels and the best one the CPU
// has is picked when the plugin loads (GCC's function multiversioning, an
// ifunc): AVX-512 (x86-64-v4) runs 16 floats per instruction where the
// plugin's baseline (x86-64-v2, SSE4.2) runs 4. Same arithmetic in each
// (the FMA contraction differs, within the functions' stated error).
#define LOOM_CELL_CLONES __attribute__((noinline, target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

// One LSTM step over D units of one batch entry (LSTMUnit): pre-activation
// gate blocks ai, af, ao, ag, c_prev -> c, h. __restrict (the outputs are
// other tensors than the inputs) lets the loop vectorize; kept out of line,
// where GCC 12 keeps the __restrict (inlined, it did not vectorize).
template <typename T>
LOOM_CELL_CLONES inline void LstmRow(const T* __restrict ai, const T* __restrict af, const T* __restrict ao, const T* __restrict ag,
                    const T* __restrict c_prev, T fb, int64_t d, T* __restrict c, T* __restrict h) {
  for (int64_t k = 0; k < d; ++k) {
    const T i = Sigmoid(ai[k]), f = Sigmoid(af[k] + fb), o = Sigmoid(ao[k]), g = Tanh(ag[k]);
    const T cn = f * c_prev[k] + i * g;
    c[k] = cn;
    h[k] = o * Tanh(cn);
  }
}

// Its gradient (LSTMUnitGradient) over one batch entry: from the gates, c
// (the step's cell output), c_prev and the incoming dh, dc (never null:
// the caller passes zeros for an absent one, as a conditional load would
// keep the loop from vectorizing),
// the gates' gradients di, df, do_, dg and dc_prev (dh_prev is 0: h_prev
// enters through the step net's matmul, not the unit).
template <typename T>
LOOM_CELL_CLONES inline void LstmRowGradient(const T* __restrict ai, const T* __restrict af, const T* __restrict ao,
                            const T* __restrict ag, const T* __restrict c, const T* __restrict c_prev,
                            const T* __restrict dh, const T* __restrict dc, T fb, int64_t d, T* __restrict di,
                            T* __restrict df, T* __restrict do_, T* __restrict dg, T* __restrict dc_prev) {
  for (int64_t k = 0; k < d; ++k) {
    const T hd = dh[k], cd = dc[k];
    const T i = Sigmoid(ai[k]), f = Sigmoid(af[k] + fb), o = Sigmoid(ao[k]), g = Tanh(ag[k]);
    const T tc = Tanh(c[k]);
    const T c_term = cd + hd * o * (T(1) - tc * tc);
    dc_prev[k] = c_term * f;
    di[k] = c_term * g * i * (T(1) - i);
    df[k] = c_term * c_prev[k] * f * (T(1) - f);
    do_[k] = hd * tc * o * (T(1) - o);
    dg[k] = c_term * i * (T(1) - g * g);
  }
}

// Calls row(b) for each batch entry b in [0, n), split over `threads`
// OpenMP threads when the step is large enough to pay for the fork (at or
// above 2^14 state elements: one LSTM step of N = 32, D = 512 is 2^14
// units, each reading 4 gates).
template <typename F>
inline void ForRows(int64_t n, int64_t d, int threads, const F& row) {
  if (threads <= 1 || n < 2 || n * d < (int64_t{1} << 14)) {
    for (int64_t b = 0; b < n; ++b) row(b);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t b = 0; b < n; ++b) row(b);
}

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
