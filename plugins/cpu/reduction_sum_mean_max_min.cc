// Reduction kernels (OpenMP): ReduceSum, ReduceMean, ReduceMax, ReduceMin
// with ONNX semantics (axes as the optional int64 input or the older `axes`
// attribute, keepdims, noop_with_empty_axes; see ops/reduction_sum_mean_max_min.cc).
//
// The input is viewed with size-1 dims dropped and neighbouring dims merged
// when both are reduced or both kept, so e.g. ReduceMean over H, W of
// [N, C, H, W] is a reduction of contiguous rows of H*W. Then either
//  - the innermost merged dim is reduced: each output reduces contiguous
//    runs (several accumulators, so the loop is not one long dependency
//    chain), or
//  - the innermost merged dim is kept: each output row accumulates whole
//    input rows lane by lane (a vectorizable loop).
// Work is split over outputs; when there are fewer outputs than threads the
// reduced range is split too and the partial results are merged.
// Sums accumulate in double for float types and in 64-bit integers (wrapping
// like the type) for integer types.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/semantics/reduction.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

enum class R { kSum, kMean, kMax, kMin };

// Accumulation rules of reduction K over storage type S.
template <R K, typename S>
struct Reducer {
  using C = typename Num<S>::C;
  static constexpr bool kSumLike = K == R::kSum || K == R::kMean;
  using Acc = std::conditional_t<
      !kSumLike, C,
      std::conditional_t<std::is_floating_point_v<C>, double,
                         std::conditional_t<std::is_signed_v<C>, int64_t, uint64_t>>>;

  static Acc Init() {
    if constexpr (kSumLike) return Acc(0);
    if constexpr (K == R::kMax) {
      if constexpr (std::is_floating_point_v<C>) return -std::numeric_limits<C>::infinity();
      else return std::numeric_limits<C>::lowest();
    }
    if constexpr (K == R::kMin) {
      if constexpr (std::is_floating_point_v<C>) return std::numeric_limits<C>::infinity();
      else return std::numeric_limits<C>::max();
    }
  }
  // Folds one value (or another partial result) into a. Max/Min keep a NaN
  // once they meet one; integer sums wrap instead of overflowing (UB).
  static Acc Merge(Acc a, Acc x) {
    if constexpr (kSumLike) {
      if constexpr (std::is_integral_v<Acc>) {
        return static_cast<Acc>(static_cast<uint64_t>(a) + static_cast<uint64_t>(x));
      } else {
        return a + x;
      }
    }
    if constexpr (K == R::kMax) {
      if constexpr (std::is_floating_point_v<C>) return (a < x || std::isnan(x)) ? x : a;
      else return a < x ? x : a;
    }
    if constexpr (K == R::kMin) {
      if constexpr (std::is_floating_point_v<C>) return (x < a || std::isnan(x)) ? x : a;
      else return x < a ? x : a;
    }
  }
  static Acc Load(S v) { return static_cast<Acc>(Num<S>::Load(v)); }
  // The output value from the accumulation of `count` elements.
  static S Finish(Acc a, int64_t count) {
    if constexpr (K == R::kMean) {
      if constexpr (std::is_floating_point_v<Acc>) {
        return Num<S>::Store(static_cast<C>(a / static_cast<double>(count)));  // 0 / 0 = NaN for an empty mean
      } else {
        return count == 0 ? S(0) : static_cast<S>(a / static_cast<Acc>(count));
      }
    } else {
      return Num<S>::Store(static_cast<C>(a));
    }
  }
  // Reduces p[0..len). Integer folds are associative, so one accumulator
  // vectorizes as is (and GCC 12 -O3 miscompiled the 8-way form for int8);
  // float folds get 8 independent accumulators, which breaks the serial
  // dependency of a strictly ordered sum.
  static Acc Contiguous(const S* p, int64_t len) {
    if constexpr (std::is_integral_v<Acc>) {
      Acc acc = Init();
      for (int64_t i = 0; i < len; ++i) acc = Merge(acc, Load(p[i]));
      return acc;
    }
    constexpr int kWays = 8;
    Acc acc[kWays];
    for (int w = 0; w < kWays; ++w) acc[w] = Init();
    int64_t i = 0;
    for (; i + kWays <= len; i += kWays) {
      for (int w = 0; w < kWays; ++w) acc[w] = Merge(acc[w], Load(p[i + w]));
    }
    for (; i < len; ++i) acc[0] = Merge(acc[0], Load(p[i]));
    for (int w = 1; w < kWays; ++w) acc[0] = Merge(acc[0], acc[w]);
    return acc[0];
  }
};

