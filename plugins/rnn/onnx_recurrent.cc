// ONNX LSTM, GRU and RNN (opset 7-14) expanded into Caffe2-style
// RecurrentNetwork ops: the kernels behind engine "STEPNET" (the oneDNN
// kernels in the CPU plugin, engine "DNNL", have the higher priority; choose
// these with OperatorDef.engine = "STEPNET").
//
// Per direction the kernel prepares, in a child workspace of the op's
// workspace, views of the weights (no copies: Caffe2's FC reads ONNX's
// [G*H, I] layout as it is), the summed biases (once, for constant
// weights), the initial states and a few scalar constants, and runs one
// RecurrentNetwork (reverse = 1 for the backward direction) whose step net
// is made of FC and standard ops (Add, Mul, Sub, Split, Concat, Clip, the
// activation ops, Where) and, where they fit, the fused units:
//
// LSTM (ONNX gates i, o, f, c; activations f, g, h; peepholes P = Pi, Po, Pf):
//   gates = FC(x_t, W, Wb + Rb) + FC(h_prev, R, 0)
//   fused (default activations, no clip, no input_forget, P absent or 0):
//     (h, c) = LSTMUnit(..., gate_order = "iofg")
//   otherwise:
//     i = f(clip(gi + Pi c_prev)), f = f(clip(gf + Pf c_prev)) (or 1 - i
//     with input_forget), c = f . c_prev + i . g(clip(gc)),
//     o = f(clip(go + Po c)), h = o . h(c)
// GRU (gates z, r, h; activations f, g):
//   z_pre, r_pre from x_t W^T + Wb and h_prev R^T + Rb; r = f(clip(r_pre));
//   n_pre = x_t Wh^T + Wbh + (r . h_prev) Rh^T + Rbh (linear_before_reset
//   = 0) or + r . (h_prev Rh^T + Rbh) (= 1);
//   fused (Sigmoid, Tanh, no clip): GRUUnit(h_prev, [r_pre, z_pre, n_pre])
//   otherwise: z = f(clip(z_pre)), h = (1 - z) . g(clip(n_pre)) + z . h_prev
// RNN: h = f(clip(x_t W^T + h_prev R^T + Wb + Rb)).
//
// Activations the standard ops lack are composed: Affine = Mul + Add,
// ScaledTanh = Mul + Tanh + Mul; LeakyRelu, ThresholdedRelu, HardSigmoid,
// Elu, Softsign, Softplus, Relu, Tanh, Sigmoid are ops of their own. Names
// are case-insensitive; alpha/beta come from activation_alpha/_beta in
// order, else ONNX Runtime's defaults. The attributes, the input shapes and
// sequence_lens are read and checked by ops/semantics/rnn.h, as the DNNL and
// CUDA kernels do.
//
// sequence_lens: the fused units carry the state of a batch entry past its
// end (seq_lengths/timestep inputs); the standard-op cells do the same with
// Where(mask_t, new, prev) on a bool mask [T, N, 1] linked like X. So the
// last state row always holds the last valid state (for reverse, the state
// after timestep 0), and Y rows past an entry's end are zeroed (ONNX
// Runtime's behaviour).
//
// Supported: float32, every direction, B, sequence_lens, initial_h/_c, P,
// clip, input_forget, every activation of the ONNX spec, linear_before_reset,
// layout 0 and 1, every optional output.
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/rnn.h"
#include "plugins/nested/netdef_writer.h"
#include "plugins/rnn/rnn_ops.h"

namespace loom {
namespace rnn {
namespace {

using sdk::Api;
using sdk::KernelContext;
using sdk::KernelInfo;
using sdk::Status;
using sdk::Tensor;

using semantics::RnnActivation;
using semantics::RnnCell;

using nested::ArgSpec;
using nested::IntArg;
using nested::IntsArg;
using nested::NetArg;
using nested::NetSpec;
using nested::OpSpec;
using nested::StringArg;
using nested::StringsArg;

// A float32 blob of `ws` sized to `shape`; returns its data.
Status Blob(LoomWorkspace* ws, const std::string& name, const std::vector<int64_t>& shape, float** data) {
  LoomTensor* t = Api().Workspace_CreateBlob(ws, name.c_str());
  LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Resize(t, LOOM_DTYPE_FLOAT, shape.data(), shape.size())));
  *data = static_cast<float*>(Api().TensorData(t));
  return Status::Ok();
}

// Makes `name` in `ws` a view of rows [begin, end) of `src` reshaped to
// `shape` (no copy).
Status AliasRows(LoomWorkspace* ws, const std::string& name, const LoomTensor* src, int64_t begin, int64_t end,
                 const std::vector<int64_t>& shape) {
  LoomTensor* t = Api().Workspace_CreateBlob(ws, name.c_str());
  LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Alias(t, src, begin, end)));
  return Status(Api().Tensor_Resize(t, LOOM_DTYPE_FLOAT, shape.data(), shape.size()));
}

