// ConvTranspose (1-D to 3-D): float32 on oneDNN's deconvolution_forward,
// float64 in plain loops (nn_conv_naive.h).
// ONNX's output size and padding (pads, auto_pad, output_padding,
// output_shape) are resolved here; oneDNN gets non-negative padding only,
// and when ONNX's padding is negative (output_padding, or an output_shape
// larger than the natural size) the result is computed into a scratch
// buffer and copied into Y at its offset, the uncovered outputs getting the
// bias alone.
#include <algorithm>

#include "plugins/cpu/dnnl_common.h"
#include "ops/semantics/window.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_conv_common.h"
#include "plugins/cpu/nn_conv_naive.h"

namespace loom {
namespace cpu {
namespace {


// ONNX ConvTranspose-11: X [N, C, D1..Dn] (n = 1..3) with W
// [C, M / group, k1..kn] and optional B [M] gives Y [N, M, D1'..Dn'].
// Errors (INVALID_ARGUMENT): ranks, W[0] != C, C not divisible by group,
// B not [M], attribute lengths, kernel_shape differing from W, a negative
// output size.
class ConvTransposeKernel : public ConvLikeKernel<ConvTransposeKernel, semantics::ConvTransposeAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), b = ctx.Input(2), y;
    if (x.dtype() == LOOM_DTYPE_DOUBLE) return ComputeDouble(ctx, x, w, b);
    if (x.dtype() != LOOM_DTYPE_FLOAT) return UnsupportedDtype(label_, x.dtype());
    LOOM_SDK_RETURN_IF_ERROR(Begin(ctx, x, w, b, &y));
    if (y.num_elements() == 0) return Status::Ok();
    if (!ready_) return FillBias(b, y);  // no input channels, or padding trims every computed output
    float* dst = direct_ ? y.data<float>() : scratch_.data();
    LOOM_SDK_RETURN_IF_ERROR(Execute(ctx, x, w, b, dst, run_threads_));
    if (has_b_ && !bias_in_primitive_) {
      const int64_t rows = ts_[0] * ts_[1];
      AddBias(b.data<float>(), ts_[1], rows, semantics::Product(ts_) / rows, dst);
    }
    if (!direct_) CopyShifted(b, ts_, pb_, pl_, y);
    return Status::Ok();
  }

