// Loom's DynamicQuantizeLSTM (ops/rnn.cc; ONNX Runtime's com.microsoft op,
// what quantize_dynamic writes for an LSTM) and DynamicQuantizeGRU (Loom's
// own, the same for a GRU). Per direction: the input projection of every
// timestep at once, X [T * N, I] quantized to uint8 (DynamicQuantizeLinear's
// passes, dynamic_quantize_rows.h) times W[d] [I, G*H] int8 in one oneDNN
// int8 matmul; then, at each step, H_{t-1} [N, H] quantized the same way
// times R[d] [H, G*H]; each rescaled inside the matmul, by W's (R's) column
// scale, then by the operand's scale (its zero point given at run time),
// f32 out. The cells (LSTM: gates iofc, peepholes; GRU: gates zrh,
// linear_before_reset) then run in float32 as ONNX LSTM-14 and GRU-14, row
// by row over vector math (rnn_cell_rows.h), honouring sequence_lens. A
// constant W or R is packed into the int8 matmuls' layouts once per
// direction; otherwise the matmuls read them as they are. Not implemented
// (UNIMPLEMENTED, naming it): activations other than ONNX's defaults, clip,
// input_forget, u8 weights, nonzero weight zero points (oneDNN's int8
// matmul takes none).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/semantics/rnn.h"
#include "plugins/cpu/dnnl_matmul.h"
#include "plugins/cpu/dynamic_quantize_rows.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/rnn_cell_rows.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

// One int8 matmul Y [M, G] f32 = ((A_q - a_zp) x B) * b_scale[col] *
// a_scale, B [K, G] s8, A_q quantized from a float A each call. B's column
// scales are the primitive's own (fixed when it is built), the run's
// a_scale a binary multiply after them: oneDNN 2.6 runs that on its brgemm
// int8 kernel, where run-time output scales took its gemm:jit one (a
// [32, 512] x [512, 2048] step: 0.046 against 0.110 ms, standalone, 2
// threads).
class Int8Projection {
 public:
  // `packed_b`: B, constant, copied into the matmul's layout once; null: B
  // is read as it is at each run. `b_scale`: one per column, or one.
  Status Configure(const std::string& label, int64_t M, int64_t K, int64_t N, int threads, const int8_t* packed_b,
                   const std::vector<float>& b_scale) {
    M_ = M;
    K_ = K;
    N_ = N;
    if (M == 0 || K == 0 || N == 0) return Status::Ok();
    LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label, threads, [&] {
      dnnl::primitive_attr attr;
      attr.set_output_scales(b_scale.size() == 1 ? 0 : 1 << 1, b_scale);
      attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
      const memory::desc scalar({1, 1}, memory::data_type::f32, memory::format_tag::ab);
      dnnl::post_ops ops;
      ops.append_binary(dnnl::algorithm::binary_mul, scalar);
      attr.set_post_ops(ops);
      mm_.Build(memory::desc({M, K}, memory::data_type::u8, memory::format_tag::ab),
                memory::desc({K, N}, memory::data_type::s8, memory::format_tag::ab), packed_b != nullptr,
                memory::desc(), PlainDesc({M, N}), attr);
      a_scale_mem_ = memory(scalar, DnnlEngine(), &a_scale_);
      zp_mem_ = memory(memory::desc({1}, memory::data_type::s32, memory::format_tag::a), DnnlEngine(), &zp_);
    }));
    return packed_b != nullptr ? mm_.PackOwn(label, threads, packed_b) : Status::Ok();
  }

  // y = the product of a [M, K] (quantized into `a_q`, M * K bytes) and b.
  Status Run(KernelContext& ctx, const std::string& label, int threads, const float* a, uint8_t* a_q, const int8_t* b,
             float* y) {
    const int64_t n = M_ * K_;
    if (n == 0) {
      std::fill_n(y, M_ * N_, 0.0f);
      return Status::Ok();
    }
    const semantics::DynamicQuantParams p = DynamicUint8Range(a, n, threads);
    DynamicQuantizeUint8(a, n, p, threads, a_q);
    a_scale_ = p.scale;
    zp_ = p.zero_point;
    return mm_.Execute(ctx, label, threads, a_q, b, y, nullptr,
                       {{DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, a_scale_mem_},
                        {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zp_mem_}});
  }

 private:
  int64_t M_ = 0, K_ = 0, N_ = 0;
  DnnlMatmul mm_;
  float a_scale_ = 0;  // of the run
  int32_t zp_ = 0;
  memory a_scale_mem_, zp_mem_;
};

