// The normalization kernels other than BatchNormalization, plain OpenMP loops
// for every float dtype: LayerNormalization (ONNX 17), InstanceNormalization
// (6), LRN (13), MeanVarianceNormalization (13) and LpNormalization (1).
//
// Statistics accumulate in double whatever the dtype (float16/bfloat16 rows
// can be long, and a two-pass variance in double never goes negative);
// elementwise work runs in Num<T>::C (float for the 16-bit types).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "plugins/cpu/kernels.h"
#include "plugins/cpu/nn_norm_common.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

const std::vector<LoomDataType> kFloatTypes = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16,
                                               LOOM_DTYPE_BFLOAT16};

int64_t Prod(const std::vector<int64_t>& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

// Stores v into element i of a float tensor of dtype `dt`.
void StoreFloat(const Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case LOOM_DTYPE_FLOAT: t.data<float>()[i] = static_cast<float>(v); break;
    case LOOM_DTYPE_DOUBLE: t.data<double>()[i] = v; break;
    case LOOM_DTYPE_FLOAT16: t.data<Float16>()[i] = Num<Float16>::Store(static_cast<float>(v)); break;
    case LOOM_DTYPE_BFLOAT16: t.data<BFloat16>()[i] = Num<BFloat16>::Store(static_cast<float>(v)); break;
    default: break;
  }
}

// Rounds v through stash dtype `dt` (statistics "computed in stash_type").
double RoundTo(LoomDataType dt, double v) {
  switch (dt) {
    case LOOM_DTYPE_FLOAT: return static_cast<float>(v);
    case LOOM_DTYPE_FLOAT16: return Float16::ToFloat(Float16::FromFloat(static_cast<float>(v)));
    case LOOM_DTYPE_BFLOAT16: return BFloat16::ToFloat(BFloat16::FromFloat(static_cast<float>(v)));
    default: return v;
  }
}

// Expands Scale or B (input `index`) to a dense vector over X.shape[axis:]:
// the tensor is right-aligned against X's shape, must be 1 on the dims
// before axis and 1 or equal on the normalized ones. Absent: `dflt` values.
template <typename T>
Status ExpandParam(const KernelContext& ctx, size_t index, const char* name, const std::vector<int64_t>& xs,
                   size_t axis, double dflt, const std::string& label, std::vector<typename Num<T>::C>* out) {
  using C = typename Num<T>::C;
  const std::vector<int64_t> norm(xs.begin() + axis, xs.end());
  const int64_t inner = Prod(norm, 0, norm.size());
  Tensor t = ctx.Input(index);
  if (!t.present()) {
    out->assign(inner, static_cast<C>(dflt));
    return Status::Ok();
  }
  std::vector<int64_t> offsets;
  LOOM_SDK_RETURN_IF_ERROR(NormParamOffsets(t.shape(), xs, axis, name, label, &offsets));
  const T* p = t.data<T>();
  out->resize(inner);
  for (int64_t i = 0; i < inner; ++i) (*out)[i] = Num<T>::Load(p[offsets[i]]);
  return Status::Ok();
}

// ONNX LayerNormalization-17: for X of rank r >= 1 and axis in [-r, r),
// every slice X[i0, .., i_{axis-1}, :, ..] is normalized over its
// prod(X.shape[axis:]) elements: Y = (X - Mean) * InvStdDev * Scale + B,
// InvStdDev = 1 / sqrt(Var + epsilon) (population variance). Scale and the
// optional B broadcast to X.shape[axis:]. Optional outputs Mean and
// InvStdDev, [X.shape[:axis], 1...], have dtype stash_type (statistics are
// rounded to it before use). Dtypes: float32/64, float16, bfloat16.
// Errors (INVALID_ARGUMENT): rank 0, axis out of range, Scale/B that do not
// broadcast to the normalized dims.
class LayerNormKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("axis", &axis_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("epsilon", &epsilon_));
    int64_t stash = 1;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("stash_type", &stash));
    stash_ = static_cast<LoomDataType>(stash);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    return DispatchFloat(ctx.Input(0).dtype(), label_, [&](auto tag) { return Run<decltype(tag)>(ctx); });
  }

 private:
  template <typename T>
  Status Run(KernelContext& ctx) {
    using C = typename Num<T>::C;
    Tensor x = ctx.Input(0);
    const std::vector<int64_t> xs = x.shape();
    int64_t axis = 0;
    LOOM_SDK_RETURN_IF_ERROR(LayerNormAxis(label_, axis_, xs, &axis));
    std::vector<C> scale, bias;
    LOOM_SDK_RETURN_IF_ERROR(ExpandParam<T>(ctx, 1, "Scale", xs, axis, 1.0, label_, &scale));
    LOOM_SDK_RETURN_IF_ERROR(ExpandParam<T>(ctx, 2, "B", xs, axis, 0.0, label_, &bias));
    Tensor y, mean_t, inv_t;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &y));
    std::vector<int64_t> stat_shape = xs;
    for (size_t d = static_cast<size_t>(axis); d < xs.size(); ++d) stat_shape[d] = 1;
    const bool want_mean = ctx.OutputRequested(1), want_inv = ctx.OutputRequested(2);
    if (want_mean) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, stash_, stat_shape, &mean_t));
    if (want_inv) LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, stash_, stat_shape, &inv_t));
    const int64_t outer = Prod(xs, 0, axis), inner = Prod(xs, axis, xs.size());
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    const double eps = epsilon_;
    const LoomDataType stash = stash_;
    ParallelFor(
        outer, ctx.num_threads(),
        [&](int64_t r) {
          double m, inv;
          RowStats(xp + r * inner, inner, 1, eps, &m, &inv);
          m = RoundTo(stash, m);
          inv = RoundTo(stash, inv);
          if (want_mean) StoreFloat(mean_t, r, m);
          if (want_inv) StoreFloat(inv_t, r, inv);
          const C cm = static_cast<C>(m), ci = static_cast<C>(inv);
          const T* xr = xp + r * inner;
          T* yr = yp + r * inner;
          for (int64_t i = 0; i < inner; ++i) {
            yr[i] = Num<T>::Store((Num<T>::Load(xr[i]) - cm) * ci * scale[i] + bias[i]);
          }
        },
        inner);
    return Status::Ok();
  }

  std::string label_;
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
  LoomDataType stash_ = LOOM_DTYPE_FLOAT;
};

