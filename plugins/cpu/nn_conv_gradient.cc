// ConvGradient (the gradient of ONNX Conv, Caffe2's op name and output
// order): from X, W and dY, the gradients dW, dB (optional) and dX
// (optional). float32 runs oneDNN's convolution_backward_weights (dW and dB
// in one pass) and convolution_backward_data, each in the layouts oneDNN
// picks (hinted by a forward_training convolution of the same geometry),
// with X, dY and W reordered in and dW and dX reordered out through per-call
// scratch (nn_conv_backward.h); float64, and float32 shapes with an empty dim, run the plain
// loops of nn_conv_naive.h, which stay the reference the oneDNN path is
// tested against. The window attributes and group are Conv's (the gradient
// maker copies them). Prepare builds the primitives when the plan knows the
// shapes; Compute rebuilds them only when the shapes, the outputs asked for
// or the threads change.
#include <optional>

#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/dnnl_window.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_conv_backward.h"
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
      return backward_.Run(ctx, label_, threads_, x, w, dy, dw, db, dx);
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
      std::optional<dnnl::convolution_backward_data::primitive_desc> bd;
      if (dx) {
        const dnnl::convolution_backward_data::desc bd_d(direct, any(x_md), any(w_md), any(y_md), strides, dilations,
                                                         pads_begin, pads_end);
        bd.emplace(bd_d, UserScratchpad(), DnnlEngine(), fwd);
      }
      backward_.Build(bw, bd ? &*bd : nullptr, x_md, w_md, y_md, b_md, /*bias=*/db);
    }));
    xs_ = xs;
    ws_ = ws;
    threads_ = threads;
    want_db_ = db;
    want_dx_ = dx;
    configured_ = true;
    return Status::Ok();
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
  bool configured_ = false, want_db_ = false, want_dx_ = false;
  std::vector<int64_t> xs_, ws_;
  int threads_ = 0;
  DnnlConvBackward backward_;
};

}  // namespace

Status RegisterNnConvGradientKernels(sdk::Registrar& reg) {
  return reg.Kernel<ConvGradientKernel>("ConvGradient", CpuFloatAndDouble());
}

}  // namespace cpu
}  // namespace loom
