// QuantizeLinear-13, DequantizeLinear-13 and DynamicQuantizeLinear-11
// kernels (ops/quantization.cc; the rules are ops/semantics/quantization.h's):
// plain loops over X viewed as [outer, channels, inner], one parameter pair
// per channel (one channel for per-tensor parameters), OpenMP over rows.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/semantics/quantization.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/dynamic_quantize_rows.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/vector_clones.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

// A zero point's values as int32 (absent: `count` zeros).
Status ZeroPoints(const Tensor& zp, int64_t count, const std::string& label, std::vector<int32_t>* out) {
  out->assign(static_cast<size_t>(count), 0);
  if (!zp.present()) return Status::Ok();
  switch (zp.dtype()) {
    case LOOM_DTYPE_INT8: std::copy_n(zp.data<int8_t>(), count, out->begin()); break;
    case LOOM_DTYPE_UINT8: std::copy_n(zp.data<uint8_t>(), count, out->begin()); break;
    case LOOM_DTYPE_INT32: std::copy_n(zp.data<int32_t>(), count, out->begin()); break;
    default: return UnsupportedDtype(label + " zero point", zp.dtype());
  }
  return Status::Ok();
}

// Resolves the per-tensor or per-axis view of X and reads the parameters.
Status Parameters(const std::string& label, const Tensor& x, const Tensor& scale, const Tensor& zp, int64_t axis,
                  semantics::QuantAxis* view, std::vector<int32_t>* zero_points) {
  std::vector<int64_t> zs;
  if (zp.present()) zs = zp.shape();
  LOOM_SDK_RETURN_IF_ERROR(view->Resolve(label, x.shape(), scale.shape(), zp.present() ? &zs : nullptr, axis));
  if (scale.dtype() != LOOM_DTYPE_FLOAT) return UnsupportedDtype(label + " scale", scale.dtype());
  return ZeroPoints(zp, view->channels, label, zero_points);
}

// Calls f(i, channel) for every element i of X viewed as `view`.
template <typename F>
void ForEachChannel(const semantics::QuantAxis& v, int threads, F&& f) {
  ParallelFor(v.outer * v.channels, threads, [&](int64_t row) {
    const int64_t c = row % v.channels, base = row * v.inner;
    for (int64_t j = 0; j < v.inner; ++j) f(base + j, c);
  }, v.inner);
}

// One run of elements with one scale and zero point. Its own function, not
// inlined, with its parameters as values, so that GCC vectorizes it: a
// store through Q* (a char type) may alias anything, so a loop reading
// captured references would reload them after every element.
template <typename X, typename Q>
LOOM_VECTOR_CLONES void QuantizeRow(const X* x, int64_t n, float scale, int32_t zero_point, Q* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = semantics::QuantizeValue<Q>(static_cast<float>(x[i]), scale, zero_point);
}

// The inputs of QuantizeLinear and DequantizeLinear (x, scale, the optional
// zero point) and their per-axis view.
struct LinearQuantInputs {
  Tensor x, scale, zp;
  semantics::QuantAxis view;
  std::vector<int32_t> zero_points;
};

// Their shared part: the `axis` attribute, and reading the inputs.
class LinearQuantKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 1);
    return Status::Ok();
  }

 protected:
  Status Begin(KernelContext& ctx, LinearQuantInputs* in) const {
    in->x = ctx.Input(0);
    in->scale = ctx.Input(1);
    in->zp = ctx.Input(2);
    return Parameters(label_, in->x, in->scale, in->zp, axis_, &in->view, &in->zero_points);
  }

  std::string label_;
  int64_t axis_ = 1;
};