// What the int8 LSTM and GRU share: their attributes, the checks of the
// inputs, the int8 weights and their scales.
class DynamicRecurrentKernel : public LabeledKernel {
 public:
  // Whether W and R are constants: each direction's slices are then packed
  // into the int8 matmuls' layouts once (when the kernel configures).
  Status Prepare(const sdk::PrepareContext& ctx) {
    w_constant_ = ctx.InputConstant(1).present();
    r_constant_ = ctx.InputConstant(2).present();
    return Status::Ok();
  }

 protected:
  // Reads the attributes of `cell` and refuses what the kernels do not
  // implement: clip, input_forget, other activations than ONNX's defaults.
  Status InitCell(const KernelInfo& info, semantics::RnnCell cell) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Read(info, label_, cell));
    if (attrs_.has_clip) return sdk::Unimplemented(label_ + ": clip is not implemented for the int8 recurrent ops");
    if (attrs_.input_forget) return sdk::Unimplemented(label_ + ": input_forget is not implemented for the int8 LSTM");
    static const char* kLstm[] = {"Sigmoid", "Tanh", "Tanh"};
    static const char* kGru[] = {"Sigmoid", "Tanh"};
    for (size_t i = 0; i < attrs_.activations.size(); ++i) {
      const char* want = cell == semantics::RnnCell::kLstm ? kLstm[i % 3] : kGru[i % 2];
      if (attrs_.activations[i].name != want) {
        return sdk::Unimplemented(label_ + ": activations other than ONNX's defaults are not implemented for the "
                                  "int8 recurrent ops; found " + attrs_.activations[i].name);
      }
    }
    return Status::Ok();
  }

  // X [T, N, I], W [D, I, G*H], R [D, H, G*H] (H = hidden_size when given):
  // *t, *n, *i, *h.
  Status Shapes(const Tensor& x, const Tensor& w, const Tensor& r, int64_t gates, int64_t* t, int64_t* n, int64_t* i,
                int64_t* h) const {
    const std::vector<int64_t> xs = x.shape(), ws = w.shape(), rs = r.shape();
    const int64_t D = attrs_.num_directions;
    const std::string g = std::to_string(gates);
    if (xs.size() != 3 || ws.size() != 3 || rs.size() != 3 || ws[0] != D || rs[0] != D || ws[1] != xs[2] ||
        rs[2] != gates * rs[1] || ws[2] != rs[2] || (attrs_.hidden_size >= 0 && attrs_.hidden_size != rs[1])) {
      return sdk::InvalidArgument(label_ + ": X must be [T, N, I], W [" + std::to_string(D) + ", I, " + g + "*H] and R [" +
                                  std::to_string(D) + ", H, " + g + "*H]" +
                                  (attrs_.hidden_size >= 0 ? " with H = hidden_size " + std::to_string(attrs_.hidden_size) : "") +
                                  "; found X " + ShapeStr(xs) + ", W " + ShapeStr(ws) + ", R " + ShapeStr(rs));
    }
    *t = xs[0];
    *n = xs[1];
    *i = xs[2];
    *h = rs[1];
    return Status::Ok();
  }

  // sequence_lens (absent: every row T long), each within [0, T].
  Status Lengths(const Tensor& lens_t, bool given, int64_t T, int64_t N, std::vector<int64_t>* lens) const {
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(lens_t, given, "sequence_lens", {N}));
    lens->assign(static_cast<size_t>(N), T);
    for (int64_t n = 0; given && n < N; ++n) {
      (*lens)[n] = lens_t.data<int32_t>()[n];
      if ((*lens)[n] < 0 || (*lens)[n] > T) {
        return sdk::InvalidArgument(label_ + ": sequence_lens[" + std::to_string(n) + "] = " + std::to_string((*lens)[n]) +
                                    " is outside [0, seq_length = " + std::to_string(T) + "]");
      }
    }
    return Status::Ok();
  }

  static Status Scratch(KernelContext& ctx, int64_t floats, float** out) {
    void* p = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Scratch(static_cast<size_t>(std::max<int64_t>(floats, 1)) * sizeof(float), &p));
    *out = static_cast<float*>(p);
    return Status::Ok();
  }

  Status CheckShape(const Tensor& t, bool given, const char* name, const std::vector<int64_t>& want) const {
    if (!given || t.shape() == want) return Status::Ok();
    return sdk::InvalidArgument(label_ + ": input " + name + " must be " + ShapeStr(want) + "; found " + ShapeStr(t.shape()));
  }

  // W or R (int8) and its scale and zero point ([D] or [D, G], zeros):
  // each direction's scales.
  Status Weights(const Tensor& m, const Tensor& scale, const Tensor& zp, const char* name, int64_t D, int64_t G,
                 std::vector<const float*>* scales, bool* per_column) const {
    const std::string n(name);
    if (m.dtype() != LOOM_DTYPE_INT8) {
      return sdk::Unimplemented(label_ + ": " + n + " must be int8 (oneDNN's int8 matmul takes s8 weights); found " +
                                sdk::DTypeName(m.dtype()));
    }
    if (scale.dtype() != LOOM_DTYPE_FLOAT) return UnsupportedDtype(label_ + " " + n + "_scale", scale.dtype());
    if (scale.num_elements() != D && scale.num_elements() != D * G) {
      return sdk::InvalidArgument(label_ + ": " + n + "_scale must have " + std::to_string(D) + " or " +
                                  std::to_string(D * G) + " elements ([num_directions] or [num_directions, " + std::to_string(G) + "]); found " + ShapeStr(scale.shape()));
    }
    if (zp.num_elements() != scale.num_elements() || zp.dtype() != LOOM_DTYPE_INT8) {
      return sdk::InvalidArgument(label_ + ": " + n + "_zero_point must be int8 of " + n + "_scale's shape " +
                                  ShapeStr(scale.shape()) + "; found " + sdk::DTypeName(zp.dtype()) + " " + ShapeStr(zp.shape()));
    }
    const int8_t* z = zp.data<int8_t>();
    if (std::any_of(z, z + zp.num_elements(), [](int8_t v) { return v != 0; })) {
      return sdk::Unimplemented(label_ + ": " + n + "_zero_point must be 0 (symmetric int8, as quantize_dynamic "
                                "writes it); found a nonzero value");
    }
    *per_column = scale.num_elements() == D * G;
    for (int64_t d = 0; d < D; ++d) (*scales)[d] = scale.data<float>() + d * (*per_column ? G : 1);
    return Status::Ok();
  }

  semantics::RnnAttrs attrs_;
  bool w_constant_ = false, r_constant_ = false;  // Prepare's: slices packed once
};

