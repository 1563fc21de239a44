// Conv, MaxPool, AveragePool and BatchNormalization on oneDNN primitives
// (plain NC[D]HW layouts bound to the tensors), GlobalAveragePool and
// GlobalMaxPool as OpenMP loops. Primitives are cached per input shape.
#include <cmath>
#include <cstring>
#include <limits>

#include "plugins/cpu/dnnl_common.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

const std::vector<LoomDataType> kF32 = {LOOM_DTYPE_FLOAT};

// Spatial geometry shared by Conv and pooling (ONNX attribute semantics).
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end, out;
};

struct WindowAttrs {
  std::string auto_pad = "NOTSET";
  std::vector<int64_t> kernel, strides, dilations, pads;
  bool ceil_mode = false;

  Status Read(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(info.GetString("auto_pad", &auto_pad));
    kernel = info.IntsOr("kernel_shape", {});
    strides = info.IntsOr("strides", {});
    dilations = info.IntsOr("dilations", {});
    pads = info.IntsOr("pads", {});
    ceil_mode = info.IntOr("ceil_mode", 0) != 0;
    return Status::Ok();
  }

  // Fills `w` for spatial input dims `in`.
  Status Resolve(const std::string& label, const std::vector<int64_t>& in, std::vector<int64_t> k, Window* w) const {
    const size_t n = in.size();
    if (k.size() != n) {
      return sdk::InvalidArgument(label + ": kernel_shape has " + std::to_string(k.size()) + " dims; the input has " +
                                  std::to_string(n) + " spatial dims");
    }
    w->kernel = k;
    w->strides = strides.empty() ? std::vector<int64_t>(n, 1) : strides;
    w->dilations = dilations.empty() ? std::vector<int64_t>(n, 1) : dilations;
    if (w->strides.size() != n || w->dilations.size() != n) return sdk::InvalidArgument(label + ": strides/dilations rank mismatch");
    w->pads_begin.assign(n, 0);
    w->pads_end.assign(n, 0);
    w->out.assign(n, 0);
    if (!pads.empty()) {
      if (pads.size() != 2 * n) return sdk::InvalidArgument(label + ": pads must have " + std::to_string(2 * n) + " values");
      for (size_t i = 0; i < n; ++i) {
        w->pads_begin[i] = pads[i];
        w->pads_end[i] = pads[n + i];
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const int64_t ek = (k[i] - 1) * w->dilations[i] + 1, s = w->strides[i];
      if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        w->out[i] = (in[i] + s - 1) / s;
        int64_t total = std::max<int64_t>(0, (w->out[i] - 1) * s + ek - in[i]);
        int64_t small = total / 2, big = total - small;
        w->pads_begin[i] = auto_pad == "SAME_UPPER" ? small : big;
        w->pads_end[i] = auto_pad == "SAME_UPPER" ? big : small;
      } else if (auto_pad == "VALID") {
        w->pads_begin[i] = w->pads_end[i] = 0;
        w->out[i] = (in[i] - ek) / s + 1;
      } else if (auto_pad == "NOTSET") {
        int64_t span = in[i] + w->pads_begin[i] + w->pads_end[i] - ek;
        w->out[i] = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
        // In ceil mode a window that starts in the end padding is dropped.
        if (ceil_mode && (w->out[i] - 1) * s >= in[i] + w->pads_begin[i]) --w->out[i];
      } else {
        return sdk::InvalidArgument(label + ": auto_pad '" + auto_pad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
      }
      if (w->out[i] <= 0) {
        return sdk::InvalidArgument(label + ": spatial dim " + std::to_string(i) + " of size " + std::to_string(in[i]) +
                                    " is too small for the window");
      }
      // oneDNN's right padding that yields exactly `out` windows.
      w->pads_end[i] = (w->out[i] - 1) * s + ek - in[i] - w->pads_begin[i];
    }
    return Status::Ok();
  }
};

memory::dims Minus1(const std::vector<int64_t>& v) {
  memory::dims d;
  for (int64_t x : v) d.push_back(x - 1);
  return d;
}

class ConvKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("group", &group_));
    return attrs_.Read(info);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), w = ctx.Input(1), b = ctx.Input(2), y;
    const std::vector<int64_t> xs = x.shape(), ws = w.shape();
    if (xs.size() < 3 || xs.size() > 5 || ws.size() != xs.size()) {
      return sdk::InvalidArgument(label_ + ": X must be [N, C, D...] with 1 to 3 spatial dims and W of the same rank; found X " +
                                  ShapeStr(xs) + ", W " + ShapeStr(ws));
    }
    const int64_t N = xs[0], C = xs[1], M = ws[0], G = group_;
    if (G <= 0 || C % G != 0 || M % G != 0 || ws[1] != C / G) {
      return sdk::InvalidArgument(label_ + ": W " + ShapeStr(ws) + " does not fit X " + ShapeStr(xs) + " with group " +
                                  std::to_string(G) + " (expected W[1] = C / group = " + std::to_string(G > 0 ? C / G : 0) + ")");
    }
    if (b.present() && (b.rank() != 1 || b.dim(0) != M)) {
      return sdk::InvalidArgument(label_ + ": B must be [" + std::to_string(M) + "], found " + ShapeStr(b.shape()));
    }
    std::vector<int64_t> spatial(xs.begin() + 2, xs.end()), k(ws.begin() + 2, ws.end());
    if (!attrs_.kernel.empty() && attrs_.kernel != k) {
      return sdk::InvalidArgument(label_ + ": kernel_shape " + ShapeStr(attrs_.kernel) + " differs from W's " + ShapeStr(k));
    }
    Window win;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, spatial, k, &win));
    std::vector<int64_t> ys = {N, M};
    ys.insert(ys.end(), win.out.begin(), win.out.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    std::vector<int64_t> key = xs;
    key.insert(key.end(), ws.begin(), ws.end());
    key.push_back(b.present());
    if (key != key_) {
      try {
        std::vector<int64_t> wdims = ws;
        if (G > 1) {
          wdims = {G, M / G, C / G};
          wdims.insert(wdims.end(), k.begin(), k.end());
        }
        memory::desc x_md = PlainDesc(xs), w_md = PlainDesc(wdims), y_md = PlainDesc(ys), b_md = PlainDesc({M});
        auto d = b.present()
                     ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                                       x_md, w_md, b_md, y_md, Dims(win.strides), Minus1(win.dilations),
                                                       Dims(win.pads_begin), Dims(win.pads_end))
                     : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                                       x_md, w_md, y_md, Dims(win.strides), Minus1(win.dilations),
                                                       Dims(win.pads_begin), Dims(win.pads_end));
        prim_ = dnnl::convolution_forward(dnnl::convolution_forward::primitive_desc(d, DnnlEngine()));
        x_mem_ = memory(x_md, DnnlEngine(), nullptr);
        w_mem_ = memory(w_md, DnnlEngine(), nullptr);
        y_mem_ = memory(y_md, DnnlEngine(), nullptr);
        b_mem_ = memory(b_md, DnnlEngine(), nullptr);
      } catch (const dnnl::error& e) {
        return sdk::Internal(label_ + ": oneDNN: " + e.what());
      }
      key_ = key;
    }
    x_mem_.set_data_handle(x.raw_data());
    w_mem_.set_data_handle(w.raw_data());
    y_mem_.set_data_handle(y.raw_data());
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, x_mem_}, {DNNL_ARG_WEIGHTS, w_mem_}, {DNNL_ARG_DST, y_mem_}};
    if (b.present()) {
      b_mem_.set_data_handle(b.raw_data());
      args[DNNL_ARG_BIAS] = b_mem_;
    }
    return DnnlExecute(label_, prim_, args, ctx.num_threads());
  }

 private:
  std::string label_;
  int64_t group_ = 1;
  WindowAttrs attrs_;
  std::vector<int64_t> key_;
  dnnl::convolution_forward prim_;
  memory x_mem_, w_mem_, y_mem_, b_mem_;
};

