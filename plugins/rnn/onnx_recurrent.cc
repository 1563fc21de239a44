// ONNX LSTM, GRU and RNN (opset 7-14) expanded into Caffe2-style
// RecurrentNetwork ops: the kernels behind engine "STEPNET" (the oneDNN
// kernels in the CPU plugin, engine "DNNL", have the higher priority; choose
// these with OperatorDef.engine = "STEPNET").
//
// Per direction the kernel prepares, in a child workspace of the op's
// workspace, views of the weights (no copies: Caffe2's FC reads ONNX's
// [G*H, I] layout as it is), the summed biases (once, for constant
// weights), the initial states and a few scalar constants, and runs one FC
// over the whole sequence for the input projection (x_t W^T + Wb for
// every t at once) and one RecurrentNetwork (reverse = 1 for the backward
// direction) whose step net is made of FC and standard ops (Add, Mul, Sub,
// Split, Concat, Clip, the activation ops, Where) and, where they fit, the
// fused units. With constant weights (W, R, B, P initializers) the nets
// see them as constants: each FC packs its weights once at plan time, and
// the step nets of all timesteps share one packed R (Prepare_SharedPack).
//
// LSTM (ONNX gates i, o, f, c; activations f, g, h; peepholes P = Pi, Po, Pf):
//   gates = FC(x_t, W, Wb + Rb) + FC(h_prev, R, 0); the first FC runs before
//   the loop, and the step net's FC adds its row through FC's Sum input
//   (the matmul's epilogue, no Add pass)
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
#include "plugins/rnn/cell_unit_common.h"
#include "plugins/rnn/onnx_recurrent_graph.h"
#include "plugins/rnn/rnn_ops.h"

namespace loom {
namespace rnn {
namespace {

using semantics::RnnActivation;
using semantics::RnnCell;

// A float32 blob of `ws` sized to `shape` (from the pool of the net ctx's
// op runs in); returns its data.
Status Blob(KernelContext& ctx, LoomWorkspace* ws, const std::string& name, const std::vector<int64_t>& shape,
            float** data) {
  LoomTensor* t = Api().Workspace_CreateBlob(ws, name.c_str());
  LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), t, LOOM_DTYPE_FLOAT, shape.data(), shape.size(), name.c_str()));
  *data = static_cast<float*>(Api().TensorData(t));
  return Status::Ok();
}

// Makes `name` in `ws` a view of rows [begin, end) of `src` reshaped to
// `shape` (no copy).
Status AliasRows(KernelContext& ctx, LoomWorkspace* ws, const std::string& name, const LoomTensor* src, int64_t begin,
                 int64_t end, const std::vector<int64_t>& shape) {
  LoomTensor* t = Api().Workspace_CreateBlob(ws, name.c_str());
  LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Alias(t, src, begin, end)));
  return sdk::ResizeTensor(ctx.handle(), t, LOOM_DTYPE_FLOAT, shape.data(), shape.size(), name.c_str());
}

template <RnnCell K>
class OnnxRecurrentKernel {
 public:
  static constexpr int kGates = K == RnnCell::kLstm ? 4 : (K == RnnCell::kGru ? 3 : 1);
  static constexpr size_t kActsPerDir = K == RnnCell::kLstm ? 3 : (K == RnnCell::kGru ? 2 : 1);
  static constexpr const char* kName = K == RnnCell::kLstm ? "LSTM" : (K == RnnCell::kGru ? "GRU" : "RNN");

