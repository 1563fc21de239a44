// Conv and FusedConv (float32, 1-D to 3-D) on oneDNN's convolution_forward
// in oneDNN's blocked layouts (reorders in and out), built at plan time for
// the planned shapes, with constant weights reordered once.
// FusedConv's activation is a oneDNN eltwise post-op, applied while the
// output is still in cache.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "plugins/cpu/dnnl_common.h"
#include "ops/semantics/activation.h"
#include "plugins/cpu/dnnl_window.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

// FusedConv's activation (ops/semantics/activation.h) as oneDNN post-ops.
// oneDNN 2.6 has no hardsigmoid eltwise, so HardSigmoid is linear
// (alpha * x + beta) then clip to [0, 1]; its hardswish is
// x * min(max(x + 3, 0), 6) / 6, ONNX's HardSwish.
struct Activation : semantics::FusedActivation {
  dnnl::post_ops PostOps() const {
    using A = dnnl::algorithm;
    dnnl::post_ops ops;
    switch (kind) {
      case kNone: break;
      case kRelu: ops.append_eltwise(1.0f, A::eltwise_relu, 0.0f, 0.0f); break;
      case kLeakyRelu: ops.append_eltwise(1.0f, A::eltwise_relu, alpha, 0.0f); break;
      case kClip: ops.append_eltwise(1.0f, A::eltwise_clip, alpha, beta); break;
      case kSigmoid: ops.append_eltwise(1.0f, A::eltwise_logistic, 0.0f, 0.0f); break;
      case kTanh: ops.append_eltwise(1.0f, A::eltwise_tanh, 0.0f, 0.0f); break;
      case kHardSigmoid:
        ops.append_eltwise(1.0f, A::eltwise_linear, alpha, beta);
        ops.append_eltwise(1.0f, A::eltwise_clip, 0.0f, 1.0f);
        break;
      case kHardSwish: ops.append_eltwise(1.0f, A::eltwise_hardswish, 0.0f, 0.0f); break;
    }
    return ops;
  }
};

