// Loom's DynamicQuantizeMatMul (ops/quantization.cc; ONNX Runtime's
// com.microsoft op), which transforms/fuse_dynamic_quant.h makes from the
// MatMul pattern of ONNX Runtime's quantize_dynamic. Each run quantizes A
// to uint8 as DynamicQuantizeLinear does (its range, then the values:
// dynamic_quantize_rows.h) into scratch, then one oneDNN int8 matmul, u8 A
// x s8 B -> f32 Y (VNNI where the CPU has it), with A's zero point, output
// scales a_scale * b_scale[n] (formed in float32, as the pattern's Mul of
// the scales) given at run time, and the bias added by a binary post-op
// after them: Y = float(acc) * scale + bias, the pattern's values exactly.
// A constant B is packed into the matmul's layout once, in Prepare.
// oneDNN's int8 matmul takes no B zero point and no u8 B here: those are
// UNIMPLEMENTED (the rewrite makes this op only for an int8 B of zero
// point 0, what quantize_dynamic and loom_quantize write).
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/semantics/shape_math.h"
#include "plugins/cpu/dnnl_matmul.h"
#include "plugins/cpu/dynamic_quantize_rows.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

// Y [..., M, N] = DynamicQuantizeLinear(A) x B, rescaled, plus bias: A
// [..., M, K] float32 (its leading dims fold into M), B [K, N] int8,
// b_scale scalar or [N], b_zero_point (zeros) of b_scale's shape, bias [N].
// Errors (INVALID_ARGUMENT unless said): B not 2-D, A's last dim not B's
// K, a scale or bias of another element count, a scale not float32;
// UNIMPLEMENTED for a u8 B or a nonzero b_zero_point.
class DynamicQuantizeMatMulKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    has_bias_ = info.num_inputs() > 4 && !info.input_name(4).empty();
    return Status::Ok();
  }

  // Builds the matmul for the planned shapes and packs a constant B.
  Status Prepare(const sdk::PrepareContext& ctx) {
    std::vector<int64_t> as, bs, ss;
    if (!ctx.InputShape(0, &as) || !ctx.InputShape(1, &bs) || !ctx.InputShape(2, &ss)) return Status::Ok();
    if (ctx.InputDType(1) != LOOM_DTYPE_INT8) return Status::Ok();  // Compute says why
    const bool pack = ctx.InputConstant(1).present();
    LOOM_SDK_RETURN_IF_ERROR(Configure(as, bs, semantics::Product(ss), ctx.num_threads(), pack));
    if (!pack || !mm_.built() || mm_.PackConstant(ctx, 1, label_, ctx.num_threads())) return Status::Ok();
    return Configure(as, bs, semantics::Product(ss), ctx.num_threads(), false);  // no copy made: B read as it is
  }

  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), b_scale = ctx.Input(2), b_zp = ctx.Input(3), bias = ctx.Input(4), y;
    const bool b_freed = mm_.BFreed(b, bs_);
    if (!b_freed) LOOM_SDK_RETURN_IF_ERROR(CheckB(b, b_zp));
    if (b_scale.dtype() != LOOM_DTYPE_FLOAT) return UnsupportedDtype(label_ + " b_scale", b_scale.dtype());
    const int threads = ctx.num_threads();
    if (!configured_ || !ShapeIs(a, as_) || (!b_freed && !ShapeIs(b, bs_)) || b_scale.num_elements() != scales_in_ ||
        threads != threads_) {
      if (b_freed) return PackedInputFreedError(label_, "B", "A", as_, threads_, a.shape(), threads);
      LOOM_SDK_RETURN_IF_ERROR(Configure(a.shape(), b.shape(), b_scale.num_elements(), threads, false));
    }
    if (has_bias_ && bias.num_elements() != N_) {
      return sdk::InvalidArgument(label_ + ": input bias must have N = " + std::to_string(N_) + " elements; found " +
                                  ShapeStr(bias.shape()));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys_, &y));
    if (M_ == 0 || N_ == 0) return Status::Ok();
    float* yp = y.data<float>();
    const float* bias_p = has_bias_ ? bias.data<float>() : nullptr;
    if (K_ == 0) {  // acc = 0: Y = 0 * scale + bias
      for (int64_t i = 0; i < M_; ++i) {
        for (int64_t j = 0; j < N_; ++j) yp[i * N_ + j] = bias_p ? bias_p[j] : 0.0f;
      }
      return Status::Ok();
    }
    void* a_q = nullptr;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Scratch(static_cast<size_t>(M_ * K_), &a_q));
    const semantics::DynamicQuantParams p = DynamicUint8Range(a.data<float>(), M_ * K_, threads);
    DynamicQuantizeUint8(a.data<float>(), M_ * K_, p, threads, static_cast<uint8_t*>(a_q));
    const float* s = b_scale.data<float>();
    for (size_t n = 0; n < scales_.size(); ++n) scales_[n] = p.scale * s[scales_.size() == 1 ? 0 : n];
    a_zero_point_ = p.zero_point;
    std::unordered_map<int, memory> extra = {{DNNL_ARG_ATTR_OUTPUT_SCALES, scales_mem_},
                                             {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero_point_mem_}};
    if (has_bias_) {
      bias_mem_.set_data_handle(const_cast<float*>(bias_p));
      extra[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = bias_mem_;
    }
    return mm_.Execute(ctx, label_, threads, a_q, b.raw_data(), yp, nullptr, std::move(extra));
  }

 private:
  Status CheckB(const Tensor& b, const Tensor& b_zp) const {
    if (b.dtype() != LOOM_DTYPE_INT8) {
      return sdk::Unimplemented(label_ + ": B must be int8 (oneDNN's int8 matmul takes s8 weights); found " +
                                sdk::DTypeName(b.dtype()));
    }
    if (b_zp.present()) {
      if (b_zp.dtype() != LOOM_DTYPE_INT8) return UnsupportedDtype(label_ + " b_zero_point", b_zp.dtype());
      const int8_t* z = b_zp.data<int8_t>();
      if (std::any_of(z, z + b_zp.num_elements(), [](int8_t v) { return v != 0; })) {
        return sdk::Unimplemented(label_ + ": b_zero_point must be 0 (symmetric int8 B, as quantize_dynamic "
                                  "writes it); found a nonzero value");
      }
    }
    return Status::Ok();
  }

  // Checks the shapes and builds the matmul: A [M, K] u8 with a run-time
  // zero point, B [K, N] s8 (packed when `pack`), Y [M, N] f32, `scales`
  // output scales (1 or N, given at run time), the bias a binary add.
  Status Configure(const std::vector<int64_t>& as, const std::vector<int64_t>& bs, int64_t scales, int threads,
                   bool pack) {
    configured_ = false;
    mm_.Reset();
    if (bs.size() != 2 || as.empty() || as.back() != bs[0]) {
      return sdk::InvalidArgument(label_ + ": A must be [..., M, K] and B [K, N] with the same K; found A " +
                                  ShapeStr(as) + ", B " + ShapeStr(bs));
    }
    const int64_t K = bs[0], N = bs[1];
    if (scales != 1 && scales != N) {
      return sdk::InvalidArgument(label_ + ": b_scale must be a scalar or have N = " + std::to_string(N) +
                                  " elements; found " + std::to_string(scales));
    }
    std::vector<int64_t> ys;
    if (!semantics::MatMulShape(as, bs, &ys)) {
      return sdk::InvalidArgument(label_ + ": A " + ShapeStr(as) + " and B " + ShapeStr(bs) + " do not multiply");
    }
    const int64_t M = K > 0 ? semantics::Product(as) / K : semantics::Product(ys) / std::max<int64_t>(N, 1);
    scales_.assign(static_cast<size_t>(scales), 0.0f);
    if (M > 0 && N > 0 && K > 0) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
        dnnl::primitive_attr attr;
        attr.set_output_scales(scales == 1 ? 0 : 1 << 1, {DNNL_RUNTIME_F32_VAL});
        attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        const memory::desc bias_md({1, N}, memory::data_type::f32, memory::format_tag::ab);
        if (has_bias_) {
          dnnl::post_ops ops;
          ops.append_binary(dnnl::algorithm::binary_add, bias_md);
          attr.set_post_ops(ops);
        }
        mm_.Build(memory::desc({M, K}, memory::data_type::u8, memory::format_tag::ab),
                  memory::desc({K, N}, memory::data_type::s8, memory::format_tag::ab), pack, memory::desc(),
                  PlainDesc({M, N}), attr);
        scales_mem_ = memory(memory::desc({scales}, memory::data_type::f32, memory::format_tag::a), DnnlEngine(),
                             scales_.data());
        zero_point_mem_ = memory(memory::desc({1}, memory::data_type::s32, memory::format_tag::a), DnnlEngine(),
                                 &a_zero_point_);
        bias_mem_ = UnboundMemory(bias_md);
      }));
    }
    as_ = as;
    bs_ = bs;
    ys_ = ys;
    M_ = M;
    K_ = K;
    N_ = N;
    scales_in_ = scales;
    threads_ = threads;
    configured_ = true;
    return Status::Ok();
  }

  bool has_bias_ = false;
  DnnlMatmul mm_;
  bool configured_ = false;
  std::vector<int64_t> as_, bs_, ys_;
  int64_t M_ = 0, K_ = 0, N_ = 0, scales_in_ = 0;
  int threads_ = 0;
  std::vector<float> scales_;   // a_scale * b_scale[n] of the run
  int32_t a_zero_point_ = 0;    // of the run
  memory scales_mem_, zero_point_mem_, bias_mem_;
};

}  // namespace

Status RegisterQuantizedDynamicMatMulKernels(sdk::Registrar& reg) {
  return reg.Kernel<DynamicQuantizeMatMulKernel>("DynamicQuantizeMatMul",
                                                 {"CPU", "", 0, {{"T", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8}}}});
}

}  // namespace cpu
}  // namespace loom
