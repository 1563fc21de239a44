// CPU kernels of ArgMax, ArgMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceLogSum, ReduceLogSumExp and ReduceSumSquare (schemas in
// ops/reduction_argmax_prod_logsum.cc).
//
// ArgMax/ArgMin see the data as [outer, n, inner] around their axis. The
// extra reductions are memory-bound and less common than
// ReduceSum/Mean, so they use one simple strategy: every input element is
// folded into the output its kept coordinates name (an odometer walks the
// input), with per-output accumulators in double (float types) or int64.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/semantics/cast.h"
#include "ops/semantics/reduction.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

// ---------------------------------------------------------------- ArgMax/Min

// True when `v` should replace `best` as the running extreme. NaN beats any
// number (numpy's rule); ties and NaN-vs-NaN replace only with `last`.
template <bool kMax, typename C>
inline bool Better(C v, C best, bool last) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(best)) return last && std::isnan(v);
    if (std::isnan(v)) return true;
  }
  if (kMax ? v > best : v < best) return true;
  return last && v == best;
}

// ArgMax (kMax) / ArgMin over any numeric dtype: int64 indices.
template <bool kMax>
class ArgKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 0);
    keepdims_ = info.IntOr("keepdims", 1) != 0;
    last_ = info.IntOr("select_last_index", 0) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> shape = x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "attribute 'axis'"));
    std::vector<int64_t> out_shape;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis) out_shape.push_back(shape[d]);
      else if (keepdims_) out_shape.push_back(1);
    }
    const int64_t outer = Product(shape, 0, axis), n = shape[axis], inner = Product(shape, axis + 1, rank);
    if (n == 0 && outer * inner > 0) {
      return sdk::InvalidArgument(label_ + ": input 'data' has an empty axis " + std::to_string(axis) +
                                  " (shape " + ShapeStr(shape) + "); there is no index to return");
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT64, out_shape, &y));
    int64_t* out = y.data<int64_t>();
    return DispatchNumeric(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      const S* in = x.data<S>();
      const bool last = last_;
      ParallelRange(outer * inner, outer * inner * n, ctx.num_threads(), [&](int64_t lo, int64_t hi) {
        for (int64_t o = lo; o < hi; ++o) {
          const S* p = in + (o / inner) * n * inner + o % inner;
          C best = Num<S>::Load(p[0]);
          int64_t bi = 0;
          for (int64_t i = 1; i < n; ++i) {
            const C v = Num<S>::Load(p[i * inner]);
            if (Better<kMax>(v, best, last)) { best = v; bi = i; }
          }
          out[o] = bi;
        }
      });
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  int64_t axis_ = 0;
  bool keepdims_ = true, last_ = false;
};

// ---------------------------------------------------------- extra reductions

enum class R { kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// Accumulation rules of reduction K over compute type C (double for floats;
// int64 for integer Prod/L1/SumSquare, which wrap like the C++ type on the
// cast back; double for the integer L2/LogSum/LogSumExp, truncated back).
template <R K, typename C>
struct Rule {
  static constexpr bool kIntAcc = std::is_integral_v<C> && (K == R::kProd || K == R::kL1 || K == R::kSumSquare);
  using Acc = std::conditional_t<kIntAcc, uint64_t, double>;  // unsigned: wrapping, not UB
  static Acc Init() { return K == R::kProd ? Acc(1) : Acc(0); }
  // `shift` is the per-output max of LogSumExp (0 for the others).
  static Acc Fold(Acc a, C v, double shift) {
    if constexpr (kIntAcc) {
      const uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(v));
      if constexpr (K == R::kProd) return a * u;
      if constexpr (K == R::kSumSquare) return a + u * u;
      if constexpr (K == R::kL1) return a + (v < C(0) ? uint64_t(0) - u : u);
    } else {
      const double d = static_cast<double>(v);
      switch (K) {
        case R::kProd: return a * d;
        case R::kL1: return a + std::fabs(d);
        case R::kL2: case R::kSumSquare: return a + d * d;
        case R::kLogSum: return a + d;
        case R::kLogSumExp: return a + std::exp(d - shift);
      }
    }
    return a;
  }
  static C Finish(Acc a, double shift) {
    if constexpr (kIntAcc) {
      return static_cast<C>(static_cast<int64_t>(a));
    } else {
      double r = a;
      if (K == R::kL2) r = std::sqrt(a);
      if (K == R::kLogSum) r = std::log(a);
      if (K == R::kLogSumExp) r = std::log(a) + shift;
      // Integers: truncated and clamped to C's range (log(0) = -inf gives
      // C's min, NaN 0), never an undefined conversion.
      if constexpr (std::is_integral_v<C>) return semantics::SaturateCast<C>(r);
      else return static_cast<C>(r);
    }
  }
};