class DynamicQuantizeLstmKernel : public DynamicRecurrentKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(InitCell(info, semantics::RnnCell::kLstm));
    auto given = [&](size_t i) { return info.num_inputs() > i && !info.input_name(i).empty(); };
    has_b_ = given(3);
    has_lens_ = given(4);
    has_h0_ = given(5);
    has_c0_ = given(6);
    has_p_ = given(7);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), r = ctx.Input(2);
    const int64_t D = attrs_.num_directions;
    int64_t T = 0, N = 0, I = 0, H = 0;
    LOOM_SDK_RETURN_IF_ERROR(Shapes(x, w, r, 4, &T, &N, &I, &H));
    const int64_t G = 4 * H;
    std::vector<const float*> w_scale(D), r_scale(D);
    bool w_per_column = false, r_per_column = false;
    LOOM_SDK_RETURN_IF_ERROR(Weights(w, ctx.Input(8), ctx.Input(9), "W", D, G, &w_scale, &w_per_column));
    LOOM_SDK_RETURN_IF_ERROR(Weights(r, ctx.Input(10), ctx.Input(11), "R", D, G, &r_scale, &r_per_column));
    const Tensor b = ctx.Input(3), lens_t = ctx.Input(4), h0 = ctx.Input(5), c0 = ctx.Input(6), p = ctx.Input(7);
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(b, has_b_, "B", {D, 8 * H}));
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(h0, has_h0_, "initial_h", {D, N, H}));
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(c0, has_c0_, "initial_c", {D, N, H}));
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(p, has_p_, "P", {D, 3 * H}));
    std::vector<int64_t> lens;
    LOOM_SDK_RETURN_IF_ERROR(Lengths(lens_t, has_lens_, T, N, &lens));
    Tensor y, y_h, y_c;
    if (ctx.OutputRequested(0)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, {T, D, N, H}, &y));
    if (ctx.OutputRequested(1)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_FLOAT, {D, N, H}, &y_h));
    if (ctx.OutputRequested(2)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, LOOM_DTYPE_FLOAT, {D, N, H}, &y_c));
    if (y.present() && y.num_elements() > 0) std::memset(y.raw_data(), 0, sizeof(float) * y.num_elements());
    const int threads = ctx.num_threads();
    // The primitives hold the weights' scales: rebuilt when they change too.
    std::vector<std::vector<float>> scales(static_cast<size_t>(2 * D));
    for (int64_t d = 0; d < D; ++d) {
      scales[2 * d].assign(w_scale[d], w_scale[d] + (w_per_column ? G : 1));
      scales[2 * d + 1].assign(r_scale[d], r_scale[d] + (r_per_column ? G : 1));
    }
    if (!(configured_ == std::vector<int64_t>{T, N, I, H, threads}) || scales != configured_scales_) {
      for (Direction& dir : dirs_) dir = Direction();
      dirs_.resize(static_cast<size_t>(D));
      for (int64_t d = 0; d < D; ++d) {
        Direction& dir = dirs_[static_cast<size_t>(d)];
        LOOM_SDK_RETURN_IF_ERROR(dir.input.Configure(label_, T * N, I, G, threads,
                                                     w_constant_ ? w.data<int8_t>() + d * I * G : nullptr, scales[2 * d]));
        LOOM_SDK_RETURN_IF_ERROR(dir.recurrent.Configure(
            label_, N, H, G, threads, r_constant_ ? r.data<int8_t>() + d * H * G : nullptr, scales[2 * d + 1]));
      }
      configured_ = {T, N, I, H, threads};
      configured_scales_ = std::move(scales);
    }
    // Per run: the input gates of every step, one direction at a time; the
    // quantized operands; the recurrent gates and the states of a step.
    float* gx = nullptr;
    float* gh = nullptr;
    float* h = nullptr;
    float* c = nullptr;
    uint8_t* q = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(Scratch(ctx, T * N * G + N * G + 2 * N * H, &gx));
    gh = gx + T * N * G;
    h = gh + N * G;
    c = h + N * H;
    void* q_raw = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Scratch(static_cast<size_t>(std::max<int64_t>(T * N * I, N * H) + 1), &q_raw));
    q = static_cast<uint8_t*>(q_raw);
    std::vector<float> bias(static_cast<size_t>(G));
    for (int64_t d = 0; d < D; ++d) {
      Direction& dir = dirs_[static_cast<size_t>(d)];
      const bool reverse = attrs_.reverse || d == 1;
      const int8_t* wd = w.data<int8_t>() + d * I * G;
      const int8_t* rd = r.data<int8_t>() + d * H * G;
      LOOM_SDK_RETURN_IF_ERROR(dir.input.Run(ctx, label_, threads, x.data<float>(), q, wd, gx));
      for (int64_t g = 0; g < G; ++g) bias[g] = has_b_ ? b.data<float>()[d * 8 * H + g] + b.data<float>()[d * 8 * H + G + g] : 0.0f;
      const float* pd = has_p_ ? p.data<float>() + d * 3 * H : nullptr;
      for (int64_t i = 0; i < N * H; ++i) {
        h[i] = has_h0_ ? h0.data<float>()[d * N * H + i] : 0.0f;
        c[i] = has_c0_ ? c0.data<float>()[d * N * H + i] : 0.0f;
      }
      for (int64_t s = 0; s < T; ++s) {
        LOOM_SDK_RETURN_IF_ERROR(dir.recurrent.Run(ctx, label_, threads, h, q, rd, gh));
        // The batch rows' cells, independent: over the threads.
        ParallelRange(N, N * G * 8, threads, [&](int64_t begin, int64_t end) {
          std::vector<float> tmp(static_cast<size_t>(2 * H));
          for (int64_t n = begin; n < end; ++n) {
            if (s >= lens[n]) continue;
            const int64_t t = reverse ? lens[n] - 1 - s : s;
            const float* gxi = gx + (t * N + n) * G;
            float* ghi = gh + n * G;  // becomes the row's summed gate inputs
            float* hn = h + n * H;
            float* cn = c + n * H;
            for (int64_t k = 0; k < G; ++k) ghi[k] = gxi[k] + ghi[k] + bias[k];
            LstmCellRow(ghi, pd, H, cn, hn, tmp.data());
            if (y.present()) std::memcpy(y.data<float>() + ((t * D + d) * N + n) * H, hn, sizeof(float) * H);
          }
        });
      }
      if (y_h.present()) std::memcpy(y_h.data<float>() + d * N * H, h, sizeof(float) * N * H);
      if (y_c.present()) std::memcpy(y_c.data<float>() + d * N * H, c, sizeof(float) * N * H);
    }
    return Status::Ok();
  }

 private:
  struct Direction {
    Int8Projection input, recurrent;
  };

  bool has_b_ = false, has_lens_ = false, has_h0_ = false, has_c0_ = false, has_p_ = false;
  std::vector<Direction> dirs_;
  std::vector<int64_t> configured_;  // T, N, I, H, threads the projections were built for
  std::vector<std::vector<float>> configured_scales_;  // and W's and R's scales, per direction
};

