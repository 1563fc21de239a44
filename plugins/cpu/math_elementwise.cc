// Elementwise kernels (OpenMP): activations and unary math, binary
// arithmetic with numpy broadcasting, variadic Max/Min/Sum/Mean, PRelu, Pow,
// Clip, Softmax/LogSoftmax. ONNX semantics (the schemas in
// ops/math_elementwise.cc name the opset of each); float16/bfloat16 are stored as
// such and computed in float. All binary and variadic ops go through the one
// broadcasting iterator in broadcast.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/semantics/cast.h"
#include "plugins/cpu/broadcast.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/vector_math.h"

namespace loom {
namespace cpu {
namespace {

// ---- Unary ------------------------------------------------------------------

enum class U { kRelu, kLeakyRelu, kSigmoid, kHardSigmoid, kTanh, kElu, kSelu, kSoftplus, kSoftsign, kExp, kLog,
               kSqrt, kReciprocal, kNeg, kAbs, kFloor, kCeil, kErf };

// Integer arithmetic wraps around on overflow (two's complement, as numpy
// and ONNX Runtime give), computed unsigned: signed overflow is undefined.
template <typename C, typename F>
inline C Wrapping(C a, C b, F op) {
  if constexpr (std::is_integral_v<C>) {
    // At least unsigned int: narrower types would be promoted to (signed) int.
    using W = std::make_unsigned_t<std::common_type_t<C, int>>;
    return static_cast<C>(op(static_cast<W>(a), static_cast<W>(b)));
  } else {
    return static_cast<C>(op(a, b));
  }
}

// One element of a unary op in compute type C. Ops that the schemas allow
// only for floating types compile to the identity for integer C (never run).
template <U K, typename C>
inline C ApplyUnary(C x, C alpha, C beta, C gamma) {
  if constexpr (K == U::kRelu) return x > C(0) ? x : C(0);
  if constexpr (K == U::kNeg) return Wrapping(C(0), x, [](auto a, auto b) { return a - b; });
  if constexpr (K == U::kAbs) {
    if constexpr (std::is_unsigned_v<C>) return x; else return x < C(0) ? Wrapping(C(0), x, [](auto a, auto b) { return a - b; }) : x;
  }
  if constexpr (std::is_floating_point_v<C>) {
    if constexpr (K == U::kLeakyRelu) return x < C(0) ? alpha * x : x;
    if constexpr (K == U::kSigmoid) {
      // exp of a non-positive argument only: no overflow for large |x|.
      const C e = std::exp(-std::abs(x));
      return x >= C(0) ? C(1) / (C(1) + e) : e / (C(1) + e);
    }
    if constexpr (K == U::kHardSigmoid) return std::max(C(0), std::min(C(1), alpha * x + beta));
    if constexpr (K == U::kTanh) return std::tanh(x);
    if constexpr (K == U::kElu) return x < C(0) ? alpha * std::expm1(x) : x;
    if constexpr (K == U::kSelu) return gamma * (x <= C(0) ? alpha * std::expm1(x) : x);
    // ln(1 + e^x) without overflow: x + ln(1 + e^-x) for positive x.
    if constexpr (K == U::kSoftplus) return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    if constexpr (K == U::kSoftsign) return x / (C(1) + std::abs(x));
    if constexpr (K == U::kExp) return std::exp(x);
    if constexpr (K == U::kLog) return std::log(x);
    if constexpr (K == U::kSqrt) return std::sqrt(x);
    if constexpr (K == U::kReciprocal) return C(1) / x;
    if constexpr (K == U::kFloor) return std::floor(x);
    if constexpr (K == U::kCeil) return std::ceil(x);
    if constexpr (K == U::kErf) return std::erf(x);
  }
  return x;
}

// Y = op(X), any shape. Attributes alpha/beta/gamma where the op has them
// (LeakyRelu, HardSigmoid, Elu, Selu).
template <U K>
class UnaryKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    alpha_ = info.FloatOr("alpha", 0);
    beta_ = info.FloatOr("beta", 0);
    gamma_ = info.FloatOr("gamma", 0);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    if constexpr (kVector) {
      const Tensor x = ctx.Input(0);
      if (x.dtype() == LOOM_DTYPE_FLOAT && VectorMathAvailable()) return ComputeVector(ctx, x);
    }
    return MapUnary(ctx, label_, [&](auto tag) {
      using C = typename Num<decltype(tag)>::C;
      const C a = static_cast<C>(alpha_), b = static_cast<C>(beta_), g = static_cast<C>(gamma_);
      return [=](C v) { return ApplyUnary<K, C>(v, a, b, g); };
    });
  }

