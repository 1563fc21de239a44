// Fused recurrent cell units with Caffe2's semantics (caffe2/operators/
// lstm_unit_op.h, gru_unit_op.h). Shapes: states [..., N, D] (leading dims
// of size 1 allowed, e.g. [1, N, D] from a window-1 link), gates
// [..., N, 4D] (LSTM) or [..., N, 3D] (GRU), pre-activation.
//
// LSTMUnit: gates in Caffe2 order (i, f, o, g), or the order named by the
// Loom attribute gate_order ("iofg": ONNX's i, o, f, c, so a step net can
// compute gates straight from ONNX weights without reordering them):
//   c = sigmoid(f + forget_bias) * c_prev + sigmoid(i) * tanh(g)
//   h = sigmoid(o) * tanh(c)
// GRUUnit: gates (r, z, n) where the reset gate was already applied to the
//   candidate's recurrent term by the step net:
//   h = sigmoid(z) * h_prev + (1 - sigmoid(z)) * tanh(n)
// Optional seq_lengths (int32 [N]) and timestep (int32 scalar): for batch
// entries with timestep >= seq_lengths[n] the state is carried over
// (drop_states = 0) or zeroed (drop_states = 1).
#include <cmath>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/rnn/rnn_ops.h"

namespace loom {
namespace rnn {
namespace {

using sdk::KernelContext;
using sdk::KernelInfo;
using sdk::Status;
using sdk::Tensor;

template <typename T>
T Sigmoid(T x) { return T(1) / (T(1) + std::exp(-x)); }

// N (product of leading dims) and D of a state tensor.
bool SplitND(const Tensor& t, int64_t* n, int64_t* d) {
  if (t.rank() < 1) return false;
  *d = t.dim(t.rank() - 1);
  *n = *d == 0 ? 0 : t.num_elements() / *d;
  return true;
}

std::string ShapeStr(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// Reads seq_lengths/timestep (inputs `lengths_index`, `lengths_index` + 1).
Status ValidMask(KernelContext& ctx, size_t lengths_index, int64_t n, const std::string& op, std::vector<char>* valid) {
  valid->assign(static_cast<size_t>(n), 1);
  Tensor lengths = ctx.Input(lengths_index), timestep = ctx.Input(lengths_index + 1);
  if (!lengths.present()) return Status::Ok();
  if (!timestep.present()) return sdk::InvalidArgument(op + ": seq_lengths given without timestep");
  if (lengths.dtype() != LOOM_DTYPE_INT32 || lengths.num_elements() != n) {
    return sdk::InvalidArgument(op + ": seq_lengths must be int32 [" + std::to_string(n) + "], found " +
                                sdk::DTypeName(lengths.dtype()) + ShapeStr(lengths.shape()));
  }
  if (timestep.dtype() != LOOM_DTYPE_INT32 || timestep.num_elements() != 1) {
    return sdk::InvalidArgument(op + ": timestep must be an int32 scalar");
  }
  int32_t t = timestep.data<int32_t>()[0];
  for (int64_t i = 0; i < n; ++i) (*valid)[i] = t < lengths.data<int32_t>()[i];
  return Status::Ok();
}

class LSTMUnitKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("forget_bias", &forget_bias_));
    std::string order;
    LOOM_SDK_RETURN_IF_ERROR(info.GetString("gate_order", &order));
    // Where each of i, f, o, g sits among the four gate blocks.
    const std::string letters = "ifog";
    bool ok = order.size() == 4;
    for (size_t k = 0; ok && k < 4; ++k) {
      const size_t at = order.find(letters[k]);
      ok = at != std::string::npos && order.find(letters[k], at + 1) == std::string::npos;
      if (ok) slot_[k] = static_cast<int64_t>(at);
    }
    if (!ok) {
      return sdk::InvalidArgument("LSTMUnit '" + info.op_name() + "': gate_order must order the letters i, f, o, g (e.g. "
                                  "\"ifog\", \"iofg\"); found \"" + order + "\"");
    }
    int64_t drop = 0;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("drop_states", &drop));
    drop_states_ = drop != 0;
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor h_prev = ctx.Input(0), c_prev = ctx.Input(1), gates = ctx.Input(2);
    int64_t n, d, gn, gd;
    if (!SplitND(c_prev, &n, &d) || !SplitND(gates, &gn, &gd) || h_prev.shape() != c_prev.shape() || gn != n || gd != 4 * d) {
      return sdk::InvalidArgument("LSTMUnit: expected hidden_prev and cell_prev [..., N, D] and gates [..., N, 4D]; found " +
                                  ShapeStr(h_prev.shape()) + ", " + ShapeStr(c_prev.shape()) + ", " + ShapeStr(gates.shape()));
    }
    std::vector<char> valid;
    LOOM_SDK_RETURN_IF_ERROR(ValidMask(ctx, 3, n, "LSTMUnit", &valid));
    Tensor h, c;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, c_prev.dtype(), c_prev.shape(), &h));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, c_prev.dtype(), c_prev.shape(), &c));
    if (c_prev.dtype() == LOOM_DTYPE_FLOAT) return Run<float>(h_prev, c_prev, gates, valid, n, d, h, c);
    return Run<double>(h_prev, c_prev, gates, valid, n, d, h, c);
  }

 private:
  template <typename T>
  Status Run(const Tensor& h_prev, const Tensor& c_prev, const Tensor& gates, const std::vector<char>& valid, int64_t n,
             int64_t d, Tensor& h, Tensor& c) {
    const T* hp = h_prev.data<T>();
    const T* cp = c_prev.data<T>();
    const T* g = gates.data<T>();
    T* ho = h.data<T>();
    T* co = c.data<T>();
    const T fb = static_cast<T>(forget_bias_);
    for (int64_t b = 0; b < n; ++b) {
      const T* gb = g + b * 4 * d;
      for (int64_t k = 0; k < d; ++k) {
        const int64_t idx = b * d + k;
        if (!valid[b]) {
          ho[idx] = drop_states_ ? T(0) : hp[idx];
          co[idx] = drop_states_ ? T(0) : cp[idx];
          continue;
        }
        T i = Sigmoid(gb[slot_[0] * d + k]), f = Sigmoid(gb[slot_[1] * d + k] + fb);
        T o = Sigmoid(gb[slot_[2] * d + k]), gg = std::tanh(gb[slot_[3] * d + k]);
        T cn = f * cp[idx] + i * gg;
        co[idx] = cn;
        ho[idx] = o * std::tanh(cn);
      }
    }
    return Status::Ok();
  }
  float forget_bias_ = 0;
  int64_t slot_[4] = {0, 1, 2, 3};  // block of i, f, o, g in `gates`
  bool drop_states_ = false;
};