// GRU with int8 W [D, I, 3H] and R [D, H, 3H] (gates zrh): the input
// projection and H_{t-1} R as the LSTM's; with linear_before_reset 0 the h
// gate's recurrent product takes r * H_{t-1} (each step's, quantized the
// same way) times R's h columns, a second matmul, after z and r.
class DynamicQuantizeGruKernel : public DynamicRecurrentKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(InitCell(info, semantics::RnnCell::kGru));
    auto given = [&](size_t i) { return info.num_inputs() > i && !info.input_name(i).empty(); };
    has_b_ = given(3);
    has_lens_ = given(4);
    has_h0_ = given(5);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), r = ctx.Input(2);
    const int64_t D = attrs_.num_directions;
    int64_t T = 0, N = 0, I = 0, H = 0;
    LOOM_SDK_RETURN_IF_ERROR(Shapes(x, w, r, 3, &T, &N, &I, &H));
    const int64_t G = 3 * H;
    const bool lbr = attrs_.linear_before_reset;
    std::vector<const float*> w_scale(D), r_scale(D);
    bool w_per_column = false, r_per_column = false;
    LOOM_SDK_RETURN_IF_ERROR(Weights(w, ctx.Input(6), ctx.Input(7), "W", D, G, &w_scale, &w_per_column));
    LOOM_SDK_RETURN_IF_ERROR(Weights(r, ctx.Input(8), ctx.Input(9), "R", D, G, &r_scale, &r_per_column));
    const Tensor b = ctx.Input(3), h0 = ctx.Input(5);
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(b, has_b_, "B", {D, 6 * H}));
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(h0, has_h0_, "initial_h", {D, N, H}));
    std::vector<int64_t> lens;
    LOOM_SDK_RETURN_IF_ERROR(Lengths(ctx.Input(4), has_lens_, T, N, &lens));
    Tensor y, y_h;
    if (ctx.OutputRequested(0)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, {T, D, N, H}, &y));
    if (ctx.OutputRequested(1)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_FLOAT, {D, N, H}, &y_h));
    if (y.present() && y.num_elements() > 0) std::memset(y.raw_data(), 0, sizeof(float) * y.num_elements());
    const int threads = ctx.num_threads();
    // R's columns per recurrent matmul: all 3H (linear_before_reset), or z
    // and r's 2H and h's H; contiguous copies, each with its scales.
    const int64_t rc = lbr ? G : 2 * H;
    std::vector<std::vector<float>> scales(static_cast<size_t>(3 * D));
    for (int64_t d = 0; d < D; ++d) {
      scales[3 * d].assign(w_scale[d], w_scale[d] + (w_per_column ? G : 1));
      const float* rsd = r_scale[d];
      scales[3 * d + 1] = r_per_column ? std::vector<float>(rsd, rsd + rc) : std::vector<float>{rsd[0]};
      scales[3 * d + 2] = r_per_column ? std::vector<float>(rsd + 2 * H, rsd + G) : std::vector<float>{rsd[0]};
    }
    const bool reconfigure = !(configured_ == std::vector<int64_t>{T, N, I, H, threads}) || scales != configured_scales_;
    if (reconfigure || !r_constant_) {
      dirs_.resize(static_cast<size_t>(D));
      for (int64_t d = 0; d < D; ++d) {
        Direction& dir = dirs_[static_cast<size_t>(d)];
        const int8_t* rd = r.data<int8_t>() + d * H * G;
        dir.r_first.resize(static_cast<size_t>(H * rc));
        dir.r_h.resize(static_cast<size_t>(lbr ? 0 : H * H));
        for (int64_t k = 0; k < H; ++k) {
          std::memcpy(&dir.r_first[k * rc], rd + k * G, static_cast<size_t>(rc));
          if (!lbr) std::memcpy(&dir.r_h[k * H], rd + k * G + 2 * H, static_cast<size_t>(H));
        }
      }
    }
    if (reconfigure) {
      for (int64_t d = 0; d < D; ++d) {
        Direction& dir = dirs_[static_cast<size_t>(d)];
        LOOM_SDK_RETURN_IF_ERROR(dir.input.Configure(label_, T * N, I, G, threads,
                                                     w_constant_ ? w.data<int8_t>() + d * I * G : nullptr, scales[3 * d]));
        LOOM_SDK_RETURN_IF_ERROR(dir.recurrent.Configure(label_, N, H, rc, threads,
                                                         r_constant_ ? dir.r_first.data() : nullptr, scales[3 * d + 1]));
        if (!lbr) {
          LOOM_SDK_RETURN_IF_ERROR(dir.reset.Configure(label_, N, H, H, threads, r_constant_ ? dir.r_h.data() : nullptr,
                                                       scales[3 * d + 2]));
        }
      }
      configured_ = {T, N, I, H, threads};
      configured_scales_ = std::move(scales);
    }
    // Per run: the input gates of every step; a step's recurrent gates, h
    // gate product, r * H_{t-1} and state; the quantized operands.
    float* gx = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(Scratch(ctx, T * N * G + N * rc + 3 * N * H, &gx));
    float* gh = gx + T * N * G;
    float* ghh = gh + N * rc;
    float* rh = ghh + N * H;
    float* h = rh + N * H;
    void* q_raw = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Scratch(static_cast<size_t>(std::max<int64_t>(T * N * I, N * H) + 1), &q_raw));
    uint8_t* q = static_cast<uint8_t*>(q_raw);
    std::vector<float> wb(static_cast<size_t>(G)), rb(static_cast<size_t>(G));
    for (int64_t d = 0; d < D; ++d) {
      Direction& dir = dirs_[static_cast<size_t>(d)];
      const bool reverse = attrs_.reverse || d == 1;
      LOOM_SDK_RETURN_IF_ERROR(dir.input.Run(ctx, label_, threads, x.data<float>(), q, w.data<int8_t>() + d * I * G, gx));
      for (int64_t g = 0; g < G; ++g) {
        wb[g] = has_b_ ? b.data<float>()[d * 6 * H + g] : 0.0f;
        rb[g] = has_b_ ? b.data<float>()[d * 6 * H + G + g] : 0.0f;
      }
      for (int64_t i = 0; i < N * H; ++i) h[i] = has_h0_ ? h0.data<float>()[d * N * H + i] : 0.0f;
      // Row n's step: `t` its time index.
      auto active = [&](int64_t s, int64_t n, int64_t* t) {
        if (s >= lens[n]) return false;
        *t = reverse ? lens[n] - 1 - s : s;
        return true;
      };
      for (int64_t s = 0; s < T; ++s) {
        LOOM_SDK_RETURN_IF_ERROR(dir.recurrent.Run(ctx, label_, threads, h, q, dir.r_first.data(), gh));
        // z and r (in gh's first 2H of each row); r * H_{t-1} without
        // linear_before_reset.
        ParallelRange(N, N * G * 8, threads, [&](int64_t begin, int64_t end) {
          std::vector<float> tmp(static_cast<size_t>(2 * H));
          for (int64_t n = begin; n < end; ++n) {
            int64_t t = 0;
            if (!active(s, n, &t)) continue;
            const float* gxi = gx + (t * N + n) * G;
            float* zr = gh + n * rc;
            for (int64_t k = 0; k < 2 * H; ++k) zr[k] = gxi[k] + zr[k] + (wb[k] + rb[k]);
            GruGatesRow(zr, H, tmp.data());
            if (!lbr) {
              for (int64_t k = 0; k < H; ++k) rh[n * H + k] = zr[H + k] * h[n * H + k];
            }
          }
        });
        if (!lbr) LOOM_SDK_RETURN_IF_ERROR(dir.reset.Run(ctx, label_, threads, rh, q, dir.r_h.data(), ghh));
        ParallelRange(N, N * H * 8, threads, [&](int64_t begin, int64_t end) {
          std::vector<float> hc(static_cast<size_t>(H));
          for (int64_t n = begin; n < end; ++n) {
            int64_t t = 0;
            if (!active(s, n, &t)) continue;
            const float* gxh = gx + (t * N + n) * G + 2 * H;
            const float* zr = gh + n * rc;
            for (int64_t k = 0; k < H; ++k) {
              hc[k] = lbr ? gxh[k] + wb[2 * H + k] + zr[H + k] * (gh[n * rc + 2 * H + k] + rb[2 * H + k])
                          : gxh[k] + ghh[n * H + k] + (rb[2 * H + k] + wb[2 * H + k]);
            }
            GruOutputRow(zr, hc.data(), H, h + n * H);
            if (y.present()) std::memcpy(y.data<float>() + ((t * D + d) * N + n) * H, h + n * H, sizeof(float) * H);
          }
        });
      }
      if (y_h.present()) std::memcpy(y_h.data<float>() + d * N * H, h, sizeof(float) * N * H);
    }
    return Status::Ok();
  }

 private:
  struct Direction {
    Int8Projection input, recurrent, reset;  // reset: (r * H) x R's h columns (linear_before_reset 0)
    std::vector<int8_t> r_first, r_h;         // R's columns for `recurrent` and `reset`
  };

  bool has_b_ = false, has_lens_ = false, has_h0_ = false;
  std::vector<Direction> dirs_;
  std::vector<int64_t> configured_;  // T, N, I, H, threads the projections were built for
  std::vector<std::vector<float>> configured_scales_;  // and W's and R's scales, per direction
};

}  // namespace

Status RegisterQuantizedDynamicRnnKernels(sdk::Registrar& reg) {
  const sdk::KernelOptions options{
      "CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}, {"T1", {LOOM_DTYPE_INT32}}, {"T2", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8}}}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<DynamicQuantizeLstmKernel>("DynamicQuantizeLSTM", options));
  return reg.Kernel<DynamicQuantizeGruKernel>("DynamicQuantizeGRU", options);
}

}  // namespace cpu
}  // namespace loom