  // float64: plain loops (nn_conv_naive.h, the adjoint of a Conv), checked
  // like the float32 path.
  Status ComputeDouble(KernelContext& ctx, const Tensor& x, const Tensor& w, const Tensor& b) {
    const std::vector<int64_t> xs = x.shape(), ws = w.shape();
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvTransposeOperands(label_, group_, xs, ws, b));
    semantics::ConvTransposeGeometry geo;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, xs, ws, &geo));
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_DOUBLE, geo.OutputShape(xs[0], ws[1] * group_), &y));
    if (y.num_elements() == 0) return Status::Ok();
    const ConvGeometry g = ConvGeometry::ForTranspose(xs, ws, group_, geo);
    ConvBackwardNaive<double>(g, nullptr, w.data<double>(), x.data<double>(), y.data<double>(), nullptr, nullptr);
    if (b.present()) {
      const int64_t rows = y.dim(0) * y.dim(1);
      AddBias(b.data<double>(), y.dim(1), rows, y.num_elements() / rows, y.data<double>());
    }
    return Status::Ok();
  }

  // Checks the operand shapes, resolves ONNX's output size and padding,
  // sizes Y and (when anything is computed) builds the primitive.
  Status Configure(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, const std::vector<int64_t>& bs,
                   int threads) {
    Reset();
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvTransposeOperands(label_, group_, xs, ws, Tensor()));
    const int64_t N = xs[0], G = group_, Mg = ws[1], M = Mg * G;
    if (has_b_ && (bs.size() != 1 || bs[0] != M)) {
      return sdk::InvalidArgument(label_ + ": input B must be [" + std::to_string(M) + "]; found " + ShapeStr(bs));
    }
    const size_t n = xs.size() - 2;
    const std::vector<int64_t> k(ws.begin() + 2, ws.end());
    // Per axis: the full (unpadded) size, Y's size and ONNX's padding
    // (Y[j] = full[j + pb]; pb, pe may be negative).
    semantics::ConvTransposeGeometry geo;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, xs, ws, &geo));
    const std::vector<int64_t> &strides = geo.strides, &dil = geo.dilations, &full = geo.full, &out = geo.out;
    const std::vector<int64_t> &pb = geo.pads_begin, &pe = geo.pads_end;
    std::vector<int64_t> ys = {N, M};
    ys.insert(ys.end(), out.begin(), out.end());
    // oneDNN computes T[t] = full[t + pl] over [0, tlen) with pl, pr >= 0.
    std::vector<int64_t> pl(n), pr(n), ts = {N, M};
    bool direct = true, empty = false;
    for (size_t i = 0; i < n; ++i) {
      pl[i] = std::max<int64_t>(pb[i], 0);
      pr[i] = std::max<int64_t>(pe[i], 0);
      if (pl[i] != pb[i] || pr[i] != pe[i]) direct = false;
      ts.push_back(full[i] - pl[i] - pr[i]);
      if (ts.back() <= 0) empty = true;
    }
    ts_ = ts;
    pb_ = pb;
    pl_ = pl;
    direct_ = direct;
    Configured(xs, ws, bs, ys, threads);
    if (semantics::Product(ys) == 0 || semantics::Product(xs) == 0 || empty) return Status::Ok();  // Y = bias
    if (!direct) scratch_.resize(semantics::Product(ts));
    LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
      memory::desc x_md = PlainDesc(xs), y_md = PlainDesc(ts), b_md = PlainDesc({M});
      const memory::desc w_md = ConvTransposeWeightsDesc(ws, G);
      const auto prop = dnnl::prop_kind::forward_inference;
      const auto alg = dnnl::algorithm::deconvolution_direct;
      memory::dims dnnl_dil(n);
      for (size_t i = 0; i < n; ++i) dnnl_dil[i] = dil[i] - 1;
      // The layouts of X and Y (2-D, group 1), measured with oneDNN 2.6 on
      // PP-OCR's detection head (AVX-512): with few output channels (M < 8)
      // plain NCHW (its gemm kernel, 0.41 ms for 24 -> 1 channels at
      // 320x320 -> 640x640, against 1.70 ms in the nChw16c layout oneDNN
      // picks, which pads M to 16), else channels-last (0.46 ms against
      // 0.64 ms for 24 -> 24 at 160x160). Otherwise oneDNN's choice.
      // (Channels-last only where oneDNN runs AVX-512 kernels: measured there.)
      memory::desc x_use = Any(x_md), y_use = Any(y_md);
      // oneDNN's ISA values are nested bit masks (avx2_vnni is not above avx512_core).
      const auto core = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
      const bool avx512 = (static_cast<unsigned>(dnnl::get_effective_cpu_isa()) & core) == core;
      if (n == 2 && G == 1 && M < 8) {
        x_use = x_md;
        y_use = y_md;
      } else if (n == 2 && G == 1 && avx512) {
        x_use = ChannelsLastDesc(xs);
        y_use = ChannelsLastDesc(ts);
      }
      // oneDNN 2.6's jit deconvolution adds a bias slowly: 24 -> 24
      // channels at 240x240 -> 480x480 (PP-OCR's detection head at 960)
      // took 23.4 ms with it and 4.4 ms without, plus 0.6 ms for the add
      // below (standalone, one thread). Its gemm kernel (M < 8) keeps it.
      bias_in_primitive_ = !(has_b_ && n == 2 && G == 1 && M >= 8 && avx512);
      auto d = has_b_ && bias_in_primitive_ ? dnnl::deconvolution_forward::desc(prop, alg, x_use, Any(w_md), b_md, y_use,
                                                           Dims(strides), dnnl_dil, Dims(pl), Dims(pr))
                      : dnnl::deconvolution_forward::desc(prop, alg, x_use, Any(w_md), y_use,
                                                           Dims(strides), dnnl_dil, Dims(pl), Dims(pr));
      Bind<dnnl::deconvolution_forward::primitive_desc, dnnl::deconvolution_forward>(
          dnnl::deconvolution_forward::primitive_desc(d, UserScratchpad(), DnnlEngine()), x_md, w_md, y_md, b_md);
    }));
    ready_ = true;
    return Status::Ok();
  }

 private:
  // y [N, M, plane] += b[m] (`rows` = N * M).
  template <typename T>
  static void AddBias(const T* b, int64_t M, int64_t rows, int64_t plane, T* y) {
    for (int64_t i = 0; i < rows; ++i) {
      const T v = b[i % M];
      T* row = y + i * plane;
      for (int64_t j = 0; j < plane; ++j) row[j] += v;
    }
  }

  // Y [N, M, ...] = B broadcast over the spatial dims (0 without B).
  static Status FillBias(const Tensor& b, Tensor& y) {
    float* yp = y.data<float>();
    const int64_t N = y.dim(0), M = y.dim(1), plane = y.num_elements() / (N * M);
    for (int64_t i = 0; i < N * M; ++i) {
      const float v = b.present() ? b.data<float>()[i % M] : 0.0f;
      std::fill(yp + i * plane, yp + (i + 1) * plane, v);
    }
    return Status::Ok();
  }

  // Y[.., j...] = scratch[.., j + pb - pl ...] where that lies inside the
  // scratch shape `ts`, else the bias.
  void CopyShifted(const Tensor& b, const std::vector<int64_t>& ts, const std::vector<int64_t>& pb,
                   const std::vector<int64_t>& pl, Tensor& y) const {
    const std::vector<int64_t> ys = y.shape();
    float* yp = y.data<float>();
    std::vector<int64_t> idx(ys.size(), 0);
    const int64_t total = y.num_elements();
    for (int64_t flat = 0; flat < total; ++flat) {
      int64_t rem = flat, src = 0, stride = 1;
      bool inside = true;
      for (size_t a = ys.size(); a-- > 0;) idx[a] = rem % ys[a], rem /= ys[a];
      for (size_t a = ys.size(); a-- > 0;) {
        int64_t t = idx[a];
        if (a >= 2) {
          t += pb[a - 2] - pl[a - 2];
          if (t < 0 || t >= ts[a]) inside = false;
        }
        src += t * stride;
        stride *= ts[a];
      }
      yp[flat] = inside ? scratch_[src] : (b.present() ? b.data<float>()[idx[1]] : 0.0f);
    }
  }

  // The computed shape ts_ and ONNX's / oneDNN's leading padding of the
  // configuration; direct_: no negative padding, oneDNN writes Y itself.
  std::vector<int64_t> ts_, pb_, pl_;
  bool direct_ = true;
  std::vector<float> scratch_;   // the computed outputs when Y needs negative padding
};

}  // namespace

sdk::Status RegisterNnConvTransposeKernels(sdk::Registrar& reg) {
  return reg.Kernel<ConvTransposeKernel>("ConvTranspose", CpuFloatAndDouble());
}

}  // namespace cpu
}  // namespace loom
