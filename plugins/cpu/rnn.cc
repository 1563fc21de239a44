// ONNX LSTM, GRU and RNN (opset 14 semantics) on oneDNN's fused RNN
// primitives (lstm_forward, gru_forward, lbr_gru_forward,
// vanilla_rnn_forward; forward_inference), with a plain-loop fallback in the
// same kernel for what oneDNN cannot express: custom activations, clip,
// input_forget, mixed sequence_lens, float64, and zero-size dims.
//
// ONNX -> oneDNN conversions:
//   gates   LSTM ONNX i,o,f,c -> oneDNN i,f,c,o; GRU ONNX z,r,h == oneDNN
//           u,r,o; peepholes ONNX i,o,f -> oneDNN i,f,o.
//   weights ONNX W [D, G*H, I] / R [D, G*H, H] -> oneDNN ldigo
//           [1, D, I|H, G, H] (then reordered to the primitive's format).
//   bias    ONNX [Wb, Rb] -> oneDNN Wb + Rb; lbr_gru has a 4th gate: the
//           h gate keeps Wbh in gate 2 and Rbh (applied inside r.) in gate 3.
//   layout  0: X tnc, Y [T, D, N, H] (tnc directly when D == 1, else a copy
//           from oneDNN's [T, N, D*H]); 1: X ntc, Y [N, T, D, H] == ntc
//           [N, T, D*H]. States are ldnc [1, D, N, H] (layout 1 transposed).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/semantics/rnn.h"
#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

enum class Cell { kLstm, kGru, kRnn };

// One ONNX activation function with its alpha/beta (ONNX RNN section).
struct Activation {
  enum Kind { kRelu, kTanh, kSigmoid, kAffine, kLeakyRelu, kThresholdedRelu, kScaledTanh, kHardSigmoid, kElu, kSoftsign, kSoftplus };
  Kind kind = kTanh;
  double alpha = 0, beta = 0;

  double operator()(double x) const {
    switch (kind) {
      case kRelu: return x > 0 ? x : 0;
      case kTanh: return std::tanh(x);
      case kSigmoid: return 1.0 / (1.0 + std::exp(-x));
      case kAffine: return alpha * x + beta;
      case kLeakyRelu: return x < 0 ? alpha * x : x;
      case kThresholdedRelu: return x > alpha ? x : 0;
      case kScaledTanh: return alpha * std::tanh(beta * x);
      case kHardSigmoid: return std::max(0.0, std::min(1.0, alpha * x + beta));
      case kElu: return x >= 0 ? x : alpha * (std::exp(x) - 1);
      case kSoftsign: return x / (1 + std::fabs(x));
      case kSoftplus: return std::log1p(std::exp(x));
    }
    return x;
  }
};

// The CPU evaluator of a parsed ONNX activation (semantics::RnnAttrs:
// canonical name, alpha, beta).
Activation ToActivation(const semantics::RnnActivation& a) {
  static const std::pair<const char*, Activation::Kind> kKinds[] = {
      {"Relu", Activation::kRelu},           {"Tanh", Activation::kTanh},
      {"Sigmoid", Activation::kSigmoid},     {"Affine", Activation::kAffine},
      {"LeakyRelu", Activation::kLeakyRelu}, {"ThresholdedRelu", Activation::kThresholdedRelu},
      {"ScaledTanh", Activation::kScaledTanh}, {"HardSigmoid", Activation::kHardSigmoid},
      {"Elu", Activation::kElu},             {"Softsign", Activation::kSoftsign},
      {"Softplus", Activation::kSoftplus},
  };
  Activation out;
  for (const auto& k : kKinds) {
    if (a.name == k.first) out.kind = k.second;
  }
  out.alpha = a.alpha;
  out.beta = a.beta;
  return out;
}