template <bool kMax>
class PoolKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Read(info));
    if (attrs_.kernel.empty()) return sdk::InvalidArgument(label_ + ": kernel_shape is required");
    include_pad_ = info.IntOr("count_include_pad", 0) != 0;
    if (!kMax && !attrs_.dilations.empty()) {
      for (int64_t d : attrs_.dilations) {
        if (d != 1) return sdk::Unimplemented(label_ + ": dilated AveragePool is not supported");
      }
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    if (kMax && ctx.OutputRequested(1)) return sdk::Unimplemented(label_ + ": the Indices output is not supported");
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 3 || xs.size() > 5) {
      return sdk::InvalidArgument(label_ + ": X must be [N, C, D...] with 1 to 3 spatial dims; found " + ShapeStr(xs));
    }
    Window win;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, std::vector<int64_t>(xs.begin() + 2, xs.end()), attrs_.kernel, &win));
    std::vector<int64_t> ys = {xs[0], xs[1]};
    ys.insert(ys.end(), win.out.begin(), win.out.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    if (xs != key_) {
      try {
        memory::desc x_md = PlainDesc(xs), y_md = PlainDesc(ys);
        auto alg = kMax ? dnnl::algorithm::pooling_max
                        : (include_pad_ ? dnnl::algorithm::pooling_avg_include_padding : dnnl::algorithm::pooling_avg_exclude_padding);
        dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg, x_md, y_md, Dims(win.strides),
                                         Dims(win.kernel), Minus1(win.dilations), Dims(win.pads_begin), Dims(win.pads_end));
        prim_ = dnnl::pooling_v2_forward(dnnl::pooling_v2_forward::primitive_desc(d, DnnlEngine()));
        x_mem_ = memory(x_md, DnnlEngine(), nullptr);
        y_mem_ = memory(y_md, DnnlEngine(), nullptr);
      } catch (const dnnl::error& e) {
        return sdk::Internal(label_ + ": oneDNN: " + e.what());
      }
      key_ = xs;
    }
    x_mem_.set_data_handle(x.raw_data());
    y_mem_.set_data_handle(y.raw_data());
    return DnnlExecute(label_, prim_, {{DNNL_ARG_SRC, x_mem_}, {DNNL_ARG_DST, y_mem_}}, ctx.num_threads());
  }

 private:
  std::string label_;
  WindowAttrs attrs_;
  bool include_pad_ = false;
  std::vector<int64_t> key_;
  dnnl::pooling_v2_forward prim_;
  memory x_mem_, y_mem_;
};

