// MaxPool and AveragePool on oneDNN's pooling_v2_forward (float32 data pooled
// on the channel-blocked layout with reorders, int8 channels-last, float64
// on the plain one;
// primitives cached per input shape; float64 in plain loops, nn_pool_naive.h);
// NchwcMaxPool the same on blocked X and Y (ops/nn_nchwc.cc), no reorders;
// NhwcMaxPool on channels-last int8 X and Y (ops/nn_pool.cc), no reorders;
// MaxPool's Indices output, GlobalAveragePool, GlobalMaxPool and
// NchwcGlobalAveragePool as plain OpenMP loops.
#include <cmath>
#include <limits>

#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/dnnl_window.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_pool_naive.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

memory::data_type DnnlType(LoomDataType t) {
  switch (t) {
    case LOOM_DTYPE_INT8: return memory::data_type::s8;
    case LOOM_DTYPE_UINT8: return memory::data_type::u8;
    default: return memory::data_type::f32;
  }
}

using semantics::To3;

// MaxPool with the Indices output, by direct loops: Y as oneDNN computes it
// and Indices the flat index into X of each maximum (the first one in
// window order on ties), over the spatial dims in row-major order
// (storage_order 0) or column-major order (storage_order 1).
template <typename T>
void MaxPoolWithIndices(const T* x, const std::vector<int64_t>& xs, const Window& w, bool col_major, int threads,
                        T* y, int64_t* indices) {
  const std::vector<int64_t> in = To3({xs.begin() + 2, xs.end()}, 1), out = To3(w.out, 1);
  const std::vector<int64_t> k = To3(w.kernel, 1), s = To3(w.strides, 1), d = To3(w.dilations, 1), pb = To3(w.pads_begin, 0);
  // Strides of the spatial position in the index: row- or column-major.
  const std::vector<int64_t> istride = semantics::PoolIndexStrides3({xs.begin() + 2, xs.end()}, col_major);
  const int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  ParallelFor(xs[0] * xs[1], threads, [&](int64_t p) {
    const T* xp = x + p * in_plane;
    for (int64_t o0 = 0; o0 < out[0]; ++o0) {
      for (int64_t o1 = 0; o1 < out[1]; ++o1) {
        for (int64_t o2 = 0; o2 < out[2]; ++o2) {
          bool found = false;
          T best{};
          int64_t best_at = 0;
          for (int64_t j0 = 0; j0 < k[0]; ++j0) {
            const int64_t i0 = o0 * s[0] - pb[0] + j0 * d[0];
            if (i0 < 0 || i0 >= in[0]) continue;
            for (int64_t j1 = 0; j1 < k[1]; ++j1) {
              const int64_t i1 = o1 * s[1] - pb[1] + j1 * d[1];
              if (i1 < 0 || i1 >= in[1]) continue;
              for (int64_t j2 = 0; j2 < k[2]; ++j2) {
                const int64_t i2 = o2 * s[2] - pb[2] + j2 * d[2];
                if (i2 < 0 || i2 >= in[2]) continue;
                const T v = xp[(i0 * in[1] + i1) * in[2] + i2];
                if (!found || v > best) {
                  found = true;
                  best = v;
                  best_at = i0 * istride[0] + i1 * istride[1] + i2 * istride[2];
                }
              }
            }
          }
          const int64_t at = p * out_plane + (o0 * out[1] + o1) * out[2] + o2;
          y[at] = found ? best : std::numeric_limits<T>::lowest();
          indices[at] = p * in_plane + best_at;
        }
      }
    }
  }, out_plane * k[0] * k[1] * k[2]);
}

