// ConvInteger's and QLinearConv's convolution on oneDNN's int8 convolution
// (u8 or s8 X with its zero point, s8 W; VNNI where the CPU has it), in one
// of two forms:
//   - accumulate: Y s32 = conv(X - x_zero_point, W) + B, the exact integer
//     sums the reference loops compute (ConvInteger; QLinearConv whose
//     parameters change between runs, requantized by the caller);
//   - requantize: Y u8/s8 = saturate(round((acc + B) * scale[m]) +
//     y_zero_point), scale[m] = x_scale * w_scale[m] / y_scale formed in
//     float32 (Int8OutputScales), as ONNX Runtime's QLinearConv does; the
//     rounding of a product on a .5 boundary may differ by one step from
//     ops/semantics/quantization.h's double form.
// X and Y are plain NCHW tensors, reordered to and from oneDNN's layout, or
// channels-last [N, H, W, C] ones (NhwcQLinearConv), which its int8
// kernels take as they are.
// A constant W is packed into the primitive's layout once, in Prepare
// (PackConstantW), shared with every kernel packing the same W the same
// way. oneDNN has no weight zero points: a W zero point other than 0, a u8
// W or a configuration oneDNN does not implement returns false from
// Configure and the caller runs its loops.
#ifndef LOOM_PLUGINS_CPU_DNNL_INT8_CONV_H_
#define LOOM_PLUGINS_CPU_DNNL_INT8_CONV_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/semantics/window.h"
#include "plugins/cpu/dnnl_common.h"

namespace loom {
namespace cpu {

// The requantize form's output scales, x_scale * w_scale[m] / y_scale in
// float32 operations in that order, as ONNX Runtime's QLinearConv forms
// them: a multiplier formed in double and then rounded can differ from it
// by one ulp, which moves a product on a .5 boundary by one step, and one
// step early in a network spreads to many values later on.
inline std::vector<float> Int8OutputScales(double x_scale, const std::vector<float>& w_scale, double y_scale) {
  std::vector<float> s;
  s.reserve(w_scale.size());
  for (float ws : w_scale) s.push_back(static_cast<float>(x_scale) * ws / static_cast<float>(y_scale));
  return s;
}

// Sets `attr` for an int8 output requantized by oneDNN: per-tensor or
// per-channel (dim 1) output scales and, with `zero_point`, a runtime dst
// zero point. oneDNN computes saturate(round(scale * (acc + B) + zero
// point)), the zero point added in float before the rounding: -39.499996 +
// 134 is 94.5 in float32 and rounds (to even) to 94, where ONNX and ONNX
// Runtime round first and add the zero point after (95). An eltwise_round
// post-op (half to even) rounds first, so the zero point adds to a whole
// number exactly.
inline void SetInt8Requantize(const std::vector<float>& scales, bool zero_point, dnnl::primitive_attr* attr) {
  attr->set_output_scales(scales.size() > 1 ? 1 << 1 : 0, scales);
  if (!zero_point) return;
  attr->set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
  dnnl::post_ops ops;
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_round, 0.0f, 0.0f);
  attr->set_post_ops(ops);
}

class DnnlInt8Conv {
 public:
  // What Y receives.
  struct Output {
    LoomDataType dtype = LOOM_DTYPE_INT32;  // INT32: accumulate; INT8 / UINT8: requantize
    std::vector<float> scales;              // requantize: one, or one per output channel (M)
    bool zero_point = false;                // requantize: y's zero point is not 0
    bool operator==(const Output& o) const {
      return dtype == o.dtype && scales == o.scales && zero_point == o.zero_point;
    }
  };