class QuantizeLinearKernel : public LinearQuantKernel {
 public:
  Status Compute(KernelContext& ctx) {
    LinearQuantInputs in;
    LOOM_SDK_RETURN_IF_ERROR(Begin(ctx, &in));
    const Tensor &x = in.x, &scale = in.scale, &zp = in.zp;
    const semantics::QuantAxis& view = in.view;
    const std::vector<int32_t>& zero_points = in.zero_points;
    Tensor y;
    const LoomDataType out = zp.present() ? zp.dtype() : LOOM_DTYPE_UINT8;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, out, x.shape(), &y));
    const float* s = scale.data<float>();
    auto run = [&](auto q_tag, auto x_tag) {
      using Q = decltype(q_tag);
      using X = decltype(x_tag);
      const X* src = x.data<X>();
      Q* dst = y.data<Q>();
      if (view.channels == 1) {  // per tensor: chunks of the whole of X
        const int64_t n = x.num_elements();
        ParallelRange(n, n, ctx.num_threads(), [&](int64_t lo, int64_t hi) {
          QuantizeRow(src + lo, hi - lo, s[0], zero_points[0], dst + lo);
        });
        return;
      }
      ParallelFor(view.outer * view.channels, ctx.num_threads(), [&](int64_t row) {
        const int64_t c = row % view.channels, base = row * view.inner;
        QuantizeRow(src + base, view.inner, s[c], zero_points[c], dst + base);
      }, view.inner);
    };
    const bool int32_x = x.dtype() == LOOM_DTYPE_INT32;
    if (x.dtype() != LOOM_DTYPE_FLOAT && !int32_x) return UnsupportedDtype(label_, x.dtype());
    if (out == LOOM_DTYPE_INT8) {
      int32_x ? run(int8_t{}, int32_t{}) : run(int8_t{}, float{});
    } else if (out == LOOM_DTYPE_UINT8) {
      int32_x ? run(uint8_t{}, int32_t{}) : run(uint8_t{}, float{});
    } else {
      return UnsupportedDtype(label_ + " y_zero_point", out);
    }
    return Status::Ok();
  }
};

class DequantizeLinearKernel : public LinearQuantKernel {
 public:
  Status Compute(KernelContext& ctx) {
    LinearQuantInputs in;
    LOOM_SDK_RETURN_IF_ERROR(Begin(ctx, &in));
    const Tensor &x = in.x, &scale = in.scale;
    const semantics::QuantAxis& view = in.view;
    const std::vector<int32_t>& zero_points = in.zero_points;
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, x.shape(), &y));
    const float* s = scale.data<float>();
    float* dst = y.data<float>();
    auto run = [&](auto tag) {
      using Q = decltype(tag);
      const Q* src = x.data<Q>();
      ForEachChannel(view, ctx.num_threads(), [&](int64_t i, int64_t c) {
        dst[i] = semantics::DequantizeValue<Q>(src[i], s[c], zero_points[c]);
      });
    };
    switch (x.dtype()) {
      case LOOM_DTYPE_INT8: run(int8_t{}); break;
      case LOOM_DTYPE_UINT8: run(uint8_t{}); break;
      case LOOM_DTYPE_INT32: run(int32_t{}); break;
      default: return UnsupportedDtype(label_, x.dtype());
    }
    return Status::Ok();
  }
};

class DynamicQuantizeLinearKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y, scale, zp;
    const int64_t n = x.num_elements();
    const semantics::DynamicQuantParams p = DynamicUint8Range(x.data<float>(), n, ctx.num_threads());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_UINT8, x.shape(), &y));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_FLOAT, {}, &scale));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, LOOM_DTYPE_UINT8, {}, &zp));
    *scale.data<float>() = p.scale;
    *zp.data<uint8_t>() = p.zero_point;
    DynamicQuantizeUint8(x.data<float>(), n, p, ctx.num_threads(), y.data<uint8_t>());
    return Status::Ok();
  }
};

}  // namespace

Status RegisterQuantizationKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> q = {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<QuantizeLinearKernel>(
      "QuantizeLinear", {"CPU", "", 0, {{"T1", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_INT32}}, {"T2", q}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<DequantizeLinearKernel>(
      "DequantizeLinear", {"CPU", "", 0, {{"T", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8, LOOM_DTYPE_INT32}}}}));
  return reg.Kernel<DynamicQuantizeLinearKernel>("DynamicQuantizeLinear", {"CPU", "", 0, {}});
}

}  // namespace cpu
}  // namespace loom