// ONNX MaxPool-12 (kMax; float32, float64, int8, uint8) and AveragePool-19
// (float32, float64)
// over X [N, C, D1..Dn], n = 1..3. Attributes: kernel_shape (required),
// strides, dilations, pads, auto_pad, ceil_mode; MaxPool's storage_order
// (for Indices); AveragePool's count_include_pad. Errors
// (INVALID_ARGUMENT): X's rank, attribute ranks, an input smaller than the
// window.
template <bool kMax>
class PoolKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    nchwc_ = info.op_type() == "NchwcMaxPool";
    nhwc_ = info.op_type() == "NhwcMaxPool";
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Read(info, label_));
    if (attrs_.kernel.empty()) return sdk::InvalidArgument(label_ + ": attribute kernel_shape is required");
    include_pad_ = info.IntOr("count_include_pad", 0) != 0;
    col_major_ = info.IntOr("storage_order", 0) != 0;
    return Status::Ok();
  }

  // Checks X's shape, resolves the window and builds the primitive when the
  // plan knows X's shape.
  Status Prepare(const sdk::PrepareContext& ctx) {
    with_indices_ = kMax && ctx.num_outputs() > 1 && ctx.OutputDType(1) != LOOM_DTYPE_UNDEFINED;
    std::vector<int64_t> xs;
    if (!ctx.InputShape(0, &xs)) return Status::Ok();
    return Configure(xs, ctx.InputDType(0), ctx.num_threads());
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const LoomDataType dt = x.dtype();
    const int threads = ctx.num_threads();
    with_indices_ = kMax && ctx.OutputRequested(1);
    if (!ShapeIs(x, xs_) || dt != dt_ || threads != threads_ || !configured_) {
      LOOM_SDK_RETURN_IF_ERROR(Configure(x.shape(), dt, threads));
    }
    const std::vector<int64_t>& xs = xs_;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, ys_, &y));
    if (with_indices_) {
      Tensor indices;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_INT64, ys_, &indices));
      if (y.num_elements() == 0) return Status::Ok();
      switch (dt) {
        case LOOM_DTYPE_FLOAT:
          MaxPoolWithIndices(x.data<float>(), xs, win_, col_major_, threads, y.data<float>(), indices.data<int64_t>());
          break;
        case LOOM_DTYPE_DOUBLE:
          MaxPoolWithIndices(x.data<double>(), xs, win_, col_major_, threads, y.data<double>(), indices.data<int64_t>());
          break;
        case LOOM_DTYPE_INT8:
          MaxPoolWithIndices(x.data<int8_t>(), xs, win_, col_major_, threads, y.data<int8_t>(), indices.data<int64_t>());
          break;
        case LOOM_DTYPE_UINT8:
          MaxPoolWithIndices(x.data<uint8_t>(), xs, win_, col_major_, threads, y.data<uint8_t>(), indices.data<int64_t>());
          break;
        default:
          return UnsupportedDtype(label_, dt);
      }
      return Status::Ok();
    }
    if (y.num_elements() == 0) return Status::Ok();
    if (x.num_elements() == 0) {
      return sdk::InvalidArgument(label_ + ": input X " + ShapeStr(xs) + " is empty but Y " + ShapeStr(ys_) + " is not");
    }
    if (dt == LOOM_DTYPE_DOUBLE) {  // plain loops: oneDNN pools float32
      PoolForwardNaive<double>(PoolGeometry(xs, win_), kMax, include_pad_, x.data<double>(), y.data<double>(), threads);
      return Status::Ok();
    }
    if (!ready_) LOOM_SDK_RETURN_IF_ERROR(Build(threads));
    x_mem_.set_data_handle(x.raw_data());
    y_mem_.set_data_handle(y.raw_data());
    if (blocked_) {
      // The blocked copies live in per-call scratch (the net's pool).
      LOOM_SDK_RETURN_IF_ERROR(BindScratch(ctx, &x_blk_));
      LOOM_SDK_RETURN_IF_ERROR(BindScratch(ctx, &y_blk_));
      LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, x_to_blk_, {{DNNL_ARG_FROM, x_mem_}, {DNNL_ARG_TO, x_blk_}}, threads));
    }
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, blocked_ ? x_blk_ : x_mem_}, {DNNL_ARG_DST, blocked_ ? y_blk_ : y_mem_}};
    LOOM_SDK_RETURN_IF_ERROR(scratchpad_.Bind(ctx, &args));
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, prim_, args, threads));
    if (blocked_) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, y_from_blk_, {{DNNL_ARG_FROM, y_blk_}, {DNNL_ARG_TO, y_mem_}}, threads));
    }
    if (!rescale_.empty()) Rescale(y.data<float>(), xs[0] * xs[1], threads);  // AveragePool only (Y plain NCHW)
    return Status::Ok();
  }

 private:
  // Checks X's rank, resolves the window and sizes Y; builds the oneDNN
  // primitive too unless Indices are asked for (computed by hand) or either
  // side is empty.
  Status Configure(const std::vector<int64_t>& blocked_xs, LoomDataType dt, int threads) {
    configured_ = ready_ = false;
    std::vector<int64_t> xs = blocked_xs;
    if (nchwc_) {  // the window on the plain view [N, C, H, W]
      if (!IsBlockedShape(xs)) {
        return sdk::InvalidArgument(label_ + ": input X must be blocked [N, C / b, H, W, b] (b 8, 16 or C); found " +
                                    ShapeStr(xs));
      }
      xs = {xs[0], xs[1] * xs[4], xs[2], xs[3]};
    }
    if (nhwc_) {  // the window on the plain view [N, C, H, W]
      if (xs.size() != 4) return sdk::InvalidArgument(label_ + ": input X must be [N, H, W, C]; found " + ShapeStr(xs));
      xs = {xs[0], xs[3], xs[1], xs[2]};
    }
    if (xs.size() < 3 || xs.size() > 5) {
      return sdk::InvalidArgument(label_ + ": input X must be [N, C, D...] with 1 to 3 spatial dims; found " + ShapeStr(xs));
    }
    Window win;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, {xs.begin() + 2, xs.end()}, attrs_.kernel, &win));
    std::vector<int64_t> ys = {xs[0], xs[1]};
    ys.insert(ys.end(), win.out.begin(), win.out.end());
    plain_xs_ = xs;
    plain_ys_ = ys;
    if (nchwc_) {
      xs = blocked_xs;
      ys = {xs[0], xs[1], ys[2], ys[3], xs[4]};
    }
    if (nhwc_) {
      xs = blocked_xs;
      ys = {ys[0], ys[2], ys[3], ys[1]};
    }
    xs_ = xs;
    ys_ = ys;
    win_ = win;
    dt_ = dt;
    threads_ = threads;
    configured_ = true;
    int64_t xn = 1, yn = 1;
    for (int64_t d : xs) xn *= d;
    for (int64_t d : ys) yn *= d;
    if (with_indices_ || xn == 0 || yn == 0 || dt == LOOM_DTYPE_DOUBLE) return Status::Ok();
    return Build(threads);
  }

  // The pooling primitive (and reorders) for xs_, ys_, win_.
  Status Build(int threads) {
    const std::vector<int64_t>&xs = plain_xs_, &ys = plain_ys_;
    const Window& win = win_;
    const LoomDataType dt = dt_;
    LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
      // NchwcMaxPool: X and Y in X's blocked layout, no reorders.
      const int64_t b = nchwc_ ? xs_[4] : 0;
      // NhwcMaxPool: X and Y channels-last, no reorders.
      const memory::desc x_md = nchwc_  ? BlockedDesc(xs, b)
                                : nhwc_ ? memory::desc(Dims(xs), DnnlType(dt), memory::format_tag::nhwc)
                                        : PlainDesc(xs, DnnlType(dt));
      const memory::desc y_md = nchwc_  ? BlockedDesc(ys, b)
                                : nhwc_ ? memory::desc(Dims(ys), DnnlType(dt), memory::format_tag::nhwc)
                                        : PlainDesc(ys, DnnlType(dt));
      const auto alg = kMax ? dnnl::algorithm::pooling_max
                            : (include_pad_ ? dnnl::algorithm::pooling_avg_include_padding
                                            : dnnl::algorithm::pooling_avg_exclude_padding);
      // oneDNN 2.6 pools plain float NCHW with a scalar kernel
      // (simple_nchw) about 10x slower than its jit kernel on the
      // channel-blocked layout, so float data is pooled blocked, with
      // reorders in and out, unless only a slow kernel exists for it. int8
      // data likewise in channels-last, where oneDNN's int8 jit kernels
      // are (plain int8 NCHW gets its reference kernel: 45 ms for
      // ResNet-18's first MaxPool).
      auto make = [&](const memory::desc& xd, const memory::desc& yd) {
        dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg, xd, yd, Dims(win.strides),
                                         Dims(win.kernel), win.DnnlDilations(), Dims(win.pads_begin),
                                         Dims(win.dnnl_pads_end));
        return dnnl::pooling_v2_forward::primitive_desc(d, UserScratchpad(), DnnlEngine());
      };
      auto pd = make(x_md, y_md);
      blocked_ = false;
      const bool int8 = dt == LOOM_DTYPE_INT8 || dt == LOOM_DTYPE_UINT8;
      using tag = memory::format_tag;
      const tag blocked_tag = xs.size() == 3   ? (int8 ? tag::nwc : tag::nCw8c)
                              : xs.size() == 4 ? (int8 ? tag::nhwc : tag::nChw8c)
                              : xs.size() == 5 ? (int8 ? tag::ndhwc : tag::nCdhw8c)
                                               : tag::undef;
      if (!nchwc_ && !nhwc_ && (dt == LOOM_DTYPE_FLOAT || int8) && blocked_tag != tag::undef) {
        const memory::desc xb(x_md.dims(), x_md.data_type(), blocked_tag), yb(y_md.dims(), y_md.data_type(), blocked_tag);
        auto bpd = make(xb, yb);
        const std::string impl = bpd.impl_info_str();
        if (impl.rfind("jit", 0) == 0) {
          pd = bpd;
          blocked_ = true;
          x_blk_ = UnboundMemory(xb);
          y_blk_ = UnboundMemory(yb);
          x_to_blk_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), x_md, DnnlEngine(), xb));
          y_from_blk_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), yb, DnnlEngine(), y_md));
        }
      }
      prim_ = dnnl::pooling_v2_forward(pd);
      scratchpad_.Reset(pd.scratchpad_desc());
      x_mem_ = UnboundMemory(x_md);
      y_mem_ = UnboundMemory(y_md);
    }));
    ComputeRescale(plain_xs_, win);
    ready_ = true;
    return Status::Ok();
  }

  // With count_include_pad, ONNX (like PyTorch and onnxruntime) divides by
  // the number of window taps inside the input plus its explicit padding;
  // a ceil_mode window that overhangs the end padding has fewer taps than
  // the kernel, but oneDNN divides by the kernel size. rescale_ holds, per
  // spatial dim (D, H, W order, padded to 3) and output position, the
  // factor kernel / taps; it stays empty when every factor is 1.
  void ComputeRescale(const std::vector<int64_t>& xs, const Window& w) {
    rescale_.clear();
    if (kMax || !include_pad_) return;
    const size_t n = xs.size() - 2;
    std::vector<std::vector<float>> f(3, std::vector<float>(1, 1.0f));
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      const int64_t limit = xs[2 + i] + w.pads_end[i];  // end of input + explicit padding
      std::vector<float>& fi = f[3 - n + i];
      fi.assign(w.out[i], 1.0f);
      for (int64_t o = 0; o < w.out[i]; ++o) {
        int64_t taps = 0;
        for (int64_t j = 0; j < w.kernel[i]; ++j) taps += o * w.strides[i] - w.pads_begin[i] + j * w.dilations[i] < limit;
        if (taps != w.kernel[i]) {
          fi[o] = static_cast<float>(w.kernel[i]) / static_cast<float>(taps);
          any = true;
        }
      }
    }
    if (any) rescale_ = std::move(f);
  }

  void Rescale(float* y, int64_t planes, int threads) const {
    const std::vector<float>&f0 = rescale_[0], &f1 = rescale_[1], &f2 = rescale_[2];
    const int64_t plane = static_cast<int64_t>(f0.size() * f1.size() * f2.size());
    ParallelFor(planes, threads, [&](int64_t p) {
      float* yp = y + p * plane;
      for (size_t a = 0; a < f0.size(); ++a) {
        for (size_t b = 0; b < f1.size(); ++b) {
          for (size_t c = 0; c < f2.size(); ++c) *yp++ *= f0[a] * f1[b] * f2[c];
        }
      }
    }, plane);
  }

  std::string label_;
  bool nchwc_ = false;  // NchwcMaxPool: X and Y blocked [N, C / b, H, W, b]
  bool nhwc_ = false;   // NhwcMaxPool: X and Y channels-last [N, H, W, C]
  WindowAttrs attrs_;
  bool include_pad_ = false, col_major_ = false;
  bool with_indices_ = false;  // MaxPool's Indices output is asked for
  // What the primitive was configured for.
  std::vector<int64_t> xs_, ys_;               // as given (blocked for NchwcMaxPool)
  std::vector<int64_t> plain_xs_, plain_ys_;   // their plain [N, C, D...] views
  Window win_;
  LoomDataType dt_ = LOOM_DTYPE_UNDEFINED;
  int threads_ = 0;
  bool configured_ = false;  // X checked, window resolved, Y sized
  bool ready_ = false;       // primitive built
  dnnl::pooling_v2_forward prim_;
  memory x_mem_, y_mem_;
  bool blocked_ = false;  // pooled on the channel-blocked layout
  memory x_blk_, y_blk_;  // bound to per-call scratch
  DnnlScratchpad scratchpad_;
  dnnl::reorder x_to_blk_, y_from_blk_;
  std::vector<std::vector<float>> rescale_;
};