  ~OnnxRecurrentKernel() {
    if (net_) Api().Net_Release(net_);
    if (graph_) Api().Net_Release(graph_);
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

  // Whether W, R, B (and LSTM's P) are initializers: then the summed biases
  // are made once, and the nets see the weights as constants (packed once).
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
    if (X.dtype() != LOOM_DTYPE_FLOAT && X.dtype() != LOOM_DTYPE_DOUBLE) {
      return sdk::InvalidArgument(label_ + ": X must be float32 or float64; found " + sdk::DTypeName(X.dtype()));
    }
    semantics::RnnAttrs::Shapes shapes;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.CheckInputs(label_, X.dtype(), X, W, R, B, H0, C0, P, &shapes));
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
    if (X.dtype() == LOOM_DTYPE_DOUBLE) return ComputeGraph(ctx);
    bool peepholes = false;
    for (int64_t i = 0; P.present() && i < P.num_elements(); ++i) peepholes = peepholes || P.data<float>()[i] != 0;
    StepConfig cfg;
    cfg.fused = K == RnnCell::kLstm ? default_acts_ && !has_clip_ && !input_forget_ && !peepholes
                : K == RnnCell::kGru ? default_acts_ && !has_clip_
                                  : false;
    cfg.peepholes = peepholes && !cfg.fused;
    cfg.mask = short_seq && !cfg.fused;
    cfg.hoist_input = true;
    cfg.constant_weights = weights_constant_;