template <bool kMax>
class GlobalPoolKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    std::vector<int64_t> xs = x.shape();
    if (xs.size() < 3) return sdk::InvalidArgument(label_ + ": X must be [N, C, D...]; found " + ShapeStr(xs));
    std::vector<int64_t> ys(xs.size(), 1);
    ys[0] = xs[0];
    ys[1] = xs[1];
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys, &y));
    const int64_t planes = xs[0] * xs[1];
    const int64_t size = planes == 0 ? 0 : x.num_elements() / planes;
    const float* in = x.data<float>();
    float* out = y.data<float>();
    ParallelFor(planes, ctx.num_threads(), [&](int64_t p) {
      const float* row = in + p * size;
      float acc = kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
      for (int64_t i = 0; i < size; ++i) acc = kMax ? std::max(acc, row[i]) : acc + row[i];
      out[p] = kMax ? acc : acc / static_cast<float>(size);
    }, size);
    return Status::Ok();
  }

 private:
  std::string label_;
};

class BatchNormKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("epsilon", &epsilon_));
    if (info.IntOr("training_mode", 0) != 0) return sdk::Unimplemented(label_ + ": training_mode = 1 is not supported");
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    if (ctx.OutputRequested(1) || ctx.OutputRequested(2)) {
      return sdk::Unimplemented(label_ + ": running_mean/running_var outputs exist only in training mode");
    }
    Tensor x = ctx.Input(0), y;
    std::vector<int64_t> xs = x.shape();
    if (xs.size() < 2 || xs.size() > 5) return sdk::InvalidArgument(label_ + ": X must be [N, C, D...]; found " + ShapeStr(xs));
    const int64_t C = xs[1];
    const char* names[] = {"X", "scale", "B", "input_mean", "input_var"};
    for (size_t i = 1; i < 5; ++i) {
      if (ctx.Input(i).num_elements() != C) {
        return sdk::InvalidArgument(label_ + ": " + names[i] + " must have " + std::to_string(C) + " elements; found " +
                                    ShapeStr(ctx.Input(i).shape()));
      }
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, xs, &y));
    if (y.num_elements() == 0) return Status::Ok();
    if (xs != key_) {
      try {
        memory::desc x_md = PlainDesc(xs), c_md = PlainDesc({C});
        dnnl::batch_normalization_forward::desc d(
            dnnl::prop_kind::forward_inference, x_md, epsilon_,
            dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
                dnnl::normalization_flags::use_shift);
        prim_ = dnnl::batch_normalization_forward(dnnl::batch_normalization_forward::primitive_desc(d, DnnlEngine()));
        x_mem_ = memory(x_md, DnnlEngine(), nullptr);
        y_mem_ = memory(x_md, DnnlEngine(), nullptr);
        for (auto& m : c_mem_) m = memory(c_md, DnnlEngine(), nullptr);
      } catch (const dnnl::error& e) {
        return sdk::Internal(label_ + ": oneDNN: " + e.what());
      }
      key_ = xs;
    }
    x_mem_.set_data_handle(x.raw_data());
    y_mem_.set_data_handle(y.raw_data());
    for (int i = 0; i < 4; ++i) c_mem_[i].set_data_handle(ctx.Input(i + 1).raw_data());
    return DnnlExecute(label_, prim_,
                       {{DNNL_ARG_SRC, x_mem_}, {DNNL_ARG_DST, y_mem_}, {DNNL_ARG_SCALE, c_mem_[0]}, {DNNL_ARG_SHIFT, c_mem_[1]},
                        {DNNL_ARG_MEAN, c_mem_[2]}, {DNNL_ARG_VARIANCE, c_mem_[3]}},
                       ctx.num_threads());
  }

 private:
  std::string label_;
  float epsilon_ = 1e-5f;
  std::vector<int64_t> key_;
  dnnl::batch_normalization_forward prim_;
  memory x_mem_, y_mem_, c_mem_[4];
};

}  // namespace

sdk::Status RegisterDnnlConvPoolKernels(sdk::Registrar& reg) {
  const sdk::KernelOptions f32{"CPU", "", 0, {{"T", kF32}}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConvKernel>("Conv", f32));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PoolKernel<true>>("MaxPool", f32));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PoolKernel<false>>("AveragePool", f32));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GlobalPoolKernel<false>>("GlobalAveragePool", f32));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GlobalPoolKernel<true>>("GlobalMaxPool", f32));
  return reg.Kernel<BatchNormKernel>("BatchNormalization", f32);
}

}  // namespace cpu
}  // namespace loom
