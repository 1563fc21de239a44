// Elementwise kernels (OpenMP): activations and unary math, binary
// arithmetic with numpy broadcasting, variadic Max/Min/Sum/Mean, PRelu,
// Clip, Softmax/LogSoftmax. ONNX semantics; float16/bfloat16 compute in float.
#include <cmath>
#include <limits>
#include <type_traits>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

enum class U { kRelu, kLeakyRelu, kSigmoid, kHardSigmoid, kTanh, kElu, kSelu, kSoftplus, kSoftsign, kExp, kLog,
               kSqrt, kReciprocal, kNeg, kAbs, kFloor, kCeil, kErf };

template <U K, typename C>
inline C ApplyUnary(C x, float alpha, float beta, float gamma) {
  if constexpr (K == U::kRelu) return x > C(0) ? x : C(0);
  if constexpr (K == U::kNeg) return static_cast<C>(-x);
  if constexpr (K == U::kAbs) {
    if constexpr (std::is_unsigned_v<C>) return x; else return x < C(0) ? static_cast<C>(-x) : x;
  }
  if constexpr (std::is_floating_point_v<C>) {
    if constexpr (K == U::kLeakyRelu) return x < C(0) ? C(alpha) * x : x;
    if constexpr (K == U::kSigmoid) return x >= C(0) ? C(1) / (C(1) + std::exp(-x)) : std::exp(x) / (C(1) + std::exp(x));
    if constexpr (K == U::kHardSigmoid) return std::max(C(0), std::min(C(1), C(alpha) * x + C(beta)));
    if constexpr (K == U::kTanh) return std::tanh(x);
    if constexpr (K == U::kElu) return x < C(0) ? C(alpha) * (std::exp(x) - C(1)) : x;
    if constexpr (K == U::kSelu) return C(gamma) * (x <= C(0) ? C(alpha) * (std::exp(x) - C(1)) : x);
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
    Tensor x = ctx.Input(0), y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    const int64_t n = x.num_elements();
    const int threads = ctx.num_threads();
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      const S* in = x.data<S>();
      S* out = y.data<S>();
      const float a = alpha_, b = beta_, g = gamma_;
#pragma omp parallel for if (n > kParallelThreshold) num_threads(threads)
      for (int64_t i = 0; i < n; ++i) out[i] = Num<S>::Store(ApplyUnary<K, C>(Num<S>::Load(in[i]), a, b, g));
      return Status::Ok();
    };
    LOOM_CPU_DISPATCH_NUMERIC(x.dtype(), run)
    return UnsupportedDtype(label_, x.dtype());
  }

 private:
  std::string label_;
  float alpha_ = 0, beta_ = 0, gamma_ = 0;
};

enum class B { kAdd, kSub, kMul, kDiv, kMax, kMin, kPRelu };

template <B K, typename C>
inline C ApplyBinary(C a, C b) {
  if constexpr (K == B::kAdd) return a + b;
  if constexpr (K == B::kSub) return a - b;
  if constexpr (K == B::kMul) return a * b;
  if constexpr (K == B::kDiv) {
    if constexpr (std::is_integral_v<C>) return b == C(0) ? C(0) : static_cast<C>(a / b);  // no SIGFPE
    else return a / b;
  }
  if constexpr (K == B::kMax) {
    if constexpr (std::is_floating_point_v<C>) { if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN(); }
    return a > b ? a : b;
  }
  if constexpr (K == B::kMin) {
    if constexpr (std::is_floating_point_v<C>) { if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<C>::quiet_NaN(); }
    return a < b ? a : b;
  }
  if constexpr (K == B::kPRelu) return a < C(0) ? a * b : a;
  return a;
}