    if (ws_ == nullptr) ws_ = Api().Workspace_CreateChild(Api().Ctx_Workspace(ctx.handle()));
    // X as [T, N, I]: layout 0 is that already (an alias, no copy); layout 1
    // is transposed into a blob of its own.
    if (layout_ == 0) {
      LoomTensor* xb = Api().Workspace_CreateBlob(ws_, "X");
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Alias(xb, X.handle(), 0, T)));
    } else {
      float* x = nullptr;
      LOOM_SDK_RETURN_IF_ERROR(Blob(ctx, ws_, "X", {T, N, I}, &x));
      for (int64_t t = 0; t < T && I > 0; ++t) {  // I == 0: no buffers, and memcpy(nullptr, ...) is undefined
        for (int64_t b = 0; b < N; ++b) std::memcpy(x + (t * N + b) * I, X.data<float>() + (b * T + t) * I, sizeof(float) * I);
      }
    }
    LoomTensor* seq = Api().Workspace_CreateBlob(ws_, "seq");
    const int64_t n_dims[1] = {N};
    LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), seq, LOOM_DTYPE_INT32, n_dims, 1, "seq"));
    if (N > 0) std::memcpy(Api().TensorData(seq), lens.data(), sizeof(int32_t) * N);
    if (cfg.mask) {
      LoomTensor* m = Api().Workspace_CreateBlob(ws_, "M");
      const int64_t m_dims[3] = {T, N, 1};
      LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), m, LOOM_DTYPE_BOOL, m_dims, 3, "M"));
      bool* md = static_cast<bool*>(Api().TensorData(m));
      for (int64_t t = 0; t < T; ++t) {
        for (int64_t b = 0; b < N; ++b) md[t * N + b] = t < lens[b];
      }
    }
    // Constant weights keep their step-net layout from one run to the next.
    const std::vector<int64_t> weights_key = {D, I, H, cfg.fused, cfg.peepholes};
    const bool weights = !weights_constant_ || weights_key != weights_key_;
    for (int64_t d = 0; d < D; ++d) {
      LOOM_SDK_RETURN_IF_ERROR(PrepareDirection(ctx, cfg, d, N, I, H, weights, W, R, B, H0, C0, P));
    }
    weights_key_ = weights_key;
    std::vector<int64_t> key = {T, N, I, H, cfg.fused, cfg.peepholes, cfg.mask, cfg.constant_weights};
    if (key != key_) {
      key_.clear();
      StepConsts consts;
      std::string bytes = OnnxRecurrentNetworks(attrs_, cfg, "", /*forward_only=*/true, &consts).Serialize();
      for (const auto& c : consts) {
        float* v;
        LOOM_SDK_RETURN_IF_ERROR(Blob(ctx, ws_, c.first, {1}, &v));
        *v = c.second;
      }
      // The new net is made before the old one goes, so that packed weights
      // both use (shared, core/packed_constants.h) are not packed again.
      LoomNet* fresh = nullptr;
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Net_Create(ctx.handle(), ws_, bytes.data(), bytes.size(), ctx.num_threads(), &fresh)));
      if (net_) Api().Net_Release(net_);
      net_ = fresh;
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
    std::vector<const float*> h_states(D), c_states(D, nullptr);
    for (int64_t d = 0; d < D; ++d) {
      h_states[d] = static_cast<const float*>(Api().TensorData(Api().Workspace_GetBlob(ws_, ("H" + std::to_string(d)).c_str())));
      if (K == RnnCell::kLstm) {
        c_states[d] = static_cast<const float*>(Api().TensorData(Api().Workspace_GetBlob(ws_, ("C" + std::to_string(d)).c_str())));
      }
    }
    // One (direction, batch entry) per row, split over the op's threads: Y
    // is T rows of H per entry (lstm4's 3.2 MB took 0.2 ms on one thread).
    cell_unit::ForRows(D * N, T * H, ctx.num_threads(), [&](int64_t i) {
      const int64_t d = i / N, b = i % N;
      const bool reverse = reverse_ || d == 1;
      const float *hs = h_states[d], *cs = c_states[d];
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
    });
    // The nested net's input X, projections XW<d> and states H<d>, C<d> are
    // not read again before the next run, which sizes them anew: back to
    // the pool they came from, the enclosing net's (Net_Create), where the
    // next layer's kernel takes them. Four stacked LSTMs of [50, 32, 512]
    // held 20 MB each for the net's life.
    if (LOOM_SDK_API_HAS(Tensor_Release)) {
      std::vector<std::string> names = {"X"};
      for (int64_t d = 0; d < D; ++d) {
        const std::string s = std::to_string(d);
        names.insert(names.end(), {"XW" + s, "H" + s});
        if (K == RnnCell::kLstm) names.push_back("C" + s);
      }
      for (const std::string& n : names) Api().Tensor_Release(Api().Workspace_CreateBlob(ws_, n.c_str()));
    }
    return Status::Ok();
  }

 private:
  // Float64: the whole op as the graph its gradient differentiates
  // (onnx_recurrent_graph.h), run as a nested net over views of the inputs.
  // Slower than the prepared float32 path; it serves finite-difference
  // checks and float64 models.
  Status ComputeGraph(KernelContext& ctx) {
    if (ws_ == nullptr) ws_ = Api().Workspace_CreateChild(Api().Ctx_Workspace(ctx.handle()));
    std::vector<std::string> names(8);
    int64_t present = 0;
    for (size_t k = 0; k < ctx.num_inputs() && k < names.size(); ++k) {
      Tensor t = ctx.Input(k);
      if (!t.present()) continue;
      names[k] = "in" + std::to_string(k);
      present |= int64_t{1} << k;
      LoomTensor* b = Api().Workspace_CreateBlob(ws_, names[k].c_str());
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Alias(b, t.handle(), 0, Api().TensorDims(t.handle())[0])));
    }
    if (graph_ == nullptr || graph_present_ != present) {
      if (graph_) Api().Net_Release(graph_);
      graph_ = nullptr;
      const std::string bytes = OnnxRecurrentGraph(attrs_, names, "g_", /*forward_only=*/true, &graph_outputs_).Serialize();
      LOOM_SDK_RETURN_IF_ERROR(
          Status(Api().Net_Create(ctx.handle(), ws_, bytes.data(), bytes.size(), ctx.num_threads(), &graph_)));
      graph_present_ = present;
    }
    LOOM_SDK_RETURN_IF_ERROR(Status(Api().Net_Run(graph_)));
    for (size_t i = 0; i < ctx.num_outputs() && i < graph_outputs_.size(); ++i) {
      if (!ctx.OutputRequested(i)) continue;
      const LoomTensor* y = Api().Workspace_GetBlob(ws_, graph_outputs_[i].c_str());
      const int64_t* dims = Api().TensorDims(y);
      Tensor out;
      LOOM_SDK_RETURN_IF_ERROR(
          ctx.Output(i, LOOM_DTYPE_DOUBLE, std::vector<int64_t>(dims, dims + Api().TensorRank(y)), &out));
      if (out.num_elements() > 0) std::memcpy(out.data<double>(), Api().TensorData(y), sizeof(double) * out.num_elements());
    }
    return Status::Ok();
  }

  // Weights of direction d as views of W and R (blob names as the step net
  // reads them: FC takes ONNX's [G*H, I] layout as it is), its summed
  // biases (with `weights`: once for constant weights), and its initial
  // states.
  Status PrepareDirection(KernelContext& ctx, const StepConfig& cfg, int64_t d, int64_t N, int64_t I, int64_t H, bool weights, const Tensor& W,
                          const Tensor& R, const Tensor& B, const Tensor& H0, const Tensor& C0, const Tensor& P) {
    const std::string s = std::to_string(d);
    const int64_t G = kGates;
    LOOM_SDK_RETURN_IF_ERROR(AliasRows(ctx, ws_, "W" + s, W.handle(), d, d + 1, {G * H, I}));
    LOOM_SDK_RETURN_IF_ERROR(AliasRows(ctx, ws_, "R" + s, R.handle(), d, d + 1, {G * H, H}));
    if (K == RnnCell::kGru) {  // the h part of z, r; the h part of the candidate
      const LoomTensor* r = Api().Workspace_GetBlob(ws_, ("R" + s).c_str());
      LOOM_SDK_RETURN_IF_ERROR(AliasRows(ctx, ws_, "Rzr" + s, r, 0, 2 * H, {2 * H, H}));
      LOOM_SDK_RETURN_IF_ERROR(AliasRows(ctx, ws_, "Rh" + s, r, 2 * H, 3 * H, {H, H}));
    }
    const float* wb = B.present() ? B.data<float>() + d * 2 * G * H : nullptr;
    const float* rb = wb ? wb + G * H : nullptr;
    // Wb (and Rb when `sum`) rows [begin, end).
    auto bias = [&](const std::string& name, int64_t begin, int64_t end, bool sum, bool recurrent) -> Status {
      float* out;
      LOOM_SDK_RETURN_IF_ERROR(Blob(ctx, ws_, name, {end - begin}, &out));
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
        LOOM_SDK_RETURN_IF_ERROR(Blob(ctx, ws_, "zero" + s, {G * H}, &zero));
        std::fill(zero, zero + G * H, 0.0f);
      }
      if (cfg.peepholes) {  // P [D, 3H] in ONNX order i, o, f
        const char* names[3] = {"Pi", "Po", "Pf"};
        for (int k = 0; k < 3; ++k) {
          float* out;
          LOOM_SDK_RETURN_IF_ERROR(Blob(ctx, ws_, names[k] + s, {H}, &out));
          std::memcpy(out, P.data<float>() + (d * 3 + k) * H, sizeof(float) * H);
        }
      }
    }
    float *h0, *c0;
    LOOM_SDK_RETURN_IF_ERROR(Blob(ctx, ws_, "h0_" + s, {1, N, H}, &h0));
    LOOM_SDK_RETURN_IF_ERROR(Blob(ctx, ws_, "c0_" + s, {1, N, H}, &c0));
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
  LoomNet* graph_ = nullptr;  // float64 (ComputeGraph)
  int64_t graph_present_ = -1;  // which inputs it was made for, a bit each
  std::vector<std::string> graph_outputs_;
};

}  // namespace

sdk::Status RegisterOnnxRecurrent(sdk::Registrar& reg) {
  const sdk::KernelOptions opts{"CPU", "STEPNET", 0, {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}}}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<OnnxRecurrentKernel<RnnCell::kLstm>>("LSTM", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<OnnxRecurrentKernel<RnnCell::kGru>>("GRU", opts));
  return reg.Kernel<OnnxRecurrentKernel<RnnCell::kRnn>>("RNN", opts);
}

}  // namespace rnn
}  // namespace loom
