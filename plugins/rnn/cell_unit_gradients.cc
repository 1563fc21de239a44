// The gradients of the fused cell units (cell_units.cc), with Caffe2's
// semantics (caffe2/operators/lstm_unit_op.h LSTMUnitGradientOp and
// GetLSTMUnitGradient, gru_unit_op.h GRUUnitGradientOp and
// GetGRUUnitGradient): the ops LSTMUnitGradient and GRUUnitGradient with CPU
// kernels for float32 and float64, and the gradient makers that LSTMUnit's
// and GRUUnit's schemas register (SchemaBuilder::Gradient).
//
// Shapes as in the forward: states [..., N, D] (leading dims of size 1
// allowed, e.g. [1, N, D]), gates [..., N, 4D] (LSTM, in gate_order) or
// [..., N, 3D] (GRU, r, z, n), pre-activation.
//
// Past a sequence's end (seq_lengths given and timestep >= seq_lengths[n])
// the forward copied the state (drop_states = 0) or zeroed it
// (drop_states = 1), so there the state gradients pass straight through
// (or are zero) and the gates' gradients are zero, as in Caffe2.
//
// Loom differences: an output gradient (hidden_t_grad, cell_t_grad) may be
// absent (an empty input name) and is then read as zeros, so the makers
// need no zero-filling ops when only one of LSTMUnit's outputs leads to a
// loss; LSTMUnit's gate_order attribute (a Loom extension) is honoured.
#include <algorithm>
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
using sdk::GradientContext;

// Input indices of LSTMUnitGradient.
enum LstmGradInput : size_t {
  kLstmHPrev = 0, kLstmCPrev, kLstmGates, kLstmSeqLengths, kLstmTimestep, kLstmH, kLstmC, kLstmHGrad, kLstmCGrad,
  kLstmNumInputs
};
// Input indices of GRUUnitGradient.
enum GruGradInput : size_t {
  kGruHPrev = 0, kGruGates, kGruSeqLengths, kGruTimestep, kGruH, kGruHGrad, kGruNumInputs
};

// `t` is present with `like`'s dtype and shape (`what` names it in the error).
Status SameAs(const Tensor& t, const Tensor& like, const std::string& op, const std::string& what) {
  if (!t.present()) return sdk::InvalidArgument(op + ": " + what + " is missing");
  if (t.dtype() != like.dtype() || t.shape() != like.shape()) {
    return sdk::InvalidArgument(op + ": " + what + " must be " + sdk::DTypeName(like.dtype()) + ShapeStr(like.shape()) +
                                " like the previous state; found " + sdk::DTypeName(t.dtype()) + ShapeStr(t.shape()));
  }
  return Status::Ok();
}