// ONNX InstanceNormalization-6: for input [N, C, D...] (rank >= 2) and
// scale, B of shape [C], each (n, c) slice is normalized over its spatial
// elements: y = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c].
// Dtypes: float32/64, float16, bfloat16. Errors (INVALID_ARGUMENT): rank
// < 2, scale or B not [C].
class InstanceNormKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return info.GetFloat("epsilon", &epsilon_);
  }

  Status Compute(KernelContext& ctx) {
    return DispatchFloat(ctx.Input(0).dtype(), label_, [&](auto tag) { return Run<decltype(tag)>(ctx); });
  }

 private:
  template <typename T>
  Status Run(KernelContext& ctx) {
    using C = typename Num<T>::C;
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 2) return sdk::InvalidArgument(label_ + ": input must be [N, C, D...]; found " + ShapeStr(xs));
    const int64_t N = xs[0], Ch = xs[1], S = Prod(xs, 2, xs.size());
    static const char* const kNames[] = {"input", "scale", "B"};
    for (size_t i = 1; i < 3; ++i) {
      Tensor t = ctx.Input(i);
      if (t.rank() != 1 || t.dim(0) != Ch) {
        return sdk::InvalidArgument(label_ + ": input " + kNames[i] + " must be [" + std::to_string(Ch) +
                                    "] (C of input " + ShapeStr(xs) + "); found " + ShapeStr(t.shape()));
      }
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &y));
    const T* xp = x.data<T>();
    const T* sp = ctx.Input(1).data<T>();
    const T* bp = ctx.Input(2).data<T>();
    T* yp = y.data<T>();
    const double eps = epsilon_;
    ParallelFor(
        N * Ch, ctx.num_threads(),
        [&](int64_t r) {
          double m, inv;
          RowStats(xp + r * S, S, 1, eps, &m, &inv);
          const int64_t c = r % Ch;
          // y = x * a + b with a = scale * inv, b = B - mean * a.
          const double a = static_cast<double>(Num<T>::Load(sp[c])) * inv;
          const C ca = static_cast<C>(a), cb = static_cast<C>(static_cast<double>(Num<T>::Load(bp[c])) - m * a);
          for (int64_t i = 0; i < S; ++i) yp[r * S + i] = Num<T>::Store(Num<T>::Load(xp[r * S + i]) * ca + cb);
        },
        S);
    return Status::Ok();
  }

  std::string label_;
  float epsilon_ = 1e-5f;
};