OpSpec Op(std::string type, std::string name, std::vector<std::string> in, std::vector<std::string> out,
          std::vector<ArgSpec> args = {}) {
  return OpSpec{std::move(type), std::move(name), std::move(in), std::move(out), std::move(args)};
}

ArgSpec FloatArg(std::string n, float v) {
  ArgSpec a;
  a.name = std::move(n);
  a.kind = ArgSpec::kFloat;
  a.f = v;
  return a;
}

// Appends ops to one step net, with unique blob names.
class StepWriter {
 public:
  StepWriter(NetSpec* net, std::vector<std::pair<std::string, float>>* consts, std::string const_prefix)
      : net_(net), consts_(consts), const_prefix_(std::move(const_prefix)) {}

  // Adds `type` over `in` writing `out` (a fresh name when empty); returns out.
  std::string Add(const std::string& type, std::vector<std::string> in, std::string out = "", std::vector<ArgSpec> args = {}) {
    if (out.empty()) out = "v" + std::to_string(count_++) + "_" + type;
    net_->ops.push_back(Op(type, out, std::move(in), {out}, std::move(args)));
    return out;
  }

  // A float scalar [1] blob holding v, prepared by the kernel and declared
  // as a step-net input.
  std::string Const(float v) {
    std::string name = const_prefix_ + std::to_string(consts_->size());
    consts_->push_back({name, v});
    net_->external_inputs.push_back(name);
    return name;
  }

  // act(in) as standard ops.
  // The parameters are float32 in the step net (activation_alpha/_beta are
  // float attributes, so the narrowing is exact).
  std::string Act(const RnnActivation& a, const std::string& in, std::string out = "") {
    const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
    if (a.name == "Affine") return Add("Add", {Add("Mul", {in, Const(alpha)}), Const(beta)}, out);
    if (a.name == "ScaledTanh") return Add("Mul", {Add("Tanh", {Add("Mul", {in, Const(beta)})}), Const(alpha)}, out);
    std::vector<ArgSpec> args;
    if (a.name == "LeakyRelu" || a.name == "ThresholdedRelu" || a.name == "Elu" || a.name == "HardSigmoid") {
      args.push_back(FloatArg("alpha", alpha));
    }
    if (a.name == "HardSigmoid") args.push_back(FloatArg("beta", beta));
    return Add(a.name, {in}, out, args);
  }

  // clip(in) when the op has a clip threshold, else in.
  std::string Clip(const std::string& in, bool has_clip, float clip) {
    if (!has_clip) return in;
    return Add("Clip", {in}, "", {FloatArg("min", -clip), FloatArg("max", clip)});
  }

 private:
  NetSpec* net_;
  std::vector<std::pair<std::string, float>>* consts_;
  std::string const_prefix_;
  int count_ = 0;
};

template <RnnCell K>
class OnnxRecurrentKernel {
 public:
  static constexpr int kGates = K == RnnCell::kLstm ? 4 : (K == RnnCell::kGru ? 3 : 1);
  static constexpr size_t kActsPerDir = K == RnnCell::kLstm ? 3 : (K == RnnCell::kGru ? 2 : 1);
  static constexpr const char* kName = K == RnnCell::kLstm ? "LSTM" : (K == RnnCell::kGru ? "GRU" : "RNN");

  ~OnnxRecurrentKernel() {
    if (net_) Api().Net_Release(net_);
    if (ws_) Api().Workspace_Release(ws_);
  }