// Sizes of one run.
struct RnnDims {
  int64_t T, N, I, H, D, G;  // seq, batch, input, hidden, directions, ONNX gates
  bool batch_major;          // layout 1
  int64_t X(int64_t t, int64_t n) const { return (batch_major ? n * T + t : t * N + n) * I; }
  int64_t Y(int64_t t, int64_t d, int64_t n) const {
    return (batch_major ? (n * T + t) * D + d : (t * D + d) * N + n) * H;
  }
  int64_t State(int64_t d, int64_t n) const { return (batch_major ? n * D + d : d * N + n) * H; }
};

class RnnKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    const std::string op = info.op_type();
    cell_ = op == "LSTM" ? Cell::kLstm : op == "GRU" ? Cell::kGru : Cell::kRnn;
    gates_ = cell_ == Cell::kLstm ? 4 : cell_ == Cell::kGru ? 3 : 1;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Read(info, label_, semantics::RnnCellOf(info.op_type())));
    dirs_ = attrs_.num_directions;
    reverse_ = attrs_.reverse;
    hidden_ = attrs_.hidden_size;
    batch_major_ = attrs_.batch_major;
    has_clip_ = attrs_.has_clip;
    clip_ = attrs_.clip;
    input_forget_ = attrs_.input_forget;
    lbr_ = attrs_.linear_before_reset;
    // Activations: per direction f, g, h (LSTM), f, g (GRU), f (RNN).
    const size_t per_dir = attrs_.acts_per_dir;
    acts_.clear();
    for (const semantics::RnnActivation& a : attrs_.activations) acts_.push_back(ToActivation(a));
    // oneDNN hardwires sigmoid/tanh for LSTM and GRU; vanilla RNN takes one
    // of tanh, relu (slope 0) or logistic, the same for both directions.
    using A = Activation;
    dnnl_acts_ = true;
    for (int64_t d = 0; d < dirs_; ++d) {
      const A* a = &acts_[d * per_dir];
      if (cell_ == Cell::kLstm) dnnl_acts_ &= a[0].kind == A::kSigmoid && a[1].kind == A::kTanh && a[2].kind == A::kTanh;
      if (cell_ == Cell::kGru) dnnl_acts_ &= a[0].kind == A::kSigmoid && a[1].kind == A::kTanh;
      if (cell_ == Cell::kRnn) {
        dnnl_acts_ &= (a[0].kind == A::kTanh || a[0].kind == A::kRelu || a[0].kind == A::kSigmoid) && a[0].kind == acts_[0].kind;
      }
    }
    return Status::Ok();
  }

  // Records whether the weights W, R, B (and LSTM's P) are constant, so
  // the oneDNN path packs them once instead of on every run.
  Status Prepare(const sdk::PrepareContext& ctx) {
    weights_constant_ = true;
    const size_t last = cell_ == Cell::kLstm ? 7 : 3;
    for (size_t i = 1; i <= last; ++i) {
      if (i >= 4 && i <= 6) continue;  // sequence_lens, initial_h, initial_c are data
      const bool absent = i >= ctx.num_inputs() || ctx.InputDType(i) == LOOM_DTYPE_UNDEFINED;
      weights_constant_ = weights_constant_ && (absent || ctx.InputConstant(i).present());
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    const bool lstm = cell_ == Cell::kLstm;
    Tensor x = ctx.Input(0), w = ctx.Input(1), r = ctx.Input(2), b = ctx.Input(3), sl = ctx.Input(4), h0 = ctx.Input(5);
    Tensor c0 = lstm ? ctx.Input(6) : Tensor(), p = lstm ? ctx.Input(7) : Tensor();
    const LoomDataType dt = x.dtype();
    if (dt != LOOM_DTYPE_FLOAT && dt != LOOM_DTYPE_DOUBLE) return UnsupportedDtype(label_, dt);
    semantics::RnnAttrs::Shapes shapes;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.CheckInputs(label_, dt, x, w, r, b, h0, c0, p, &shapes));
    RnnDims d;
    d.batch_major = batch_major_;
    d.T = shapes.T;
    d.N = shapes.N;
    d.I = shapes.I;
    d.H = shapes.H;
    d.D = shapes.D;
    d.G = shapes.G;
    const std::vector<int64_t>& state = shapes.state;

    // Valid lengths per batch entry; each in [1, T] (as ONNX Runtime).
    std::vector<int64_t> lens(d.N, d.T);
    if (sl.present()) {
      LOOM_SDK_RETURN_IF_ERROR(semantics::CheckSequenceLensInput(label_, sl, d.N));
      ReadInts(sl, &lens);
      LOOM_SDK_RETURN_IF_ERROR(semantics::CheckSequenceLens(label_, lens, d.T));
    }

    Tensor y, yh, yc;
    if (ctx.OutputRequested(0)) {
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, shapes.y, &y));
    }
    if (ctx.OutputRequested(1)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, dt, state, &yh));
    if (lstm && ctx.OutputRequested(2)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, dt, state, &yc));

    // oneDNN needs one length for the whole batch; batch-major X can only
    // be cut to a shorter length with strides, so that case stays naive.
    bool uniform = true;
    for (int64_t n = 1; n < d.N; ++n) uniform &= lens[n] == lens[0];
    const int64_t steps = d.N > 0 ? lens[0] : d.T;
    const bool use_dnnl = dt == LOOM_DTYPE_FLOAT && dnnl_acts_ && !has_clip_ && !input_forget_ && uniform &&
                          (!batch_major_ || steps == d.T) && d.T > 0 && d.N > 0 && d.I > 0 && d.H > 0 && !dnnl_failed_;
    if (use_dnnl) {
      bool fell_back = false;
      Status s = RunDnnl(ctx, d, steps, x, w, r, b, h0, c0, p, y, yh, yc, &fell_back);
      if (!fell_back) return s;
    }
    Args a{x.raw_data(), w.raw_data(), r.raw_data(), b.present() ? b.raw_data() : nullptr, h0.present() ? h0.raw_data() : nullptr,
           c0.present() ? c0.raw_data() : nullptr, p.present() ? p.raw_data() : nullptr,
           y.present() ? y.raw_data() : nullptr, yh.present() ? yh.raw_data() : nullptr, yc.present() ? yc.raw_data() : nullptr};
    if (dt == LOOM_DTYPE_FLOAT) Naive<float>(d, lens, a, ctx.num_threads());
    else Naive<double>(d, lens, a, ctx.num_threads());
    return Status::Ok();
  }

 private:
  struct Args { void *x, *w, *r, *b, *h0, *c0, *p, *y, *yh, *yc; };

  double Clip(double v) const { return has_clip_ ? std::max<double>(-clip_, std::min<double>(clip_, v)) : v; }

  // The ONNX formulas in plain loops (double accumulation), one batch entry
  // per task. Steps past a batch entry's length give zeros in Y; Y_h/Y_c hold
  // the state after its last valid step (for reverse: after step 0).
  template <typename S>
  void Naive(const RnnDims& d, const std::vector<int64_t>& lens, const Args& a, int threads) const {
    const S *x = static_cast<const S*>(a.x), *w = static_cast<const S*>(a.w), *r = static_cast<const S*>(a.r);
    const S *b = static_cast<const S*>(a.b), *h0 = static_cast<const S*>(a.h0), *c0 = static_cast<const S*>(a.c0);
    const S* p = static_cast<const S*>(a.p);
    S *y = static_cast<S*>(a.y), *yh = static_cast<S*>(a.yh), *yc = static_cast<S*>(a.yc);
    const int64_t H = d.H, I = d.I, GH = d.G * d.H;
    const size_t per_dir = acts_.size() / d.D;
    for (int64_t dir = 0; dir < d.D; ++dir) {
      const S* W = w + dir * GH * I;
      const S* R = r + dir * GH * H;
      const S* Wb = b ? b + dir * 2 * GH : nullptr;
      const S* Rb = b ? Wb + GH : nullptr;
      const S* P = p ? p + dir * 3 * H : nullptr;
      const Activation* act = &acts_[dir * per_dir];
      const bool backward = reverse_ || dir == 1;
      ParallelFor(d.N, threads, [&](int64_t n) {
        std::vector<double> h(H, 0.0), c(H, 0.0), gx(GH), gh(GH), hn(H), rh(H);
        for (int64_t j = 0; j < H; ++j) {
          if (h0) h[j] = static_cast<double>(h0[d.State(dir, n) + j]);
          if (c0) c[j] = static_cast<double>(c0[d.State(dir, n) + j]);
        }
        const int64_t len = lens[n];
        for (int64_t s = 0; s < len; ++s) {
          const int64_t t = backward ? len - 1 - s : s;
          const S* xt = x + d.X(t, n);
          for (int64_t k = 0; k < GH; ++k) {
            double ax = Wb ? static_cast<double>(Wb[k]) : 0.0, ah = Rb ? static_cast<double>(Rb[k]) : 0.0;
            for (int64_t i = 0; i < I; ++i) ax += static_cast<double>(xt[i]) * static_cast<double>(W[k * I + i]);
            for (int64_t i = 0; i < H; ++i) ah += h[i] * static_cast<double>(R[k * H + i]);
            gx[k] = ax;
            gh[k] = ah;
          }
          if (cell_ == Cell::kLstm) {  // gates i, o, f, c
            for (int64_t j = 0; j < H; ++j) {
              const double it = act[0](Clip(gx[j] + gh[j] + (P ? P[j] * c[j] : 0.0)));
              const double ft = input_forget_ ? 1.0 - it : act[0](Clip(gx[2 * H + j] + gh[2 * H + j] + (P ? P[2 * H + j] * c[j] : 0.0)));
              const double ct = act[1](Clip(gx[3 * H + j] + gh[3 * H + j]));
              c[j] = ft * c[j] + it * ct;
              const double ot = act[0](Clip(gx[H + j] + gh[H + j] + (P ? P[H + j] * c[j] : 0.0)));
              hn[j] = ot * act[2](c[j]);
            }
          } else if (cell_ == Cell::kGru) {  // gates z, r, h
            std::vector<double> z(H);
            for (int64_t j = 0; j < H; ++j) {
              z[j] = act[0](Clip(gx[j] + gh[j]));
              const double rt = act[0](Clip(gx[H + j] + gh[H + j]));
              rh[j] = lbr_ ? rt : rt * h[j];  // lbr: keep r; else r . Ht-1 for the h gate's matmul
            }
            for (int64_t j = 0; j < H; ++j) {
              double pre;
              if (lbr_) {
                pre = gx[2 * H + j] + rh[j] * gh[2 * H + j];
              } else {
                pre = gx[2 * H + j] + (Rb ? static_cast<double>(Rb[2 * H + j]) : 0.0);
                for (int64_t i = 0; i < H; ++i) pre += rh[i] * static_cast<double>(R[(2 * H + j) * H + i]);
              }
              const double ht = act[1](Clip(pre));
              hn[j] = (1.0 - z[j]) * ht + z[j] * h[j];
            }
          } else {
            for (int64_t j = 0; j < H; ++j) hn[j] = act[0](Clip(gx[j] + gh[j]));
          }
          h.swap(hn);
          if (y) for (int64_t j = 0; j < H; ++j) y[d.Y(t, dir, n) + j] = static_cast<S>(h[j]);
        }
        if (y) {
          for (int64_t t = len; t < d.T; ++t) std::fill(y + d.Y(t, dir, n), y + d.Y(t, dir, n) + H, S(0));
        }
        for (int64_t j = 0; j < H; ++j) {
          if (yh) yh[d.State(dir, n) + j] = static_cast<S>(h[j]);
          if (yc) yc[d.State(dir, n) + j] = static_cast<S>(c[j]);
        }
      }, d.T * GH * (d.I + d.H));
    }
  }

  // Builds (or reuses) the primitive for this shape; false if oneDNN cannot
  // build it (the caller falls back to the loops).
  bool BuildPrimitive(const RnnDims& d, int64_t steps, bool has_p) {
    const std::vector<int64_t> key = {d.N, d.I, d.H, steps, has_p};
    if (key == key_) return true;
    key_.clear();
    try {
      using tag = memory::format_tag;
      const auto f32 = memory::data_type::f32;
      const int64_t G = gates_, Gb = lbr_ ? 4 : gates_;
      const tag seq_tag = batch_major_ ? tag::ntc : tag::tnc;
      memory::desc src_layer({steps, d.N, d.I}, f32, seq_tag);
      memory::desc iter({1, d.D, d.N, d.H}, f32, tag::ldnc);
      memory::desc wl({1, d.D, d.I, G, d.H}, f32, tag::any);
      memory::desc wi({1, d.D, d.H, G, d.H}, f32, tag::any);
      memory::desc bias({1, d.D, Gb, d.H}, f32, tag::ldgo);
      memory::desc peep = has_p ? memory::desc({1, d.D, 3, d.H}, f32, tag::ldgo) : memory::desc();
      memory::desc dst_layer({steps, d.N, d.D * d.H}, f32, seq_tag);
      const auto dir = d.D == 2 ? dnnl::rnn_direction::bidirectional_concat
                       : reverse_ ? dnnl::rnn_direction::unidirectional_right2left
                                  : dnnl::rnn_direction::unidirectional_left2right;
      const auto fwd = dnnl::prop_kind::forward_inference;
      dnnl::engine& eng = DnnlEngine();
      const dnnl::primitive_attr attr = UserScratchpad();
      memory::desc wl_md, wi_md;
      if (cell_ == Cell::kLstm) {
        dnnl::lstm_forward::primitive_desc pd(
            dnnl::lstm_forward::desc(fwd, dir, src_layer, iter, iter, wl, wi, peep, bias, dst_layer, iter, iter), attr, eng);
        prim_ = dnnl::lstm_forward(pd);
        scratchpad_.Reset(pd.scratchpad_desc());
        wl_md = pd.weights_layer_desc();
        wi_md = pd.weights_iter_desc();
      } else if (cell_ == Cell::kGru && lbr_) {
        dnnl::lbr_gru_forward::primitive_desc pd(
            dnnl::lbr_gru_forward::desc(fwd, dir, src_layer, iter, wl, wi, bias, dst_layer, iter), attr, eng);
        prim_ = dnnl::lbr_gru_forward(pd);
        scratchpad_.Reset(pd.scratchpad_desc());
        wl_md = pd.weights_layer_desc();
        wi_md = pd.weights_iter_desc();
      } else if (cell_ == Cell::kGru) {
        dnnl::gru_forward::primitive_desc pd(dnnl::gru_forward::desc(fwd, dir, src_layer, iter, wl, wi, bias, dst_layer, iter), attr, eng);
        prim_ = dnnl::gru_forward(pd);
        scratchpad_.Reset(pd.scratchpad_desc());
        wl_md = pd.weights_layer_desc();
        wi_md = pd.weights_iter_desc();
      } else {
        const auto kind = acts_[0].kind;
        const auto alg = kind == Activation::kRelu      ? dnnl::algorithm::eltwise_relu
                         : kind == Activation::kSigmoid ? dnnl::algorithm::eltwise_logistic
                                                        : dnnl::algorithm::eltwise_tanh;
        dnnl::vanilla_rnn_forward::primitive_desc pd(
            dnnl::vanilla_rnn_forward::desc(fwd, alg, dir, src_layer, iter, wl, wi, bias, dst_layer, iter), attr, eng);
        prim_ = dnnl::vanilla_rnn_forward(pd);
        scratchpad_.Reset(pd.scratchpad_desc());
        wl_md = pd.weights_layer_desc();
        wi_md = pd.weights_iter_desc();
      }
      src_layer_ = memory(src_layer, eng, nullptr);
      src_iter_ = memory(iter, eng, nullptr);
      src_iter_c_ = memory(iter, eng, nullptr);
      dst_layer_ = memory(dst_layer, eng, nullptr);
      dst_iter_ = memory(iter, eng, nullptr);
      dst_iter_c_ = memory(iter, eng, nullptr);
      w_layer_ = memory(wl_md, eng);
      w_iter_ = memory(wi_md, eng);
      bias_ = memory(bias, eng);
      peep_ = has_p ? memory(peep, eng) : memory();
      // Plain copies only while packing (PackWeights).
      w_layer_plain_ = memory({{1, d.D, d.I, G, d.H}, f32, tag::ldigo}, eng, nullptr);
      w_iter_plain_ = memory({{1, d.D, d.H, G, d.H}, f32, tag::ldigo}, eng, nullptr);
      reorder_layer_ = dnnl::reorder(w_layer_plain_, w_layer_);
      reorder_iter_ = dnnl::reorder(w_iter_plain_, w_iter_);
    } catch (const dnnl::error&) {
      return false;
    }
    key_ = key;
    packed_ = false;  // weights must be packed again
    return true;
  }

  // Copies W, R, B, P into oneDNN's layouts: once per primitive when they
  // are initializers (Prepare saw them constant), else on every run.
  Status PackWeights(KernelContext& ctx, const RnnDims& d, const Tensor& w, const Tensor& r, const Tensor& b,
                     const Tensor& p) {
    if (packed_ && weights_constant_) return Status::Ok();
    const int threads = ctx.num_threads();
    // Plain copies only while packing: once per primitive for constant
    // weights, so from the heap rather than the pool, whose high water
    // they would raise for nothing.
    std::vector<float> layer_plain(w_layer_plain_.get_desc().get_size() / sizeof(float));
    std::vector<float> iter_plain(w_iter_plain_.get_desc().get_size() / sizeof(float));
    w_layer_plain_.set_data_handle(layer_plain.data());
    w_iter_plain_.set_data_handle(iter_plain.data());
    const int64_t H = d.H, G = gates_, GH = G * H;
    // oneDNN gate g reads ONNX gate perm[g].
    static const int64_t kLstmPerm[4] = {0, 2, 3, 1}, kIdentity[4] = {0, 1, 2, 3};
    const int64_t* perm = cell_ == Cell::kLstm ? kLstmPerm : kIdentity;
    auto to_ldigo = [&](const float* src, int64_t in, float* dst) {
      for (int64_t dir = 0; dir < d.D; ++dir)
        for (int64_t g = 0; g < G; ++g)
          for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < in; ++i)
              dst[((dir * in + i) * G + g) * H + h] = src[(dir * GH + perm[g] * H + h) * in + i];
    };
    to_ldigo(w.data<float>(), d.I, static_cast<float*>(w_layer_plain_.get_data_handle()));
    to_ldigo(r.data<float>(), d.H, static_cast<float*>(w_iter_plain_.get_data_handle()));
    const int64_t Gb = lbr_ ? 4 : G;
    float* bias = static_cast<float*>(bias_.get_data_handle());
    std::fill(bias, bias + d.D * Gb * H, 0.0f);
    if (b.present()) {
      const float* bp = b.data<float>();
      for (int64_t dir = 0; dir < d.D; ++dir) {
        const float *wb = bp + dir * 2 * GH, *rb = wb + GH;
        float* out = bias + dir * Gb * H;
        for (int64_t g = 0; g < G; ++g) {
          for (int64_t h = 0; h < H; ++h) {
            const int64_t k = perm[g] * H + h;
            // lbr_gru: Rbh is applied inside r . (...), so it has its own slot.
            out[g * H + h] = (lbr_ && g == 2) ? wb[k] : wb[k] + rb[k];
          }
        }
        if (lbr_) for (int64_t h = 0; h < H; ++h) out[3 * H + h] = rb[2 * H + h];
      }
    }
    if (p.present()) {  // ONNX i, o, f -> oneDNN i, f, o
      static const int64_t kPeepPerm[3] = {0, 2, 1};
      float* out = static_cast<float*>(peep_.get_data_handle());
      for (int64_t dir = 0; dir < d.D; ++dir)
        for (int64_t g = 0; g < 3; ++g)
          for (int64_t h = 0; h < H; ++h) out[(dir * 3 + g) * H + h] = p.data<float>()[dir * 3 * H + kPeepPerm[g] * H + h];
    }
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, reorder_layer_, {{DNNL_ARG_FROM, w_layer_plain_}, {DNNL_ARG_TO, w_layer_}}, threads));
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, reorder_iter_, {{DNNL_ARG_FROM, w_iter_plain_}, {DNNL_ARG_TO, w_iter_}}, threads));
    w_layer_plain_.set_data_handle(nullptr);
    w_iter_plain_.set_data_handle(nullptr);
    packed_ = true;
    return Status::Ok();
  }

  // Copies a state between ONNX layout-1 [N, D, H] and oneDNN's [D, N, H].
  static void TransposeState(const RnnDims& d, const float* src, float* dst, bool to_dnnl) {
    for (int64_t dir = 0; dir < d.D; ++dir)
      for (int64_t n = 0; n < d.N; ++n) {
        const int64_t a = (dir * d.N + n) * d.H, bm = (n * d.D + dir) * d.H;
        std::memcpy(dst + (to_dnnl ? a : bm), src + (to_dnnl ? bm : a), sizeof(float) * d.H);
      }
  }

  Status RunDnnl(KernelContext& ctx, const RnnDims& d, int64_t steps, const Tensor& x, const Tensor& w, const Tensor& r,
                 const Tensor& b, const Tensor& h0, const Tensor& c0, const Tensor& p, const Tensor& y, const Tensor& yh,
                 const Tensor& yc, bool* fell_back) {
    const bool lstm = cell_ == Cell::kLstm;
    if (!BuildPrimitive(d, steps, p.present())) {
      *fell_back = true;
      dnnl_failed_ = true;  // this configuration is not supported: stay on the loops
      return Status::Ok();
    }
    LOOM_SDK_RETURN_IF_ERROR(PackWeights(ctx, d, w, r, b, p));
    const int64_t state_n = d.D * d.N * d.H;
    // Initial states: ONNX layout 0 is oneDNN's ldnc as is; otherwise a copy
    // (or zeros when absent).
    auto src_state = [&](const Tensor& t, std::vector<float>* buf) -> float* {
      if (t.present() && !batch_major_) return t.data<float>();
      buf->assign(state_n, 0.0f);
      if (t.present()) TransposeState(d, t.data<float>(), buf->data(), true);
      return buf->data();
    };
    src_iter_.set_data_handle(src_state(h0, &h0_buf_));
    if (lstm) src_iter_c_.set_data_handle(src_state(c0, &c0_buf_));
    auto dst_state = [&](const Tensor& t, std::vector<float>* buf) -> float* {
      if (t.present() && !batch_major_) return t.data<float>();
      buf->resize(state_n);
      return buf->data();
    };
    dst_iter_.set_data_handle(dst_state(yh, &yh_buf_));
    if (lstm) dst_iter_c_.set_data_handle(dst_state(yc, &yc_buf_));
    // Y: oneDNN writes [steps, N, D*H] (tnc) or [N, T, D*H] (ntc). That is
    // ONNX's Y except for bidirectional layout 0 ([T, D, N, H]).
    const bool direct_y = y.present() && (batch_major_ || d.D == 1);
    if (direct_y) {
      dst_layer_.set_data_handle(y.raw_data());
    } else {
      y_buf_.resize(steps * d.N * d.D * d.H);
      dst_layer_.set_data_handle(y_buf_.data());
    }
    src_layer_.set_data_handle(x.raw_data());
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC_LAYER, src_layer_}, {DNNL_ARG_SRC_ITER, src_iter_},      {DNNL_ARG_WEIGHTS_LAYER, w_layer_},
        {DNNL_ARG_WEIGHTS_ITER, w_iter_}, {DNNL_ARG_BIAS, bias_},              {DNNL_ARG_DST_LAYER, dst_layer_},
        {DNNL_ARG_DST_ITER, dst_iter_}};
    if (lstm) {
      args[DNNL_ARG_SRC_ITER_C] = src_iter_c_;
      args[DNNL_ARG_DST_ITER_C] = dst_iter_c_;
      if (p.present()) args[DNNL_ARG_WEIGHTS_PEEPHOLE] = peep_;
    }
    LOOM_SDK_RETURN_IF_ERROR(scratchpad_.Bind(ctx, &args));
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, prim_, args, ctx.num_threads()));
    if (y.present()) {
      float* yp = y.data<float>();
      if (!direct_y) {  // [steps, N, D, H] -> [steps, D, N, H]
        for (int64_t t = 0; t < steps; ++t)
          for (int64_t n = 0; n < d.N; ++n)
            for (int64_t dir = 0; dir < d.D; ++dir)
              std::memcpy(yp + d.Y(t, dir, n), y_buf_.data() + ((t * d.N + n) * d.D + dir) * d.H, sizeof(float) * d.H);
      }
      // Steps past the (uniform) sequence length are zero (layout 0 only).
      std::fill(yp + steps * d.D * d.N * d.H, yp + d.T * d.D * d.N * d.H, 0.0f);
    }
    if (batch_major_) {
      if (yh.present()) TransposeState(d, yh_buf_.data(), yh.data<float>(), false);
      if (yc.present()) TransposeState(d, yc_buf_.data(), yc.data<float>(), false);
    }
    return Status::Ok();
  }

  std::string label_;
  semantics::RnnAttrs attrs_;  // the ONNX attributes (the members below copy the ones the loops use)
  Cell cell_ = Cell::kLstm;
  int64_t gates_ = 4, dirs_ = 1, hidden_ = -1;
  bool reverse_ = false, batch_major_ = false, has_clip_ = false, input_forget_ = false, lbr_ = false;
  float clip_ = 0;
  std::vector<Activation> acts_;  // per direction, ONNX order
  bool dnnl_acts_ = true;         // the activations are the ones oneDNN implements
  bool dnnl_failed_ = false;      // oneDNN refused a primitive for this op

  // oneDNN state, rebuilt when key_ changes.
  std::vector<int64_t> key_;
  dnnl::primitive prim_;
  dnnl::reorder reorder_layer_, reorder_iter_;
  memory src_layer_, src_iter_, src_iter_c_, dst_layer_, dst_iter_, dst_iter_c_;
  memory w_layer_plain_, w_iter_plain_, w_layer_, w_iter_, bias_, peep_;
  DnnlScratchpad scratchpad_;
  bool weights_constant_ = false;  // W, R, B, P are initializers (or absent): packed once per primitive
  bool packed_ = false;            // w_layer_, w_iter_, bias_, peep_ hold the weights for prim_
  std::vector<float> h0_buf_, c0_buf_, yh_buf_, yc_buf_, y_buf_;
};

}  // namespace

sdk::Status RegisterRnnKernels(sdk::Registrar& reg) {
  // float32 runs on oneDNN; float64 and the unsupported attribute
  // combinations run the loops in the same kernel.
  const std::vector<LoomDataType> types = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE};
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<RnnKernel>(op, {"CPU", "DNNL", 10, {{"T", types}}}));
  }
  return sdk::Status::Ok();
}

}  // namespace cpu
}  // namespace loom
