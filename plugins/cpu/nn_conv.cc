// Conv and FusedConv (float32, 1-D to 3-D; Conv also float64, in plain loops) on oneDNN's convolution_forward
// in oneDNN's blocked layouts (reorders in and out), built at plan time for
// the planned shapes, with constant weights reordered once. NchwcConv
// (ops/nn_nchwc.cc) is the same kernel on X and Y already in nChw8c/16c or
// channels-last nhwc, no reorders, with its Sum input through oneDNN's sum
// post-op. A convolution under 2^18 multiply-adds runs on one thread.
// FusedConv's activation is a oneDNN eltwise post-op, applied while the
// output is still in cache. With the net's fpmath_mode bf16 (dnnl_fpmath.h)
// X and W are convolved as bf16, Y float32.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "plugins/cpu/broadcast.h"
#include "plugins/cpu/dnnl_common.h"
#include "ops/semantics/activation.h"
#include "plugins/cpu/dnnl_window.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_conv_common.h"
#include "plugins/cpu/nn_conv_naive.h"

namespace loom {
namespace cpu {
namespace {


// FusedConv's activation (ops/semantics/activation.h) as oneDNN post-ops.
// oneDNN 2.6 has no hardsigmoid eltwise, so HardSigmoid is linear
// (alpha * x + beta) then clip to [0, 1]; its hardswish is
// x * min(max(x + 3, 0), 6) / 6, ONNX's HardSwish.
struct Activation : semantics::FusedActivation {
  // With `sum`, oneDNN's sum post-op first: Y = act(conv + Y's values).
  dnnl::post_ops PostOps(bool sum) const {
    using A = dnnl::algorithm;
    dnnl::post_ops ops;
    if (sum) ops.append_sum(1.0f);
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
class ConvKernel : public ConvLikeKernel<ConvKernel, WindowAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), b = ctx.Input(2), y;
    if (x.dtype() == LOOM_DTYPE_DOUBLE) return ComputeDouble(ctx, x, w, b);
    LOOM_SDK_RETURN_IF_ERROR(Begin(ctx, x, w, b, &y));
    if (y.num_elements() == 0) return Status::Ok();
    if (blocked_) {
      if (!ready_) return sdk::Unimplemented(label_ + ": a blocked Y from an X without elements");
      if (has_sum_) LOOM_SDK_RETURN_IF_ERROR(CopySum(ctx.Input(3), y, ctx.num_threads()));
    } else if (!ready_) {
      return FillBias(b, ys_[0], ys_[1], act_, y);  // no input channels or all-padding windows
    }
    return Execute(ctx, x, w, b, y.raw_data(), run_threads_);
  }