class GRUUnitKernel {
 public:
  Status Init(const KernelInfo& info) {
    int64_t drop = 0;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("drop_states", &drop));
    drop_states_ = drop != 0;
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor h_prev = ctx.Input(0), gates = ctx.Input(1);
    int64_t n, d, gn, gd;
    if (!SplitND(h_prev, &n, &d) || !SplitND(gates, &gn, &gd) || gn != n || gd != 3 * d) {
      return sdk::InvalidArgument("GRUUnit: expected hidden_prev [..., N, D] and gates [..., N, 3D]; found " +
                                  ShapeStr(h_prev.shape()) + ", " + ShapeStr(gates.shape()));
    }
    std::vector<char> valid;
    LOOM_SDK_RETURN_IF_ERROR(ValidMask(ctx, 2, n, "GRUUnit", &valid));
    Tensor h;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, h_prev.dtype(), h_prev.shape(), &h));
    if (h_prev.dtype() == LOOM_DTYPE_FLOAT) return Run<float>(h_prev, gates, valid, n, d, h);
    return Run<double>(h_prev, gates, valid, n, d, h);
  }

 private:
  template <typename T>
  Status Run(const Tensor& h_prev, const Tensor& gates, const std::vector<char>& valid, int64_t n, int64_t d, Tensor& h) {
    const T* hp = h_prev.data<T>();
    const T* g = gates.data<T>();
    T* ho = h.data<T>();
    for (int64_t b = 0; b < n; ++b) {
      const T* gb = g + b * 3 * d;
      for (int64_t k = 0; k < d; ++k) {
        const int64_t idx = b * d + k;
        if (!valid[b]) {
          ho[idx] = drop_states_ ? T(0) : hp[idx];
          continue;
        }
        T z = Sigmoid(gb[d + k]), cand = std::tanh(gb[2 * d + k]);
        ho[idx] = z * hp[idx] + (T(1) - z) * cand;
      }
    }
    return Status::Ok();
  }
  bool drop_states_ = false;
};