// c[out] = op(a[..], b[..]) over the broadcast shape `out`.
template <B K, typename S>
void BroadcastLoop(const S* a, const std::vector<int64_t>& a_shape, const S* b, const std::vector<int64_t>& b_shape, S* c,
                   const std::vector<int64_t>& out, int threads) {
  using C = typename Num<S>::C;
  int64_t n = 1;
  for (int64_t d : out) n *= d;
  if (n == 0) return;
  int64_t na = 1, nb = 1;
  for (int64_t d : a_shape) na *= d;
  for (int64_t d : b_shape) nb *= d;
  if (na == n && nb == n) {
#pragma omp parallel for if (n > kParallelThreshold) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) c[i] = Num<S>::Store(ApplyBinary<K, C>(Num<S>::Load(a[i]), Num<S>::Load(b[i])));
    return;
  }
  if (na == n && nb == 1) {
    const C bv = Num<S>::Load(b[0]);
#pragma omp parallel for if (n > kParallelThreshold) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) c[i] = Num<S>::Store(ApplyBinary<K, C>(Num<S>::Load(a[i]), bv));
    return;
  }
  if (na == 1 && nb == n) {
    const C av = Num<S>::Load(a[0]);
#pragma omp parallel for if (n > kParallelThreshold) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) c[i] = Num<S>::Store(ApplyBinary<K, C>(av, Num<S>::Load(b[i])));
    return;
  }
  // General case: rows of the last dimension, offsets from the outer index.
  const std::vector<int64_t> sa = BroadcastStrides(a_shape, out), sb = BroadcastStrides(b_shape, out);
  const int64_t rank = static_cast<int64_t>(out.size());
  const int64_t inner = out[rank - 1];
  const int64_t outer = n / inner;
  const int64_t ia = sa[rank - 1], ib = sb[rank - 1];
#pragma omp parallel for if (n > kParallelThreshold) num_threads(threads)
  for (int64_t o = 0; o < outer; ++o) {
    int64_t rem = o, oa = 0, ob = 0;
    for (int64_t d = rank - 2; d >= 0; --d) {
      int64_t idx = rem % out[d];
      rem /= out[d];
      oa += idx * sa[d];
      ob += idx * sb[d];
    }
    S* row = c + o * inner;
    for (int64_t i = 0; i < inner; ++i) {
      row[i] = Num<S>::Store(ApplyBinary<K, C>(Num<S>::Load(a[oa + i * ia]), Num<S>::Load(b[ob + i * ib])));
    }
  }
}

template <B K>
class BinaryKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), c;
    std::vector<int64_t> out;
    if (!BroadcastShape(a.shape(), b.shape(), &out) || (K == B::kPRelu && out != a.shape())) {
      return sdk::InvalidArgument(label_ + ": shapes " + ShapeStr(a.shape()) + " and " + ShapeStr(b.shape()) +
                                  (K == B::kPRelu ? " (slope must broadcast to X)" : " do not broadcast"));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, a.dtype(), out, &c));
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      BroadcastLoop<K, S>(a.data<S>(), a.shape(), b.data<S>(), b.shape(), c.data<S>(), out, ctx.num_threads());
      return Status::Ok();
    };
    LOOM_CPU_DISPATCH_NUMERIC(a.dtype(), run)
    return UnsupportedDtype(label_, a.dtype());
  }

 private:
  std::string label_;
};

// Max, Min, Sum (K = kAdd) and Mean (kAdd then / count) over 1..N inputs.
template <B K, bool kMean = false>
class VariadicKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    const size_t count = ctx.num_inputs();
    std::vector<int64_t> out = ctx.Input(0).shape();
    for (size_t i = 1; i < count; ++i) {
      std::vector<int64_t> next;
      if (!BroadcastShape(out, ctx.Input(i).shape(), &next)) {
        return sdk::InvalidArgument(label_ + ": input " + std::to_string(i) + " " + ShapeStr(ctx.Input(i).shape()) +
                                    " does not broadcast with " + ShapeStr(out));
      }
      out = next;
    }
    Tensor y;
    const LoomDataType dt = ctx.Input(0).dtype();
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, out, &y));
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      Tensor first = ctx.Input(0);
      if (count == 1) {
        std::copy(first.data<S>(), first.data<S>() + first.num_elements(), y.data<S>());
      } else {
        BroadcastLoop<K, S>(first.data<S>(), first.shape(), ctx.Input(1).data<S>(), ctx.Input(1).shape(), y.data<S>(), out,
                            ctx.num_threads());
        for (size_t i = 2; i < count; ++i) {
          Tensor in = ctx.Input(i);
          BroadcastLoop<K, S>(y.data<S>(), out, in.data<S>(), in.shape(), y.data<S>(), out, ctx.num_threads());
        }
      }
      if constexpr (kMean) {
        S* d = y.data<S>();
        for (int64_t i = 0; i < y.num_elements(); ++i) d[i] = Num<S>::Store(Num<S>::Load(d[i]) / static_cast<C>(count));
      }
      return Status::Ok();
    };
    LOOM_CPU_DISPATCH_NUMERIC(dt, run)
    return UnsupportedDtype(label_, dt);
  }

 private:
  std::string label_;
};

class PowKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), e = ctx.Input(1), z;
    std::vector<int64_t> out;
    if (!BroadcastShape(x.shape(), e.shape(), &out)) {
      return sdk::InvalidArgument(label_ + ": shapes " + ShapeStr(x.shape()) + " and " + ShapeStr(e.shape()) + " do not broadcast");
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &z));
    const std::vector<int64_t> sx = BroadcastStrides(x.shape(), out), se = BroadcastStrides(e.shape(), out);
    const int64_t n = z.num_elements();
    auto outer = [&](auto xt) -> Status {
      using X = decltype(xt);
      auto inner = [&](auto et) -> Status {
        using E = decltype(et);
        const X* xp = x.data<X>();
        const E* ep = e.data<E>();
        X* zp = z.data<X>();
        for (int64_t i = 0; i < n; ++i) {
          int64_t rem = i, ox = 0, oe = 0;
          for (int64_t d = static_cast<int64_t>(out.size()) - 1; d >= 0; --d) {
            int64_t idx = rem % out[d];
            rem /= out[d];
            ox += idx * sx[d];
            oe += idx * se[d];
          }
          zp[i] = static_cast<X>(std::pow(static_cast<double>(xp[ox]), static_cast<double>(ep[oe])));
        }
        return Status::Ok();
      };
      switch (e.dtype()) {
        case LOOM_DTYPE_FLOAT: return inner(float{});
        case LOOM_DTYPE_DOUBLE: return inner(double{});
        case LOOM_DTYPE_INT32: return inner(int32_t{});
        case LOOM_DTYPE_INT64: return inner(int64_t{});
        default: return UnsupportedDtype(label_, e.dtype());
      }
    };
    switch (x.dtype()) {
      case LOOM_DTYPE_FLOAT: return outer(float{});
      case LOOM_DTYPE_DOUBLE: return outer(double{});
      case LOOM_DTYPE_INT32: return outer(int32_t{});
      case LOOM_DTYPE_INT64: return outer(int64_t{});
      default: return UnsupportedDtype(label_, x.dtype());
    }
  }

 private:
  std::string label_;
};

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
    for (const Tensor* b : {&lo, &hi}) {
      if (b->present() && b->num_elements() != 1) {
        return sdk::InvalidArgument(label_ + ": min and max must be scalars; found " + ShapeStr(b->shape()));
      }
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    const int64_t n = x.num_elements();
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      C mn = std::numeric_limits<C>::lowest(), mx = std::numeric_limits<C>::max();
      if (lo.present()) mn = Num<S>::Load(lo.data<S>()[0]); else if (has_min_attr_) mn = static_cast<C>(min_attr_);
      if (hi.present()) mx = Num<S>::Load(hi.data<S>()[0]); else if (has_max_attr_) mx = static_cast<C>(max_attr_);
      const S* in = x.data<S>();
      S* out = y.data<S>();
#pragma omp parallel for if (n > kParallelThreshold) num_threads(ctx.num_threads())
      for (int64_t i = 0; i < n; ++i) {
        C v = Num<S>::Load(in[i]);
        out[i] = Num<S>::Store(v < mn ? mn : (v > mx ? mx : v));
      }
      return Status::Ok();
    };
    LOOM_CPU_DISPATCH_NUMERIC(x.dtype(), run)
    return UnsupportedDtype(label_, x.dtype());
  }

 private:
  std::string label_;
  bool has_min_attr_ = false, has_max_attr_ = false;
  float min_attr_ = 0, max_attr_ = 0;
};

template <bool kLog>
class SoftmaxKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return info.GetInt("axis", &axis_);
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    std::vector<int64_t> shape = x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    int64_t axis = axis_;
    if (rank == 0 || !NormalizeAxis(&axis, rank)) {
      return sdk::InvalidArgument(label_ + ": axis " + std::to_string(axis_) + " out of range for " + ShapeStr(shape));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), shape, &y));
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= shape[d];
    const int64_t len = shape[axis];
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      const S* in = x.data<S>();
      S* out = y.data<S>();
      const int64_t lines = outer * inner;
#pragma omp parallel for if (lines * len > kParallelThreshold) num_threads(ctx.num_threads())
      for (int64_t l = 0; l < lines; ++l) {
        const int64_t base = (l / inner) * len * inner + (l % inner);
        C mx = -std::numeric_limits<C>::infinity();
        for (int64_t k = 0; k < len; ++k) mx = std::max(mx, Num<S>::Load(in[base + k * inner]));
        C sum = 0;
        for (int64_t k = 0; k < len; ++k) sum += std::exp(Num<S>::Load(in[base + k * inner]) - mx);
        const C log_sum = std::log(sum);
        for (int64_t k = 0; k < len; ++k) {
          C v = Num<S>::Load(in[base + k * inner]) - mx;
          out[base + k * inner] = Num<S>::Store(kLog ? v - log_sum : std::exp(v) / sum);
        }
      }
      return Status::Ok();
    };
    LOOM_CPU_DISPATCH_FLOAT(x.dtype(), run)
    return UnsupportedDtype(label_, x.dtype());
  }

 private:
  std::string label_;
  int64_t axis_ = -1;
};

const std::vector<LoomDataType> kFloats = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16};

}  // namespace

sdk::Status RegisterElementwiseKernels(sdk::Registrar& reg) {
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
  LOOM_SDK_RETURN_IF_ERROR((reg.Kernel<VariadicKernel<B::kAdd, true>>("Mean")));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ClipKernel>("Clip"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SoftmaxKernel<false>>("Softmax", {"CPU", "", 0, {{"T", kFloats}}}));
  return reg.Kernel<SoftmaxKernel<true>>("LogSoftmax", {"CPU", "", 0, {{"T", kFloats}}});
}

}  // namespace cpu
}  // namespace loom