  Status Init(const KernelInfo& info) {
    label_ = std::string(kName) + " '" + info.op_name() + "' (engine STEPNET)";
    // direction, hidden_size, layout, clip, input_forget,
    // linear_before_reset and the activations, as every engine reads them.
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Read(info, label_, K));
    dirs_ = attrs_.num_directions;
    layout_ = attrs_.batch_major ? 1 : 0;
    reverse_ = attrs_.reverse;
    linear_before_reset_ = attrs_.linear_before_reset;
    input_forget_ = attrs_.input_forget;
    has_clip_ = attrs_.has_clip;
    clip_ = attrs_.clip;
    // The fused units hardwire Sigmoid for the gates and Tanh otherwise.
    default_acts_ = true;
    for (size_t i = 0; i < attrs_.activations.size(); ++i) {
      default_acts_ = default_acts_ && attrs_.activations[i].name == (i % kActsPerDir == 0 ? "Sigmoid" : "Tanh");
    }
    return Status::Ok();
  }

  // Whether W, R, B (and LSTM's P) are initializers: then the step nets'
  // transposed weights are made once, not on every run.
  Status Prepare(const sdk::PrepareContext& ctx) {
    weights_constant_ = true;
    for (size_t i : {size_t{1}, size_t{2}, size_t{3}, size_t{7}}) {
      if (i == 7 && K != RnnCell::kLstm) continue;
      const bool absent = i >= ctx.num_inputs() || ctx.InputDType(i) == LOOM_DTYPE_UNDEFINED;
      weights_constant_ = weights_constant_ && (absent || ctx.InputConstant(i).present());
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor X = ctx.Input(0), W = ctx.Input(1), R = ctx.Input(2), B = ctx.Input(3), L = ctx.Input(4), H0 = ctx.Input(5);
    Tensor C0 = K == RnnCell::kLstm ? ctx.Input(6) : Tensor(), P = K == RnnCell::kLstm ? ctx.Input(7) : Tensor();
    if (X.dtype() != LOOM_DTYPE_FLOAT) return sdk::InvalidArgument(label_ + ": X must be float32; found " + sdk::DTypeName(X.dtype()));
    semantics::RnnAttrs::Shapes shapes;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.CheckInputs(label_, LOOM_DTYPE_FLOAT, X, W, R, B, H0, C0, P, &shapes));
    const int64_t T = shapes.T, N = shapes.N, I = shapes.I, H = shapes.H, D = shapes.D;
    const std::vector<int64_t>& state = shapes.state;
    std::vector<int32_t> lens(static_cast<size_t>(N), static_cast<int32_t>(T));
    bool short_seq = false;
    if (L.present()) {
      LOOM_SDK_RETURN_IF_ERROR(semantics::CheckSequenceLensInput(label_, L, N));
      std::vector<int64_t> read(static_cast<size_t>(N));
      for (int64_t b = 0; b < N; ++b) read[b] = L.dtype() == LOOM_DTYPE_INT64 ? L.data<int64_t>()[b] : L.data<int32_t>()[b];
      LOOM_SDK_RETURN_IF_ERROR(semantics::CheckSequenceLens(label_, read, T));
      for (int64_t b = 0; b < N; ++b) {
        lens[b] = static_cast<int32_t>(read[b]);  // in [1, T]
        short_seq = short_seq || read[b] < T;
      }
    }
    bool peepholes = false;
    for (int64_t i = 0; P.present() && i < P.num_elements(); ++i) peepholes = peepholes || P.data<float>()[i] != 0;
    Config cfg;
    cfg.fused = K == RnnCell::kLstm ? default_acts_ && !has_clip_ && !input_forget_ && !peepholes
                : K == RnnCell::kGru ? default_acts_ && !has_clip_
                                  : false;
    cfg.peepholes = peepholes && !cfg.fused;
    cfg.mask = short_seq && !cfg.fused;

    if (ws_ == nullptr) ws_ = Api().Workspace_CreateChild(Api().Ctx_Workspace(ctx.handle()));
    // X as [T, N, I]: layout 0 is that already (an alias, no copy); layout 1
    // is transposed into a blob of its own.
    if (layout_ == 0) {
      LoomTensor* xb = Api().Workspace_CreateBlob(ws_, "X");
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Alias(xb, X.handle(), 0, T)));
    } else {
      float* x = nullptr;
      LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "X", {T, N, I}, &x));
      for (int64_t t = 0; t < T && I > 0; ++t) {  // I == 0: no buffers, and memcpy(nullptr, ...) is undefined
        for (int64_t b = 0; b < N; ++b) std::memcpy(x + (t * N + b) * I, X.data<float>() + (b * T + t) * I, sizeof(float) * I);
      }
    }
    LoomTensor* seq = Api().Workspace_CreateBlob(ws_, "seq");
    const int64_t n_dims[1] = {N};
    LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Resize(seq, LOOM_DTYPE_INT32, n_dims, 1)));
    if (N > 0) std::memcpy(Api().TensorData(seq), lens.data(), sizeof(int32_t) * N);
    if (cfg.mask) {
      LoomTensor* m = Api().Workspace_CreateBlob(ws_, "M");
      const int64_t m_dims[3] = {T, N, 1};
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Resize(m, LOOM_DTYPE_BOOL, m_dims, 3)));
      bool* md = static_cast<bool*>(Api().TensorData(m));
      for (int64_t t = 0; t < T; ++t) {
        for (int64_t b = 0; b < N; ++b) md[t * N + b] = t < lens[b];
      }
    }
    // Constant weights keep their step-net layout from one run to the next.
    const std::vector<int64_t> weights_key = {D, I, H, cfg.fused, cfg.peepholes};
    const bool weights = !weights_constant_ || weights_key != weights_key_;
    for (int64_t d = 0; d < D; ++d) {
      LOOM_SDK_RETURN_IF_ERROR(PrepareDirection(cfg, d, N, I, H, weights, W, R, B, H0, C0, P));
    }
    weights_key_ = weights_key;
    std::vector<int64_t> key = {T, N, I, H, cfg.fused, cfg.peepholes, cfg.mask};
    if (key != key_) {
      if (net_) Api().Net_Release(net_);
      net_ = nullptr;
      key_.clear();
      std::vector<std::pair<std::string, float>> consts;
      std::string bytes = OuterNet(cfg, &consts).Serialize();
      for (const auto& c : consts) {
        float* v;
        LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, c.first, {1}, &v));
        *v = c.second;
      }
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Net_Create(ctx.handle(), ws_, bytes.data(), bytes.size(), ctx.num_threads(), &net_)));
      key_ = key;
    }
    LOOM_SDK_RETURN_IF_ERROR(Status(Api().Net_Run(net_)));

    // ONNX outputs from the state tensors [T+1, 1, N, H].
    Tensor Y, Yh, Yc;
    const bool want_y = ctx.OutputRequested(0), want_h = ctx.OutputRequested(1);
    const bool want_c = K == RnnCell::kLstm && ctx.OutputRequested(2);
    if (want_y) {
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, shapes.y, &Y));
    }
    if (want_h) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_FLOAT, state, &Yh));
    if (want_c) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, LOOM_DTYPE_FLOAT, state, &Yc));
    for (int64_t d = 0; d < D; ++d) {
      const bool reverse = reverse_ || d == 1;
      const float* hs = static_cast<const float*>(Api().TensorData(Api().Workspace_GetBlob(ws_, ("H" + std::to_string(d)).c_str())));
      const float* cs = K == RnnCell::kLstm
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
        // Every cell carries the state past the end: row T is the last valid state.
        const int64_t out = (layout_ ? (b * D + d) : (d * N + b)) * H;
        if (want_h) std::memcpy(Yh.data<float>() + out, hs + (T * N + b) * H, sizeof(float) * H);
        if (want_c) std::memcpy(Yc.data<float>() + out, cs + (T * N + b) * H, sizeof(float) * H);
      }
    }
    return Status::Ok();
  }

 private:
  // What the step net looks like for this run.
  struct Config {
    bool fused = false;      // LSTMUnit / GRUUnit
    bool peepholes = false;  // LSTM standard-op cell with P
    bool mask = false;       // standard-op cell carrying states past sequence ends
  };

  // Weights of direction d as views of W and R (blob names as the step net
  // reads them: FC takes ONNX's [G*H, I] layout as it is), its summed
  // biases (with `weights`: once for constant weights), and its initial
  // states.
  Status PrepareDirection(const Config& cfg, int64_t d, int64_t N, int64_t I, int64_t H, bool weights, const Tensor& W,
                          const Tensor& R, const Tensor& B, const Tensor& H0, const Tensor& C0, const Tensor& P) {
    const std::string s = std::to_string(d);
    const int64_t G = kGates;
    LOOM_SDK_RETURN_IF_ERROR(AliasRows(ws_, "W" + s, W.handle(), d, d + 1, {G * H, I}));
    LOOM_SDK_RETURN_IF_ERROR(AliasRows(ws_, "R" + s, R.handle(), d, d + 1, {G * H, H}));
    if (K == RnnCell::kGru) {  // the h part of z, r; the h part of the candidate
      const LoomTensor* r = Api().Workspace_GetBlob(ws_, ("R" + s).c_str());
      LOOM_SDK_RETURN_IF_ERROR(AliasRows(ws_, "Rzr" + s, r, 0, 2 * H, {2 * H, H}));
      LOOM_SDK_RETURN_IF_ERROR(AliasRows(ws_, "Rh" + s, r, 2 * H, 3 * H, {H, H}));
    }
    const float* wb = B.present() ? B.data<float>() + d * 2 * G * H : nullptr;
    const float* rb = wb ? wb + G * H : nullptr;
    // Wb (and Rb when `sum`) rows [begin, end).
    auto bias = [&](const std::string& name, int64_t begin, int64_t end, bool sum, bool recurrent) -> Status {
      float* out;
      LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, name, {end - begin}, &out));
      for (int64_t j = begin; j < end; ++j) {
        out[j - begin] = !wb ? 0.0f : recurrent ? rb[j] : sum ? wb[j] + rb[j] : wb[j];
      }
      return Status::Ok();
    };
    if (weights) {
      if (K == RnnCell::kGru) {
        LOOM_SDK_RETURN_IF_ERROR(bias("Wb" + s, 0, 3 * H, false, false));
        LOOM_SDK_RETURN_IF_ERROR(bias("Rbzr" + s, 0, 2 * H, false, true));
        LOOM_SDK_RETURN_IF_ERROR(bias("Rbh" + s, 2 * H, 3 * H, false, true));
      } else {
        LOOM_SDK_RETURN_IF_ERROR(bias("b" + s, 0, G * H, true, false));
        float* zero;  // FC's bias for the recurrent part
        LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "zero" + s, {G * H}, &zero));
        std::fill(zero, zero + G * H, 0.0f);
      }
      if (cfg.peepholes) {  // P [D, 3H] in ONNX order i, o, f
        const char* names[3] = {"Pi", "Po", "Pf"};
        for (int k = 0; k < 3; ++k) {
          float* out;
          LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, names[k] + s, {H}, &out));
          std::memcpy(out, P.data<float>() + (d * 3 + k) * H, sizeof(float) * H);
        }
      }
    }
    float *h0, *c0;
    LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "h0_" + s, {1, N, H}, &h0));
    LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "c0_" + s, {1, N, H}, &c0));
    // initial_h/initial_c: [D, N, H], or [N, D, H] with layout 1.
    for (int64_t b = 0; b < N; ++b) {
      const int64_t src = (layout_ ? (b * dirs_ + d) : (d * N + b)) * H;
      for (int64_t h = 0; h < H; ++h) {
        h0[b * H + h] = H0.present() ? H0.data<float>()[src + h] : 0.0f;
        c0[b * H + h] = C0.present() ? C0.data<float>()[src + h] : 0.0f;
      }
    }
    return Status::Ok();
  }

  // The step net of direction d (see the file comment). Reads x_t, h_prev
  // (c_prev), seq, timestep, m_t (with cfg.mask) and the prepared blobs;
  // writes h_next (c_next). Scalar constants it needs go to `consts`.
  NetSpec StepNet(const Config& cfg, int64_t d, std::vector<std::pair<std::string, float>>* consts) const {
    const std::string s = std::to_string(d);
    NetSpec step;
    step.name = std::string(kName) + "_step" + s;
    step.external_inputs = {"x_t", "h_prev", "seq", "timestep"};
    if (cfg.mask) step.external_inputs.push_back("m_t");
    StepWriter sw(&step, consts, "k" + s + "_");
    const RnnActivation* act = &attrs_.activations[d * kActsPerDir];
    // The new state `name`: written as `out` directly, or, with the mask,
    // as `name` and then kept only for entries still inside their sequence.
    auto state = [&](const std::string& name, const std::string& out) { return cfg.mask ? name : out; };
    auto carry = [&](const std::string& name, const std::string& prev, const std::string& out) {
      if (cfg.mask) sw.Add("Where", {"m_t", name, prev}, out);
    };
    // Caffe2 FC over the last dim ([1, N, K] rows of X, [1, 1, N, K] of a
    // state): the same leading dims and w's rows.
    auto fc = [&](const std::string& in, const std::string& w, const std::string& b) {
      return sw.Add("FC", {in, w, b}, "", {IntArg("axis", -1)});
    };
    if (K == RnnCell::kLstm) {
      step.external_inputs.insert(step.external_inputs.end(), {"c_prev", "W" + s, "R" + s, "b" + s, "zero" + s});
      // Gates in ONNX order i, o, f, c.
      const std::string gates = sw.Add("Add", {fc("x_t", "W" + s, "b" + s), fc("h_prev", "R" + s, "zero" + s)}, "gates");
      if (cfg.fused) {
        step.ops.push_back(Op("LSTMUnit", "unit", {"h_prev", "c_prev", gates, "seq", "timestep"}, {"h_next", "c_next"},
                              {StringArg("gate_order", "iofg")}));
        return step;
      }
      step.ops.push_back(Op("Split", "split", {gates}, {"gi", "go", "gf", "gc"}, {IntArg("axis", -1)}));
      if (cfg.peepholes) step.external_inputs.insert(step.external_inputs.end(), {"Pi" + s, "Po" + s, "Pf" + s});
      auto peep = [&](const std::string& g, const std::string& p, const std::string& c) {
        return cfg.peepholes ? sw.Add("Add", {g, sw.Add("Mul", {p + s, c})}) : g;
      };
      const std::string i = sw.Act(act[0], sw.Clip(peep("gi", "Pi", "c_prev"), has_clip_, clip_), "i");
      const std::string f = input_forget_ ? sw.Add("Sub", {sw.Const(1.0f), i}, "f")
                                          : sw.Act(act[0], sw.Clip(peep("gf", "Pf", "c_prev"), has_clip_, clip_), "f");
      const std::string g = sw.Act(act[1], sw.Clip("gc", has_clip_, clip_), "g");
      const std::string c = sw.Add("Add", {sw.Add("Mul", {f, "c_prev"}), sw.Add("Mul", {i, g})}, state("c", "c_next"));
      const std::string o = sw.Act(act[0], sw.Clip(peep("go", "Po", c), has_clip_, clip_), "o");
      const std::string h = sw.Add("Mul", {o, sw.Act(act[2], c)}, state("h", "h_next"));
      carry(h, "h_prev", "h_next");
      carry(c, "c_prev", "c_next");
      return step;
    }
    if (K == RnnCell::kRnn) {
      step.external_inputs.insert(step.external_inputs.end(), {"W" + s, "R" + s, "b" + s, "zero" + s});
      const std::string pre = sw.Add("Add", {fc("x_t", "W" + s, "b" + s), fc("h_prev", "R" + s, "zero" + s)}, "pre");
      carry(sw.Act(act[0], sw.Clip(pre, has_clip_, clip_), state("h", "h_next")), "h_prev", "h_next");
      return step;
    }
    // GRU: ONNX gates z, r, h.
    step.external_inputs.insert(step.external_inputs.end(), {"W" + s, "Wb" + s, "Rzr" + s, "Rbzr" + s, "Rh" + s, "Rbh" + s});
    step.ops.push_back(Op("Split", "xsplit", {fc("x_t", "W" + s, "Wb" + s)}, {"xz", "xr", "xh"},
                          {IntArg("axis", -1)}));
    step.ops.push_back(Op("Split", "hsplit", {fc("h_prev", "Rzr" + s, "Rbzr" + s)}, {"hz", "hr"},
                          {IntArg("axis", -1)}));
    const std::string z_pre = sw.Add("Add", {"xz", "hz"}, "z_pre"), r_pre = sw.Add("Add", {"xr", "hr"}, "r_pre");
    const std::string r = sw.Act(act[0], sw.Clip(r_pre, has_clip_, clip_), "r");
    std::string rec;  // the candidate's recurrent term
    if (linear_before_reset_) {
      rec = sw.Add("Mul", {r, fc("h_prev", "Rh" + s, "Rbh" + s)});
    } else {
      rec = fc(sw.Add("Mul", {r, "h_prev"}), "Rh" + s, "Rbh" + s);
    }
    const std::string n_pre = sw.Add("Add", {"xh", rec}, "n_pre");
    if (cfg.fused) {
      // GRUUnit reads z and n (r only fills its slot).
      const std::string gates = sw.Add("Concat", {r_pre, z_pre, n_pre}, "gates", {IntArg("axis", -1)});
      step.ops.push_back(Op("GRUUnit", "unit", {"h_prev", gates, "seq", "timestep"}, {"h_next"}));
      return step;
    }
    const std::string z = sw.Act(act[0], sw.Clip(z_pre, has_clip_, clip_), "z");
    const std::string n = sw.Act(act[1], sw.Clip(n_pre, has_clip_, clip_), "n");
    const std::string h =
        sw.Add("Add", {sw.Add("Mul", {sw.Add("Sub", {sw.Const(1.0f), z}), n}), sw.Add("Mul", {z, "h_prev"})}, state("h", "h_next"));
    carry(h, "h_prev", "h_next");
    return step;
  }

  // One RecurrentNetwork op per direction over the prepared blobs.
  NetSpec OuterNet(const Config& cfg, std::vector<std::pair<std::string, float>>* consts) const {
    NetSpec net;
    net.name = std::string(kName) + "_expanded";
    net.external_inputs = {"X", "seq"};
    if (cfg.mask) net.external_inputs.push_back("M");
    for (int64_t d = 0; d < dirs_; ++d) {
      const std::string s = std::to_string(d);
      NetSpec step = StepNet(cfg, d, consts);
      OpSpec rn;
      rn.type = "RecurrentNetwork";
      rn.name = std::string(kName) + "_dir" + s;
      rn.inputs = {"X", "h0_" + s};
      rn.outputs = {"H" + s};
      std::vector<std::string> states = {"H" + s}, li = {"h_prev", "h_next", "x_t"}, le = {"H" + s, "H" + s, "X"};
      std::vector<int64_t> ids = {1}, lo = {0, 1, 0};
      if (K == RnnCell::kLstm) {
        rn.inputs.push_back("c0_" + s);
        rn.outputs.push_back("C" + s);
        states.push_back("C" + s);
        ids.push_back(2);
        li.insert(li.end(), {"c_prev", "c_next"});
        le.insert(le.end(), {"C" + s, "C" + s});
        lo.insert(lo.end(), {0, 1});
      }
      if (cfg.mask) {  // read like X: row T-1-t when reverse
        li.push_back("m_t");
        le.push_back("M");
        lo.push_back(0);
      }
      const size_t first_param = rn.inputs.size();
      for (const std::string& in : step.external_inputs) {
        if (in != "x_t" && in != "h_prev" && in != "c_prev" && in != "timestep" && in != "seq" && in != "m_t") rn.inputs.push_back(in);
      }
      for (size_t i = first_param; i < rn.inputs.size(); ++i) net.external_inputs.push_back(rn.inputs[i]);
      rn.inputs.push_back("seq");
      if (cfg.mask) rn.inputs.push_back("M");
      const bool reverse = reverse_ || d == 1;
      rn.args = {NetArg("step_net", step),
                 StringsArg("recurrent_states", states),
                 IntsArg("initial_recurrent_state_ids", ids),
                 StringsArg("link_internal", li),
                 StringsArg("link_external", le),
                 IntsArg("link_offset", lo),
                 IntsArg("link_window", std::vector<int64_t>(lo.size(), 1)),
                 IntArg("reverse", reverse ? 1 : 0),
                 IntArg("rnn_executor", 0)};
      net.external_inputs.push_back("h0_" + s);
      if (K == RnnCell::kLstm) net.external_inputs.push_back("c0_" + s);
      net.ops.push_back(rn);
    }
    return net;
  }

  std::string label_;
  semantics::RnnAttrs attrs_;  // the ONNX attributes (the members below copy the ones the nets use)
  int64_t dirs_ = 1, layout_ = 0;
  bool reverse_ = false, linear_before_reset_ = false, input_forget_ = false, has_clip_ = false, default_acts_ = true;
  float clip_ = 0;
  std::vector<int64_t> key_;
  bool weights_constant_ = false;    // W, R, B, P are initializers (Prepare)
  std::vector<int64_t> weights_key_;  // what the step-net weight blobs were made for
  LoomWorkspace* ws_ = nullptr;
  LoomNet* net_ = nullptr;
};

}  // namespace

sdk::Status RegisterOnnxRecurrent(sdk::Registrar& reg) {
  const sdk::KernelOptions opts{"CPU", "STEPNET", 0, {{"T", {LOOM_DTYPE_FLOAT}}}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<OnnxRecurrentKernel<RnnCell::kLstm>>("LSTM", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<OnnxRecurrentKernel<RnnCell::kGru>>("GRU", opts));
  return reg.Kernel<OnnxRecurrentKernel<RnnCell::kRnn>>("RNN", opts);
}

}  // namespace rnn
}  // namespace loom
