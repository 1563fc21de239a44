// CPU kernels of TopK, Hardmax and CumSum (schemas in
// ops/math_topk_hardmax_cumsum.cc). TopK and Hardmax see their input as
// [outer, n, inner] around the axis and work line by line.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

// --------------------------------------------------------------------- TopK

// TopK over the numeric dtypes: the k largest (or smallest) along `axis`,
// sorted, ties by lower index first; NaN counts as the largest value.
class TopKKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", -1);
    largest_ = info.IntOr("largest", 1) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), kt = ctx.Input(1), values, indices;
    const std::vector<int64_t> shape = x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    std::vector<int64_t> kv;
    if (!ReadInts(kt, &kv) || kv.size() != 1 || kt.rank() > 1) {
      return sdk::InvalidArgument(label_ + ": input 'K' must be a 1-element int64 tensor; found " +
                                  sdk::DTypeName(kt.dtype()) + ShapeStr(kt.shape()));
    }
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "attribute 'axis'"));
    const int64_t k = kv[0], n = shape[axis];
    if (k < 0 || k > n) {
      return sdk::InvalidArgument(label_ + ": input 'K' is " + std::to_string(k) + "; expected [0, " +
                                  std::to_string(n) + "] for 'X' of shape " + ShapeStr(shape) + " on axis " +
                                  std::to_string(axis));
    }
    std::vector<int64_t> out_shape = shape;
    out_shape[axis] = k;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out_shape, &values));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_INT64, out_shape, &indices));
    const int64_t outer = Product(shape, 0, axis), inner = Product(shape, axis + 1, rank);
    const bool largest = largest_;
    return DispatchNumeric(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      const S* in = x.data<S>();
      S* vo = values.data<S>();
      int64_t* io = indices.data<int64_t>();
      ParallelRange(outer * inner, outer * inner * n, ctx.num_threads(), [&](int64_t lo, int64_t hi) {
        std::vector<int64_t> order(n);
        std::vector<C> line(n);
        for (int64_t o = lo; o < hi; ++o) {
          const int64_t base = (o / inner) * n * inner + o % inner;
          for (int64_t i = 0; i < n; ++i) line[i] = Num<S>::Load(in[base + i * inner]);
          std::iota(order.begin(), order.end(), int64_t{0});
          // Strict weak order: "a comes before b" (NaN above every number).
          auto before = [&](int64_t a, int64_t b) {
            const C va = line[a], vb = line[b];
            if constexpr (std::is_floating_point_v<C>) {
              const bool na = std::isnan(va), nb = std::isnan(vb);
              if (na || nb) return na == nb ? a < b : (largest ? na : nb);
            }
            if (va != vb) return largest ? va > vb : va < vb;
            return a < b;
          };
          std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
          const int64_t ob = (o / inner) * k * inner + o % inner;
          for (int64_t j = 0; j < k; ++j) {
            vo[ob + j * inner] = in[base + order[j] * inner];
            io[ob + j * inner] = order[j];
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  int64_t axis_ = -1;
  bool largest_ = true;
};

// ------------------------------------------------------------------ Hardmax

// Hardmax-13 over the float dtypes: 1 at the first maximum along `axis`.
class HardmaxKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", -1);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    AxisSplit s;
    LOOM_SDK_RETURN_IF_ERROR(SplitSameShape(ctx, x, axis_, label_, "attribute 'axis'", &s, &y));
    const int64_t n = s.n, inner = s.inner;
    return DispatchFloat(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      ForEachAxisLine(s, x.data<S>(), y.data<S>(), [&](const S* in, S* out) {
        int64_t bi = 0;
        for (int64_t i = 1; i < n; ++i) {
          if (Num<S>::Load(in[i * inner]) > Num<S>::Load(in[bi * inner])) bi = i;
        }
        for (int64_t i = 0; i < n; ++i) out[i * inner] = Num<S>::Store(C(i == bi ? 1 : 0));
      });
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  int64_t axis_ = -1;
};

// ------------------------------------------------------------------- CumSum

class CumSumKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    exclusive_ = info.IntOr("exclusive", 0) != 0;
    reverse_ = info.IntOr("reverse", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), a = ctx.Input(1), y;
    std::vector<int64_t> av;
    if (!ReadInts(a, &av) || av.size() != 1 || a.rank() > 1) {
      return sdk::InvalidArgument(label_ + ": input 'axis' must be a 0-D int32 or int64 tensor; found " +
                                  sdk::DTypeName(a.dtype()) + ShapeStr(a.shape()));
    }
    AxisSplit s;
    LOOM_SDK_RETURN_IF_ERROR(SplitSameShape(ctx, x, av[0], label_, "input 'axis'", &s, &y));
    const int64_t n = s.n, inner = s.inner;
    return DispatchNumeric(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      ForEachAxisLine(s, x.data<S>(), y.data<S>(), [&](const S* in, S* out) {
        C acc = C(0);
        for (int64_t j = 0; j < n; ++j) {
          const int64_t i = (reverse_ ? n - 1 - j : j) * inner;
          const C v = Num<S>::Load(in[i]);
          if (!exclusive_) acc = static_cast<C>(acc + v);
          out[i] = Num<S>::Store(acc);
          if (exclusive_) acc = static_cast<C>(acc + v);
        }
      });
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  bool exclusive_ = false, reverse_ = false;
};

}  // namespace

Status RegisterMathTopKHardmaxCumSumKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<TopKKernel>("TopK"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<HardmaxKernel>("Hardmax"));
  return reg.Kernel<CumSumKernel>("CumSum");
}

}  // namespace cpu
}  // namespace loom
