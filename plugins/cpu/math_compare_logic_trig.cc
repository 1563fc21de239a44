// Elementwise kernels (OpenMP), the rest of the family: comparisons (bool output) and logical ops
// with numpy broadcasting, Where (three-way broadcasting), unary math
// (Sign, trigonometric, Round), IsNaN/IsInf, activations (HardSwish, Mish,
// Celu, ThresholdedRelu, Gelu, Shrink), Mod and BitShift. ONNX semantics; the
// schemas in ops/math_compare_logic_trig.cc name the opset of each. float16/bfloat16
// are stored as such and computed in float. Two-operand ops go through the
// broadcasting iterator in broadcast.h.
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/semantics/cast.h"
#include "ops/semantics/data_movement.h"
#include "plugins/cpu/broadcast.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

// Plans the broadcast of inputs 0 and 1 and sizes output 0 (dtype out_dt)
// to their broadcast shape. Errors when the dtypes differ or the shapes do
// not broadcast.
Status PlanTwo(KernelContext& ctx, const std::string& label, LoomDataType out_dt, const Tensor& a, const Tensor& b,
               BroadcastPlan& plan, Tensor* c) {
  if (a.dtype() != b.dtype()) {
    return sdk::InvalidArgument(label + ": inputs must have the same dtype; found " + sdk::DTypeName(a.dtype()) +
                                " and " + sdk::DTypeName(b.dtype()));
  }
  LOOM_SDK_RETURN_IF_ERROR(PlanBroadcastOf(label, "A", a, "B", b, &plan));
  return ctx.Output(0, out_dt, plan.out, c);
}

// ---- Comparisons and logic ----------------------------------------------------

enum class Cmp { kEqual, kLess, kGreater, kLessOrEqual, kGreaterOrEqual, kAnd, kOr, kXor };

template <Cmp K, typename C>
inline bool ApplyCmp(C a, C b) {
  if constexpr (K == Cmp::kEqual) return a == b;
  if constexpr (K == Cmp::kLess) return a < b;
  if constexpr (K == Cmp::kGreater) return a > b;
  if constexpr (K == Cmp::kLessOrEqual) return a <= b;
  if constexpr (K == Cmp::kGreaterOrEqual) return a >= b;
  if constexpr (K == Cmp::kAnd) return static_cast<bool>(a) && static_cast<bool>(b);
  if constexpr (K == Cmp::kOr) return static_cast<bool>(a) || static_cast<bool>(b);
  if constexpr (K == Cmp::kXor) return static_cast<bool>(a) != static_cast<bool>(b);
  return false;
}

// C = A cmp B as bool, numpy broadcasting; A and B any numeric dtype or bool
// (the schema narrows it per op). NaN compares unequal/false (IEEE).
template <Cmp K>
class CompareKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), c;
    BroadcastPlan& plan = ThreadLocalPlan();
    LOOM_SDK_RETURN_IF_ERROR(PlanTwo(ctx, label_, LOOM_DTYPE_BOOL, a, b, plan, &c));
    return DispatchNumericOrBool<bool>(a.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      ForEachBroadcast(plan, a.data<S>(), b.data<S>(), c.data<bool>(), ctx.num_threads(),
                       [](S x, S y) { return ApplyCmp<K, C>(Num<S>::Load(x), Num<S>::Load(y)); });
      return Status::Ok();
    });
  }
};

// Y = !X (bool).
class NotKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    if (x.dtype() != LOOM_DTYPE_BOOL) return UnsupportedDtype(label_, x.dtype());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_BOOL, x.dims_data(), x.rank(), &y));
    const bool* in = x.data<bool>();
    bool* out = y.data<bool>();
    const int64_t n = x.num_elements();
    ParallelRange(n, n, ctx.num_threads(), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) out[i] = !in[i];
    });
    return Status::Ok();
  }
};

// ---- Where ------------------------------------------------------------------