// ONNX GlobalAveragePool-1 / GlobalMaxPool-1, float32 and float64: X [N, C, D...] ->
// Y [N, C, 1...], the mean (in double) or the maximum over all spatial
// dims. An empty spatial extent gives NaN (mean) or -inf (max).
template <bool kMax>
class GlobalPoolKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    std::vector<int64_t> ys;
    LOOM_SDK_RETURN_IF_ERROR(semantics::GlobalPoolShape(label_, xs, &ys));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ys, &y));
    const int64_t planes = xs[0] * xs[1];
    int64_t size = 1;
    for (size_t i = 2; i < xs.size(); ++i) size *= xs[i];
    if (x.dtype() == LOOM_DTYPE_DOUBLE) Run<double>(x, y, planes, size, ctx.num_threads());
    else Run<float>(x, y, planes, size, ctx.num_threads());
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Run(const Tensor& x, Tensor& y, int64_t planes, int64_t size, int threads) {
    const T* in = x.data<T>();
    T* out = y.data<T>();
    ParallelFor(planes, threads, [&](int64_t p) {
      const T* row = in + p * size;
      if (kMax) {
        T m = -std::numeric_limits<T>::infinity();
        for (int64_t i = 0; i < size; ++i) m = std::max(m, row[i]);
        out[p] = m;
      } else {
        double sum = 0;
        for (int64_t i = 0; i < size; ++i) sum += row[i];
        out[p] = static_cast<T>(sum / static_cast<double>(size));
      }
    }, size);
  }


 private:
  std::string label_;
};