  // float64 (Conv only; oneDNN convolves float32): plain loops
  // (nn_conv_naive.h), checked like the float32 path.
  Status ComputeDouble(KernelContext& ctx, const Tensor& x, const Tensor& w, const Tensor& b) {
    if (act_.kind != Activation::kNone) return sdk::Unimplemented(label_ + ": FusedConv in float64");
    std::vector<int64_t> k;
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvOperands(label_, group_, x.shape(), w.shape(), b, attrs_.kernel, &k));
    Window win;  // dnnl_window.h's, a semantics::Window
    const std::vector<int64_t> xs = x.shape();
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, {xs.begin() + 2, xs.end()}, k, &win));
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_DOUBLE, win.OutputShape(xs[0], w.dim(0)), &y));
    if (y.num_elements() == 0) return Status::Ok();
    ConvForwardNaive<double>(ConvGeometry(xs, w.shape(), group_, win), x.data<double>(), w.data<double>(),
                             b.present() ? b.data<double>() : nullptr, y.data<double>(), ctx.num_threads());
    return Status::Ok();
  }

  // Checks the operand shapes, sizes Y and (for a non-empty convolution)
  // builds the primitive and its reorders for them. Blocked (NchwcConv):
  // `blocked_xs` is X's [N, C / b, H, W, b], checked and convolved as its
  // plain view, with Y [N, M / b, H', W', b] and no reorders.
  Status Configure(const std::vector<int64_t>& blocked_xs, const std::vector<int64_t>& ws, const std::vector<int64_t>& bs,
                   int threads) {
    Reset();
    std::vector<int64_t> xs = blocked_xs;
    int64_t x_block = 0;
    const bool x_plain = blocked_ && xs.size() == 4;  // NchwcConv of a plain NCHW X (an image stem)
    if (blocked_) {
      if ((!x_plain && !IsBlockedShape(xs)) || ws.size() != 4) {
        return sdk::InvalidArgument(label_ + ": X must be [N, C, H, W] or blocked [N, C / b, H, W, b] (b 8, 16 or C) "
                                    "and W [M, C / group, kH, kW]; found X " + ShapeStr(xs) + ", W " + ShapeStr(ws));
      }
      if (!x_plain) {
        x_block = xs[4];
        xs = {xs[0], xs[1] * x_block, xs[2], xs[3]};
      }
    }
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
    const int64_t y_block = block_ > 0 ? block_ : M;  // block 0: channels-last
    if (blocked_ && (M == 0 || M % y_block != 0)) {
      return sdk::InvalidArgument(label_ + ": M = " + std::to_string(M) + " output channels; expected a positive multiple of block " +
                                  std::to_string(y_block));
    }
    Configured(blocked_xs, ws, bs, blocked_ ? std::vector<int64_t>{N, M / y_block, ys[2], ys[3], y_block} : ys, threads);
    // A small convolution runs on one thread: below about 2^18
    // multiply-adds (a few microseconds on one core) OpenMP's fork and join
    // and oneDNN's split cost more than the second core gives back (Silero
    // VAD's 1-D convs of 12 to 100 thousand MACs: the model ran 0.27 ms at
    // 2 threads, 0.17 ms at 1).
    const int64_t macs = semantics::Product(ys) * (G > 0 ? C / G : 0) * semantics::Product(k);
    run_threads_ = macs < (int64_t{1} << 18) ? 1 : threads;
    if (semantics::Product(ys) == 0 || semantics::Product(xs) == 0) return Status::Ok();  // Y without a primitive
    LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, run_threads_, [&] {
      // A 1-D depthwise conv goes to oneDNN as 2-D with H = 1 (the same
      // bytes): oneDNN 2.6's 1-D depthwise kernels are its gemm or its
      // generic jit one, its 2-D ones brdgmm_dw / jit_dw. Silero VAD's
      // 258 channels x 24, kernel 5: 112 us (gemm, plain) or 18-21 us (jit,
      // channels-last) against 2.0 us as 2-D (standalone, one thread).
      std::vector<int64_t> xv = xs, yv = ys, kv = k;
      memory::dims strides = Dims(win.strides), dilations = win.DnnlDilations(), pads_begin = Dims(win.pads_begin),
                   pads_end = Dims(win.dnnl_pads_end);
      if (!blocked_ && xs.size() == 3 && G > 1 && G == C) {
        xv.insert(xv.begin() + 2, 1);
        yv.insert(yv.begin() + 2, 1);
        kv.insert(kv.begin(), 1);
        strides.insert(strides.begin(), 1);
        dilations.insert(dilations.begin(), 0);
        pads_begin.insert(pads_begin.begin(), 0);
        pads_end.insert(pads_end.begin(), 0);
      }
      // Grouped weights are oneDNN's [G, M / G, C / G, k...], which is
      // exactly the row-major [M, C / G, k...] buffer.
      std::vector<int64_t> wdims = ws;
      if (G > 1) {
        wdims = {G, M / G, C / G};
        wdims.insert(wdims.end(), kv.begin(), kv.end());
      }
      memory::desc w_md = PlainDesc(wdims), b_md = PlainDesc({M});
      // One block of all channels ([N, 1, H, W, C]) is the same bytes as
      // nhwc and as nChw<C>c: X is read in the family Y is written in, for
      // oneDNN has fast kernels only for matching layouts (an nhwc X with an
      // nChw16c Y fell to its reference kernel: 190 ms for PP-OCR's stem).
      const bool x_one_block = blocked_xs.size() == 5 && blocked_xs[1] == 1;
      const bool x_channels_last = x_block != 8 && x_block != 16 ? true : x_one_block && block_ == 0;
      memory::desc x_md = !blocked_ || x_plain ? PlainDesc(xv)
                          : x_channels_last ? ChannelsLastDesc(xs)
                                            : BlockedDesc(xs, x_block);
      memory::desc y_md = !blocked_ ? PlainDesc(yv) : block_ == 0 ? ChannelsLastDesc(ys) : BlockedDesc(ys, y_block);
      dnnl::primitive_attr attr;
      if (act_.kind != Activation::kNone || has_sum_) attr.set_post_ops(act_.PostOps(has_sum_));
      // The primitive with X and W in `dt` (Y, B and Sum stay float32).
      const auto pick = [&](memory::data_type dt) {
        // Plain: oneDNN picks its blocked layouts (much faster than plain
        // NCHW, above all for depthwise and 1x1 convolutions) and X and Y
        // are reordered. Blocked: X and Y are in that layout already (X
        // reordered only to round it to bf16). NchwcConv of a plain X:
        // oneDNN's jit kernels read a plain X of few channels directly (its
        // "first convolution" path), else X is reordered below.
        const memory::desc x_any = blocked_ ? WithDataType(x_md, dt) : Any(x_md, dt), y_any = blocked_ ? y_md : Any(y_md);
        const auto make_pd = [&](const memory::desc& x_d, const memory::desc& y_d,
                                 dnnl::algorithm alg = dnnl::algorithm::convolution_direct) {
          const auto prop = dnnl::prop_kind::forward_inference;
          auto d = has_b_ ? dnnl::convolution_forward::desc(prop, alg, x_d, Any(w_md, dt), b_md, y_d, strides, dilations,
                                                             pads_begin, pads_end)
                          : dnnl::convolution_forward::desc(prop, alg, x_d, Any(w_md, dt), y_d, strides, dilations,
                                                             pads_begin, pads_end);
          return dnnl::convolution_forward::primitive_desc(d, UserScratchpad(attr), DnnlEngine());
        };
        std::optional<dnnl::convolution_forward::primitive_desc> chosen;
        if (winograd_) {
          try {
            chosen = make_pd(x_any, y_any, dnnl::algorithm::convolution_winograd);
          } catch (const dnnl::error&) {
            // no Winograd kernel for this conv on this CPU: direct
          }
        }
        auto pd = chosen ? *chosen : make_pd(x_any, y_any);
        if (x_plain && SlowImpl(pd)) pd = make_pd(Any(x_md, dt), y_any);  // X reordered to oneDNN's choice
        if (!blocked_ && G > 1 && G == C && SlowImpl(pd)) {
          // Depthwise with oneDNN's choice of layouts: where oneDNN 2.6 takes
          // its gemm (or reference) kernel and plain layouts, its jit
          // depthwise kernel may take channels-last (for 1-D convs before
          // they went 2-D, above: 32 channels x 6, kernel 5, 6.8-7.4 against
          // 1.3 us, standalone, one thread). X and Y are then reordered in
          // and out.
          try {
            auto channels_last = make_pd(WithDataType(ChannelsLastDesc(xv), dt), ChannelsLastDesc(yv));
            if (!SlowImpl(channels_last)) pd = channels_last;
          } catch (const dnnl::error&) {
            // no primitive for channels-last: keep oneDNN's choice
          }
        }
        return pd;
      };
      auto pd = pick(compute_);
      if (compute_ != memory::data_type::f32 && SlowImpl(pd)) pd = pick(memory::data_type::f32);  // no fast bf16 kernel
      Bind<dnnl::convolution_forward::primitive_desc, dnnl::convolution_forward>(pd, x_md, w_md, y_md, b_md);
    }));
    ready_ = true;
    return Status::Ok();
  }

 protected:
  Activation act_;       // kNone for Conv
  bool blocked_ = false; // NchwcConv: X and Y blocked (X's block read from its shape)
  int64_t block_ = 0;    // NchwcConv: Y's channels per block, 8 or 16; 0: channels-last (b = M)
  bool has_sum_ = false; // NchwcConv's Sum input, added before the activation
  bool winograd_ = false; // NchwcConv algorithm "winograd": try oneDNN's Winograd kernels first

  // Y = Sum, which the sum post-op then adds to. Sum may broadcast to Y's
  // shape (numpy rules over the same rank: its dims are Y's or 1), as the
  // Add it replaces did; one larger than Y is an error (the Add's output
  // would be larger than the conv's).
  Status CopySum(const Tensor& sum, Tensor& y, int threads) const {
    const std::vector<int64_t> ss = sum.shape(), ys = y.shape();
    BroadcastPlan& plan = ThreadLocalPlan();
    if (ss.size() != ys.size() || !PlanBroadcastTo(ss.data(), ss.size(), ss.data(), ss.size(), ys.data(), ys.size(), &plan)) {
      return sdk::InvalidArgument(label_ + ": input Sum (a residual Add fused in) must broadcast to Y's shape " +
                                  ShapeStr(ys) + "; found " + ShapeStr(ss));
    }
    ForEachBroadcast(plan, sum.data<float>(), sum.data<float>(), y.data<float>(), threads, [](float v, float) { return v; });
    return Status::Ok();
  }

 private:
  // Whether oneDNN runs `pd` with its gemm-based or reference kernel.
  static bool SlowImpl(const dnnl::convolution_forward::primitive_desc& pd) {
    const std::string impl = pd.impl_info_str();
    return impl.find("gemm") != std::string::npos || impl.find("ref") != std::string::npos;
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

// NchwcConv (ops/nn_nchwc.cc): Conv on blocked X and Y, the activation
// optional, the Sum input through oneDNN's sum post-op.
class NchwcConvKernel : public ConvKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(ConvKernel::Init(info));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("block", &block_));
    if (block_ != 0 && block_ != 8 && block_ != 16) {
      return sdk::InvalidArgument(label_ + ": block must be 8, 16 or 0 (channels-last); found " + std::to_string(block_));
    }
    blocked_ = true;
    has_sum_ = info.num_inputs() > 3 && !info.input_name(3).empty();
    if (info.Has("algorithm")) {
      std::string algorithm;
      LOOM_SDK_RETURN_IF_ERROR(info.GetString("algorithm", &algorithm));
      if (algorithm != "direct" && algorithm != "winograd") {
        return sdk::InvalidArgument(label_ + ": algorithm must be \"direct\" or \"winograd\"; found \"" + algorithm + "\"");
      }
      winograd_ = algorithm == "winograd";
    }
    return info.Has("activation") ? act_.Read(info, label_) : Status::Ok();
  }
};

}  // namespace

sdk::Status RegisterNnConvKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConvKernel>("Conv", CpuFloatAndDouble()));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<NchwcConvKernel>("NchwcConv", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}}));
  return reg.Kernel<FusedConvKernel>("FusedConv", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}});
}

}  // namespace cpu
}  // namespace loom