// The input seen as alternating runs of kept and reduced (merged) dims.
struct Layout {
  std::vector<int64_t> kdims, kstrides;  // kept dims, outer to inner, and their input strides
  std::vector<int64_t> rdims, rstrides;  // reduced dims likewise
  bool inner_reduced = false;            // the innermost merged dim is reduced (stride 1)
  int64_t n_out = 1, count = 1;          // outputs; input elements per output
};

Layout MakeLayout(const std::vector<int64_t>& shape, const std::vector<bool>& reduce) {
  Layout l;
  std::vector<int64_t> dims;
  std::vector<bool> red;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;  // neither reduces nor indexes anything
    if (!dims.empty() && red.back() == reduce[d]) {
      dims.back() *= shape[d];
    } else {
      dims.push_back(shape[d]);
      red.push_back(reduce[d]);
    }
  }
  int64_t stride = 1;
  for (size_t j = dims.size(); j-- > 0;) {
    auto& d = red[j] ? l.rdims : l.kdims;
    auto& s = red[j] ? l.rstrides : l.kstrides;
    d.insert(d.begin(), dims[j]);
    s.insert(s.begin(), stride);
    stride *= dims[j];
    (red[j] ? l.count : l.n_out) *= dims[j];
  }
  l.inner_reduced = !red.empty() && red.back();
  return l;
}

// Input offset of the flat index `flat` over dims[0..n) with `strides`.
inline int64_t OffsetOf(int64_t flat, const int64_t* dims, const int64_t* strides, size_t n) {
  int64_t off = 0;
  for (size_t j = n; j-- > 0;) {
    off += (flat % dims[j]) * strides[j];
    flat /= dims[j];
  }
  return off;
}

// An odometer over dims[0..n): the input offsets of consecutive flat
// indices without a division per step. Construct once per thread (it owns a
// small index vector) and Seek per unit of work.
class Odometer {
 public:
  Odometer(const int64_t* dims, const int64_t* strides, size_t n) : dims_(dims), strides_(strides), idx_(n) {}
  void Seek(int64_t flat) {
    offset_ = 0;
    for (size_t j = idx_.size(); j-- > 0;) {
      idx_[j] = flat % dims_[j];
      flat /= dims_[j];
      offset_ += idx_[j] * strides_[j];
    }
  }
  int64_t offset() const { return offset_; }
  void Next() {
    for (size_t j = idx_.size(); j-- > 0;) {
      offset_ += strides_[j];
      if (++idx_[j] < dims_[j]) return;
      offset_ -= idx_[j] * strides_[j];
      idx_[j] = 0;
    }
  }

 private:
  const int64_t* dims_;
  const int64_t* strides_;
  std::vector<int64_t> idx_;
  int64_t offset_ = 0;
};