// Output index of each input element: walks the input in row-major order and
// calls f(input_index, output_index).
template <typename F>
void ForEachMapped(const std::vector<int64_t>& shape, const std::vector<bool>& reduce, int64_t n, F f) {
  const size_t rank = shape.size();
  // Output stride of each input dim (0 when the dim is reduced).
  std::vector<int64_t> ostride(rank, 0), idx(rank, 0);
  int64_t s = 1;
  for (size_t d = rank; d-- > 0;) {
    if (!reduce[d]) { ostride[d] = s; s *= shape[d]; }
  }
  int64_t o = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(i, o);
    for (size_t d = rank; d-- > 0;) {
      o += ostride[d];
      if (++idx[d] < shape[d]) break;
      o -= idx[d] * ostride[d];
      idx[d] = 0;
    }
  }
}

// ReduceProd / L1 / L2 / LogSum / LogSumExp / SumSquare over any numeric dtype.
template <R K>
class ReduceExtKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> shape = x.shape();
    std::vector<int64_t> axes = attrs_.axes;
    bool given = false;
    std::vector<int64_t> axes_in;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 1, label_, "axes", true, &axes_in, &given));
    if (given) axes = axes_in;
    semantics::ReduceGeometry g;
    LOOM_SDK_RETURN_IF_ERROR(semantics::ResolveReduceAxes(label_, shape, axes, attrs_, &g));
    const std::vector<bool>& reduce = g.reduce;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), g.out_shape, &y));
    if (g.noop) {
      // ONNX: with noop_with_empty_axes the output is the input, unchanged.
      CopyData(x, y);
      return Status::Ok();
    }
    return DispatchNumeric(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      using Ru = Rule<K, C>;
      const S* in = x.data<S>();
      S* out = y.data<S>();
      const int64_t n_out = y.num_elements();
      // LogSumExp subtracts each output's max so exp cannot overflow; an
      // infinite max (or none: an empty reduction) shifts by 0 instead.
      std::vector<double> shift(K == R::kLogSumExp ? n_out : 0, -INFINITY);
      if constexpr (K == R::kLogSumExp) {
        ForEachMapped(shape, reduce, x.num_elements(), [&](int64_t i, int64_t o) {
          const double v = static_cast<double>(Num<S>::Load(in[i]));
          if (v > shift[o] || std::isnan(v)) shift[o] = v;
        });
        for (double& s : shift) {
          if (std::isinf(s)) s = 0;
        }
      }
      std::vector<typename Ru::Acc> acc(n_out, Ru::Init());
      ForEachMapped(shape, reduce, x.num_elements(), [&](int64_t i, int64_t o) {
        acc[o] = Ru::Fold(acc[o], Num<S>::Load(in[i]), K == R::kLogSumExp ? shift[o] : 0.0);
      });
      for (int64_t o = 0; o < n_out; ++o) {
        out[o] = Num<S>::Store(Ru::Finish(acc[o], K == R::kLogSumExp ? shift[o] : 0.0));
      }
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  semantics::ReduceAttrs attrs_;
};

}  // namespace

sdk::Status RegisterReductionArgMaxProdLogSumKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ArgKernel<true>>("ArgMax"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ArgKernel<false>>("ArgMin"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReduceExtKernel<R::kProd>>("ReduceProd"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReduceExtKernel<R::kL1>>("ReduceL1"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReduceExtKernel<R::kL2>>("ReduceL2"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReduceExtKernel<R::kLogSum>>("ReduceLogSum"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReduceExtKernel<R::kLogSumExp>>("ReduceLogSumExp"));
  return reg.Kernel<ReduceExtKernel<R::kSumSquare>>("ReduceSumSquare");
}

}  // namespace cpu
}  // namespace loom
