// CPU kernels of NonZero, TopK, Hardmax and LpNormalization (schemas in
// ops/index_ext.cc). Registered through RegisterIndexExtKernels
// (index_ext.cc). TopK, Hardmax and LpNormalization see their input as
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

// ------------------------------------------------------------------ NonZero

// NonZero over any numeric dtype or bool: int64 [rank, nnz], row-major order.
// A scalar is seen as a 1-element vector (output [1, nnz]).
class NonZeroKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    std::vector<int64_t> shape = x.shape();
    if (shape.empty()) shape.push_back(1);
    const int64_t n = x.num_elements(), rank = static_cast<int64_t>(shape.size());
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      const S* in = x.data<S>();
      std::vector<int64_t> hits;
      for (int64_t i = 0; i < n; ++i) {
        if (Num<S>::Load(in[i]) != typename Num<S>::C(0)) hits.push_back(i);
      }
      const int64_t nnz = static_cast<int64_t>(hits.size());
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT64, {rank, nnz}, &y));
      int64_t* out = y.data<int64_t>();
      for (int64_t j = 0; j < nnz; ++j) {
        int64_t f = hits[j];
        for (int64_t d = rank; d-- > 0;) {
          out[d * nnz + j] = f % shape[d];
          f /= shape[d];
        }
      }
      return Status::Ok();
    };
    if (x.dtype() == LOOM_DTYPE_BOOL) return run(uint8_t{});
    LOOM_CPU_DISPATCH_NUMERIC(x.dtype(), run)
    return UnsupportedDtype(label_, x.dtype());
  }

 private:
  std::string label_;
};

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
    auto run = [&](auto tag) -> Status {
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
    };
    LOOM_CPU_DISPATCH_NUMERIC(x.dtype(), run)
    return UnsupportedDtype(label_, x.dtype());
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
    const std::vector<int64_t> shape = x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "attribute 'axis'"));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), shape, &y));
    const int64_t outer = Product(shape, 0, axis), n = shape[axis], inner = Product(shape, axis + 1, rank);
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      const S* in = x.data<S>();
      S* out = y.data<S>();
      for (int64_t o = 0; o < outer * inner; ++o) {
        const int64_t base = (o / inner) * n * inner + o % inner;
        int64_t bi = 0;
        for (int64_t i = 1; i < n; ++i) {
          if (Num<S>::Load(in[base + i * inner]) > Num<S>::Load(in[base + bi * inner])) bi = i;
        }
        for (int64_t i = 0; i < n; ++i) out[base + i * inner] = Num<S>::Store(C(i == bi ? 1 : 0));
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
    const std::vector<int64_t> shape = x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "attribute 'axis'"));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), shape, &y));
    const int64_t outer = Product(shape, 0, axis), n = shape[axis], inner = Product(shape, axis + 1, rank);
    const bool l1 = p_ == 1;
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      using C = typename Num<S>::C;
      const S* in = x.data<S>();
      S* out = y.data<S>();
      for (int64_t o = 0; o < outer * inner; ++o) {
        const int64_t base = (o / inner) * n * inner + o % inner;
        double norm = 0;
        for (int64_t i = 0; i < n; ++i) {
          const double v = static_cast<double>(Num<S>::Load(in[base + i * inner]));
          norm += l1 ? std::fabs(v) : v * v;
        }
        if (!l1) norm = std::sqrt(norm);
        for (int64_t i = 0; i < n; ++i) {
          const double v = static_cast<double>(Num<S>::Load(in[base + i * inner]));
          out[base + i * inner] = Num<S>::Store(static_cast<C>(v / norm));
        }
      }
      return Status::Ok();
    };
    LOOM_CPU_DISPATCH_FLOAT(x.dtype(), run)
    return UnsupportedDtype(label_, x.dtype());
  }

 private:
  std::string label_;
  int64_t axis_ = -1, p_ = 2;
};

}  // namespace

// Registers the kernels of this file; called by RegisterIndexExtKernels.
Status RegisterIndexExtMiscKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<NonZeroKernel>("NonZero"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<TopKKernel>("TopK"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<HardmaxKernel>("Hardmax"));
  return reg.Kernel<LpNormalizationKernel>("LpNormalization");
}

}  // namespace cpu
}  // namespace loom