 private:
  // float32 exp, log, tanh, erf and sigmoid (through exp) run on glibc's
  // vector math library (vector_math.h) instead of a scalar libm loop.
  static constexpr bool kVector = K == U::kExp || K == U::kLog || K == U::kTanh || K == U::kErf || K == U::kSigmoid;

  Status ComputeVector(KernelContext& ctx, const Tensor& x) {
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, x.dims_data(), x.rank(), &y));
    const float* in = x.data<float>();
    float* out = y.data<float>();  // may be `in` (an in-place op)
    const int64_t n = x.num_elements();
    ParallelRange(n, n, ctx.num_threads(), [&](int64_t lo, int64_t hi) {
      if constexpr (K == U::kExp) VectorMath<VectorFn::kExp>(in + lo, out + lo, hi - lo);
      if constexpr (K == U::kLog) VectorMath<VectorFn::kLog>(in + lo, out + lo, hi - lo);
      if constexpr (K == U::kTanh) VectorMath<VectorFn::kTanh>(in + lo, out + lo, hi - lo);
      if constexpr (K == U::kErf) VectorMath<VectorFn::kErf>(in + lo, out + lo, hi - lo);
      if constexpr (K == U::kSigmoid) {
        // As ApplyUnary: exp of -|x| only (no overflow), in chunks so that
        // an in-place op reads each x before writing its y.
        constexpr int64_t kChunk = 256;
        float e[kChunk];
        for (int64_t c = lo; c < hi; c += kChunk) {
          const int64_t m = std::min(kChunk, hi - c);
          for (int64_t j = 0; j < m; ++j) e[j] = -std::abs(in[c + j]);
          VectorMath<VectorFn::kExp>(e, e, m);
          for (int64_t j = 0; j < m; ++j) out[c + j] = in[c + j] >= 0.0f ? 1.0f / (1.0f + e[j]) : e[j] / (1.0f + e[j]);
        }
      }
    });
    return Status::Ok();
  }

  std::string label_;
  float alpha_ = 0, beta_ = 0, gamma_ = 0;
};

// ---- Binary and variadic ----------------------------------------------------

enum class B { kAdd, kSub, kMul, kDiv, kMax, kMin, kPRelu };

template <B K, typename C>
inline C ApplyBinary(C a, C b) {
  if constexpr (K == B::kAdd) return Wrapping(a, b, [](auto x, auto y) { return x + y; });
  if constexpr (K == B::kSub) return Wrapping(a, b, [](auto x, auto y) { return x - y; });
  if constexpr (K == B::kMul) return Wrapping(a, b, [](auto x, auto y) { return x * y; });
  if constexpr (K == B::kDiv) {
    if constexpr (std::is_integral_v<C>) {
      // Integer division truncates (C++ and ONNX agree). x / 0 is undefined in
      // ONNX; give 0 rather than SIGFPE. MIN / -1 also traps on x86: negate
      // with wraparound instead.
      if (b == C(0)) return C(0);
      if constexpr (std::is_signed_v<C>) {
        if (b == C(-1)) return static_cast<C>(std::make_unsigned_t<C>(0) - static_cast<std::make_unsigned_t<C>>(a));
      }
      return static_cast<C>(a / b);
    } else {
      return a / b;
    }
  }
  // Max and Min propagate NaN (numpy maximum/minimum, ONNX reference).
  // Written as selects so that the loops still vectorize.
  if constexpr (K == B::kMax) {
    if constexpr (std::is_floating_point_v<C>) return (a < b || std::isnan(b)) ? b : a;
    else return a < b ? b : a;
  }
  if constexpr (K == B::kMin) {
    if constexpr (std::is_floating_point_v<C>) return (b < a || std::isnan(b)) ? b : a;
    else return b < a ? b : a;
  }
  if constexpr (K == B::kPRelu) return a < C(0) ? Wrapping(a, b, [](auto x, auto y) { return x * y; }) : a;
  return a;
}

