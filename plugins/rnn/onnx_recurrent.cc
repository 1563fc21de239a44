// ONNX LSTM, GRU and RNN (opset 7-14) expanded into Caffe2-style
// RecurrentNetwork ops: the kernels behind engine "STEPNET" (the oneDNN
// kernels in the CPU plugin, engine "DNNL", have the higher priority; choose
// these with OperatorDef.engine = "STEPNET").
//
// GRU: per gate, gates r and z = x_t W^T + h_prev R^T + Wb + Rb; the
// candidate n = x_t Wh^T + Wbh + (r * h_prev) Rh^T + Rbh (linear_before_reset
// = 0) or + r * (h_prev Rh^T + Rbh) (= 1), with r = sigmoid(r); then
// GRUUnit(h_prev, [r, z, n]) gives h = z h_prev + (1 - z) tanh(n) and carries
// the state past a sequence's end. RNN: h = f(x_t W^T + h_prev R^T + Wb + Rb)
// for f in Tanh, Relu, Sigmoid; sequence_lens below T only forward (no unit
// op carries a plain RNN's state).
//
// LSTM:
//
// Per direction it prepares, in a child workspace of the op's workspace,
// the weights transposed and reordered to LSTMUnit's gate order
// (ONNX i, o, f, c -> i, f, o, g), the summed bias and the initial states,
// and runs a RecurrentNetwork whose step net is
//   gates = x_t @ W' + h_prev @ R' + b;  (h, c) = LSTMUnit(h_prev, c_prev, gates, seq_lens, timestep)
// Reverse runs the RecurrentNetwork with reverse = 1; bidirectional runs
// both. With sequence_lens, LSTMUnit carries the state past a sequence's
// end, so the final state is the last valid one, and Y rows past the end
// are zeroed (ONNX Runtime's behaviour).
//
// Supported here: directions, B, sequence_lens, initial_h/initial_c,
// layout 0 and 1, every optional output, the default activations (RNN:
// Tanh, Relu, Sigmoid). Not supported (UNIMPLEMENTED, use the DNNL kernels):
// LSTM peepholes (a non-zero P), clip, input_forget, other activations.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/rnn/netdef_writer.h"
#include "plugins/rnn/rnn_ops.h"

namespace loom {
namespace rnn {
namespace {

using sdk::Api;
using sdk::KernelContext;
using sdk::KernelInfo;
using sdk::Status;
using sdk::Tensor;

enum class Kind { kLstm, kGru, kRnn };

// A float32 blob of `ws` sized to `shape`; returns its data.
Status Blob(LoomWorkspace* ws, const std::string& name, const std::vector<int64_t>& shape, float** data) {
  LoomTensor* t = Api().Workspace_CreateBlob(ws, name.c_str());
  LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Resize(t, LOOM_DTYPE_FLOAT, shape.data(), shape.size())));
  *data = static_cast<float*>(Api().TensorData(t));
  return Status::Ok();
}

OpSpec Op(std::string type, std::string name, std::vector<std::string> in, std::vector<std::string> out,
          std::vector<ArgSpec> args = {}) {
  return OpSpec{std::move(type), std::move(name), std::move(in), std::move(out), std::move(args)};
}

template <Kind K>
class OnnxRecurrentKernel {
 public:
  static constexpr int kGates = K == Kind::kLstm ? 4 : (K == Kind::kGru ? 3 : 1);
  static constexpr const char* kName = K == Kind::kLstm ? "LSTM" : (K == Kind::kGru ? "GRU" : "RNN");

  ~OnnxRecurrentKernel() {
    if (net_) Api().Net_Release(net_);
    if (ws_) Api().Workspace_Release(ws_);
  }