// Reduces `in` (laid out as `l`) into out[0..l.n_out).
template <R K, typename S>
void RunReduce(const S* in, S* out, const Layout& l, int threads) {
  using Red = Reducer<K, S>;
  using Acc = typename Red::Acc;
  const int64_t total = l.n_out * l.count;
  // Units of parallel work: one per output (or output lane block); when that
  // leaves threads idle on a large reduction, the reduced range is split
  // `splits` ways as well and partial results are merged afterwards.
  constexpr int64_t kLanes = 256;
  const int64_t w = l.inner_reduced || l.kdims.empty() ? 1 : l.kdims.back();  // outputs per row
  const int64_t rows = l.n_out / w;
  const int64_t blocks = (w + kLanes - 1) / kLanes;
  const int64_t base_units = l.inner_reduced ? l.n_out : rows * blocks;
  int64_t splits = 1;
  if (total > kParallelThreshold && threads > 1 && base_units < threads) {
    splits = std::max<int64_t>(1, std::min<int64_t>(threads, l.count / 4096));
  }
  std::vector<Acc> partial(splits > 1 ? static_cast<size_t>(l.n_out * splits) : 0);
  auto store = [&](int64_t o, int64_t s, Acc a) {
    if (splits == 1) out[o] = Red::Finish(a, l.count);
    else partial[o * splits + s] = a;
  };

  if (l.inner_reduced) {
    // Reduced flat index t = ro * run + i: `run` contiguous elements per
    // combination ro of the outer reduced dims.
    const int64_t run = l.rdims.back();
    const size_t nr = l.rdims.size() - 1;
    ParallelRange(l.n_out * splits, total, threads, [&](int64_t lo, int64_t hi) {
      Odometer ro(l.rdims.data(), l.rstrides.data(), nr);
      for (int64_t u = lo; u < hi; ++u) {
        const int64_t o = u / splits, s = u % splits;
        const S* base = in + OffsetOf(o, l.kdims.data(), l.kstrides.data(), l.kdims.size());
        int64_t t = l.count * s / splits;
        const int64_t t_end = l.count * (s + 1) / splits;
        Acc acc = Red::Init();
        ro.Seek(t / run);
        for (int64_t i = t % run; t < t_end; i = 0, ro.Next()) {
          const int64_t len = std::min(run - i, t_end - t);
          acc = Red::Merge(acc, Red::Contiguous(base + ro.offset() + i, len));
          t += len;
        }
        store(o, s, acc);
      }
    });
  } else {
    // Output row r holds w contiguous outputs; each reduced combination adds
    // a contiguous input row of w elements to it.
    const size_t nk = l.kdims.empty() ? 0 : l.kdims.size() - 1;
    ParallelRange(rows * blocks * splits, total, threads, [&](int64_t lo, int64_t hi) {
      Acc acc[kLanes];
      Odometer rc(l.rdims.data(), l.rstrides.data(), l.rdims.size());
      for (int64_t u = lo; u < hi; ++u) {
        const int64_t s = u % splits, b = (u / splits) % blocks, r = u / splits / blocks;
        const int64_t i0 = b * kLanes, lanes = std::min(kLanes, w - i0);
        const S* base = in + OffsetOf(r, l.kdims.data(), l.kstrides.data(), nk) + i0;
        std::fill(acc, acc + lanes, Red::Init());
        const int64_t t0 = l.count * s / splits, t1 = l.count * (s + 1) / splits;
        rc.Seek(t0);
        for (int64_t t = t0; t < t1; ++t, rc.Next()) {
          const S* row = base + rc.offset();
          for (int64_t i = 0; i < lanes; ++i) acc[i] = Red::Merge(acc[i], Red::Load(row[i]));
        }
        for (int64_t i = 0; i < lanes; ++i) store(r * w + i0 + i, s, acc[i]);
      }
    });
  }

  if (splits > 1) {
    for (int64_t o = 0; o < l.n_out; ++o) {
      Acc a = partial[o * splits];
      for (int64_t s = 1; s < splits; ++s) a = Red::Merge(a, partial[o * splits + s]);
      out[o] = Red::Finish(a, l.count);
    }
  }
}

// ReduceSum / ReduceMean / ReduceMax / ReduceMin over any numeric dtype.
template <R K>
class ReduceKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return attrs_.Read(info, label_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), axes_in = ctx.Input(1), y;
    const std::vector<int64_t> shape = x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    std::vector<int64_t> axes = attrs_.axes;
    if (axes_in.present()) {
      if (axes_in.rank() > 1 || !ReadInts(axes_in, &axes)) {
        return sdk::InvalidArgument(label_ + ": input 'axes' must be a 1-D int64 tensor; found " +
                                    sdk::DTypeName(axes_in.dtype()) + ShapeStr(axes_in.shape()));
      }
    }
    semantics::ReduceGeometry g;
    LOOM_SDK_RETURN_IF_ERROR(semantics::ResolveReduceAxes(label_, shape, axes, attrs_, &g));
    const std::vector<bool>& reduce = g.reduce;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), g.out_shape, &y));
    const int threads = ctx.num_threads();
    return DispatchNumeric(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      using Red = Reducer<K, S>;
      const S* in = x.data<S>();
      S* out = y.data<S>();
      if (x.num_elements() == 0) {
        // Every output (if any) reduces an empty set: the identity.
        int64_t count = 1;
        for (int64_t d = 0; d < rank; ++d) count *= reduce[d] ? shape[d] : 1;
        std::fill(out, out + y.num_elements(), Red::Finish(Red::Init(), count));
        return Status::Ok();
      }
      RunReduce<K, S>(in, out, MakeLayout(shape, reduce), threads);
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  semantics::ReduceAttrs attrs_;
};

}  // namespace

sdk::Status RegisterReductionSumMeanMaxMinKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReduceKernel<R::kSum>>("ReduceSum"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReduceKernel<R::kMean>>("ReduceMean"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReduceKernel<R::kMax>>("ReduceMax"));
  return reg.Kernel<ReduceKernel<R::kMin>>("ReduceMin");
}

}  // namespace cpu
}  // namespace loom
