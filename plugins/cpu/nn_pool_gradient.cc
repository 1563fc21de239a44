// MaxPoolGradient and AveragePoolGradient (the gradients of ONNX MaxPool-12
// and AveragePool-19, Caffe2's names and inputs X, Y, dY): dX, with the
// forward op's attributes (the gradient maker copies them). float32 runs
// oneDNN's pooling_v2_backward on the channel-blocked layout (reorders in
// and out through per-call scratch, as the forward pool); max pooling's
// backward needs the forward's workspace (where each maximum was), which
// the kernel makes by running the forward_training pool on X first (a pass
// over X, several times cheaper than the backward loops it replaces).
// float64, shapes with an empty dim, and AveragePool with
// count_include_pad where a ceil_mode window overhangs the padding (ONNX
// divides by fewer taps than oneDNN) run the plain loops of
// nn_pool_naive.h, which stay the reference the oneDNN path is tested
// against. On exact ties in a window, the loops give dY to the first
// maximum in window order (PyTorch's rule); oneDNN's float32 kernels pick
// one of them as they scan.
#include <string>
#include <unordered_map>
#include <utility>

#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/dnnl_window.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_pool_naive.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

template <bool kMax>
class PoolGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Read(info, label_));
    if (attrs_.kernel.empty()) return sdk::InvalidArgument(label_ + ": attribute kernel_shape is required");
    include_pad_ = info.IntOr("count_include_pad", 0) != 0;
    return Status::Ok();
  }

  Status Prepare(const sdk::PrepareContext& ctx) {
    std::vector<int64_t> xs;
    if (ctx.InputDType(0) != LOOM_DTYPE_FLOAT || !ctx.InputShape(0, &xs)) return Status::Ok();
    Window win;
    std::vector<int64_t> ys;
    LOOM_SDK_RETURN_IF_ERROR(Geometry(xs, &win, &ys));
    return Configure(xs, ys, win, ctx.num_threads());
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), dy = ctx.Input(2), dx;
    const std::vector<int64_t> xs = x.shape();
    Window win;
    std::vector<int64_t> ys;
    LOOM_SDK_RETURN_IF_ERROR(Geometry(xs, &win, &ys));
    if (dy.shape() != ys || dy.dtype() != x.dtype()) {
      return sdk::InvalidArgument(label_ + ": dY must be " + sdk::DTypeName(x.dtype()) + ShapeStr(ys) +
                                  " (the pool's Y); found " + sdk::DTypeName(dy.dtype()) + ShapeStr(dy.shape()));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &dx));
    if (x.num_elements() == 0) return Status::Ok();
    const int threads = ctx.num_threads();
    if (x.dtype() == LOOM_DTYPE_FLOAT) {
      if (!configured_ || xs != xs_ || threads != threads_) LOOM_SDK_RETURN_IF_ERROR(Configure(xs, ys, win, threads));
      if (ready_) return RunDnnl(ctx, x, dy, dx);
    }
    const PoolGeometry p(xs, win);
    if (x.dtype() == LOOM_DTYPE_FLOAT) {
      PoolBackwardNaive<float>(p, kMax, include_pad_, x.data<float>(), dy.data<float>(), dx.data<float>(), threads);
    } else {
      PoolBackwardNaive<double>(p, kMax, include_pad_, x.data<double>(), dy.data<double>(), dx.data<double>(), threads);
    }
    return Status::Ok();
  }

 private:
  Status Geometry(const std::vector<int64_t>& xs, Window* win, std::vector<int64_t>* ys) const {
    if (xs.size() < 3 || xs.size() > 5) {
      return sdk::InvalidArgument(label_ + ": input X must be [N, C, D...] with 1 to 3 spatial dims; found " + ShapeStr(xs));
    }
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, {xs.begin() + 2, xs.end()}, attrs_.kernel, win));
    *ys = win->OutputShape(xs[0], xs[1]);
    return Status::Ok();
  }

  // Whether ONNX's count_include_pad divisor differs from oneDNN's (the
  // kernel size) somewhere: a ceil_mode window past the explicit padding.
  bool AverageNeedsRescale(const std::vector<int64_t>& xs, const Window& w) const {
    if (kMax || !include_pad_) return false;
    for (size_t i = 0; i + 2 < xs.size(); ++i) {
      const int64_t limit = xs[2 + i] + w.pads_end[i];
      const int64_t last = (w.out[i] - 1) * w.strides[i] - w.pads_begin[i] + (w.kernel[i] - 1) * w.dilations[i];
      if (last >= limit) return true;
    }
    return false;
  }

  // Builds the primitives for X `xs` (float32): the forward_training pool
  // (max: its workspace) and the backward, on the channel-blocked layout
  // when oneDNN has a jit kernel for it there.
  Status Configure(const std::vector<int64_t>& xs, const std::vector<int64_t>& ys, const Window& win, int threads) {
    configured_ = true;
    ready_ = false;
    xs_ = xs;
    threads_ = threads;
    if (semantics::Product(xs) == 0 || semantics::Product(ys) == 0 || AverageNeedsRescale(xs, win)) return Status::Ok();
    LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
      const auto alg = kMax ? dnnl::algorithm::pooling_max
                            : (include_pad_ ? dnnl::algorithm::pooling_avg_include_padding
                                            : dnnl::algorithm::pooling_avg_exclude_padding);
      const memory::desc x_md = PlainDesc(xs), y_md = PlainDesc(ys);
      const memory::format_tag tag = xs.size() == 3   ? memory::format_tag::nCw16c
                                     : xs.size() == 4 ? memory::format_tag::nChw16c
                                                      : memory::format_tag::nCdhw16c;
      auto make = [&](const memory::desc& xd, const memory::desc& yd) {
        const dnnl::pooling_v2_forward::desc fd(dnnl::prop_kind::forward_training, alg, xd, yd, Dims(win.strides),
                                                Dims(win.kernel), win.DnnlDilations(), Dims(win.pads_begin),
                                                Dims(win.dnnl_pads_end));
        dnnl::pooling_v2_forward::primitive_desc fwd(fd, UserScratchpad(), DnnlEngine());
        const dnnl::pooling_v2_backward::desc bd(alg, xd, yd, Dims(win.strides), Dims(win.kernel), win.DnnlDilations(),
                                                 Dims(win.pads_begin), Dims(win.dnnl_pads_end));
        dnnl::pooling_v2_backward::primitive_desc bwd(bd, UserScratchpad(), DnnlEngine(), fwd);
        return std::make_pair(fwd, bwd);
      };
      // oneDNN 2.6 pools plain NCHW with a scalar kernel, about 10x slower
      // than its jit kernel on nChw16c (see nn_pool.cc): blocked when jit.
      auto pds = make(x_md, y_md);
      const memory::desc xb(x_md.dims(), x_md.data_type(), tag), yb(y_md.dims(), y_md.data_type(), tag);
      auto blocked = make(xb, yb);
      if (std::string(blocked.second.impl_info_str()).rfind("jit", 0) == 0) pds = blocked;
      const auto& [fwd, bwd] = pds;
      backward_ = dnnl::pooling_v2_backward(bwd);
      bwd_scratchpad_.Reset(bwd.scratchpad_desc());
      dy_.Make(y_md, bwd.diff_dst_desc(), /*input=*/true);
      dx_.Make(x_md, bwd.diff_src_desc(), /*input=*/false);
      if (kMax) {
        forward_ = dnnl::pooling_v2_forward(fwd);
        fwd_scratchpad_.Reset(fwd.scratchpad_desc());
        x_.Make(x_md, fwd.src_desc(), /*input=*/true);
        y_scratch_ = UnboundMemory(fwd.dst_desc());
        workspace_ = UnboundMemory(fwd.workspace_desc());
      }
    }));
    ready_ = true;
    return Status::Ok();
  }

  Status RunDnnl(KernelContext& ctx, const Tensor& x, const Tensor& dy, Tensor& dx) {
    const int threads = threads_;
    memory diff_dst, diff_src;
    std::unordered_map<int, memory> bargs;
    if (kMax) {
      memory src;
      LOOM_SDK_RETURN_IF_ERROR(x_.Bind(ctx, x.raw_data(), &src));
      LOOM_SDK_RETURN_IF_ERROR(BindScratch(ctx, &y_scratch_));
      LOOM_SDK_RETURN_IF_ERROR(BindScratch(ctx, &workspace_));
      LOOM_SDK_RETURN_IF_ERROR(x_.ReorderIn(label_, threads));
      std::unordered_map<int, memory> fargs = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, y_scratch_}, {DNNL_ARG_WORKSPACE, workspace_}};
      LOOM_SDK_RETURN_IF_ERROR(fwd_scratchpad_.Bind(ctx, &fargs));
      LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, forward_, fargs, threads));
      bargs[DNNL_ARG_WORKSPACE] = workspace_;
    }
    LOOM_SDK_RETURN_IF_ERROR(dy_.Bind(ctx, dy.raw_data(), &diff_dst));
    LOOM_SDK_RETURN_IF_ERROR(dy_.ReorderIn(label_, threads));
    LOOM_SDK_RETURN_IF_ERROR(dx_.Bind(ctx, dx.raw_data(), &diff_src));
    bargs[DNNL_ARG_DIFF_DST] = diff_dst;
    bargs[DNNL_ARG_DIFF_SRC] = diff_src;
    LOOM_SDK_RETURN_IF_ERROR(bwd_scratchpad_.Bind(ctx, &bargs));
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, backward_, bargs, threads));
    return dx_.ReorderOut(label_, threads);
  }

  WindowAttrs attrs_;
  bool include_pad_ = false;
  // What the primitives were built for (ready_: built; configured_ without
  // ready_: the plain loops run).
  bool configured_ = false, ready_ = false;
  std::vector<int64_t> xs_;
  int threads_ = 0;
  dnnl::pooling_v2_forward forward_;    // max: makes the workspace
  dnnl::pooling_v2_backward backward_;
  DnnlScratchpad fwd_scratchpad_, bwd_scratchpad_;
  DnnlOperand x_, dy_, dx_;
  memory y_scratch_, workspace_;  // the forward's Y (unused) and workspace, per-call scratch
};

}  // namespace

Status RegisterNnPoolGradientKernels(sdk::Registrar& reg) {
  const sdk::KernelOptions opts = CpuFloatAndDouble();
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PoolGradientKernel<true>>("MaxPoolGradient", opts));
  return reg.Kernel<PoolGradientKernel<false>>("AveragePoolGradient", opts);
}

}  // namespace cpu
}  // namespace loom
