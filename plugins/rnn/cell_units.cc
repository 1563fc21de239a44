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
// Gradients: LSTMUnitGradient, GRUUnitGradient (cell_unit_gradients.cc).
#include <cmath>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/rnn/cell_unit_common.h"
#include "plugins/rnn/rnn_ops.h"

namespace loom {
namespace rnn {
namespace {

using cell_unit::kDropStatesDoc;
using cell_unit::ShapeStr;
using cell_unit::Sigmoid;
using cell_unit::Tanh;
using cell_unit::SplitND;
using cell_unit::ValidMask;

class LSTMUnitKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("forget_bias", &forget_bias_));
    LOOM_SDK_RETURN_IF_ERROR(cell_unit::ReadGateOrder(info, "LSTMUnit", slot_));
    return cell_unit::ReadDropStates(info, &drop_states_);
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
    if (c_prev.dtype() == LOOM_DTYPE_FLOAT) return Run<float>(h_prev, c_prev, gates, valid, n, d, ctx.num_threads(), h, c);
    return Run<double>(h_prev, c_prev, gates, valid, n, d, ctx.num_threads(), h, c);
  }

 private:
  template <typename T>
  Status Run(const Tensor& h_prev, const Tensor& c_prev, const Tensor& gates, const std::vector<char>& valid, int64_t n,
             int64_t d, int threads, Tensor& h, Tensor& c) {
    const T* hp = h_prev.data<T>();
    const T* cp = c_prev.data<T>();
    const T* g = gates.data<T>();
    T* ho = h.data<T>();
    T* co = c.data<T>();
    const T fb = static_cast<T>(forget_bias_);
    cell_unit::ForRows(n, d, threads, [&](int64_t b) {
      const T* gb = g + b * 4 * d;
      const T *ai = gb + slot_[0] * d, *af = gb + slot_[1] * d, *ao = gb + slot_[2] * d, *ag = gb + slot_[3] * d;
      const T* cpb = cp + b * d;
      T *hob = ho + b * d, *cob = co + b * d;
      if (!valid[b]) {
        for (int64_t k = 0; k < d; ++k) {
          hob[k] = drop_states_ ? T(0) : hp[b * d + k];
          cob[k] = drop_states_ ? T(0) : cpb[k];
        }
        return;
      }
      cell_unit::LstmRow(ai, af, ao, ag, cpb, fb, d, cob, hob);
    });
    return Status::Ok();
  }
  float forget_bias_ = 0;
  int64_t slot_[4] = {0, 1, 2, 3};  // block of i, f, o, g in `gates`
  bool drop_states_ = false;
};

class GRUUnitKernel {
 public:
  Status Init(const KernelInfo& info) { return cell_unit::ReadDropStates(info, &drop_states_); }
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
        T z = Sigmoid(gb[d + k]), cand = Tanh(gb[2 * d + k]);
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

}  // namespace

sdk::Status RegisterCellUnits(sdk::Registrar& reg) {
  const std::vector<LoomDataType> floats = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE};
  sdk::SchemaBuilder lstm("LSTMUnit");
  lstm.Domain(LOOM_OPS_DOMAIN);
  lstm.Doc("Caffe2 LSTMUnit: one fused LSTM step from pre-activation gates (i, f, o, g order). "
           "h = sigmoid(o) * tanh(c), c = sigmoid(f + forget_bias) * c_prev + sigmoid(i) * tanh(g). "
           "float32: tanh and sigmoid within 4e-7 (absolute) of exact (a rational approximation); float64: libm.");
  CellUnitIO(lstm, {"cell"}, "[..., N, 4D], pre-activation, in gate_order (i, f, o, g by default)", floats);
  lstm.AttrFloat("forget_bias", 0.0f, "added to the forget gate before the sigmoid")
      .AttrString("gate_order", "ifog",
                  "Loom extension: the order of the gate blocks in `gates`, the letters i, f, o, g; Caffe2's "
                  "\"ifog\" by default, \"iofg\" for ONNX's i, o, f, c")
      .AttrInt("drop_states", 0, kDropStatesDoc)
      .Gradient<&MakeLSTMUnitGradient>();  // LSTMUnitGradient (cell_unit_gradients.cc)
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(lstm));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<LSTMUnitKernel>("LSTMUnit", {"CPU", "", 0, {{"T", floats}}}));
  sdk::SchemaBuilder gru("GRUUnit");
  gru.Domain(LOOM_OPS_DOMAIN);
  gru.Doc("Caffe2 GRUUnit: h = sigmoid(z) * h_prev + (1 - sigmoid(z)) * tanh(n) from gates (r, z, n), the reset "
          "gate already applied to the candidate by the step net. float32: tanh and sigmoid within 4e-7 "
          "(absolute) of exact (a rational approximation); float64: libm.");
  CellUnitIO(gru, {}, "[..., N, 3D], pre-activation, order r, z, n", floats);
  gru.AttrInt("drop_states", 0, kDropStatesDoc).Gradient<&MakeGRUUnitGradient>();  // GRUUnitGradient
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(gru));
  return reg.Kernel<GRUUnitKernel>("GRUUnit", {"CPU", "", 0, {{"T", floats}}});
}

}  // namespace rnn
}  // namespace loom
