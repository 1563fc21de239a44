// Loom's DynamicQuantizeLSTM (ops/rnn.cc; ONNX Runtime's com.microsoft op,
// what quantize_dynamic writes for an LSTM). Per direction: the input
// projection of every timestep at once, X [T * N, I] quantized to uint8
// (DynamicQuantizeLinear's passes, dynamic_quantize_rows.h) times W[d]
// [I, 4H] int8 in one oneDNN int8 matmul; then, at each step, H_{t-1}
// [N, H] quantized the same way times R[d] [H, 4H]; each rescaled inside
// the matmul, by W's (R's) column scale, then by the operand's scale (its
// zero point given at run time), f32 out. The cell (gates
// iofc, peepholes, sequence_lens) then runs in float32 as ONNX LSTM-14,
// row by row over vector math (lstm_cell_row.h).
// A constant W or R is packed into the int8 matmul's layout once per
// direction; otherwise the matmuls read them as they are. Not implemented (UNIMPLEMENTED, naming it): activations other
// than ONNX's defaults, clip, input_forget, u8 weights, nonzero weight
// zero points (oneDNN's int8 matmul takes none).
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
#include "plugins/cpu/lstm_cell_row.h"
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

class DynamicQuantizeLstmKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Read(info, label_, semantics::RnnCell::kLstm));
    if (attrs_.has_clip) return sdk::Unimplemented(label_ + ": clip is not implemented for the int8 LSTM");
    if (attrs_.input_forget) return sdk::Unimplemented(label_ + ": input_forget is not implemented for the int8 LSTM");
    static const char* kDefaults[] = {"Sigmoid", "Tanh", "Tanh"};
    for (size_t i = 0; i < attrs_.activations.size(); ++i) {
      if (attrs_.activations[i].name != kDefaults[i % 3]) {
        return sdk::Unimplemented(label_ + ": activations other than Sigmoid, Tanh, Tanh are not implemented for the "
                                  "int8 LSTM; found " + attrs_.activations[i].name);
      }
    }
    auto given = [&](size_t i) { return info.num_inputs() > i && !info.input_name(i).empty(); };
    has_b_ = given(3);
    has_lens_ = given(4);
    has_h0_ = given(5);
    has_c0_ = given(6);
    has_p_ = given(7);
    return Status::Ok();
  }

  // Whether W and R are constants: each direction's slice is then packed
  // into the int8 matmul's layout once (when the kernel configures).
  Status Prepare(const sdk::PrepareContext& ctx) {
    w_constant_ = ctx.InputConstant(1).present();
    r_constant_ = ctx.InputConstant(2).present();
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), r = ctx.Input(2);
    const std::vector<int64_t> xs = x.shape(), ws = w.shape(), rs = r.shape();
    const int64_t D = attrs_.num_directions;
    if (xs.size() != 3 || ws.size() != 3 || rs.size() != 3 || ws[0] != D || rs[0] != D || ws[1] != xs[2] ||
        rs[2] != 4 * rs[1] || ws[2] != rs[2] || (attrs_.hidden_size >= 0 && attrs_.hidden_size != rs[1])) {
      return sdk::InvalidArgument(label_ + ": X must be [T, N, I], W [" + std::to_string(D) + ", I, 4*H] and R [" +
                                  std::to_string(D) + ", H, 4*H]" +
                                  (attrs_.hidden_size >= 0 ? " with H = hidden_size " + std::to_string(attrs_.hidden_size) : "") +
                                  "; found X " + ShapeStr(xs) + ", W " + ShapeStr(ws) + ", R " + ShapeStr(rs));
    }
    const int64_t T = xs[0], N = xs[1], I = xs[2], H = rs[1], G = 4 * H;
    std::vector<const float*> w_scale(D), r_scale(D);
    bool w_per_column = false, r_per_column = false;
    LOOM_SDK_RETURN_IF_ERROR(Weights(w, ctx.Input(8), ctx.Input(9), "W", D, G, &w_scale, &w_per_column));
    LOOM_SDK_RETURN_IF_ERROR(Weights(r, ctx.Input(10), ctx.Input(11), "R", D, G, &r_scale, &r_per_column));
    const Tensor b = ctx.Input(3), lens_t = ctx.Input(4), h0 = ctx.Input(5), c0 = ctx.Input(6), p = ctx.Input(7);
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(b, has_b_, "B", {D, 8 * H}));
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(h0, has_h0_, "initial_h", {D, N, H}));
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(c0, has_c0_, "initial_c", {D, N, H}));
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(p, has_p_, "P", {D, 3 * H}));
    LOOM_SDK_RETURN_IF_ERROR(CheckShape(lens_t, has_lens_, "sequence_lens", {N}));
    std::vector<int64_t> lens(static_cast<size_t>(N), T);
    for (int64_t n = 0; has_lens_ && n < N; ++n) {
      lens[n] = lens_t.data<int32_t>()[n];
      if (lens[n] < 0 || lens[n] > T) {
        return sdk::InvalidArgument(label_ + ": sequence_lens[" + std::to_string(n) + "] = " + std::to_string(lens[n]) +
                                    " is outside [0, seq_length = " + std::to_string(T) + "]");
      }
    }
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

  // W or R (int8) and its scale and zero point ([D] or [D, 4H], zeros):
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
                                  std::to_string(D * G) + " elements ([num_directions] or [num_directions, 4*H]); "
                                  "found " + ShapeStr(scale.shape()));
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
  bool has_b_ = false, has_lens_ = false, has_h0_ = false, has_c0_ = false, has_p_ = false;
  bool w_constant_ = false, r_constant_ = false;  // Prepare's: slices packed once
  std::vector<Direction> dirs_;
  std::vector<int64_t> configured_;  // T, N, I, H, threads the projections were built for
  std::vector<std::vector<float>> configured_scales_;  // and W's and R's scales, per direction
};

}  // namespace

Status RegisterQuantizedDynamicLstmKernels(sdk::Registrar& reg) {
  return reg.Kernel<DynamicQuantizeLstmKernel>(
      "DynamicQuantizeLSTM", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}, {"T1", {LOOM_DTYPE_INT32}},
                                             {"T2", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8}}}});
}

}  // namespace cpu
}  // namespace loom
