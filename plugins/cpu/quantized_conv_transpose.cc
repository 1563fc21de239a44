// Loom's QLinearConvTranspose (ops/quantization.cc), made by the QDQ rewrite
// (transforms/fuse_qdq.h) from DequantizeLinear -> ConvTranspose ->
// QuantizeLinear: ConvTranspose-11's geometry over (x - x_zero_point) and
// (w - w_zero_point), accumulated exactly, plus the int32 B, requantized
// with ops/semantics/quantization.h's rounding. A 2-D one-group
// ConvTranspose with s8 W of zero points 0 and no negative padding runs on
// oneDNN's int8 deconvolution (VNNI; the output scales x_scale * w_scale[m]
// / y_scale formed in float32 as for QLinearConv, so a product on a .5
// boundary may round one step apart), on channels-last tensors as they
// are; anything else, or what oneDNN refuses, runs plain int32 loops
// (nn_conv_naive.h).
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/semantics/quantization.h"
#include "ops/semantics/window.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/dnnl_int8_conv.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_conv_naive.h"
#include "plugins/cpu/quant_scalar.h"

namespace loom {
namespace cpu {
namespace {

using dt = dnnl::memory::data_type;

class QLinearConvTransposeKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    group_ = info.IntOr("group", 1);
    channels_last_ = info.IntOr("channels_last", 0) != 0;
    if (group_ < 1) return sdk::InvalidArgument(label_ + ": group must be >= 1; found " + std::to_string(group_));
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    const Tensor x = ctx.Input(0), w = ctx.Input(3), b = ctx.Input(8), y_zp = ctx.Input(7);
    std::vector<int64_t> xs = x.shape();
    const std::vector<int64_t> ws = w.shape();
    if (channels_last_) {
      if (xs.size() != 4) {
        return sdk::InvalidArgument(label_ + ": channels-last x must be [N, H, W, C]; found " + ShapeStr(xs));
      }
      xs = {xs[0], xs[3], xs[1], xs[2]};
    }
    LOOM_SDK_RETURN_IF_ERROR(semantics::CheckConvTransposeOperands(label_, group_, xs, ws, Tensor()));
    const int64_t N = xs[0], M = ws[1] * group_;
    if (b.present() && (b.shape().size() != 1 || b.shape()[0] != M)) {
      return sdk::InvalidArgument(label_ + ": B must be [" + std::to_string(M) + "]; found " + ShapeStr(b.shape()));
    }
    semantics::ConvTransposeGeometry geo;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, xs, ws, &geo));
    const std::vector<int64_t> ys = geo.OutputShape(N, M);
    // Scalars, and w's scale and zero point: one, or one per output channel.
    double v[4];
    const char* names[] = {"x_scale", "x_zero_point", "y_scale", "y_zero_point"};
    const size_t inputs[] = {1, 2, 6, 7};
    // (Their dtypes are the schema's: float32 scales, x's and y's types.)
    for (int i = 0; i < 4; ++i) LOOM_SDK_RETURN_IF_ERROR(ScalarOf(label_, names[i], ctx.Input(inputs[i]), &v[i]));
    std::vector<float> w_scale;
    std::vector<int32_t> w_zero;
    LOOM_SDK_RETURN_IF_ERROR(PerChannel(ctx.Input(4), "w_scale", M, &w_scale));
    LOOM_SDK_RETURN_IF_ERROR(PerChannel(ctx.Input(5), "w_zero_point", M, &w_zero));
    for (float s : w_scale) {
      if (!(std::isfinite(s) && s > 0)) {
        return sdk::InvalidArgument(label_ + ": w_scale must be positive finite scales; found " + std::to_string(s));
      }
    }
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, y_zp.dtype(),
                                        channels_last_ ? std::vector<int64_t>{ys[0], ys[2], ys[3], ys[1]} : ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    bool zero_w = true;
    for (int32_t z : w_zero) zero_w = zero_w && z == 0;
    bool direct = xs.size() == 4 && group_ == 1 && zero_w && w.dtype() == LOOM_DTYPE_INT8 && x.num_elements() > 0;
    for (size_t i = 0; direct && i < geo.pads_begin.size(); ++i) {
      direct = geo.pads_begin[i] >= 0 && geo.pads_end[i] >= 0;
    }
    if (direct && Configure(x.dtype(), v[1] != 0, xs, ws, ys, geo, b.present(), y.dtype(), v[3] != 0,
                            Int8OutputScales(v[0], w_scale, v[2]), ctx.num_threads())) {
      return Run(ctx, x, w, b, static_cast<int32_t>(v[1]), static_cast<int32_t>(v[3]), &y);
    }
    return RunLoops(x, w, b, xs, ws, ys, geo, static_cast<int32_t>(v[1]), w_zero, v[0], w_scale, v[2],
                    static_cast<int32_t>(v[3]), &y);
  }

 private:
  // A float32 or int8/uint8 parameter of one element or M, as M values.
  template <typename V>
  Status PerChannel(const Tensor& t, const char* name, int64_t M, std::vector<V>* out) const {
    out->assign(static_cast<size_t>(M), V(0));
    if (!t.present()) return Status::Ok();
    const int64_t n = t.num_elements();
    if (n != 1 && n != M) {
      return sdk::InvalidArgument(label_ + ": " + name + " must be one element or " + std::to_string(M) +
                                  " (per output channel); found " + ShapeStr(t.shape()));
    }
    for (int64_t m = 0; m < M; ++m) {
      const int64_t i = n == 1 ? 0 : m;
      switch (t.dtype()) {
        case LOOM_DTYPE_FLOAT: (*out)[m] = static_cast<V>(t.data<float>()[i]); break;
        case LOOM_DTYPE_INT8: (*out)[m] = static_cast<V>(t.data<int8_t>()[i]); break;
        case LOOM_DTYPE_UINT8: (*out)[m] = static_cast<V>(t.data<uint8_t>()[i]); break;
        default: return UnsupportedDtype(label_ + " " + name, t.dtype());
      }
    }
    return Status::Ok();
  }


  // Builds oneDNN's int8 deconvolution unless built for exactly these;
  // false when oneDNN has no implementation (asked again, answers the same).
  bool Configure(LoomDataType x_dt, bool x_zp, const std::vector<int64_t>& xs, const std::vector<int64_t>& ws,
                 const std::vector<int64_t>& ys, const semantics::ConvTransposeGeometry& geo, bool bias,
                 LoomDataType y_dt, bool y_zp, const std::vector<float>& scales, int threads) {
    Key key{x_dt, x_zp, xs, ws, geo.strides, geo.dilations, geo.pads_begin, geo.pads_end, bias, y_dt, y_zp,
            scales, channels_last_, threads};
    if (tried_ && key == key_) return ok_;
    tried_ = true;
    key_ = key;
    ok_ = DnnlCreate(label_, threads, [&] {
           const auto tag = channels_last_ ? dnnl::memory::format_tag::nhwc : dnnl::memory::format_tag::nchw;
           const dnnl::memory::desc x_md(Dims(xs), x_dt == LOOM_DTYPE_UINT8 ? dt::u8 : dt::s8, tag),
               y_md(Dims(ys), y_dt == LOOM_DTYPE_UINT8 ? dt::u8 : dt::s8, tag), b_md = PlainDesc({ys[1]}, dt::s32);
           // ONNX's W [C, M, kH, kW] is oneDNN's deconvolution weights
           // {M, C, kH, kW} in the iohw layout.
           const dnnl::memory::desc w_md(Dims({ws[1], ws[0], ws[2], ws[3]}), dt::s8, dnnl::memory::format_tag::iohw);
           dnnl::primitive_attr attr;
           if (x_zp) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
           SetInt8Requantize(scales, y_zp, &attr);
           dnnl::memory::dims dil;
           for (int64_t d : geo.dilations) dil.push_back(d - 1);
           const dnnl::memory::desc w_any(w_md.dims(), dt::s8, dnnl::memory::format_tag::any);
           const auto prop = dnnl::prop_kind::forward_inference;
           const auto alg = dnnl::algorithm::deconvolution_direct;
           auto d = bias ? dnnl::deconvolution_forward::desc(prop, alg, x_md, w_any, b_md, y_md, Dims(geo.strides), dil,
                                                             Dims(geo.pads_begin), Dims(geo.pads_end))
                         : dnnl::deconvolution_forward::desc(prop, alg, x_md, w_any, y_md, Dims(geo.strides), dil,
                                                             Dims(geo.pads_begin), Dims(geo.pads_end));
           pd_ = dnnl::deconvolution_forward::primitive_desc(d, UserScratchpad(attr), DnnlEngine());
           prim_ = dnnl::deconvolution_forward(pd_);
           x_ = UnboundMemory(x_md);
           y_ = UnboundMemory(y_md);
           b_ = UnboundMemory(b_md);
           w_plain_ = UnboundMemory(w_md);
           w_ = dnnl::memory(pd_.weights_desc(), DnnlEngine());
           w_reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), w_md, DnnlEngine(), pd_.weights_desc()));
           x_zp_ = dnnl::memory(dnnl::memory::desc({1}, dt::s32, dnnl::memory::format_tag::x), DnnlEngine());
           y_zp_ = dnnl::memory(dnnl::memory::desc({1}, dt::s32, dnnl::memory::format_tag::x), DnnlEngine());
           scratchpad_.Reset(pd_.scratchpad_desc());
         }).ok();
    return ok_;
  }

  Status Run(KernelContext& ctx, const Tensor& x, const Tensor& w, const Tensor& b, int32_t x_zp, int32_t y_zp,
             Tensor* y) {
    const int threads = key_.threads;
    w_plain_.set_data_handle(w.raw_data());
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, w_reorder_, {{DNNL_ARG_FROM, w_plain_}, {DNNL_ARG_TO, w_}}, threads));
    x_.set_data_handle(x.raw_data());
    y_.set_data_handle(y->raw_data());
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, x_}, {DNNL_ARG_WEIGHTS, w_}, {DNNL_ARG_DST, y_}};
    if (key_.x_zp) {
      *static_cast<int32_t*>(x_zp_.get_data_handle()) = x_zp;
      args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = x_zp_;
    }
    if (key_.y_zp) {
      *static_cast<int32_t*>(y_zp_.get_data_handle()) = y_zp;
      args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = y_zp_;
    }
    if (b.present()) {
      b_.set_data_handle(b.raw_data());
      args[DNNL_ARG_BIAS] = b_;
    }
    LOOM_SDK_RETURN_IF_ERROR(scratchpad_.Bind(ctx, &args));
    return DnnlExecute(label_, prim_, args, threads);
  }

  // The int32 loops: accumulate (x - x_zero_point) and (w - w_zero_point[m])
  // as ConvTranspose does (the adjoint of a Conv), add B, requantize.
  Status RunLoops(const Tensor& x, const Tensor& w, const Tensor& b, const std::vector<int64_t>& xs,
                  const std::vector<int64_t>& ws, const std::vector<int64_t>& ys,
                  const semantics::ConvTransposeGeometry& geo, int32_t x_zp, const std::vector<int32_t>& w_zero,
                  double x_scale, const std::vector<float>& w_scale, double y_scale, int32_t y_zp, Tensor* y) const {
    const int64_t N = xs[0], C = xs[1], plane = semantics::Product(xs, 2, xs.size());
    const int64_t M = ys[1], Mg = ws[1], Cg = C / group_, out_plane = semantics::Product(ys, 2, ys.size());
    auto element = [](const Tensor& t, int64_t i) -> int32_t {
      return t.dtype() == LOOM_DTYPE_INT8 ? t.data<int8_t>()[i] : t.data<uint8_t>()[i];
    };
    std::vector<int32_t> x32(static_cast<size_t>(x.num_elements())), w32(static_cast<size_t>(w.num_elements()));
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t p = 0; p < plane; ++p) {
          const int64_t from = channels_last_ ? (n * plane + p) * C + c : (n * C + c) * plane + p;
          x32[static_cast<size_t>((n * C + c) * plane + p)] = element(x, from) - x_zp;
        }
      }
    }
    const int64_t taps = w.num_elements() / (C * Mg);
    for (int64_t c = 0; c < C; ++c) {
      for (int64_t mi = 0; mi < Mg; ++mi) {
        const int64_t m = (c / Cg) * Mg + mi;
        for (int64_t t = 0; t < taps; ++t) {
          const int64_t i = (c * Mg + mi) * taps + t;
          w32[static_cast<size_t>(i)] = element(w, i) - w_zero[static_cast<size_t>(m)];
        }
      }
    }
    std::vector<int32_t> acc(static_cast<size_t>(N * M * out_plane), 0);
    const ConvGeometry g = ConvGeometry::ForTranspose(xs, ws, group_, geo);
    ConvBackwardNaive<int32_t>(g, nullptr, w32.data(), x32.data(), acc.data(), nullptr, nullptr);
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t m = 0; m < M; ++m) {
        const double mult = semantics::RequantizeMultiplier(static_cast<float>(x_scale), w_scale[m],
                                                            static_cast<float>(y_scale));
        const int32_t bias = b.present() ? b.data<int32_t>()[m] : 0;
        for (int64_t p = 0; p < out_plane; ++p) {
          const int32_t a = acc[static_cast<size_t>((n * M + m) * out_plane + p)] + bias;
          const int64_t to = channels_last_ ? (n * out_plane + p) * M + m : (n * M + m) * out_plane + p;
          if (y->dtype() == LOOM_DTYPE_INT8) {
            y->data<int8_t>()[to] = semantics::Requantize<int8_t>(a, mult, y_zp);
          } else {
            y->data<uint8_t>()[to] = semantics::Requantize<uint8_t>(a, mult, y_zp);
          }
        }
      }
    }
    return Status::Ok();
  }

  struct Key {
    LoomDataType x_dt = LOOM_DTYPE_UNDEFINED;
    bool x_zp = false;
    std::vector<int64_t> xs, ws, strides, dilations, pads_begin, pads_end;
    bool bias = false;
    LoomDataType y_dt = LOOM_DTYPE_UNDEFINED;
    bool y_zp = false;
    std::vector<float> scales;
    bool channels_last = false;
    int threads = 0;
    bool operator==(const Key& o) const {
      return x_dt == o.x_dt && x_zp == o.x_zp && xs == o.xs && ws == o.ws && strides == o.strides &&
             dilations == o.dilations && pads_begin == o.pads_begin && pads_end == o.pads_end && bias == o.bias &&
             y_dt == o.y_dt && y_zp == o.y_zp && scales == o.scales && channels_last == o.channels_last &&
             threads == o.threads;
    }
  };

  int64_t group_ = 1;
  bool channels_last_ = false;
  semantics::ConvTransposeAttrs attrs_;
  Key key_;
  bool tried_ = false, ok_ = false;
  dnnl::deconvolution_forward::primitive_desc pd_;
  dnnl::primitive prim_;
  dnnl::memory x_, y_, b_, w_plain_, w_, x_zp_, y_zp_;
  dnnl::reorder w_reorder_;
  DnnlScratchpad scratchpad_;
};

}  // namespace

Status RegisterQuantizedConvTransposeKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> q = {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8};
  return reg.Kernel<QLinearConvTransposeKernel>("QLinearConvTranspose",
                                                {"CPU", "", 0, {{"T1", q}, {"T2", q}, {"T3", q}}});
}

}  // namespace cpu
}  // namespace loom