// LSTMUnitGradient: with i = sigmoid(a_i), f = sigmoid(a_f + forget_bias),
// o = sigmoid(a_o), g = tanh(a_g) from the gates a, c = cell_t and the
// output gradients dh, dc (zeros where absent), for a step inside the
// sequence:
//   dc~     = dc + dh * o * (1 - tanh(c)^2)
//   dc_prev = dc~ * f,  dh_prev = 0
//   da_i = dc~ * g * i (1 - i),  da_f = dc~ * c_prev * f (1 - f)
//   da_o = dh * tanh(c) * o (1 - o),  da_g = dc~ * i * (1 - g^2)
// and past the sequence's end: dh_prev = dh, dc_prev = dc (drop_states = 0)
// or zeros (drop_states = 1), da = 0.
class LSTMUnitGradientKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("forget_bias", &forget_bias_));
    LOOM_SDK_RETURN_IF_ERROR(cell_unit::ReadGateOrder(info, "LSTMUnitGradient", slot_));
    return cell_unit::ReadDropStates(info, &drop_states_);
  }
  Status Compute(KernelContext& ctx) {
    const std::string op = "LSTMUnitGradient";
    if (ctx.num_inputs() < kLstmNumInputs - 2) {
      return sdk::InvalidArgument(op + ": expected the inputs hidden_t_prev, cell_t_prev, gates, seq_lengths?, "
                                  "timestep?, hidden_t, cell_t, hidden_t_grad?, cell_t_grad?; found " +
                                  std::to_string(ctx.num_inputs()));
    }
    Tensor h_prev = ctx.Input(kLstmHPrev), c_prev = ctx.Input(kLstmCPrev), gates = ctx.Input(kLstmGates);
    int64_t n, d, gn, gd;
    if (!SplitND(c_prev, &n, &d) || !SplitND(gates, &gn, &gd) || gn != n || gd != 4 * d ||
        gates.dtype() != c_prev.dtype()) {
      return sdk::InvalidArgument(op + ": expected cell_t_prev [..., N, D] and gates [..., N, 4D] of one dtype; found " +
                                  ShapeStr(c_prev.shape()) + ", " + ShapeStr(gates.shape()));
    }
    LOOM_SDK_RETURN_IF_ERROR(SameAs(h_prev, c_prev, op, "hidden_t_prev"));
    Tensor h = ctx.Input(kLstmH), c = ctx.Input(kLstmC), dh = ctx.Input(kLstmHGrad), dc = ctx.Input(kLstmCGrad);
    LOOM_SDK_RETURN_IF_ERROR(SameAs(h, c_prev, op, "hidden_t"));
    LOOM_SDK_RETURN_IF_ERROR(SameAs(c, c_prev, op, "cell_t"));
    if (dh.present()) LOOM_SDK_RETURN_IF_ERROR(SameAs(dh, c_prev, op, "hidden_t_grad"));
    if (dc.present()) LOOM_SDK_RETURN_IF_ERROR(SameAs(dc, c_prev, op, "cell_t_grad"));
    std::vector<char> valid;
    LOOM_SDK_RETURN_IF_ERROR(ValidMask(ctx, kLstmSeqLengths, n, op, &valid));
    Tensor dh_prev, dc_prev, dgates;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, c_prev.dtype(), h_prev.shape(), &dh_prev));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, c_prev.dtype(), c_prev.shape(), &dc_prev));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, c_prev.dtype(), gates.shape(), &dgates));
    if (c_prev.dtype() == LOOM_DTYPE_FLOAT) {
      Run<float>(c_prev, gates, c, dh, dc, valid, n, d, ctx.num_threads(), dh_prev, dc_prev, dgates);
    } else {
      Run<double>(c_prev, gates, c, dh, dc, valid, n, d, ctx.num_threads(), dh_prev, dc_prev, dgates);
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const Tensor& c_prev, const Tensor& gates, const Tensor& c, const Tensor& dh, const Tensor& dc,
           const std::vector<char>& valid, int64_t n, int64_t d, int threads, Tensor& dh_prev, Tensor& dc_prev,
           Tensor& dgates) const {
    const T* cp = c_prev.data<T>();
    const T* g = gates.data<T>();
    const T* ct = c.data<T>();
    const T* dhp = dh.present() ? dh.data<T>() : nullptr;  // absent: zeros
    const T* dcp = dc.present() ? dc.data<T>() : nullptr;
    T* dhpo = dh_prev.data<T>();
    T* dcpo = dc_prev.data<T>();
    T* dg = dgates.data<T>();
    const T fb = static_cast<T>(forget_bias_);
    const std::vector<T> zeros(static_cast<size_t>(d), T(0));  // an absent dh or dc
    cell_unit::ForRows(n, d, threads, [&](int64_t b) {
      const T* gb = g + b * 4 * d;
      T* dgb = dg + b * 4 * d;
      T* di = dgb + slot_[0] * d;
      T* df = dgb + slot_[1] * d;
      T* dout = dgb + slot_[2] * d;
      T* dgg = dgb + slot_[3] * d;
      if (!valid[b]) {
        for (int64_t k = 0; k < d; ++k) {
          const int64_t idx = b * d + k;
          const T hd = dhp != nullptr ? dhp[idx] : T(0);
          const T cd = dcp != nullptr ? dcp[idx] : T(0);
          dhpo[idx] = drop_states_ ? T(0) : hd;
          dcpo[idx] = drop_states_ ? T(0) : cd;
          di[k] = df[k] = dout[k] = dgg[k] = T(0);
        }
        return;
      }
      const T *ai = gb + slot_[0] * d, *af = gb + slot_[1] * d, *ao = gb + slot_[2] * d, *ag = gb + slot_[3] * d;
      const T *cb = ct + b * d, *cpb = cp + b * d;
      const T* dhb = dhp != nullptr ? dhp + b * d : zeros.data();
      const T* dcb = dcp != nullptr ? dcp + b * d : zeros.data();
      T* dhpob = dhpo + b * d;
      std::fill(dhpob, dhpob + d, T(0));  // h_prev does not enter the unit (the step net's matmul carries it)
      cell_unit::LstmRowGradient(ai, af, ao, ag, cb, cpb, dhb, dcb, fb, d, di, df, dout, dgg, dcpo + b * d);
    });
  }
  float forget_bias_ = 0;
  int64_t slot_[4] = {0, 1, 2, 3};  // block of i, f, o, g in `gates`
  bool drop_states_ = false;
};