// c = op(a, b) over `plan` for storage type S.
template <B K, typename S>
void RunBinary(const BroadcastPlan& plan, const S* a, const S* b, S* c, int threads) {
  using C = typename Num<S>::C;
  ForEachBroadcast(plan, a, b, c, threads,
                   [](S x, S y) { return Num<S>::Store(ApplyBinary<K, C>(Num<S>::Load(x), Num<S>::Load(y))); });
}

// C = A op B with numpy broadcasting (Add, Sub, Mul, Div); PRelu's slope
// must broadcast to X's shape (unidirectional). A and B have the same dtype
// (the schema's type constraint); any numeric dtype.
template <B K>
class BinaryKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), c;
    BroadcastPlan& plan = ThreadLocalPlan();
    LOOM_SDK_RETURN_IF_ERROR(PlanBroadcastOf(label_, "A", a, "B", b, &plan));
    if (K == B::kPRelu && plan.out != a.shape()) {
      return sdk::InvalidArgument(label_ + ": slope of shape " + ShapeStr(b.shape()) +
                                  " must broadcast to X's shape " + ShapeStr(a.shape()));
    }
    const LoomDataType dt = a.dtype();
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, plan.out, &c));
    return DispatchNumeric(dt, label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      RunBinary<K, S>(plan, a.data<S>(), b.data<S>(), c.data<S>(), ctx.num_threads());
      return Status::Ok();
    });
  }
};

// Max, Min, Sum (K = kAdd) and Mean (kAdd, then divided by the count) over
// 1..N inputs that all broadcast together.
template <B K, bool kMean = false>
class VariadicKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    const size_t count = ctx.num_inputs();
    Tensor first = ctx.Input(0), y;
    BroadcastPlan& plan = ThreadLocalPlan();
    std::vector<int64_t> out = first.shape();
    for (size_t i = 1; i < count; ++i) {
      Tensor in = ctx.Input(i);
      if (!PlanBroadcast(out.data(), out.size(), in.dims_data(), in.rank(), &plan)) {
        return sdk::InvalidArgument(label_ + ": input " + std::to_string(i) + " of shape " + ShapeStr(in.shape()) +
                                    " does not broadcast with " + ShapeStr(out));
      }
      out = plan.out;
    }
    const LoomDataType dt = first.dtype();
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, out, &y));
    const int threads = ctx.num_threads();
    return DispatchNumeric(dt, label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      S* yd = y.data<S>();
      const int64_t n = y.num_elements();
      if (count == 1) {
        std::copy(first.data<S>(), first.data<S>() + n, yd);
      } else {
        // y = in0 op in1 (both broadcast to the full output shape, which may
        // be larger than theirs), then y = y op in_i: y has the output
        // shape, so it may be both operand and result.
        Tensor second = ctx.Input(1);
        PlanBroadcastTo(first.dims_data(), first.rank(), second.dims_data(), second.rank(), out.data(), out.size(),
                        &plan);
        RunBinary<K, S>(plan, first.data<S>(), second.data<S>(), yd, threads);
        for (size_t i = 2; i < count; ++i) {
          Tensor in = ctx.Input(i);
          PlanBroadcast(out.data(), out.size(), in.dims_data(), in.rank(), &plan);
          RunBinary<K, S>(plan, yd, in.data<S>(), yd, threads);
        }
      }
      if constexpr (kMean) {
        const C inv = C(1) / static_cast<C>(count);
        ParallelRange(n, n, threads, [&](int64_t lo, int64_t hi) {
          for (int64_t i = lo; i < hi; ++i) yd[i] = Num<S>::Store(Num<S>::Load(yd[i]) * inv);
        });
      }
      return Status::Ok();
    });
  }
};

// ---- Pow --------------------------------------------------------------------

// x^e for integers: exact, by squaring, wrapping on overflow like the
// integer type. A negative exponent gives the truncated 1 / x^|e|.
template <typename X, typename E>
inline X IntPow(X x, E e) {
  if (e < E(0)) {
    if (x == X(1)) return X(1);
    if constexpr (std::is_signed_v<X>) {
      if (x == X(-1)) return (e % E(2)) == E(0) ? X(1) : X(-1);
    }
    return X(0);
  }
  using UX = std::make_unsigned_t<X>;
  UX result = 1, base = static_cast<UX>(x);
  for (auto k = static_cast<std::make_unsigned_t<E>>(e); k != 0; k >>= 1) {
    if (k & 1u) result = static_cast<UX>(result * base);
    base = static_cast<UX>(base * base);
  }
  return static_cast<X>(result);
}

