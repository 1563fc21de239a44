// ConvGradient (the gradient of ONNX Conv, Caffe2's op name and output
// order): from X, W and dY, the gradients dW, dB (optional) and dX
// (optional). float32 runs oneDNN's convolution_backward_weights (dW and dB
// in one pass) and convolution_backward_data, each in the layouts oneDNN
// picks (hinted by a forward_training convolution of the same geometry),
// with X, dY and W reordered in and dW and dX reordered out through per-call
// scratch; float64, and float32 shapes with an empty dim, run the plain
// loops of nn_conv_naive.h, which stay the reference the oneDNN path is
// tested against. The window attributes and group are Conv's (the gradient
// maker copies them). Prepare builds the primitives when the plan knows the
// shapes; Compute rebuilds them only when the shapes, the outputs asked for
// or the threads change.
#include <unordered_map>

#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/dnnl_window.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_conv_naive.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

class ConvGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("group", &group_));
    if (group_ < 1) return sdk::InvalidArgument(label_ + ": group must be >= 1; found " + std::to_string(group_));
    return attrs_.Read(info, label_);
  }

  Status Prepare(const sdk::PrepareContext& ctx) {
    if (ctx.InputDType(0) != LOOM_DTYPE_FLOAT) return Status::Ok();
    std::vector<int64_t> xs, ws;
    if (!ctx.InputShape(0, &xs) || !ctx.InputShape(1, &ws)) return Status::Ok();  // at the first run
    const bool db = ctx.num_outputs() > 1 && ctx.OutputDType(1) != LOOM_DTYPE_UNDEFINED;
    const bool dx = ctx.num_outputs() > 2 && ctx.OutputDType(2) != LOOM_DTYPE_UNDEFINED;
    Window win;
    std::vector<int64_t> ys;
    LOOM_SDK_RETURN_IF_ERROR(Geometry(xs, ws, &win, &ys));
    return Configure(xs, ws, ys, win, db, dx, ctx.num_threads());
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), dy = ctx.Input(2);
    const std::vector<int64_t> xs = x.shape(), ws = w.shape();
    Window win;
    std::vector<int64_t> ys;
    LOOM_SDK_RETURN_IF_ERROR(Geometry(xs, ws, &win, &ys));
    if (dy.shape() != ys || dy.dtype() != x.dtype() || w.dtype() != x.dtype()) {
      return sdk::InvalidArgument(label_ + ": dY must be " + sdk::DTypeName(x.dtype()) + ShapeStr(ys) + " (Conv's Y); found " +
                                  sdk::DTypeName(dy.dtype()) + ShapeStr(dy.shape()));
    }
    Tensor dw, db, dx;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ws, &dw));
    if (ctx.OutputRequested(1)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, x.dtype(), {ws[0]}, &db));
    if (ctx.OutputRequested(2)) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, x.dtype(), xs, &dx));
    const bool empty = semantics::Product(xs) == 0 || semantics::Product(ws) == 0 || semantics::Product(ys) == 0;
    if (x.dtype() == LOOM_DTYPE_FLOAT && !empty) {
      const int threads = ctx.num_threads();
      if (!configured_ || xs != xs_ || ws != ws_ || threads != threads_ || db.present() != want_db_ ||
          dx.present() != want_dx_) {
        LOOM_SDK_RETURN_IF_ERROR(Configure(xs, ws, ys, win, db.present(), dx.present(), threads));
      }
      return RunDnnl(ctx, x, w, dy, dw, db, dx);
    }
    const ConvGeometry g(xs, ws, group_, win);
    if (x.dtype() == LOOM_DTYPE_FLOAT) RunNaive<float>(g, x, w, dy, &dw, &db, &dx);
    else RunNaive<double>(g, x, w, dy, &dw, &db, &dx);
    return Status::Ok();
  }

 private:
  // Checks X and W (Conv's rules) and resolves the window and Y's shape.
  Status Geometry(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, Window* win,
                  std::vector<int64_t>* ys) const {
    std::vector<int64_t> k;
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvOperands(label_, group_, xs, ws, Tensor(), attrs_.kernel, &k));
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, {xs.begin() + 2, xs.end()}, k, win));
    *ys = win->OutputShape(xs[0], ws[0]);
    return Status::Ok();
  }

  // Builds the backward-weights primitive (with dB when `db`) and, when
  // `dx`, the backward-data one, with the reorders around them.
  Status Configure(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, const std::vector<int64_t>& ys,
                   const Window& win, bool db, bool dx, int threads) {
    configured_ = false;
    if (semantics::Product(xs) == 0 || semantics::Product(ws) == 0 || semantics::Product(ys) == 0) return Status::Ok();
    const int64_t G = group_, M = ws[0], C = xs[1];
    // Grouped weights are oneDNN's [G, M / G, C / G, k...]: the same bytes
    // as the row-major [M, C / G, k...].
    std::vector<int64_t> wdims = ws;
    if (G > 1) {
      wdims = {G, M / G, C / G};
      wdims.insert(wdims.end(), ws.begin() + 2, ws.end());
    }
    const memory::desc x_md = PlainDesc(xs), w_md = PlainDesc(wdims), y_md = PlainDesc(ys), b_md = PlainDesc({M});
    const memory::dims strides = Dims(win.strides), dilations = win.DnnlDilations(), pads_begin = Dims(win.pads_begin),
                       pads_end = Dims(win.dnnl_pads_end);
    const auto any = [](const memory::desc& md) {
      return memory::desc(md.dims(), memory::data_type::f32, memory::format_tag::any);
    };
    const auto direct = dnnl::algorithm::convolution_direct;
    LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
      // The forward primitive only hints the backward ones' layouts.
      const auto fwd_d = db ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, direct, any(x_md),
                                                              any(w_md), b_md, any(y_md), strides, dilations, pads_begin,
                                                              pads_end)
                            : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, direct, any(x_md),
                                                              any(w_md), any(y_md), strides, dilations, pads_begin,
                                                              pads_end);
      const dnnl::convolution_forward::primitive_desc fwd(fwd_d, DnnlEngine());
      const auto bw_d = db ? dnnl::convolution_backward_weights::desc(direct, any(x_md), any(w_md), b_md, any(y_md), strides,
                                                                      dilations, pads_begin, pads_end)
                           : dnnl::convolution_backward_weights::desc(direct, any(x_md), any(w_md), any(y_md), strides,
                                                                      dilations, pads_begin, pads_end);
      const dnnl::convolution_backward_weights::primitive_desc bw(bw_d, UserScratchpad(), DnnlEngine(), fwd);
      bwd_weights_ = dnnl::convolution_backward_weights(bw);
      bw_scratchpad_.Reset(bw.scratchpad_desc());
      x_.Make(x_md, bw.src_desc(), /*input=*/true);
      dy_w_.Make(y_md, bw.diff_dst_desc(), /*input=*/true);
      dw_.Make(w_md, bw.diff_weights_desc(), /*input=*/false);
      db_.Make(b_md, db ? bw.diff_bias_desc() : b_md, /*input=*/false);
      if (dx) {
        const dnnl::convolution_backward_data::desc bd_d(direct, any(x_md), any(w_md), any(y_md), strides, dilations,
                                                         pads_begin, pads_end);
        const dnnl::convolution_backward_data::primitive_desc bd(bd_d, UserScratchpad(), DnnlEngine(), fwd);
        bwd_data_ = dnnl::convolution_backward_data(bd);
        bd_scratchpad_.Reset(bd.scratchpad_desc());
        // dY is reordered once when both primitives read the same layout.
        dy_same_ = bd.diff_dst_desc() == bw.diff_dst_desc();
        dy_d_.Make(y_md, bd.diff_dst_desc(), /*input=*/true);
        w_.Make(w_md, bd.weights_desc(), /*input=*/true);
        dx_.Make(x_md, bd.diff_src_desc(), /*input=*/false);
      }
    }));
    xs_ = xs;
    ws_ = ws;
    threads_ = threads;
    want_db_ = db;
    want_dx_ = dx;
    configured_ = true;
    return Status::Ok();
  }

  Status RunDnnl(KernelContext& ctx, const Tensor& x, const Tensor& w, const Tensor& dy, Tensor& dw, Tensor& db,
                 Tensor& dx) {
    const int threads = threads_;
    memory src, diff_dst, diff_weights, diff_bias;
    LOOM_SDK_RETURN_IF_ERROR(x_.Bind(ctx, x.raw_data(), &src));
    LOOM_SDK_RETURN_IF_ERROR(dy_w_.Bind(ctx, dy.raw_data(), &diff_dst));
    LOOM_SDK_RETURN_IF_ERROR(dw_.Bind(ctx, dw.raw_data(), &diff_weights));
    LOOM_SDK_RETURN_IF_ERROR(x_.ReorderIn(label_, threads));
    LOOM_SDK_RETURN_IF_ERROR(dy_w_.ReorderIn(label_, threads));
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_DIFF_WEIGHTS, diff_weights}};
    if (want_db_) {
      LOOM_SDK_RETURN_IF_ERROR(db_.Bind(ctx, db.raw_data(), &diff_bias));
      args[DNNL_ARG_DIFF_BIAS] = diff_bias;
    }
    LOOM_SDK_RETURN_IF_ERROR(bw_scratchpad_.Bind(ctx, &args));
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, bwd_weights_, args, threads));
    LOOM_SDK_RETURN_IF_ERROR(dw_.ReorderOut(label_, threads));
    if (want_db_) LOOM_SDK_RETURN_IF_ERROR(db_.ReorderOut(label_, threads));
    if (!want_dx_) return Status::Ok();
    memory weights, diff_src, dy_d = diff_dst;
    if (!dy_same_) {
      LOOM_SDK_RETURN_IF_ERROR(dy_d_.Bind(ctx, dy.raw_data(), &dy_d));
      LOOM_SDK_RETURN_IF_ERROR(dy_d_.ReorderIn(label_, threads));
    }
    LOOM_SDK_RETURN_IF_ERROR(w_.Bind(ctx, w.raw_data(), &weights));
    LOOM_SDK_RETURN_IF_ERROR(w_.ReorderIn(label_, threads));
    LOOM_SDK_RETURN_IF_ERROR(dx_.Bind(ctx, dx.raw_data(), &diff_src));
    std::unordered_map<int, memory> dargs = {
        {DNNL_ARG_DIFF_DST, dy_d}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DIFF_SRC, diff_src}};
    LOOM_SDK_RETURN_IF_ERROR(bd_scratchpad_.Bind(ctx, &dargs));
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, bwd_data_, dargs, threads));
    return dx_.ReorderOut(label_, threads);
  }

  template <typename T>
  static void RunNaive(const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor& dy, Tensor* dw, Tensor* db,
                       Tensor* dx) {
    ConvBackwardNaive<T>(g, x.data<T>(), w.data<T>(), dy.data<T>(), dx->present() ? dx->data<T>() : nullptr,
                         dw->data<T>(), db->present() ? db->data<T>() : nullptr);
  }

  int64_t group_ = 1;
  WindowAttrs attrs_;
  // What the primitives were built for.
  bool configured_ = false, want_db_ = false, want_dx_ = false, dy_same_ = false;
  std::vector<int64_t> xs_, ws_;
  int threads_ = 0;
  dnnl::convolution_backward_weights bwd_weights_;
  dnnl::convolution_backward_data bwd_data_;
  DnnlScratchpad bw_scratchpad_, bd_scratchpad_;
  DnnlOperand x_, dy_w_, dw_, db_;  // backward weights: X, dY in; dW, dB out
  DnnlOperand dy_d_, w_, dx_;       // backward data: dY, W in; dX out
};

}  // namespace

Status RegisterNnConvGradientKernels(sdk::Registrar& reg) {
  return reg.Kernel<ConvGradientKernel>("ConvGradient", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE}}}});
}

}  // namespace cpu
}  // namespace loom