// GRUUnitGradient: with z = sigmoid(a_z), n = tanh(a_n) from the gates
// (r, z, n) and the output gradient dh (zeros where absent), for a step
// inside the sequence:
//   dh_prev = dh * z
//   da_r = 0 (the reset gate was applied by the step net)
//   da_z = dh * (h_prev - n) * z (1 - z),  da_n = dh * (1 - z) * (1 - n^2)
// and past the sequence's end: dh_prev = dh (drop_states = 0) or zeros
// (drop_states = 1), da = 0.
class GRUUnitGradientKernel {
 public:
  Status Init(const KernelInfo& info) { return cell_unit::ReadDropStates(info, &drop_states_); }
  Status Compute(KernelContext& ctx) {
    const std::string op = "GRUUnitGradient";
    if (ctx.num_inputs() < kGruNumInputs - 1) {
      return sdk::InvalidArgument(op + ": expected the inputs hidden_t_prev, gates, seq_lengths?, timestep?, "
                                  "hidden_t, hidden_t_grad?; found " + std::to_string(ctx.num_inputs()));
    }
    Tensor h_prev = ctx.Input(kGruHPrev), gates = ctx.Input(kGruGates);
    int64_t n, d, gn, gd;
    if (!SplitND(h_prev, &n, &d) || !SplitND(gates, &gn, &gd) || gn != n || gd != 3 * d ||
        gates.dtype() != h_prev.dtype()) {
      return sdk::InvalidArgument(op + ": expected hidden_t_prev [..., N, D] and gates [..., N, 3D] of one dtype; found " +
                                  ShapeStr(h_prev.shape()) + ", " + ShapeStr(gates.shape()));
    }
    Tensor h = ctx.Input(kGruH), dh = ctx.Input(kGruHGrad);
    LOOM_SDK_RETURN_IF_ERROR(SameAs(h, h_prev, op, "hidden_t"));
    if (dh.present()) LOOM_SDK_RETURN_IF_ERROR(SameAs(dh, h_prev, op, "hidden_t_grad"));
    std::vector<char> valid;
    LOOM_SDK_RETURN_IF_ERROR(ValidMask(ctx, kGruSeqLengths, n, op, &valid));
    Tensor dh_prev, dgates;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, h_prev.dtype(), h_prev.shape(), &dh_prev));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, h_prev.dtype(), gates.shape(), &dgates));
    if (h_prev.dtype() == LOOM_DTYPE_FLOAT) {
      Run<float>(h_prev, gates, dh, valid, n, d, dh_prev, dgates);
    } else {
      Run<double>(h_prev, gates, dh, valid, n, d, dh_prev, dgates);
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const Tensor& h_prev, const Tensor& gates, const Tensor& dh, const std::vector<char>& valid, int64_t n,
           int64_t d, Tensor& dh_prev, Tensor& dgates) const {
    const T* hp = h_prev.data<T>();
    const T* g = gates.data<T>();
    const T* dhp = dh.present() ? dh.data<T>() : nullptr;  // absent: zeros
    T* dhpo = dh_prev.data<T>();
    T* dg = dgates.data<T>();
    for (int64_t b = 0; b < n; ++b) {
      const T* gb = g + b * 3 * d;
      T* dr = dg + b * 3 * d;
      T* dz = dr + d;
      T* dn = dr + 2 * d;
      for (int64_t k = 0; k < d; ++k) {
        const int64_t idx = b * d + k;
        const T hd = dhp != nullptr ? dhp[idx] : T(0);
        if (!valid[b]) {
          dhpo[idx] = drop_states_ ? T(0) : hd;
          dr[k] = dz[k] = dn[k] = T(0);
          continue;
        }
        const T z = Sigmoid(gb[d + k]), cand = Tanh(gb[2 * d + k]);
        dhpo[idx] = hd * z;
        dr[k] = T(0);
        dz[k] = hd * (hp[idx] - cand) * z * (T(1) - z);
        dn[k] = hd * (T(1) - z) * (T(1) - cand * cand);
      }
    }
  }
  bool drop_states_ = false;
};