// output = condition ? X : Y with all three broadcast together (ONNX
// Where-16). Any dtype for X/Y (only bytes move; strings as views of their
// elements, ElementsIn/ElementsOut in tensor_util.h); condition is bool.
class WhereKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor cond = ctx.Input(0), x = ctx.Input(1), y = ctx.Input(2), out;
    std::vector<int64_t> shape;
    LOOM_SDK_RETURN_IF_ERROR(semantics::WhereShape(label_, cond, x, y, &shape));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), shape, &out));
    const int64_t n = out.num_elements();
    if (n == 0) return Status::Ok();
    if (shape.empty()) shape = {1};  // rank 0: one row of one element
    const std::vector<int64_t> sc = BroadcastStrides(cond.shape(), shape), sx = BroadcastStrides(x.shape(), shape),
                               sy = BroadcastStrides(y.shape(), shape);
    const ElementsIn xe(x), ye(y);
    ElementsOut oe(out);
    return DispatchElements(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      Select<S>(shape, sc, sx, sy, cond.data<bool>(), xe.data<S>(), ye.data<S>(), oe.data<S>(), ctx.num_threads());
      return oe.Finish();
    });
  }

 private:
  // Rows of the innermost dim; each row's three input offsets come from its
  // index decomposed over the outer dims.
  template <typename S>
  static void Select(const std::vector<int64_t>& shape, const std::vector<int64_t>& sc, const std::vector<int64_t>& sx,
                     const std::vector<int64_t>& sy, const bool* c, const S* x, const S* y, S* out, int threads) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t inner = shape[rank - 1];
    int64_t rows = 1;
    for (int64_t d = 0; d + 1 < rank; ++d) rows *= shape[d];
    const int64_t ic = sc[rank - 1], ix = sx[rank - 1], iy = sy[rank - 1];
    ParallelRange(rows, rows * inner, threads, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        int64_t rem = r, oc = 0, ox = 0, oy = 0;
        for (int64_t d = rank - 2; d >= 0; --d) {
          const int64_t idx = rem % shape[d];
          rem /= shape[d];
          oc += idx * sc[d];
          ox += idx * sx[d];
          oy += idx * sy[d];
        }
        S* o = out + r * inner;
        for (int64_t i = 0; i < inner; ++i) o[i] = c[oc + i * ic] ? x[ox + i * ix] : y[oy + i * iy];
      }
    });
  }

};

// ---- Unary math and activations -------------------------------------------------

enum class U { kSign, kSin, kCos, kTan, kAsin, kAcos, kAtan, kSinh, kCosh, kAsinh, kAcosh, kAtanh, kRound,
               kHardSwish, kMish, kCelu, kThresholdedRelu, kGelu, kShrink };

// Attributes of the ops that have them.
struct UnaryParams {
  double alpha = 0, bias = 0, lambd = 0;
  bool gelu_tanh = false;
};

// One element in compute type C. Math-only ops compile to the identity for
// integer C (the schemas never let integers reach them).
template <U K, typename C>
inline C ApplyUnary(C x, const UnaryParams& p) {
  if constexpr (K == U::kSign) {
    if constexpr (std::is_unsigned_v<C>) {
      return x > C(0) ? C(1) : C(0);
    } else if constexpr (std::is_floating_point_v<C>) {
      return x > C(0) ? C(1) : (x < C(0) ? C(-1) : x);  // keeps 0, -0 and NaN
    } else {
      return static_cast<C>((x > C(0)) - (x < C(0)));
    }
  }
  if constexpr (K == U::kShrink) {
    // In double so that integer inputs compare against a fractional lambd.
    const double v = static_cast<double>(x);
    const double r = v < -p.lambd ? v + p.bias : (v > p.lambd ? v - p.bias : 0.0);
    if constexpr (std::is_integral_v<C>) {
      // Truncated and clamped to C's range (a huge bias, a negative result
      // for an unsigned type): a plain cast would be undefined.
      return semantics::SaturateCast<C>(r);
    } else {
      return static_cast<C>(r);
    }
  }
  if constexpr (std::is_floating_point_v<C>) {
    if constexpr (K == U::kSin) return std::sin(x);
    if constexpr (K == U::kCos) return std::cos(x);
    if constexpr (K == U::kTan) return std::tan(x);
    if constexpr (K == U::kAsin) return std::asin(x);
    if constexpr (K == U::kAcos) return std::acos(x);
    if constexpr (K == U::kAtan) return std::atan(x);
    if constexpr (K == U::kSinh) return std::sinh(x);
    if constexpr (K == U::kCosh) return std::cosh(x);
    if constexpr (K == U::kAsinh) return std::asinh(x);
    if constexpr (K == U::kAcosh) return std::acosh(x);
    if constexpr (K == U::kAtanh) return std::atanh(x);
    // nearbyint under the default rounding mode rounds halves to even.
    if constexpr (K == U::kRound) return std::nearbyint(x);
    if constexpr (K == U::kHardSwish) return x * std::max(C(0), std::min(C(1), x / C(6) + C(0.5)));
    if constexpr (K == U::kMish) {
      // softplus without overflow: x + log1p(e^-x) for positive x.
      const C sp = x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
      return x * std::tanh(sp);
    }
    if constexpr (K == U::kCelu) {
      const C a = static_cast<C>(p.alpha);
      return std::max(C(0), x) + std::min(C(0), a * std::expm1(x / a));
    }
    if constexpr (K == U::kThresholdedRelu) return x > static_cast<C>(p.alpha) ? x : C(0);
    if constexpr (K == U::kGelu) {
      if (p.gelu_tanh) {
        const C k = static_cast<C>(0.7978845608028654);  // sqrt(2 / pi)
        return C(0.5) * x * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x)));
      }
      return C(0.5) * x * (C(1) + std::erf(x * static_cast<C>(0.7071067811865476)));
    }
  }
  return x;
}

