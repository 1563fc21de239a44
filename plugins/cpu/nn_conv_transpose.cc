// ConvTranspose (float32, 1-D to 3-D) on oneDNN's deconvolution_forward.
// ONNX's output size and padding (pads, auto_pad, output_padding,
// output_shape) are resolved here; oneDNN gets non-negative padding only,
// and when ONNX's padding is negative (output_padding, or an output_shape
// larger than the natural size) the result is computed into a scratch
// buffer and copied into Y at its offset, the uncovered outputs getting the
// bias alone.
#include <cstring>

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
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), b = ctx.Input(2), y;
    if (x.dtype() != LOOM_DTYPE_FLOAT) return UnsupportedDtype(label_, x.dtype());
    const std::vector<int64_t> xs = x.shape(), ws = w.shape();
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvTransposeOperands(label_, group_, xs, ws, b));
    const int64_t N = xs[0], C = xs[1], G = group_, Mg = ws[1], M = Mg * G;
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
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    // oneDNN computes T[t] = full[t + pl] over [0, tlen) with pl, pr >= 0.
    std::vector<int64_t> pl(n), pr(n), ts = {N, M};
    bool direct = true, empty = x.num_elements() == 0;
    for (size_t i = 0; i < n; ++i) {
      pl[i] = std::max<int64_t>(pb[i], 0);
      pr[i] = std::max<int64_t>(pe[i], 0);
      if (pl[i] != pb[i] || pr[i] != pe[i]) direct = false;
      ts.push_back(full[i] - pl[i] - pr[i]);
      if (ts.back() <= 0) empty = true;
    }
    if (empty) return FillBias(b, y);  // no input channels, or padding trims every computed output
    float* dst = y.data<float>();
    if (!direct) {
      int64_t tn = 1;
      for (int64_t d : ts) tn *= d;
      scratch_.resize(tn);
      dst = scratch_.data();
    }
    const int threads = ctx.num_threads();
    std::vector<int64_t> key = xs;
    key.insert(key.end(), ws.begin(), ws.end());
    key.insert(key.end(), ts.begin(), ts.end());
    key.insert(key.end(), pl.begin(), pl.end());
    key.push_back(b.present());
    key.push_back(threads);
    if (key != key_) {
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
        auto d = b.present() ? dnnl::deconvolution_forward::desc(prop, alg, any(x_md), any(w_md), b_md, any(y_md),
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
        w_copy_.clear();  // forces the weight reorder on the next run
      }));
      key_ = key;
    }
    x_mem_.set_data_handle(x.raw_data());
    w_mem_.set_data_handle(w.raw_data());
    y_mem_.set_data_handle(dst);
    // Reorder W only when its values changed since the last run.
    const size_t wbytes = static_cast<size_t>(w.num_elements()) * sizeof(float);
    if (w_copy_.size() != wbytes || std::memcmp(w_copy_.data(), w.raw_data(), wbytes) != 0) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, w_to_blk_, {{DNNL_ARG_FROM, w_mem_}, {DNNL_ARG_TO, w_blk_}}, threads));
      w_copy_.assign(static_cast<const char*>(w.raw_data()), static_cast<const char*>(w.raw_data()) + wbytes);
    }
    if (x_reorder_) LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, x_to_blk_, {{DNNL_ARG_FROM, x_mem_}, {DNNL_ARG_TO, x_blk_}}, threads));
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, x_reorder_ ? x_blk_ : x_mem_},
                                            {DNNL_ARG_WEIGHTS, w_blk_},
                                            {DNNL_ARG_DST, y_reorder_ ? y_blk_ : y_mem_}};
    if (b.present()) {
      b_mem_.set_data_handle(b.raw_data());
      args[DNNL_ARG_BIAS] = b_mem_;
    }
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, prim_, args, threads));
    if (y_reorder_) LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, y_from_blk_, {{DNNL_ARG_FROM, y_blk_}, {DNNL_ARG_TO, y_mem_}}, threads));
    if (!direct) CopyShifted(b, ts, pb, pl, y);
    return Status::Ok();
  }

 private:
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
  std::vector<int64_t> key_;  // shapes, padding, bias present, threads of the cached primitive
  dnnl::deconvolution_forward prim_;
  memory x_mem_, w_mem_, y_mem_, b_mem_;  // the tensors (plain layouts)
  memory x_blk_, w_blk_, y_blk_;          // oneDNN's chosen layouts
  dnnl::reorder x_to_blk_, w_to_blk_, y_from_blk_;
  bool x_reorder_ = false, y_reorder_ = false;
  std::vector<char> w_copy_;     // W's values at the last weight reorder
  std::vector<float> scratch_;   // the computed outputs when Y needs negative padding
};

}  // namespace

sdk::Status RegisterNnConvTransposeKernels(sdk::Registrar& reg) {
  return reg.Kernel<ConvTransposeKernel>("ConvTranspose", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}});
}

}  // namespace cpu
}  // namespace loom