// Where a maker writes input i's gradient: GI(i), or a temporary when the
// backward pass does not need it (the op writes all its outputs).
std::string GradOut(GradientContext& g, size_t i, const std::string& what) {
  const std::string gi = g.GI(i);
  return gi.empty() ? g.Temp("unused_" + what) : gi;
}

}  // namespace

// Caffe2's GetLSTMUnitGradient: LSTMUnitGradient over (I(0..4), O(0), O(1),
// GO(0), GO(1)) writing GI(0..2), with LSTMUnit's arguments.
sdk::Status MakeLSTMUnitGradient(GradientContext& g) {
  g.NoGradient(kLstmSeqLengths);
  g.NoGradient(kLstmTimestep);
  if (g.GI(0).empty() && g.GI(1).empty() && g.GI(2).empty()) return Status::Ok();
  return g.AddOp("LSTMUnitGradient",
                 {g.I(0), g.I(1), g.I(2), g.I(3), g.I(4), g.O(0), g.O(1), g.GO(0), g.GO(1)},
                 {GradOut(g, 0, "hidden_t_prev_grad"), GradOut(g, 1, "cell_t_prev_grad"), GradOut(g, 2, "gates_grad")},
                 /*copy_arguments=*/true);
}

// Caffe2's GetGRUUnitGradient: GRUUnitGradient over (I(0..3), O(0), GO(0))
// writing GI(0), GI(1), with GRUUnit's arguments.
sdk::Status MakeGRUUnitGradient(GradientContext& g) {
  g.NoGradient(kGruSeqLengths);
  g.NoGradient(kGruTimestep);
  if (g.GI(0).empty() && g.GI(1).empty()) return Status::Ok();
  return g.AddOp("GRUUnitGradient", {g.I(0), g.I(1), g.I(2), g.I(3), g.O(0), g.GO(0)},
                 {GradOut(g, 0, "hidden_t_prev_grad"), GradOut(g, 1, "gates_grad")},
                 /*copy_arguments=*/true);
}