// ONNX LRN-13 on X [N, C, D...] (rank >= 2): Y = X / (bias + alpha / size *
// square_sum) ^ beta, square_sum[n, c, ...] the sum of X[n, i, ...]^2 over
// channels max(0, c - floor((size-1)/2)) <= i <= min(C-1, c + ceil((size-1)/2)).
// Dtypes: float32/64, float16, bfloat16. Errors (INVALID_ARGUMENT): size
// < 1, rank < 2.
class LrnKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("alpha", &alpha_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("beta", &beta_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("bias", &bias_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("size", &size_));
    if (size_ < 1) return sdk::InvalidArgument(label_ + ": attribute size must be >= 1; found " + std::to_string(size_));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    return DispatchFloat(ctx.Input(0).dtype(), label_, [&](auto tag) { return Run<decltype(tag)>(ctx); });
  }

 private:
  template <typename T>
  Status Run(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 2) return sdk::InvalidArgument(label_ + ": input X must be [N, C, D...]; found " + ShapeStr(xs));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &y));
    const int64_t N = xs[0], Ch = xs[1], S = Prod(xs, 2, xs.size());
    if (y.num_elements() == 0) return Status::Ok();
    // Channels more than C - 1 away are never in a window: clamping lo and hi
    // keeps every window (size may be huge) and bounds its width W.
    const int64_t lo = std::min((size_ - 1) / 2, Ch - 1), hi = std::min(size_ - 1 - (size_ - 1) / 2, Ch - 1);
    const int64_t W = lo + hi + 1;
    const double scale = static_cast<double>(alpha_) / static_cast<double>(size_);
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    // Window sums of squares in O(1) per element whatever W (van Herk /
    // Gil-Werman): the channels split into blocks of W; pre[c] sums the
    // squares from c's block start to c, suf[c] from c to its block end.
    // A window [a, b] (at most W wide, clipped to [0, C-1]) is suf[a] +
    // pre[b] across two blocks, else pre[b] (a starts the block) or suf[a]
    // (b ends it). Only non-negative terms are added: no cancellation.
    // One task per n and run of B <= 256 spatial positions (B contiguous
    // values per channel; the scratch at most 2 * 2^16 doubles).
    const int64_t B = std::max<int64_t>(1, std::min<int64_t>({S, 256, (int64_t{1} << 16) / Ch}));
    const int64_t blocks = (S + B - 1) / B;
    ParallelFor(
        N * blocks, ctx.num_threads(),
        [&](int64_t task) {
          const int64_t n = task / blocks, s0 = (task % blocks) * B, nb = std::min(B, S - s0);
          std::vector<double> pre(Ch * nb), suf(Ch * nb);
          auto load = [&](int64_t c, int64_t j) {
            return static_cast<double>(Num<T>::Load(xp[(n * Ch + c) * S + s0 + j]));
          };
          for (int64_t c = 0; c < Ch; ++c) {
            const bool first = c % W == 0;
            for (int64_t j = 0; j < nb; ++j) {
              const double v = load(c, j);
              pre[c * nb + j] = (first ? 0.0 : pre[(c - 1) * nb + j]) + v * v;
            }
          }
          for (int64_t c = Ch - 1; c >= 0; --c) {
            const bool last = c == Ch - 1 || (c + 1) % W == 0;
            for (int64_t j = 0; j < nb; ++j) {
              const double v = load(c, j);
              suf[c * nb + j] = (last ? 0.0 : suf[(c + 1) * nb + j]) + v * v;
            }
          }
          for (int64_t c = 0; c < Ch; ++c) {
            const int64_t a = std::max<int64_t>(0, c - lo), b = std::min<int64_t>(Ch - 1, c + hi);
            const bool two = a / W != b / W, from_start = a % W == 0;
            for (int64_t j = 0; j < nb; ++j) {
              const double sq =
                  two ? suf[a * nb + j] + pre[b * nb + j] : from_start ? pre[b * nb + j] : suf[a * nb + j];
              const double v = load(c, j);
              yp[(n * Ch + c) * S + s0 + j] =
                  Num<T>::Store(static_cast<typename Num<T>::C>(v / std::pow(bias_ + scale * sq, beta_)));
            }
          }
        },
        3 * Ch * B);
    return Status::Ok();
  }

  std::string label_;
  float alpha_ = 1e-4f, beta_ = 0.75f, bias_ = 1.0f;
  int64_t size_ = 1;
};