// One element of Pow in the base's compute type XC.
template <typename XC, typename EC>
inline XC PowElement(XC x, EC e) {
  if constexpr (std::is_integral_v<XC> && std::is_integral_v<EC>) {
    return IntPow(x, e);
  } else if constexpr (std::is_same_v<XC, float> && std::is_same_v<EC, float>) {
    return std::pow(x, e);
  } else if constexpr (std::is_integral_v<XC>) {
    // An integer base with a float exponent: the double result truncated and
    // clamped to XC (2^100 gives XC's max, NaN 0).
    return semantics::SaturateCast<XC>(std::pow(static_cast<double>(x), static_cast<double>(e)));
  } else {
    return static_cast<XC>(std::pow(static_cast<double>(x), static_cast<double>(e)));
  }
}

// Z = X ^ Y (ONNX Pow-15): numpy broadcasting; X is int32/int64/float types,
// Y any numeric dtype; Z has X's dtype. A scalar exponent of 2 or 1 takes a
// multiply / copy path (x^2 is common in normalization graphs).
class PowKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), e = ctx.Input(1), z;
    BroadcastPlan& plan = ThreadLocalPlan();
    LOOM_SDK_RETURN_IF_ERROR(PlanBroadcastOf(label_, "X", x, "Y", e, &plan));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), plan.out, &z));
    const int threads = ctx.num_threads();
    auto with_base = [&](auto xt) -> Status {
      using X = decltype(xt);
      using XC = typename Num<X>::C;
      auto with_exp = [&](auto et) -> Status {
        using E = decltype(et);
        using EC = typename Num<E>::C;
        const X* xp = x.data<X>();
        const E* ep = e.data<E>();
        X* zp = z.data<X>();
        if (e.num_elements() == 1 && plan.kind == BroadcastPlan::Kind::kScalarB) {
          const EC ev = Num<E>::Load(ep[0]);
          if (std::is_floating_point_v<XC> && ev == EC(2)) {  // integers: IntPow wraps, v * v would not
            ForEachBroadcast(plan, xp, ep, zp, threads, [](X a, E) {
              const XC v = Num<X>::Load(a);
              return Num<X>::Store(static_cast<XC>(v * v));
            });
            return Status::Ok();
          }
          if (ev == EC(1)) {
            std::copy(xp, xp + plan.size, zp);
            return Status::Ok();
          }
        }
        ForEachBroadcast(plan, xp, ep, zp, threads, [](X a, E b) {
          return Num<X>::Store(PowElement<XC, EC>(Num<X>::Load(a), Num<E>::Load(b)));
        });
        return Status::Ok();
      };
      LOOM_CPU_DISPATCH_NUMERIC(e.dtype(), with_exp)
      return UnsupportedDtype(label_ + " (exponent Y)", e.dtype());
    };
    switch (x.dtype()) {
      case LOOM_DTYPE_FLOAT: return with_base(float{});
      case LOOM_DTYPE_DOUBLE: return with_base(double{});
      case LOOM_DTYPE_FLOAT16: return with_base(Float16{});
      case LOOM_DTYPE_BFLOAT16: return with_base(BFloat16{});
      case LOOM_DTYPE_INT32: return with_base(int32_t{});
      case LOOM_DTYPE_INT64: return with_base(int64_t{});
      default: return UnsupportedDtype(label_, x.dtype());
    }
  }
};

// ---- Clip -------------------------------------------------------------------