// NchwcGlobalAveragePool (ops/nn_nchwc.cc), float32: X [N, G, H, W, b]
// (any block b; channels-last is G = 1, b = C) -> Y [N, G, 1, 1, b], the
// mean over H and W of each channel, summed in double as GlobalAveragePool
// does. NhwcGlobalAveragePool (ops/nn_pool.cc): the same on X [N, H, W, C]
// -> Y [N, 1, 1, C]. Errors: X not 5-D (4-D).
class NchwcGlobalAveragePoolKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    nhwc_ = info.op_type() == "NhwcGlobalAveragePool";
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    std::vector<int64_t> xs = x.shape();
    if (nhwc_) {
      if (xs.size() != 4) return sdk::InvalidArgument(label_ + ": X must be [N, H, W, C]; found " + ShapeStr(xs));
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, {xs[0], 1, 1, xs[3]}, &y));
      xs = {xs[0], 1, xs[1], xs[2], xs[3]};  // one block of all C channels
    } else {
      if (xs.size() != 5) {
        return sdk::InvalidArgument(label_ + ": X must be blocked [N, C / b, H, W, b]; found " + ShapeStr(xs));
      }
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, {xs[0], xs[1], 1, 1, xs[4]}, &y));
    }
    const int64_t blocks = xs[0] * xs[1], size = xs[2] * xs[3], b = xs[4];
    const float* in = x.data<float>();
    float* out = y.data<float>();
    ParallelFor(blocks, ctx.num_threads(), [&](int64_t p) {
      std::vector<double> acc(static_cast<size_t>(b), 0.0);
      const float* block = in + p * size * b;
      for (int64_t i = 0; i < size; ++i) {
        for (int64_t k = 0; k < b; ++k) acc[k] += block[i * b + k];
      }
      for (int64_t k = 0; k < b; ++k) out[p * b + k] = static_cast<float>(acc[k] / static_cast<double>(size));
    }, size * b);
    return Status::Ok();
  }

 private:
  std::string label_;
  bool nhwc_ = false;
};

}  // namespace

