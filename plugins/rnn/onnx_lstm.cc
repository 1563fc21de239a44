// ONNX LSTM (opset 7-14) expanded into Caffe2-style RecurrentNetwork ops:
// the kernel behind engine "STEPNET" (the oneDNN kernel in the CPU plugin,
// engine "DNNL", has the higher priority; choose this one with
// OperatorDef.engine = "STEPNET").
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
// layout 0 and 1, every optional output, the default activations. Not
// supported (UNIMPLEMENTED, use the DNNL kernel): peepholes (a non-zero P),
// clip, input_forget, other activations.
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

// A float32 blob of `ws` sized to `shape`; returns its data.
Status Blob(LoomWorkspace* ws, const std::string& name, const std::vector<int64_t>& shape, float** data) {
  LoomTensor* t = Api().Workspace_CreateBlob(ws, name.c_str());
  LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Resize(t, LOOM_DTYPE_FLOAT, shape.data(), shape.size())));
  *data = static_cast<float*>(Api().TensorData(t));
  return Status::Ok();
}

class OnnxLstmKernel {
 public:
  ~OnnxLstmKernel() {
    if (net_) Api().Net_Release(net_);
    if (ws_) Api().Workspace_Release(ws_);
  }

  Status Init(const KernelInfo& info) {
    label_ = "LSTM '" + info.op_name() + "' (engine STEPNET)";
    direction_ = info.StringOr("direction", "forward");
    layout_ = info.IntOr("layout", 0);
    if (direction_ != "forward" && direction_ != "reverse" && direction_ != "bidirectional") {
      return sdk::InvalidArgument(label_ + ": direction '" + direction_ + "' is not forward, reverse or bidirectional");
    }
    if (info.Has("clip")) return sdk::Unimplemented(label_ + ": clip is not supported by this kernel");
    if (info.IntOr("input_forget", 0) != 0) return sdk::Unimplemented(label_ + ": input_forget is not supported by this kernel");
    std::vector<std::string> acts;
    if (info.GetStrings("activations", &acts).ok()) {
      for (size_t i = 0; i < acts.size(); ++i) {
        const char* want = i % 3 == 0 ? "Sigmoid" : "Tanh";
        if (acts[i] != want) return sdk::Unimplemented(label_ + ": activation '" + acts[i] + "' is not supported by this kernel");
      }
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor X = ctx.Input(0), W = ctx.Input(1), R = ctx.Input(2), B = ctx.Input(3), L = ctx.Input(4), H0 = ctx.Input(5),
           C0 = ctx.Input(6), P = ctx.Input(7);
    const int64_t D = direction_ == "bidirectional" ? 2 : 1;
    if (X.rank() != 3 || W.rank() != 3 || R.rank() != 3) {
      return sdk::InvalidArgument(label_ + ": X, W and R must be 3-D");
    }
    const int64_t T = layout_ ? X.dim(1) : X.dim(0), N = layout_ ? X.dim(0) : X.dim(1), I = X.dim(2), H = R.dim(2);
    if (W.dim(0) != D || W.dim(1) != 4 * H || W.dim(2) != I || R.dim(0) != D || R.dim(1) != 4 * H) {
      return sdk::InvalidArgument(label_ + ": W must be [" + std::to_string(D) + ", " + std::to_string(4 * H) + ", " +
                                  std::to_string(I) + "] and R [" + std::to_string(D) + ", " + std::to_string(4 * H) + ", " +
                                  std::to_string(H) + "]");
    }
    if (B.present() && B.num_elements() != D * 8 * H) return sdk::InvalidArgument(label_ + ": B must be [D, 8H]");
    if (P.present()) {
      for (int64_t i = 0; i < P.num_elements(); ++i) {
        if (P.data<float>()[i] != 0) return sdk::Unimplemented(label_ + ": peepholes (P) are not supported by this kernel");
      }
    }
    std::vector<int32_t> lens(static_cast<size_t>(N), static_cast<int32_t>(T));
    if (L.present()) {
      if (L.num_elements() != N) return sdk::InvalidArgument(label_ + ": sequence_lens must have " + std::to_string(N) + " entries");
      for (int64_t b = 0; b < N; ++b) {
        int32_t v = L.data<int32_t>()[b];
        if (v <= 0 || v > T) {
          return sdk::InvalidArgument(label_ + ": sequence_lens[" + std::to_string(b) + "] = " + std::to_string(v) +
                                      " is outside [1, " + std::to_string(T) + "]");
        }
        lens[b] = v;
      }
    }
    if (ws_ == nullptr) ws_ = Api().Workspace_CreateChild(Api().Ctx_Workspace(ctx.handle()));
    // Inputs of the recurrent nets.
    float* x = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "X", {T, N, I}, &x));
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t b = 0; b < N; ++b) {
        const float* src = X.data<float>() + (layout_ ? (b * T + t) : (t * N + b)) * I;
        std::memcpy(x + (t * N + b) * I, src, sizeof(float) * I);
      }
    }
    LoomTensor* seq = Api().Workspace_CreateBlob(ws_, "seq");
    const int64_t n_dims[1] = {N};
    LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Resize(seq, LOOM_DTYPE_INT32, n_dims, 1)));
    std::memcpy(Api().TensorData(seq), lens.data(), sizeof(int32_t) * N);
    static const int kOnnxGate[4] = {0, 2, 1, 3};  // LSTMUnit's i, f, o, g in ONNX's i, o, f, c
    for (int64_t d = 0; d < D; ++d) {
      const std::string s = std::to_string(d);
      float *wt, *rt, *bias, *h0, *c0;
      LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "WT" + s, {I, 4 * H}, &wt));
      LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "RT" + s, {H, 4 * H}, &rt));
      LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "b" + s, {4 * H}, &bias));
      LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "h0_" + s, {1, N, H}, &h0));
      LOOM_SDK_RETURN_IF_ERROR(Blob(ws_, "c0_" + s, {1, N, H}, &c0));
      const float* w = W.data<float>() + d * 4 * H * I;
      const float* r = R.data<float>() + d * 4 * H * H;
      for (int k = 0; k < 4; ++k) {
        const int64_t src_gate = kOnnxGate[k];
        for (int64_t h = 0; h < H; ++h) {
          const int64_t col = k * H + h, row = src_gate * H + h;
          for (int64_t i = 0; i < I; ++i) wt[i * 4 * H + col] = w[row * I + i];
          for (int64_t j = 0; j < H; ++j) rt[j * 4 * H + col] = r[row * H + j];
          bias[col] = B.present() ? B.data<float>()[d * 8 * H + row] + B.data<float>()[d * 8 * H + 4 * H + row] : 0.0f;
        }
      }
      // initial_h/initial_c: [D, N, H], or [N, D, H] with layout 1.
      for (int64_t b = 0; b < N; ++b) {
        const int64_t src = (layout_ ? (b * D + d) : (d * N + b)) * H;
        for (int64_t h = 0; h < H; ++h) {
          h0[b * H + h] = H0.present() ? H0.data<float>()[src + h] : 0.0f;
          c0[b * H + h] = C0.present() ? C0.data<float>()[src + h] : 0.0f;
        }
      }
    }
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
    const bool want_y = ctx.OutputRequested(0), want_h = ctx.OutputRequested(1), want_c = ctx.OutputRequested(2);
    if (want_y) {
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, layout_ ? std::vector<int64_t>{N, T, D, H} : std::vector<int64_t>{T, D, N, H}, &Y));
    }
    std::vector<int64_t> final_shape = layout_ ? std::vector<int64_t>{N, D, H} : std::vector<int64_t>{D, N, H};
    if (want_h) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_FLOAT, final_shape, &Yh));
    if (want_c) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, LOOM_DTYPE_FLOAT, final_shape, &Yc));
    for (int64_t d = 0; d < D; ++d) {
      const bool reverse = direction_ == "reverse" || d == 1;
      const float* hs = static_cast<const float*>(Api().TensorData(Api().Workspace_GetBlob(ws_, ("H" + std::to_string(d)).c_str())));
      const float* cs = static_cast<const float*>(Api().TensorData(Api().Workspace_GetBlob(ws_, ("C" + std::to_string(d)).c_str())));
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
        const int64_t out = (layout_ ? (b * D + d) : (d * N + b)) * H;
        if (want_h) std::memcpy(Yh.data<float>() + out, hs + (T * N + b) * H, sizeof(float) * H);
        if (want_c) std::memcpy(Yc.data<float>() + out, cs + (T * N + b) * H, sizeof(float) * H);
      }
    }
    return Status::Ok();
  }

 private:
  // One RecurrentNetwork op per direction over the prepared blobs.
  NetSpec OuterNet(int64_t D) const {
    NetSpec net;
    net.name = "onnx_lstm_expanded";
    net.external_inputs = {"X", "seq"};
    for (int64_t d = 0; d < D; ++d) {
      const std::string s = std::to_string(d);
      NetSpec step;
      step.name = "lstm_step" + s;
      step.external_inputs = {"x_t", "h_prev", "c_prev", "WT" + s, "RT" + s, "b" + s, "seq", "timestep"};
      step.ops = {
          {"MatMul", "xw", {"x_t", "WT" + s}, {"xw"}, {}},
          {"MatMul", "hr", {"h_prev", "RT" + s}, {"hr"}, {}},
          {"Add", "sum", {"xw", "hr"}, {"sum"}, {}},
          {"Add", "gates", {"sum", "b" + s}, {"gates"}, {}},
          {"LSTMUnit", "unit", {"h_prev", "c_prev", "gates", "seq", "timestep"}, {"h_next", "c_next"}, {}},
      };
      OpSpec rn;
      rn.type = "RecurrentNetwork";
      rn.name = "lstm_dir" + s;
      rn.inputs = {"X", "h0_" + s, "c0_" + s, "WT" + s, "RT" + s, "b" + s, "seq"};
      rn.outputs = {"H" + s, "C" + s};
      const bool reverse = direction_ == "reverse" || d == 1;
      rn.args = {NetArg("step_net", step),
                 StringsArg("recurrent_states", {"H" + s, "C" + s}),
                 IntsArg("initial_recurrent_state_ids", {1, 2}),
                 StringsArg("link_internal", {"h_prev", "h_next", "c_prev", "c_next", "x_t"}),
                 StringsArg("link_external", {"H" + s, "H" + s, "C" + s, "C" + s, "X"}),
                 IntsArg("link_offset", {0, 1, 0, 1, 0}),
                 IntsArg("link_window", {1, 1, 1, 1, 1}),
                 IntArg("reverse", reverse ? 1 : 0),
                 IntArg("rnn_executor", 0)};
      net.ops.push_back(rn);
      net.external_inputs.insert(net.external_inputs.end(), {"h0_" + s, "c0_" + s, "WT" + s, "RT" + s, "b" + s});
    }
    return net;
  }

  std::string label_, direction_;
  int64_t layout_ = 0;
  std::vector<int64_t> key_;
  LoomWorkspace* ws_ = nullptr;
  LoomNet* net_ = nullptr;
};

}  // namespace

sdk::Status RegisterOnnxLstm(sdk::Registrar& reg) {
  return reg.Kernel<OnnxLstmKernel>("LSTM", {"CPU", "STEPNET", 0, {{"T", {LOOM_DTYPE_FLOAT}}}});
}

}  // namespace rnn
}  // namespace loom