// output = min(max(input, min), max). min/max come from the optional scalar
// inputs (opset 11+) or else the float attributes (opset 6); absent bounds
// are the dtype's limits. When min > max every element becomes max (ONNX).
class ClipKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    has_min_attr_ = info.Has("min");
    has_max_attr_ = info.Has("max");
    min_attr_ = info.FloatOr("min", 0);
    max_attr_ = info.FloatOr("max", 0);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), lo = ctx.Input(1), hi = ctx.Input(2), y;
    const char* names[2] = {"min", "max"};
    const Tensor* bounds[2] = {&lo, &hi};
    for (int k = 0; k < 2; ++k) {
      const Tensor& t = *bounds[k];
      if (t.present() && t.num_elements() != 1) {
        return sdk::InvalidArgument(label_ + ": input '" + names[k] + "' must have one element; found shape " +
                                    ShapeStr(t.shape()));
      }
      if (t.present() && t.dtype() != x.dtype()) {
        return sdk::InvalidArgument(label_ + ": input '" + names[k] + "' must be " + sdk::DTypeName(x.dtype()) +
                                    "; found " + sdk::DTypeName(t.dtype()));
      }
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.dims_data(), x.rank(), &y));
    const int64_t n = x.num_elements();
    return DispatchNumeric(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      C mn = std::numeric_limits<C>::lowest(), mx = std::numeric_limits<C>::max();
      // The opset-6 float attributes on an integer input: truncated and
      // clamped to its range (-inf: no lower bound; -1.5 on uint32: 0).
      auto bound = [](float f) {
        if constexpr (std::is_integral_v<C>) return semantics::SaturateCast<C>(f);
        else return static_cast<C>(f);
      };
      if (lo.present()) mn = Num<S>::Load(lo.data<S>()[0]); else if (has_min_attr_) mn = bound(min_attr_);
      if (hi.present()) mx = Num<S>::Load(hi.data<S>()[0]); else if (has_max_attr_) mx = bound(max_attr_);
      const S* in = x.data<S>();
      S* out = y.data<S>();
      ParallelRange(n, n, ctx.num_threads(), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          C v = Num<S>::Load(in[i]);
          v = v < mn ? mn : v;
          out[i] = Num<S>::Store(v > mx ? mx : v);
        }
      });
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  bool has_min_attr_ = false, has_max_attr_ = false;
  float min_attr_ = 0, max_attr_ = 0;
};

// ---- Softmax / LogSoftmax ---------------------------------------------------

// ONNX Softmax-13 / LogSoftmax-13: normalizes along the one axis `axis`
// (negative counts from the end). The input is viewed as [outer, len, inner]
// around that axis. Numerically stable: the line's maximum is subtracted
// before exp. Float dtypes only; rank >= 1.
template <bool kLog>
class SoftmaxKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return info.GetInt("axis", &axis_);
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> shape = x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    int64_t axis = axis_;
    if (rank == 0 || !NormalizeAxis(&axis, rank)) {
      return sdk::InvalidArgument(label_ + ": axis " + std::to_string(axis_) + " is out of range for input shape " +
                                  ShapeStr(shape));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), shape, &y));
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= shape[d];
    const int64_t len = shape[axis];
    if (x.num_elements() == 0) return Status::Ok();
    return DispatchFloat(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      if (inner == 1) {
        Contiguous<S>(x.data<S>(), y.data<S>(), outer, len, ctx.num_threads());
      } else {
        Strided<S>(x.data<S>(), y.data<S>(), outer, len, inner, ctx.num_threads());
      }
      return Status::Ok();
    });
  }

 private:
  // Lines are contiguous (the axis is innermost): one line per iteration.
  template <typename S>
  static void Contiguous(const S* in, S* out, int64_t lines, int64_t len, int threads) {
    using C = typename Num<S>::C;
    ParallelRange(lines, lines * len, threads, [&](int64_t lo, int64_t hi) {
      for (int64_t l = lo; l < hi; ++l) {
        const S* src = in + l * len;
        S* dst = out + l * len;
        C mx = -std::numeric_limits<C>::infinity();
        for (int64_t k = 0; k < len; ++k) mx = std::max(mx, Num<S>::Load(src[k]));
        C sum = 0;
        for (int64_t k = 0; k < len; ++k) {
          const C e = std::exp(Num<S>::Load(src[k]) - mx);
          sum += e;
          // float/double keep e in the output for the scaling pass; half
          // types would round it twice, so they recompute it there.
          if constexpr (std::is_same_v<S, C>) {
            if (!kLog) dst[k] = e;
          }
        }
        if constexpr (kLog) {
          // (x - max) - log(sum), not x - (max + log(sum)): the latter rounds
          // log(sum) away next to a large max.
          const C log_sum = std::log(sum);
          for (int64_t k = 0; k < len; ++k) dst[k] = Num<S>::Store((Num<S>::Load(src[k]) - mx) - log_sum);
        } else {
          const C inv = C(1) / sum;
          for (int64_t k = 0; k < len; ++k) {
            if constexpr (std::is_same_v<S, C>) {
              dst[k] = dst[k] * inv;
            } else {
              dst[k] = Num<S>::Store(std::exp(Num<S>::Load(src[k]) - mx) * inv);
            }
          }
        }
      }
    });
  }

  // The axis has stride `inner` > 1: work on blocks of up to kLanes
  // neighbouring lines at once so every pass reads contiguous rows.
  template <typename S>
  static void Strided(const S* in, S* out, int64_t outer, int64_t len, int64_t inner, int threads) {
    using C = typename Num<S>::C;
    constexpr int64_t kLanes = 256;
    const int64_t blocks_per_outer = (inner + kLanes - 1) / kLanes;
    ParallelRange(outer * blocks_per_outer, outer * len * inner, threads, [&](int64_t lo, int64_t hi) {
      C mx[kLanes], sum[kLanes];
      for (int64_t unit = lo; unit < hi; ++unit) {
        const int64_t o = unit / blocks_per_outer;
        const int64_t i0 = (unit % blocks_per_outer) * kLanes;
        const int64_t w = std::min(kLanes, inner - i0);
        const S* src = in + o * len * inner + i0;
        S* dst = out + o * len * inner + i0;
        std::fill(mx, mx + w, -std::numeric_limits<C>::infinity());
        std::fill(sum, sum + w, C(0));
        for (int64_t k = 0; k < len; ++k) {
          for (int64_t i = 0; i < w; ++i) mx[i] = std::max(mx[i], Num<S>::Load(src[k * inner + i]));
        }
        for (int64_t k = 0; k < len; ++k) {
          for (int64_t i = 0; i < w; ++i) sum[i] += std::exp(Num<S>::Load(src[k * inner + i]) - mx[i]);
        }
        for (int64_t i = 0; i < w; ++i) sum[i] = kLog ? std::log(sum[i]) : C(1) / sum[i];
        for (int64_t k = 0; k < len; ++k) {
          for (int64_t i = 0; i < w; ++i) {
            const C v = Num<S>::Load(src[k * inner + i]) - mx[i];
            dst[k * inner + i] = Num<S>::Store(kLog ? v - sum[i] : std::exp(v) * sum[i]);
          }
        }
      }
    });
  }

  std::string label_;
  int64_t axis_ = -1;
};