sdk::Status RegisterNnPoolKernels(sdk::Registrar& reg) {
  const sdk::KernelOptions f32_f64 = CpuFloatAndDouble();
  LOOM_SDK_RETURN_IF_ERROR(
      reg.Kernel<PoolKernel<true>>("MaxPool", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_INT8,
                                                                 LOOM_DTYPE_UINT8}}}}));
  LOOM_SDK_RETURN_IF_ERROR(
      reg.Kernel<PoolKernel<false>>("AveragePool", f32_f64));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PoolKernel<true>>("NchwcMaxPool", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}}));
  LOOM_SDK_RETURN_IF_ERROR(
      reg.Kernel<PoolKernel<true>>("NhwcMaxPool", {"CPU", "", 0, {{"T", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8}}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GlobalPoolKernel<false>>("GlobalAveragePool", f32_f64));
  LOOM_SDK_RETURN_IF_ERROR(
      reg.Kernel<NchwcGlobalAveragePoolKernel>("NchwcGlobalAveragePool", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}}));
  LOOM_SDK_RETURN_IF_ERROR(
      reg.Kernel<NchwcGlobalAveragePoolKernel>("NhwcGlobalAveragePool", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}}));
  return reg.Kernel<GlobalPoolKernel<true>>("GlobalMaxPool", f32_f64);
}

}  // namespace cpu
}  // namespace loom