// ONNX MeanVarianceNormalization-13: Y = (X - mean) / (sqrt(var) + 1e-9),
// mean and (population) variance over the dims in `axes` (negative counts
// from the back; duplicates ignored; an empty list means all dims, as
// ReduceMean's). Dtypes: float32/64, float16, bfloat16. Errors
// (INVALID_ARGUMENT): an axis out of range for X's rank.
class MvnKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return info.GetInts("axes", &axes_);
  }

  Status Compute(KernelContext& ctx) {
    return DispatchFloat(ctx.Input(0).dtype(), label_, [&](auto tag) { return Run<decltype(tag)>(ctx); });
  }

 private:
  template <typename T>
  Status Run(KernelContext& ctx) {
    using C = typename Num<T>::C;
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    const int64_t rank = static_cast<int64_t>(xs.size());
    std::vector<bool> reduced(rank, axes_.empty());
    for (int64_t a : axes_) {
      int64_t ax = a;
      if (!NormalizeAxis(&ax, rank) || ax >= rank) {  // rank 0 has no axis to reduce
        return sdk::InvalidArgument(label_ + ": axes " + ShapeStr(axes_) + " has " + std::to_string(a) +
                                    ", out of range for X of rank " + std::to_string(rank) + " " + ShapeStr(xs));
      }
      reduced[ax] = true;
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &y));
    if (y.num_elements() == 0) return Status::Ok();
    // Offsets of the reduced sub-block (relative to a group's base) and the
    // kept dims' shape and strides: group g's elements are base(g) + offs[j].
    std::vector<int64_t> strides(rank, 1);
    for (int64_t d = rank - 1; d > 0; --d) strides[d - 1] = strides[d] * xs[d];
    std::vector<int64_t> offs = {0}, kept_dims, kept_strides;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        kept_dims.push_back(xs[d]);
        kept_strides.push_back(strides[d]);
        continue;
      }
      std::vector<int64_t> next;
      next.reserve(offs.size() * xs[d]);
      for (int64_t o : offs)
        for (int64_t i = 0; i < xs[d]; ++i) next.push_back(o + i * strides[d]);
      offs.swap(next);
    }
    const int64_t groups = Prod(kept_dims, 0, kept_dims.size()), m = static_cast<int64_t>(offs.size());
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    ParallelFor(
        groups, ctx.num_threads(),
        [&](int64_t g) {
          int64_t base = 0, rest = g;
          for (size_t d = kept_dims.size(); d-- > 0;) {
            base += (rest % kept_dims[d]) * kept_strides[d];
            rest /= kept_dims[d];
          }
          double sum = 0, sq = 0;
          for (int64_t j = 0; j < m; ++j) sum += static_cast<double>(Num<T>::Load(xp[base + offs[j]]));
          const double mean = sum / static_cast<double>(m);
          for (int64_t j = 0; j < m; ++j) {
            const double d = static_cast<double>(Num<T>::Load(xp[base + offs[j]])) - mean;
            sq += d * d;
          }
          const double inv = 1.0 / (std::sqrt(sq / static_cast<double>(m)) + 1e-9);
          const C cm = static_cast<C>(mean), ci = static_cast<C>(inv);
          for (int64_t j = 0; j < m; ++j) {
            yp[base + offs[j]] = Num<T>::Store((Num<T>::Load(xp[base + offs[j]]) - cm) * ci);
          }
        },
        m);
    return Status::Ok();
  }

  std::string label_;
  std::vector<int64_t> axes_;
};

// ---------------------------------------------------------- LpNormalization

// LpNormalization-1 over the float dtypes: x / ||x||_p along `axis`, p 1 or
// 2 (a zero line gives 0 / 0 = NaN, as the ONNX reference does).
class LpNormalizationKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", -1);
    p_ = info.IntOr("p", 2);
    if (p_ != 1 && p_ != 2) {
      return sdk::InvalidArgument(label_ + ": attribute 'p' must be 1 or 2, found " + std::to_string(p_));
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    AxisSplit s;
    LOOM_SDK_RETURN_IF_ERROR(SplitSameShape(ctx, x, axis_, label_, "attribute 'axis'", &s, &y));
    const int64_t n = s.n, inner = s.inner;
    const bool l1 = p_ == 1;
    return DispatchFloat(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      ForEachAxisLine(s, x.data<S>(), y.data<S>(), [&](const S* in, S* out) {
        double norm = 0;
        for (int64_t i = 0; i < n; ++i) {
          const double v = static_cast<double>(Num<S>::Load(in[i * inner]));
          norm += l1 ? std::fabs(v) : v * v;
        }
        if (!l1) norm = std::sqrt(norm);
        for (int64_t i = 0; i < n; ++i) {
          const double v = static_cast<double>(Num<S>::Load(in[i * inner]));
          out[i * inner] = Num<S>::Store(static_cast<C>(v / norm));
        }
      });
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  int64_t axis_ = -1, p_ = 2;
};

}  // namespace

sdk::Status RegisterNnNormalizationKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<LayerNormKernel>(
      "LayerNormalization", {"CPU", "", 0, {{"T", kFloatTypes}, {"U", kFloatTypes}}}));
  LOOM_SDK_RETURN_IF_ERROR(
      reg.Kernel<InstanceNormKernel>("InstanceNormalization", {"CPU", "", 0, {{"T", kFloatTypes}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<LrnKernel>("LRN", {"CPU", "", 0, {{"T", kFloatTypes}}}));
  LOOM_SDK_RETURN_IF_ERROR(
      reg.Kernel<MvnKernel>("MeanVarianceNormalization", {"CPU", "", 0, {{"T", kFloatTypes}}}));
  return reg.Kernel<LpNormalizationKernel>("LpNormalization");
}

}  // namespace cpu
}  // namespace loom