const std::vector<LoomDataType> kFloats = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16};

}  // namespace

sdk::Status RegisterMathElementwiseKernels(sdk::Registrar& reg) {
#define LOOM_UNARY(name, kind) LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<U::kind>>(name))
  LOOM_UNARY("Relu", kRelu);
  LOOM_UNARY("LeakyRelu", kLeakyRelu);
  LOOM_UNARY("Sigmoid", kSigmoid);
  LOOM_UNARY("HardSigmoid", kHardSigmoid);
  LOOM_UNARY("Tanh", kTanh);
  LOOM_UNARY("Elu", kElu);
  LOOM_UNARY("Selu", kSelu);
  LOOM_UNARY("Softplus", kSoftplus);
  LOOM_UNARY("Softsign", kSoftsign);
  LOOM_UNARY("Exp", kExp);
  LOOM_UNARY("Log", kLog);
  LOOM_UNARY("Sqrt", kSqrt);
  LOOM_UNARY("Reciprocal", kReciprocal);
  LOOM_UNARY("Neg", kNeg);
  LOOM_UNARY("Abs", kAbs);
  LOOM_UNARY("Floor", kFloor);
  LOOM_UNARY("Ceil", kCeil);
  LOOM_UNARY("Erf", kErf);
#undef LOOM_UNARY
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<BinaryKernel<B::kAdd>>("Add"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<BinaryKernel<B::kSub>>("Sub"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<BinaryKernel<B::kMul>>("Mul"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<BinaryKernel<B::kDiv>>("Div"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<BinaryKernel<B::kPRelu>>("PRelu"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PowKernel>("Pow"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<VariadicKernel<B::kMax>>("Max"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<VariadicKernel<B::kMin>>("Min"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<VariadicKernel<B::kAdd>>("Sum"));
  LOOM_SDK_RETURN_IF_ERROR((reg.Kernel<VariadicKernel<B::kAdd, true>>("Mean", {"CPU", "", 0, {{"T", kFloats}}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ClipKernel>("Clip"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SoftmaxKernel<false>>("Softmax", {"CPU", "", 0, {{"T", kFloats}}}));
  return reg.Kernel<SoftmaxKernel<true>>("LogSoftmax", {"CPU", "", 0, {{"T", kFloats}}});
}

}  // namespace cpu
}  // namespace loom