sdk::Status RegisterCellUnitGradients(sdk::Registrar& reg) {
  const std::vector<LoomDataType> floats = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE};
  const char* state = "[..., N, D]";
  const char* absent_zeros = "[..., N, D]; absent (empty name): zeros";

  sdk::SchemaBuilder lstm("LSTMUnitGradient");
  lstm.Domain(LOOM_OPS_DOMAIN);
  lstm.Doc("Caffe2 LSTMUnitGradient: the gradients of LSTMUnit's hidden_t_prev, cell_t_prev and gates from those of "
           "its outputs hidden_t and cell_t (absent ones are zeros). Inside the sequence: dc~ = dc + dh * o * "
           "(1 - tanh(c)^2), dc_prev = dc~ * f, dh_prev = 0, d(i, f, o, g) through the sigmoids and tanh; past its "
           "end: dh_prev = dh, dc_prev = dc (drop_states = 0) or zeros (drop_states = 1), dgates = 0.")
      .Input("hidden_t_prev", "T", LOOM_PARAM_SINGLE, state)
      .Input("cell_t_prev", "T", LOOM_PARAM_SINGLE, state)
      .Input("gates", "T", LOOM_PARAM_SINGLE, "[..., N, 4D], pre-activation, in gate_order")
      .Input("seq_lengths", "tensor(int32)", LOOM_PARAM_OPTIONAL, "[N]: valid timesteps per batch entry")
      .Input("timestep", "tensor(int32)", LOOM_PARAM_OPTIONAL, "scalar: the current timestep")
      .Input("hidden_t", "T", LOOM_PARAM_SINGLE, "[..., N, D]: LSTMUnit's hidden output")
      .Input("cell_t", "T", LOOM_PARAM_SINGLE, "[..., N, D]: LSTMUnit's cell output")
      .Input("hidden_t_grad", "T", LOOM_PARAM_OPTIONAL, absent_zeros)
      .Input("cell_t_grad", "T", LOOM_PARAM_OPTIONAL, absent_zeros)
      .Output("hidden_t_prev_grad", "T", LOOM_PARAM_SINGLE, state)
      .Output("cell_t_prev_grad", "T", LOOM_PARAM_SINGLE, state)
      .Output("gates_grad", "T", LOOM_PARAM_SINGLE, "[..., N, 4D], in gate_order")
      .TypeConstraint("T", floats, "float32 or float64")
      .AttrFloat("forget_bias", 0.0f, "LSTMUnit's forget_bias")
      .AttrString("gate_order", "ifog", "LSTMUnit's gate_order (Loom extension)")
      .AttrInt("drop_states", 0, kDropStatesDoc);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(lstm));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<LSTMUnitGradientKernel>("LSTMUnitGradient", {"CPU", "", 0, {{"T", floats}}}));

  sdk::SchemaBuilder gru("GRUUnitGradient");
  gru.Domain(LOOM_OPS_DOMAIN);
  gru.Doc("Caffe2 GRUUnitGradient: the gradients of GRUUnit's hidden_t_prev and gates (r, z, n) from that of its "
          "output hidden_t (absent: zeros). Inside the sequence: dh_prev = dh * z, dr = 0, dz = dh * (h_prev - n) * "
          "z (1 - z), dn = dh * (1 - z) * (1 - n^2); past its end: dh_prev = dh (drop_states = 0) or zeros "
          "(drop_states = 1), dgates = 0.")
      .Input("hidden_t_prev", "T", LOOM_PARAM_SINGLE, state)
      .Input("gates", "T", LOOM_PARAM_SINGLE, "[..., N, 3D], pre-activation, order r, z, n")
      .Input("seq_lengths", "tensor(int32)", LOOM_PARAM_OPTIONAL, "[N]: valid timesteps per batch entry")
      .Input("timestep", "tensor(int32)", LOOM_PARAM_OPTIONAL, "scalar: the current timestep")
      .Input("hidden_t", "T", LOOM_PARAM_SINGLE, "[..., N, D]: GRUUnit's output")
      .Input("hidden_t_grad", "T", LOOM_PARAM_OPTIONAL, absent_zeros)
      .Output("hidden_t_prev_grad", "T", LOOM_PARAM_SINGLE, state)
      .Output("gates_grad", "T", LOOM_PARAM_SINGLE, "[..., N, 3D], order r, z, n")
      .TypeConstraint("T", floats, "float32 or float64")
      .AttrInt("drop_states", 0, kDropStatesDoc);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(gru));
  return reg.Kernel<GRUUnitGradientKernel>("GRUUnitGradient", {"CPU", "", 0, {{"T", floats}}});
}

}  // namespace rnn
}  // namespace loom