// Y = op(X), any shape; the dtype is the schema's (float types for math,
// numeric for Sign and Shrink).
template <U K>
class UnaryKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    p_.alpha = info.FloatOr("alpha", 1.0f);
    p_.bias = info.FloatOr("bias", 0.0f);
    p_.lambd = info.FloatOr("lambd", 0.5f);
    if constexpr (K == U::kCelu) {
      if (p_.alpha == 0) return sdk::InvalidArgument(label_ + ": attribute 'alpha' must be non-zero; found 0");
    }
    if constexpr (K == U::kGelu) {
      const std::string approx = info.StringOr("approximate", "none");
      if (approx != "none" && approx != "tanh") {
        return sdk::InvalidArgument(label_ + ": attribute 'approximate' must be \"none\" or \"tanh\"; found \"" +
                                    approx + "\"");
      }
      p_.gelu_tanh = approx == "tanh";
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    return MapUnary(ctx, label_, [&](auto tag) {
      using C = typename Num<decltype(tag)>::C;
      return [p = p_](C v) { return ApplyUnary<K, C>(v, p); };
    });
  }

 private:
  std::string label_;
  UnaryParams p_;
};

// IsNaN (kInf = false) and IsInf (kInf = true, honouring detect_negative /
// detect_positive): bool mask of X's shape; X a float dtype.
template <bool kInf>
class FloatClassKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    neg_ = info.IntOr("detect_negative", 1) != 0;
    pos_ = info.IntOr("detect_positive", 1) != 0;
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_BOOL, x.dims_data(), x.rank(), &y));
    const int64_t n = x.num_elements();
    return DispatchFloat(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      const S* in = x.data<S>();
      bool* out = y.data<bool>();
      const bool neg = neg_, pos = pos_;
      ParallelRange(n, n, ctx.num_threads(), [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          const auto v = Num<S>::Load(in[i]);
          if constexpr (kInf) {
            out[i] = std::isinf(v) && (v > 0 ? pos : neg);
          } else {
            out[i] = std::isnan(v);
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  bool neg_ = true, pos_ = true;
};

// ---- Mod and BitShift ---------------------------------------------------------

// Integer remainder. fmod: sign of the dividend (C %); otherwise the sign of
// the divisor (Python %). x % 0 is undefined in ONNX: 0 rather than SIGFPE;
// MIN % -1 traps on x86 and is 0 anyway.
template <typename C>
inline C IntMod(C a, C b, bool fmod) {
  if (b == C(0)) return C(0);
  if constexpr (std::is_signed_v<C>) {
    if (b == C(-1)) return C(0);
    C r = static_cast<C>(a % b);
    if (!fmod && r != C(0) && ((r < C(0)) != (b < C(0)))) r = static_cast<C>(r + b);
    return r;
  } else {
    return static_cast<C>(a % b);
  }
}

// C = A mod B (ONNX Mod-13), numpy broadcasting. Float dtypes need fmod = 1
// (C fmod); integers take either form.
class ModKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    fmod_ = info.IntOr("fmod", 0);
    if (fmod_ != 0 && fmod_ != 1) {
      return sdk::InvalidArgument(label_ + ": attribute 'fmod' must be 0 or 1; found " + std::to_string(fmod_));
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), c;
    BroadcastPlan& plan = ThreadLocalPlan();
    LOOM_SDK_RETURN_IF_ERROR(PlanTwo(ctx, label_, a.dtype(), a, b, plan, &c));
    const bool fm = fmod_ == 1;
    return DispatchNumeric(a.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      if constexpr (std::is_floating_point_v<C>) {
        if (!fm) {
          return sdk::InvalidArgument(label_ + ": floating-point inputs (" + sdk::DTypeName(a.dtype()) +
                                      ") need attribute fmod = 1; found 0");
        }
        ForEachBroadcast(plan, a.data<S>(), b.data<S>(), c.data<S>(), ctx.num_threads(),
                         [](S x, S y) { return Num<S>::Store(std::fmod(Num<S>::Load(x), Num<S>::Load(y))); });
      } else {
        ForEachBroadcast(plan, a.data<S>(), b.data<S>(), c.data<S>(), ctx.num_threads(),
                         [fm](S x, S y) { return IntMod<C>(x, y, fm); });
      }
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  int64_t fmod_ = 0;
};

// Z = X << Y or X >> Y (ONNX BitShift-11), unsigned integers, numpy
// broadcasting. A shift by the bit width or more gives 0 (C++ leaves it
// undefined).
class BitShiftKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    const std::string dir = info.StringOr("direction", "");
    if (dir != "LEFT" && dir != "RIGHT") {
      return sdk::InvalidArgument(label_ + ": attribute 'direction' must be \"LEFT\" or \"RIGHT\"; found \"" + dir +
                                  "\"");
    }
    left_ = dir == "LEFT";
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), c;
    BroadcastPlan& plan = ThreadLocalPlan();
    LOOM_SDK_RETURN_IF_ERROR(PlanTwo(ctx, label_, a.dtype(), a, b, plan, &c));
    const bool left = left_;
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      constexpr S kBits = static_cast<S>(sizeof(S) * 8);
      ForEachBroadcast(plan, a.data<S>(), b.data<S>(), c.data<S>(), ctx.num_threads(), [left](S x, S y) {
        if (y >= kBits) return S(0);
        return static_cast<S>(left ? x << y : x >> y);
      });
      return Status::Ok();
    };
    switch (a.dtype()) {
      case LOOM_DTYPE_UINT8: return run(uint8_t{});
      case LOOM_DTYPE_UINT16: return run(uint16_t{});
      case LOOM_DTYPE_UINT32: return run(uint32_t{});
      case LOOM_DTYPE_UINT64: return run(uint64_t{});
      default: return UnsupportedDtype(label_, a.dtype());
    }
  }

 private:
  std::string label_;
  bool left_ = true;
};

}  // namespace

sdk::Status RegisterMathCompareLogicTrigKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CompareKernel<Cmp::kEqual>>("Equal"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CompareKernel<Cmp::kLess>>("Less"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CompareKernel<Cmp::kGreater>>("Greater"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CompareKernel<Cmp::kLessOrEqual>>("LessOrEqual"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CompareKernel<Cmp::kGreaterOrEqual>>("GreaterOrEqual"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CompareKernel<Cmp::kAnd>>("And"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CompareKernel<Cmp::kOr>>("Or"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CompareKernel<Cmp::kXor>>("Xor"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<NotKernel>("Not"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<WhereKernel>("Where"));
#define LOOM_UNARY(name, kind) LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UnaryKernel<U::kind>>(name))
  LOOM_UNARY("Sign", kSign);
  LOOM_UNARY("Sin", kSin);
  LOOM_UNARY("Cos", kCos);
  LOOM_UNARY("Tan", kTan);
  LOOM_UNARY("Asin", kAsin);
  LOOM_UNARY("Acos", kAcos);
  LOOM_UNARY("Atan", kAtan);
  LOOM_UNARY("Sinh", kSinh);
  LOOM_UNARY("Cosh", kCosh);
  LOOM_UNARY("Asinh", kAsinh);
  LOOM_UNARY("Acosh", kAcosh);
  LOOM_UNARY("Atanh", kAtanh);
  LOOM_UNARY("Round", kRound);
  LOOM_UNARY("HardSwish", kHardSwish);
  LOOM_UNARY("Mish", kMish);
  LOOM_UNARY("Celu", kCelu);
  LOOM_UNARY("ThresholdedRelu", kThresholdedRelu);
  LOOM_UNARY("Gelu", kGelu);
  LOOM_UNARY("Shrink", kShrink);
#undef LOOM_UNARY
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<FloatClassKernel<false>>("IsNaN"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<FloatClassKernel<true>>("IsInf"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ModKernel>("Mod"));
  return reg.Kernel<BitShiftKernel>("BitShift");
}

}  // namespace cpu
}  // namespace loom