// The inputs, outputs and dtypes of a fused cell unit: hidden_prev,
// "<state>_prev" for each of `states`, gates (`gates_doc`), the optional
// seq_lengths and timestep; hidden and each of `states`; T float32/64.
void CellUnitIO(sdk::SchemaBuilder& b, const std::vector<std::string>& states, const char* gates_doc,
                const std::vector<LoomDataType>& floats) {
  b.Input("hidden_prev", "T", LOOM_PARAM_SINGLE, "[..., N, D]");
  for (const std::string& s : states) b.Input(s + "_prev", "T", LOOM_PARAM_SINGLE, "[..., N, D]");
  b.Input("gates", "T", LOOM_PARAM_SINGLE, gates_doc)
      .Input("seq_lengths", "tensor(int32)", LOOM_PARAM_OPTIONAL, "[N]: valid timesteps per batch entry")
      .Input("timestep", "tensor(int32)", LOOM_PARAM_OPTIONAL, "scalar: the current timestep")
      .Output("hidden", "T", LOOM_PARAM_SINGLE, "[..., N, D]");
  for (const std::string& s : states) b.Output(s, "T", LOOM_PARAM_SINGLE, "[..., N, D]");
  b.TypeConstraint("T", floats, "float32 or float64");
}

constexpr char kDropStatesDoc[] = "past a sequence's end: 1 zeroes the state, 0 carries it over";

}  // namespace

sdk::Status RegisterCellUnits(sdk::Registrar& reg) {
  const std::vector<LoomDataType> floats = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE};
  sdk::SchemaBuilder lstm("LSTMUnit");
  lstm.Doc("Caffe2 LSTMUnit: one fused LSTM step from pre-activation gates (i, f, o, g order). "
           "h = sigmoid(o) * tanh(c), c = sigmoid(f + forget_bias) * c_prev + sigmoid(i) * tanh(g).");
  CellUnitIO(lstm, {"cell"}, "[..., N, 4D], pre-activation, in gate_order (i, f, o, g by default)", floats);
  lstm.AttrFloat("forget_bias", 0.0f, "added to the forget gate before the sigmoid")
      .AttrString("gate_order", "ifog",
                  "Loom extension: the order of the gate blocks in `gates`, the letters i, f, o, g; Caffe2's "
                  "\"ifog\" by default, \"iofg\" for ONNX's i, o, f, c")
      .AttrInt("drop_states", 0, kDropStatesDoc);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(lstm));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<LSTMUnitKernel>("LSTMUnit", {"CPU", "", 0, {{"T", floats}}}));
  sdk::SchemaBuilder gru("GRUUnit");
  gru.Doc("Caffe2 GRUUnit: h = sigmoid(z) * h_prev + (1 - sigmoid(z)) * tanh(n) from gates (r, z, n), the reset "
          "gate already applied to the candidate by the step net.");
  CellUnitIO(gru, {}, "[..., N, 3D], pre-activation, order r, z, n", floats);
  gru.AttrInt("drop_states", 0, kDropStatesDoc);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(gru));
  return reg.Kernel<GRUUnitKernel>("GRUUnit", {"CPU", "", 0, {{"T", floats}}});
}

}  // namespace rnn
}  // namespace loom