  // Builds the primitive for X `xs` (`x_dt`; the plain [N, C, D...] dims,
  // whatever the layout) with a zero point other than 0 or not
  // (`x_zero_point`: oneDNN's kernels without one are faster), W `ws`,
  // group, window `win`, whether a bias is given, `out` and whether X and Y
  // are channels-last (2-D only), unless it is built for exactly these.
  // False (nothing built) when oneDNN has no implementation; asked again
  // for the same, answers the same without trying again.
  bool Configure(const std::string& label, LoomDataType x_dt, bool x_zero_point, const std::vector<int64_t>& xs,
                 const std::vector<int64_t>& ws, int64_t group, const semantics::Window& win, bool bias,
                 const Output& out, bool channels_last, int threads) {
    Key key{x_dt, x_zero_point, xs, ws, group, win.strides, win.dilations, win.pads_begin, win.pads_end, bias, out,
            channels_last, threads};
    if (tried_ && key == key_) return ok_;
    ok_ = false;
    tried_ = true;
    key_ = key;
    w_packed_ = false;
    w_pack_.Reset();
    using dt = dnnl::memory::data_type;
    std::vector<int64_t> ys = {xs[0], ws[0]};
    ys.insert(ys.end(), win.out.begin(), win.out.end());
    std::vector<int64_t> wdims = ws;
    if (group > 1) {
      wdims = {group, ws[0] / group, ws[1]};
      wdims.insert(wdims.end(), ws.begin() + 2, ws.end());
    }
    const dt y_dt = out.dtype == LOOM_DTYPE_INT32 ? dt::s32 : out.dtype == LOOM_DTYPE_UINT8 ? dt::u8 : dt::s8;
    const dt x_type = x_dt == LOOM_DTYPE_UINT8 ? dt::u8 : dt::s8;
    const auto nhwc = dnnl::memory::format_tag::nhwc;
    const dnnl::memory::desc x_md = channels_last ? dnnl::memory::desc(Dims(xs), x_type, nhwc) : PlainDesc(xs, x_type),
                             y_md = channels_last ? dnnl::memory::desc(Dims(ys), y_dt, nhwc) : PlainDesc(ys, y_dt),
                             w_md = PlainDesc(wdims, dt::s8), b_md = PlainDesc({ws[0]}, dt::s32);
    const Status s = DnnlCreate(label, threads, [&] {
      dnnl::primitive_attr attr;
      if (x_zero_point) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
      if (out.dtype != LOOM_DTYPE_INT32) {
        SetInt8Requantize(out.scales, out.zero_point, &attr);
      }
      auto any = [](const dnnl::memory::desc& md) {
        return dnnl::memory::desc(md.dims(), md.data_type(), dnnl::memory::format_tag::any);
      };
      dnnl::memory::dims dil;
      for (int64_t d : win.dilations) dil.push_back(d - 1);  // oneDNN counts the gaps
      const auto prop = dnnl::prop_kind::forward_inference;
      const auto alg = dnnl::algorithm::convolution_direct;
      auto d = bias ? dnnl::convolution_forward::desc(prop, alg, any(x_md), any(w_md), b_md, any(y_md),
                                                      Dims(win.strides), dil, Dims(win.pads_begin), Dims(win.pads_end))
                    : dnnl::convolution_forward::desc(prop, alg, any(x_md), any(w_md), any(y_md), Dims(win.strides), dil,
                                                      Dims(win.pads_begin), Dims(win.pads_end));
      pd_ = dnnl::convolution_forward::primitive_desc(d, UserScratchpad(attr), DnnlEngine());
      prim_ = dnnl::convolution_forward(pd_);
      x_.Make(x_md, pd_.src_desc(), /*input=*/true);
      y_.Make(y_md, pd_.dst_desc(), /*input=*/false);
      w_plain_md_ = w_md;
      w_plain_ = UnboundMemory(w_md);
      w_blk_ = dnnl::memory(pd_.weights_desc(), DnnlEngine());
      w_to_blk_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), w_md, DnnlEngine(), pd_.weights_desc()));
      b_ = UnboundMemory(b_md);
      x_zp_ = dnnl::memory(dnnl::memory::desc({1}, dt::s32, dnnl::memory::format_tag::x), DnnlEngine());
      y_zp_ = dnnl::memory(dnnl::memory::desc({1}, dt::s32, dnnl::memory::format_tag::x), DnnlEngine());
      scratchpad_.Reset(pd_.scratchpad_desc());
    });
    ok_ = s.ok();
    return ok_;
  }

  // In Prepare, after a Configure that returned true: packs the constant W
  // (input `index`) once into the primitive's layout; Run then skips W's
  // reorder. Nothing happens for a W that is not constant.
  Status PackConstantW(const sdk::PrepareContext& ctx, size_t index, const std::string& label) {
    dnnl::memory packed;
    LOOM_SDK_RETURN_IF_ERROR(
        PackConstantShared(ctx, index, label, w_plain_md_, pd_.weights_desc(), key_.threads, &w_pack_, &packed));
    if (!w_pack_.empty()) {
      w_blk_ = packed;
      w_packed_ = true;
    }
    return Status::Ok();
  }

  // Y (the configured Output, [N, M, out...]) from X and W; the zero
  // points are read where the configuration has them.
  Status Run(sdk::KernelContext& ctx, const std::string& label, const void* x, const void* w, int32_t x_zero_point,
             const int32_t* bias, int32_t y_zero_point, void* y) {
    const int threads = key_.threads;
    if (!w_packed_) {
      w_plain_.set_data_handle(const_cast<void*>(w));
      LOOM_SDK_RETURN_IF_ERROR(
          DnnlExecute(label, w_to_blk_, {{DNNL_ARG_FROM, w_plain_}, {DNNL_ARG_TO, w_blk_}}, threads));
    }
    dnnl::memory x_used, y_used;
    LOOM_SDK_RETURN_IF_ERROR(x_.Bind(ctx, const_cast<void*>(x), &x_used));
    LOOM_SDK_RETURN_IF_ERROR(y_.Bind(ctx, y, &y_used));
    LOOM_SDK_RETURN_IF_ERROR(x_.ReorderIn(label, threads));
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, x_used}, {DNNL_ARG_WEIGHTS, w_blk_}, {DNNL_ARG_DST, y_used}};
    if (key_.x_zero_point) {
      *static_cast<int32_t*>(x_zp_.get_data_handle()) = x_zero_point;
      args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = x_zp_;
    }
    if (key_.out.zero_point) {
      *static_cast<int32_t*>(y_zp_.get_data_handle()) = y_zero_point;
      args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = y_zp_;
    }
    if (bias != nullptr) {
      b_.set_data_handle(const_cast<int32_t*>(bias));
      args[DNNL_ARG_BIAS] = b_;
    }
    LOOM_SDK_RETURN_IF_ERROR(scratchpad_.Bind(ctx, &args));
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label, prim_, args, threads));
    return y_.ReorderOut(label, threads);
  }

 private:
  struct Key {
    LoomDataType x_dt = LOOM_DTYPE_UNDEFINED;
    bool x_zero_point = false;
    std::vector<int64_t> xs, ws;
    int64_t group = 1;
    std::vector<int64_t> strides, dilations, pads_begin, pads_end;
    bool bias = false;
    Output out;
    bool channels_last = false;
    int threads = 0;
    bool operator==(const Key& o) const {
      return x_dt == o.x_dt && x_zero_point == o.x_zero_point && xs == o.xs && ws == o.ws && group == o.group && strides == o.strides &&
             dilations == o.dilations && pads_begin == o.pads_begin && pads_end == o.pads_end && bias == o.bias &&
             out == o.out && channels_last == o.channels_last && threads == o.threads;
    }
  };
  Key key_;
  bool tried_ = false;  // key_ was configured for, with the result ok_
  bool ok_ = false;
  bool w_packed_ = false;  // w_blk_ holds the constant W (PackConstantW)
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::primitive prim_;
  DnnlOperand x_, y_;
  dnnl::memory::desc w_plain_md_;
  dnnl::memory w_plain_, w_blk_, b_, x_zp_, y_zp_;
  dnnl::reorder w_to_blk_;
  sdk::SharedPack w_pack_;  // holds w_blk_'s memory when W is shared-packed
  DnnlScratchpad scratchpad_;
};

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_DNNL_INT8_CONV_H_