// ONNX Conv-11: X [N, C, D1..Dn] (n = 1..3) convolved with W
// [M, C / group, k1..kn], plus the optional bias B [M], gives
// Y [N, M, D1'..Dn']. Attributes: group, kernel_shape (from W if absent),
// strides, dilations, pads, auto_pad. Errors (INVALID_ARGUMENT, at plan time
// when the plan knows the shapes): ranks, W[1] != C / group, C or M not
// divisible by group, B not [M], kernel_shape differing from W, an input
// smaller than the window.
// Prepare builds the primitive for the planned shapes and, when W is an
// initializer, reorders it into oneDNN's blocked layout once; a W that is
// not constant is reordered on every run. FusedConv (FusedConvKernel
// below) is the same with act_ set.
class ConvKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("group", &group_));
    if (group_ < 1) return sdk::InvalidArgument(label_ + ": group must be >= 1; found " + std::to_string(group_));
    has_b_ = info.num_inputs() > 2 && !info.input_name(2).empty();
    return attrs_.Read(info, label_);
  }

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
    const int threads = ctx.num_threads();
    if (!ShapeIs(x, xs_) || !ShapeIs(w, ws_) || (has_b_ && !ShapeIs(b, bs_)) || threads != threads_ || !configured_) {
      LOOM_SDK_RETURN_IF_ERROR(Configure(x.shape(), w.shape(), has_b_ ? b.shape() : std::vector<int64_t>{}, threads));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys_, &y));
    if (y.num_elements() == 0) return Status::Ok();
    if (x.num_elements() == 0) return FillBias(b, ys_[0], ys_[1], act_, y);  // no input channels or all-padding windows
    if (!w_packed_) LOOM_SDK_RETURN_IF_ERROR(PackWeights(w));
    if (!w_constant_) w_packed_ = false;  // W may change before the next run
    x_mem_.set_data_handle(x.raw_data());
    y_mem_.set_data_handle(y.raw_data());
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
    return Status::Ok();
  }

 protected:
  Activation act_;  // kNone for Conv

 private:
  // Checks the operand shapes, sizes Y and (for a non-empty convolution)
  // builds the primitive and its reorders for them.
  Status Configure(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, const std::vector<int64_t>& bs,
                   int threads) {
    configured_ = ready_ = w_packed_ = false;
    std::vector<int64_t> k;
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvOperands(label_, group_, xs, ws, Tensor(), attrs_.kernel, &k));
    const int64_t N = xs[0], C = xs[1], M = ws[0], G = group_;
    if (has_b_ && (bs.size() != 1 || bs[0] != M)) {
      return sdk::InvalidArgument(label_ + ": input B must be [" + std::to_string(M) + "]; found " + ShapeStr(bs));
    }
    const std::vector<int64_t> spatial(xs.begin() + 2, xs.end());
    Window win;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, spatial, k, &win));
    std::vector<int64_t> ys = {N, M};
    ys.insert(ys.end(), win.out.begin(), win.out.end());
    xs_ = xs;
    ws_ = ws;
    bs_ = bs;
    ys_ = ys;
    threads_ = threads;
    if (Product(ys) == 0 || Product(xs) == 0) {  // Compute fills Y without a primitive
      configured_ = true;
      return Status::Ok();
    }
    LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
      // Grouped weights are oneDNN's [G, M / G, C / G, k...], which is
      // exactly the row-major [M, C / G, k...] buffer.
      std::vector<int64_t> wdims = ws;
      if (G > 1) {
        wdims = {G, M / G, C / G};
        wdims.insert(wdims.end(), k.begin(), k.end());
      }
      memory::desc x_md = PlainDesc(xs), w_md = PlainDesc(wdims), y_md = PlainDesc(ys), b_md = PlainDesc({M});
      // Let oneDNN pick its blocked layouts (much faster than plain
      // NCHW, above all for depthwise and 1x1 convolutions); reorders
      // move X in and Y out, and W once when it is constant.
      auto any = [](const memory::desc& md) { return memory::desc(md.dims(), memory::data_type::f32, memory::format_tag::any); };
      const auto prop = dnnl::prop_kind::forward_inference;
      const auto alg = dnnl::algorithm::convolution_direct;
      auto d = has_b_ ? dnnl::convolution_forward::desc(prop, alg, any(x_md), any(w_md), b_md, any(y_md),
                                                         Dims(win.strides), win.DnnlDilations(), Dims(win.pads_begin),
                                                         Dims(win.dnnl_pads_end))
                      : dnnl::convolution_forward::desc(prop, alg, any(x_md), any(w_md), any(y_md), Dims(win.strides),
                                                         win.DnnlDilations(), Dims(win.pads_begin),
                                                         Dims(win.dnnl_pads_end));
      dnnl::primitive_attr attr;
      if (act_.kind != Activation::kNone) attr.set_post_ops(act_.PostOps());
      dnnl::convolution_forward::primitive_desc pd(d, attr, DnnlEngine());
      prim_ = dnnl::convolution_forward(pd);
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

  static int64_t Product(const std::vector<int64_t>& v) {
    int64_t p = 1;
    for (int64_t d : v) p *= d;
    return p;
  }

  // Y [N, M, ...] = act(B) broadcast over the spatial dims (B = 0 if absent).
  static Status FillBias(const Tensor& b, int64_t N, int64_t M, const Activation& act, Tensor& y) {
    float* yp = y.data<float>();
    const int64_t plane = y.num_elements() / (N * M);
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t m = 0; m < M; ++m) {
        const float v = act.Apply(b.present() ? b.data<float>()[m] : 0.0f);
        std::fill(yp + (n * M + m) * plane, yp + (n * M + m + 1) * plane, v);
      }
    }
    return Status::Ok();
  }

  std::string label_;
  int64_t group_ = 1;
  bool has_b_ = false;
  WindowAttrs attrs_;
  // What the primitive was configured for.
  std::vector<int64_t> xs_, ws_, bs_, ys_;
  int threads_ = 0;
  bool configured_ = false;  // shapes checked and Y sized
  bool ready_ = false;       // primitive built (a non-empty convolution)
  bool w_constant_ = false;  // W is an initializer: packed once per configuration
  bool w_packed_ = false;    // w_blk_ holds W for the current primitive
  dnnl::convolution_forward prim_;
  memory x_mem_, w_mem_, y_mem_, b_mem_;     // the tensors (plain layouts)
  memory x_blk_, w_blk_, y_blk_;             // oneDNN's chosen layouts
  dnnl::reorder x_to_blk_, w_to_blk_, y_from_blk_;
  bool x_reorder_ = false, y_reorder_ = false;
};

// FusedConv: Conv followed by `activation` (see Activation), as one oneDNN
// primitive. Errors: Conv's, plus an unknown activation or a wrong
// activation_params count.
class FusedConvKernel : public ConvKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(ConvKernel::Init(info));
    return act_.Read(info, OpLabel(info));
  }
};

}  // namespace

sdk::Status RegisterNnConvKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConvKernel>("Conv", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}}));
  return reg.Kernel<FusedConvKernel>("FusedConv", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}});
}

}  // namespace cpu
}  // namespace loom
