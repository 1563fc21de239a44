// ConvTranspose (float32, 1-D to 3-D) on oneDNN's deconvolution_forward.
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

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

// ONNX ConvTranspose-11: X [N, C, D1..Dn] (n = 1..3) with W
// [C, M / group, k1..kn] and optional B [M] gives Y [N, M, D1'..Dn'].
// Errors (INVALID_ARGUMENT): ranks, W[0] != C, C not divisible by group,
// B not [M], attribute lengths, kernel_shape differing from W, a negative
// output size.
class ConvTransposeKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("group", &group_));
    if (group_ < 1) return sdk::InvalidArgument(label_ + ": group must be >= 1; found " + std::to_string(group_));
    has_b_ = info.num_inputs() > 2 && !info.input_name(2).empty();
    return attrs_.Read(info, label_);
  }

  // Builds the primitive for the planned shapes and reorders a constant W
  // once (a W that is not an initializer is reordered every run).
  Status Prepare(const sdk::PrepareContext& ctx) {
    const Tensor w = ctx.InputConstant(1);
    w_constant_ = w.present();
    std::vector<int64_t> xs, ws, bs;
    if (!ctx.InputShape(0, &xs) || !ctx.InputShape(1, &ws) || (has_b_ && !ctx.InputShape(2, &bs))) {
      return Status::Ok();  // sized at the first run
    }
    LOOM_SDK_RETURN_IF_ERROR(Configure(xs, ws, bs, ctx.num_threads()));
    if (w_constant_ && ready_) LOOM_SDK_RETURN_IF_ERROR(PackWeights(w));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), b = ctx.Input(2), y;
    if (x.dtype() != LOOM_DTYPE_FLOAT) return UnsupportedDtype(label_, x.dtype());
    const int threads = ctx.num_threads();
    if (!ShapeIs(x, xs_) || !ShapeIs(w, ws_) || (has_b_ && !ShapeIs(b, bs_)) || threads != threads_ || !configured_) {
      LOOM_SDK_RETURN_IF_ERROR(Configure(x.shape(), w.shape(), has_b_ ? b.shape() : std::vector<int64_t>{}, threads));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys_, &y));
    if (y.num_elements() == 0) return Status::Ok();
    if (!ready_) return FillBias(b, y);  // no input channels, or padding trims every computed output
    if (!w_packed_) LOOM_SDK_RETURN_IF_ERROR(PackWeights(w));
    if (!w_constant_) w_packed_ = false;  // W may change before the next run
    x_mem_.set_data_handle(x.raw_data());
    y_mem_.set_data_handle(direct_ ? y.raw_data() : scratch_.data());
    if (x_reorder_) LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, x_to_blk_, {{DNNL_ARG_FROM, x_mem_}, {DNNL_ARG_TO, x_blk_}}, threads));
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, x_reorder_ ? x_blk_ : x_mem_},
                                            {DNNL_ARG_WEIGHTS, w_blk_},
                                            {DNNL_ARG_DST, y_reorder_ ? y_blk_ : y_mem_}};
    if (has_b_) {
      b_mem_.set_data_handle(b.raw_data());
      args[DNNL_ARG_BIAS] = b_mem_;
    }
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, prim_, args, threads));
    if (y_reorder_) LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, y_from_blk_, {{DNNL_ARG_FROM, y_blk_}, {DNNL_ARG_TO, y_mem_}}, threads));
    if (!direct_) CopyShifted(b, ts_, pb_, pl_, y);
    return Status::Ok();
  }

 private:
  // Checks the operand shapes, resolves ONNX's output size and padding,
  // sizes Y and (when anything is computed) builds the primitive.
  Status Configure(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, const std::vector<int64_t>& bs,
                   int threads) {
    configured_ = ready_ = w_packed_ = false;
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvTransposeOperands(label_, group_, xs, ws, Tensor()));
    const int64_t N = xs[0], C = xs[1], G = group_, Mg = ws[1], M = Mg * G;
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
    int64_t xn = 1, yn = 1, tn = 1;
    for (int64_t d : xs) xn *= d;
    for (int64_t d : ys) yn *= d;
    for (size_t i = 0; i < n; ++i) {
      pl[i] = std::max<int64_t>(pb[i], 0);
      pr[i] = std::max<int64_t>(pe[i], 0);
      if (pl[i] != pb[i] || pr[i] != pe[i]) direct = false;
      ts.push_back(full[i] - pl[i] - pr[i]);
      if (ts.back() <= 0) empty = true;
    }
    for (int64_t d : ts) tn *= d;
    xs_ = xs;
    ws_ = ws;
    bs_ = bs;
    ys_ = ys;
    ts_ = ts;
    pb_ = pb;
    pl_ = pl;
    direct_ = direct;
    threads_ = threads;
    if (yn == 0 || xn == 0 || empty) {  // Compute fills Y with the bias
      configured_ = true;
      return Status::Ok();
    }
    if (!direct) scratch_.resize(tn);
    LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
      // ONNX's W [C, M / G, k...] is [G, C / G, M / G, k...]: oneDNN's
      // [G,] O, I, k... weights with the I and O strides swapped.
      int64_t K = 1;
      for (int64_t d : k) K *= d;
      std::vector<int64_t> wdims, wstrides;
      if (G > 1) {
        wdims = {G, Mg, C / G};
        wstrides = {(C / G) * Mg * K, K, Mg * K};
      } else {
        wdims = {M, C};
        wstrides = {K, M * K};
      }
      wdims.insert(wdims.end(), k.begin(), k.end());
      const memory::dims kstrides = PlainStrides(k);
      wstrides.insert(wstrides.end(), kstrides.begin(), kstrides.end());
      memory::desc x_md = PlainDesc(xs), y_md = PlainDesc(ts), b_md = PlainDesc({M});
      memory::desc w_md(Dims(wdims), memory::data_type::f32, Dims(wstrides));
      auto any = [](const memory::desc& md) { return memory::desc(md.dims(), memory::data_type::f32, memory::format_tag::any); };
      const auto prop = dnnl::prop_kind::forward_inference;
      const auto alg = dnnl::algorithm::deconvolution_direct;
      memory::dims dnnl_dil(n);
      for (size_t i = 0; i < n; ++i) dnnl_dil[i] = dil[i] - 1;
      auto d = has_b_ ? dnnl::deconvolution_forward::desc(prop, alg, any(x_md), any(w_md), b_md, any(y_md),
                                                           Dims(strides), dnnl_dil, Dims(pl), Dims(pr))
                      : dnnl::deconvolution_forward::desc(prop, alg, any(x_md), any(w_md), any(y_md),
                                                           Dims(strides), dnnl_dil, Dims(pl), Dims(pr));
      dnnl::deconvolution_forward::primitive_desc pd(d, DnnlEngine());
      prim_ = dnnl::deconvolution_forward(pd);
      x_mem_ = UnboundMemory(x_md);
      w_mem_ = UnboundMemory(w_md);
      y_mem_ = UnboundMemory(y_md);
      b_mem_ = UnboundMemory(b_md);
      x_reorder_ = pd.src_desc() != x_md;
      y_reorder_ = pd.dst_desc() != y_md;
      x_blk_ = x_reorder_ ? memory(pd.src_desc(), DnnlEngine()) : memory();
      y_blk_ = y_reorder_ ? memory(pd.dst_desc(), DnnlEngine()) : memory();
      w_blk_ = memory(pd.weights_desc(), DnnlEngine());
      if (x_reorder_) x_to_blk_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), x_md, DnnlEngine(), pd.src_desc()));
      if (y_reorder_) y_from_blk_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), pd.dst_desc(), DnnlEngine(), y_md));
      w_to_blk_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), w_md, DnnlEngine(), pd.weights_desc()));
    }));
    configured_ = ready_ = true;
    return Status::Ok();
  }

  // Reorders W into the primitive's weight layout.
  Status PackWeights(const Tensor& w) {
    w_mem_.set_data_handle(w.raw_data());
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, w_to_blk_, {{DNNL_ARG_FROM, w_mem_}, {DNNL_ARG_TO, w_blk_}}, threads_));
    w_packed_ = true;
    return Status::Ok();
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

  std::string label_;
  int64_t group_ = 1;
  semantics::ConvTransposeAttrs attrs_;
  bool has_b_ = false;
  // What the primitive was configured for: shapes, the computed shape ts_
  // and ONNX's / oneDNN's leading padding.
  std::vector<int64_t> xs_, ws_, bs_, ys_, ts_, pb_, pl_;
  bool direct_ = true;       // no negative padding: oneDNN writes Y itself
  int threads_ = 0;
  bool configured_ = false;  // shapes checked and Y sized
  bool ready_ = false;       // primitive built (something is computed)
  bool w_constant_ = false;  // W is an initializer: packed once per configuration
  bool w_packed_ = false;    // w_blk_ holds W for the current primitive
  dnnl::deconvolution_forward prim_;
  memory x_mem_, w_mem_, y_mem_, b_mem_;  // the tensors (plain layouts)
  memory x_blk_, w_blk_, y_blk_;          // oneDNN's chosen layouts
  dnnl::reorder x_to_blk_, w_to_blk_, y_from_blk_;
  bool x_reorder_ = false, y_reorder_ = false;
  std::vector<float> scratch_;   // the computed outputs when Y needs negative padding
};

}  // namespace

sdk::Status RegisterNnConvTransposeKernels(sdk::Registrar& reg) {
  return reg.Kernel<ConvTransposeKernel>("ConvTranspose", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}});
}

}  // namespace cpu
}  // namespace loom