  Status Init(const KernelInfo& info) {
    label_ = std::string(kName) + " '" + info.op_name() + "' (engine STEPNET)";
    direction_ = info.StringOr("direction", "forward");
    layout_ = info.IntOr("layout", 0);
    linear_before_reset_ = info.IntOr("linear_before_reset", 0) != 0;
    if (direction_ != "forward" && direction_ != "reverse" && direction_ != "bidirectional") {
      return sdk::InvalidArgument(label_ + ": direction '" + direction_ + "' is not forward, reverse or bidirectional");
    }
    if (info.Has("clip")) return sdk::Unimplemented(label_ + ": clip is not supported by this kernel");
    if (info.IntOr("input_forget", 0) != 0) return sdk::Unimplemented(label_ + ": input_forget is not supported by this kernel");
    std::vector<std::string> acts;
    if (info.GetStrings("activations", &acts).ok()) {
      for (size_t i = 0; i < acts.size(); ++i) {
        if (K == Kind::kRnn) {
          if (acts[i] != "Tanh" && acts[i] != "Relu" && acts[i] != "Sigmoid") {
            return sdk::Unimplemented(label_ + ": activation '" + acts[i] + "' is not supported by this kernel");
          }
          continue;
        }
        const char* want = i % (kGates == 4 ? 3 : 2) == 0 ? "Sigmoid" : "Tanh";
        if (acts[i] != want) return sdk::Unimplemented(label_ + ": activation '" + acts[i] + "' is not supported by this kernel");
      }
    }
    acts_ = acts;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor X = ctx.Input(0), W = ctx.Input(1), R = ctx.Input(2), B = ctx.Input(3), L = ctx.Input(4), H0 = ctx.Input(5),
           C0 = ctx.Input(6), P = ctx.Input(7);
    const int64_t D = direction_ == "bidirectional" ? 2 : 1, G = kGates;
    if (X.rank() != 3 || W.rank() != 3 || R.rank() != 3) return sdk::InvalidArgument(label_ + ": X, W and R must be 3-D");
    const int64_t T = layout_ ? X.dim(1) : X.dim(0), N = layout_ ? X.dim(0) : X.dim(1), I = X.dim(2), H = R.dim(2);
    if (W.dim(0) != D || W.dim(1) != G * H || W.dim(2) != I || R.dim(0) != D || R.dim(1) != G * H) {
      return sdk::InvalidArgument(label_ + ": W must be [" + std::to_string(D) + ", " + std::to_string(G * H) + ", " +
                                  std::to_string(I) + "] and R [" + std::to_string(D) + ", " + std::to_string(G * H) + ", " +
                                  std::to_string(H) + "]");
    }
    if (B.present() && B.num_elements() != D * 2 * G * H) return sdk::InvalidArgument(label_ + ": B must be [D, 2 * gates * H]");
    if (K == Kind::kLstm && P.present()) {
      for (int64_t i = 0; i < P.num_elements(); ++i) {
        if (P.data<float>()[i] != 0) return sdk::Unimplemented(label_ + ": peepholes (P) are not supported by this kernel");
      }
    }
    std::vector<int32_t> lens(static_cast<size_t>(N), static_cast<int32_t>(T));
    bool short_seq = false;
    if (L.present()) {
      if (L.num_elements() != N) return sdk::InvalidArgument(label_ + ": sequence_lens must have " + std::to_string(N) + " entries");
      for (int64_t b = 0; b < N; ++b) {
        int32_t v = L.data<int32_t>()[b];
        if (v <= 0 || v > T) {
          return sdk::InvalidArgument(label_ + ": sequence_lens[" + std::to_string(b) + "] = " + std::to_string(v) +
                                      " is outside [1, " + std::to_string(T) + "]");
        }
        lens[b] = v;
        short_seq = short_seq || v < T;
      }
    }
    if (K == Kind::kRnn && short_seq && direction_ != "forward") {
      return sdk::Unimplemented(label_ + ": sequence_lens below seq_length only for direction forward in this kernel");
    }
    if (ws_ == nullptr) ws_ = Api().Workspace_CreateChild(Api().Ctx_Workspace(ctx.handle()));
    float* x = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "X", {T, N, I}, &x));
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t b = 0; b < N; ++b) {
        std::memcpy(x + (t * N + b) * I, X.data<float>() + (layout_ ? (b * T + t) : (t * N + b)) * I, sizeof(float) * I);
      }
    }
    LoomTensor* seq = Api().Workspace_CreateBlob(ws_, "seq");
    const int64_t n_dims[1] = {N};
    LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Resize(seq, LOOM_DTYPE_INT32, n_dims, 1)));
    std::memcpy(Api().TensorData(seq), lens.data(), sizeof(int32_t) * N);
    for (int64_t d = 0; d < D; ++d) LOOM_SDK_RETURN_IF_ERROR(PrepareDirection(d, D, N, I, H, W, R, B, H0, C0));
    std::vector<int64_t> key = {T, N, I, H};
    if (key != key_) {
      if (net_) Api().Net_Release(net_);
      net_ = nullptr;
      std::string bytes = OuterNet(D).Serialize();
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Net_Create(ctx.handle(), ws_, bytes.data(), bytes.size(), ctx.num_threads(), &net_)));
      key_ = key;
    }
    LOOM_SDK_RETURN_IF_ERROR(Status(Api().Net_Run(net_)));
    // ONNX outputs from the state tensors [T+1, 1, N, H].
    Tensor Y, Yh, Yc;
    const bool want_y = ctx.OutputRequested(0), want_h = ctx.OutputRequested(1);
    const bool want_c = K == Kind::kLstm && ctx.OutputRequested(2);
    if (want_y) {
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, layout_ ? std::vector<int64_t>{N, T, D, H} : std::vector<int64_t>{T, D, N, H}, &Y));
    }
    std::vector<int64_t> final_shape = layout_ ? std::vector<int64_t>{N, D, H} : std::vector<int64_t>{D, N, H};
    if (want_h) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_FLOAT, final_shape, &Yh));
    if (want_c) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, LOOM_DTYPE_FLOAT, final_shape, &Yc));
    for (int64_t d = 0; d < D; ++d) {
      const bool reverse = direction_ == "reverse" || d == 1;
      const float* hs = static_cast<const float*>(Api().TensorData(Api().Workspace_GetBlob(ws_, ("H" + std::to_string(d)).c_str())));
      const float* cs = K == Kind::kLstm
                            ? static_cast<const float*>(Api().TensorData(Api().Workspace_GetBlob(ws_, ("C" + std::to_string(d)).c_str())))
                            : nullptr;
      for (int64_t b = 0; b < N; ++b) {
        if (want_y) {
          for (int64_t t = 0; t < T; ++t) {
            const int64_t row = reverse ? T - t : t + 1;  // state row after processing input row t
            float* dst = Y.data<float>() + (layout_ ? ((b * T + t) * D + d) : ((t * D + d) * N + b)) * H;
            if (t >= lens[b]) {
              std::memset(dst, 0, sizeof(float) * H);
            } else {
              std::memcpy(dst, hs + (row * N + b) * H, sizeof(float) * H);
            }
          }
        }
        // LSTM and GRU units carry the state past the end: row T is the last
        // valid state. A plain RNN (forward only here) stops at row lens[b].
        const int64_t last = K == Kind::kRnn ? lens[b] : T;
        const int64_t out = (layout_ ? (b * D + d) : (d * N + b)) * H;
        if (want_h) std::memcpy(Yh.data<float>() + out, hs + (last * N + b) * H, sizeof(float) * H);
        if (want_c) std::memcpy(Yc.data<float>() + out, cs + (T * N + b) * H, sizeof(float) * H);
      }
    }
    return Status::Ok();
  }

 private:
  // Weights of direction d, transposed for right-multiplication: LSTM as
  // one [I, 4H] matrix in LSTMUnit's gate order; GRU and RNN per ONNX gate.
  Status PrepareDirection(int64_t d, int64_t D, int64_t N, int64_t I, int64_t H, const Tensor& W, const Tensor& R,
                          const Tensor& B, const Tensor& H0, const Tensor& C0) {
    const std::string s = std::to_string(d);
    const int64_t G = kGates;
    const float* w = W.data<float>() + d * G * H * I;
    const float* r = R.data<float>() + d * G * H * H;
    auto bias = [&](int64_t k) { return B.present() ? B.data<float>()[d * 2 * G * H + k] : 0.0f; };
    if (K == Kind::kLstm) {
      static const int kOnnxGate[4] = {0, 2, 1, 3};  // LSTMUnit's i, f, o, g in ONNX's i, o, f, c
      float *wt, *rt, *b;
      LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "WT" + s, {I, 4 * H}, &wt));
      LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "RT" + s, {H, 4 * H}, &rt));
      LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "b" + s, {4 * H}, &b));
      for (int k = 0; k < 4; ++k) {
        for (int64_t h = 0; h < H; ++h) {
          const int64_t col = k * H + h, row = kOnnxGate[k] * H + h;
          for (int64_t i = 0; i < I; ++i) wt[i * 4 * H + col] = w[row * I + i];
          for (int64_t j = 0; j < H; ++j) rt[j * 4 * H + col] = r[row * H + j];
          b[col] = bias(row) + bias(4 * H + row);
        }
      }
    } else {
      for (int64_t g = 0; g < G; ++g) {
        const std::string n = s + "_" + std::to_string(g);
        float *wt, *rt, *wb, *rb;
        LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "WT" + n, {I, H}, &wt));
        LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "RT" + n, {H, H}, &rt));
        LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "Wb" + n, {H}, &wb));
        LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "Rb" + n, {H}, &rb));
        for (int64_t h = 0; h < H; ++h) {
          const int64_t row = g * H + h;
          for (int64_t i = 0; i < I; ++i) wt[i * H + h] = w[row * I + i];
          for (int64_t j = 0; j < H; ++j) rt[j * H + h] = r[row * H + j];
          wb[h] = bias(row);
          rb[h] = bias(G * H + row);
        }
      }
    }
    float *h0, *c0;
    LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "h0_" + s, {1, N, H}, &h0));
    LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "c0_" + s, {1, N, H}, &c0));
    // initial_h/initial_c: [D, N, H], or [N, D, H] with layout 1.
    for (int64_t b = 0; b < N; ++b) {
      const int64_t src = (layout_ ? (b * D + d) : (d * N + b)) * H;
      for (int64_t h = 0; h < H; ++h) {
        h0[b * H + h] = H0.present() ? H0.data<float>()[src + h] : 0.0f;
        c0[b * H + h] = C0.present() ? C0.data<float>()[src + h] : 0.0f;
      }
    }
    return Status::Ok();
  }

  // The step net of direction d (see the file comment).
  NetSpec StepNet(int64_t d) const {
    const std::string s = std::to_string(d);
    NetSpec step;
    step.name = std::string(kName) + "_step" + s;
    step.external_inputs = {"x_t", "h_prev", "seq", "timestep"};
    if (K == Kind::kLstm) {
      step.external_inputs.insert(step.external_inputs.end(), {"c_prev", "WT" + s, "RT" + s, "b" + s});
      step.ops = {Op("MatMul", "xw", {"x_t", "WT" + s}, {"xw"}), Op("MatMul", "hr", {"h_prev", "RT" + s}, {"hr"}),
                  Op("Add", "sum", {"xw", "hr"}, {"sum"}), Op("Add", "gates", {"sum", "b" + s}, {"gates"}),
                  Op("LSTMUnit", "unit", {"h_prev", "c_prev", "gates", "seq", "timestep"}, {"h_next", "c_next"})};
      return step;
    }
    auto gate = [&](int64_t g) { return s + "_" + std::to_string(g); };
    for (int64_t g = 0; g < kGates; ++g) {
      step.external_inputs.insert(step.external_inputs.end(), {"WT" + gate(g), "RT" + gate(g), "Wb" + gate(g), "Rb" + gate(g)});
    }
    // pre_g = x W_g^T + Wb_g (+ h R_g^T + Rb_g for all but GRU's candidate).
    auto pre = [&](int64_t g, bool with_recurrent) {
      const std::string p = "g" + std::to_string(g);
      step.ops.push_back(Op("MatMul", p + "x", {"x_t", "WT" + gate(g)}, {p + "x"}));
      step.ops.push_back(Op("Add", p + "xb", {p + "x", "Wb" + gate(g)}, {p + "xb"}));
      if (!with_recurrent) return p + "xb";
      step.ops.push_back(Op("MatMul", p + "h", {"h_prev", "RT" + gate(g)}, {p + "h"}));
      step.ops.push_back(Op("Add", p + "hb", {p + "h", "Rb" + gate(g)}, {p + "hb"}));
      step.ops.push_back(Op("Add", p + "pre", {p + "xb", p + "hb"}, {p + "pre"}));
      return p + "pre";
    };
    if (K == Kind::kRnn) {
      std::string act = acts_.empty() ? "Tanh" : acts_[std::min<size_t>(static_cast<size_t>(d), acts_.size() - 1)];
      step.ops.push_back(Op(act, "act", {pre(0, true)}, {"h_next"}));
      return step;
    }
    // GRU: ONNX gates z = 0, r = 1, h = 2.
    const std::string z = pre(0, true), r_pre = pre(1, true), xh = pre(2, false);
    step.ops.push_back(Op("Sigmoid", "r", {r_pre}, {"r"}));
    if (linear_before_reset_) {
      step.ops.push_back(Op("MatMul", "hh", {"h_prev", "RT" + gate(2)}, {"hh"}));
      step.ops.push_back(Op("Add", "hhb", {"hh", "Rb" + gate(2)}, {"hhb"}));
      step.ops.push_back(Op("Mul", "rhh", {"r", "hhb"}, {"rhh"}));
    } else {
      step.ops.push_back(Op("Mul", "rh", {"r", "h_prev"}, {"rh"}));
      step.ops.push_back(Op("MatMul", "rhr", {"rh", "RT" + gate(2)}, {"rhr"}));
      step.ops.push_back(Op("Add", "rhh", {"rhr", "Rb" + gate(2)}, {"rhh"}));
    }
    step.ops.push_back(Op("Add", "n", {xh, "rhh"}, {"n"}));
    // All three are [1, 1, N, H]; GRUUnit reads z and n (r only fills its slot).
    step.ops.push_back(Op("Concat", "gates", {r_pre, z, "n"}, {"gates"}, {IntArg("axis", -1)}));
    step.ops.push_back(Op("GRUUnit", "unit", {"h_prev", "gates", "seq", "timestep"}, {"h_next"}));
    return step;
  }

  // One RecurrentNetwork op per direction over the prepared blobs.
  NetSpec OuterNet(int64_t D) const {
    NetSpec net;
    net.name = std::string(kName) + "_expanded";
    net.external_inputs = {"X", "seq"};
    for (int64_t d = 0; d < D; ++d) {
      const std::string s = std::to_string(d);
      NetSpec step = StepNet(d);
      OpSpec rn;
      rn.type = "RecurrentNetwork";
      rn.name = std::string(kName) + "_dir" + s;
      rn.inputs = {"X", "h0_" + s};
      rn.outputs = {"H" + s};
      std::vector<std::string> states = {"H" + s}, li = {"h_prev", "h_next", "x_t"}, le = {"H" + s, "H" + s, "X"};
      std::vector<int64_t> ids = {1}, lo = {0, 1, 0};
      if (K == Kind::kLstm) {
        rn.inputs.push_back("c0_" + s);
        rn.outputs.push_back("C" + s);
        states.push_back("C" + s);
        ids.push_back(2);
        li.insert(li.end(), {"c_prev", "c_next"});
        le.insert(le.end(), {"C" + s, "C" + s});
        lo.insert(lo.end(), {0, 1});
      }
      for (const std::string& in : step.external_inputs) {
        if (in != "x_t" && in != "h_prev" && in != "c_prev" && in != "timestep" && in != "seq") rn.inputs.push_back(in);
      }
      rn.inputs.push_back("seq");
      const bool reverse = direction_ == "reverse" || d == 1;
      rn.args = {NetArg("step_net", step),
                 StringsArg("recurrent_states", states),
                 IntsArg("initial_recurrent_state_ids", ids),
                 StringsArg("link_internal", li),
                 StringsArg("link_external", le),
                 IntsArg("link_offset", lo),
                 IntsArg("link_window", std::vector<int64_t>(lo.size(), 1)),
                 IntArg("reverse", reverse ? 1 : 0),
                 IntArg("rnn_executor", 0)};
      for (size_t i = 2; i < rn.inputs.size(); ++i) {
        if (rn.inputs[i] != "seq" && rn.inputs[i] != "c0_" + s) net.external_inputs.push_back(rn.inputs[i]);
      }
      net.external_inputs.push_back("h0_" + s);
      if (K == Kind::kLstm) net.external_inputs.push_back("c0_" + s);
      net.ops.push_back(rn);
    }
    return net;
  }

  std::string label_, direction_;
  int64_t layout_ = 0;
  bool linear_before_reset_ = false;
  std::vector<std::string> acts_;
  std::vector<int64_t> key_;
  LoomWorkspace* ws_ = nullptr;
  LoomNet* net_ = nullptr;
};

}  // namespace

sdk::Status RegisterOnnxRecurrent(sdk::Registrar& reg) {
  const sdk::KernelOptions opts{"CPU", "STEPNET", 0, {{"T", {LOOM_DTYPE_FLOAT}}}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<OnnxRecurrentKernel<Kind::kLstm>>("LSTM", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<OnnxRecurrentKernel<Kind::kGru>>("GRU", opts));
  return reg.Kernel<OnnxRecurrentKernel<Kind::kRnn>>("RNN", opts);
}

}  // namespace rnn
}  // namespace loom
