// Unique-11 kernel (ops/tensor_unique.cc): slices (single elements without
// an axis) sorted by a stable index sort, equal neighbours grouped. Strings
// compare by their bytes (UTF-8: by code point, as numpy's sort does), moved
// as views (tensor_util.h's ElementsIn / ElementsOut).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

class UniqueKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    has_axis_ = info.Has("axis");
    axis_ = info.IntOr("axis", 0);
    sorted_ = info.IntOr("sorted", 1) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0);
    std::vector<int64_t> xs = x.shape();
    int64_t outer = 1, n = x.num_elements(), inner = 1, axis = 0;
    if (has_axis_) {
      axis = axis_;
      if (!NormalizeAxis(&axis, static_cast<int64_t>(xs.size()))) {
        return sdk::InvalidArgument(label_ + ": axis " + std::to_string(axis_) + " is out of range for X " + ShapeStr(xs));
      }
      outer = 1;
      for (int64_t i = 0; i < axis; ++i) outer *= xs[i];
      n = xs[axis];
      for (size_t i = axis + 1; i < xs.size(); ++i) inner *= xs[i];
    }
    auto run = [&](auto tag) -> Status {
      using T = decltype(tag);
      const ElementsIn in(x);
      const T* v = in.data<T>();
      // Slice k's j-th element (j over outer x inner).
      auto elem = [&](int64_t k, int64_t j) {
        const T& e = v[((j / inner) * n + k) * inner + j % inner];
        if constexpr (std::is_same_v<T, std::string_view>) {
          return e;
        } else {
          return static_cast<typename Num<T>::C>(Num<T>::Load(e));
        }
      };
      const int64_t width = outer * inner;
      auto less = [&](int64_t a, int64_t b) {
        for (int64_t j = 0; j < width; ++j) {
          const auto ea = elem(a, j), eb = elem(b, j);
          if (ea < eb) return true;
          if (eb < ea) return false;
        }
        return false;
      };
      std::vector<int64_t> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), less);
      // Groups of equal slices, ascending; each led by its first occurrence.
      std::vector<int64_t> group_of(static_cast<size_t>(n)), first, count;
      for (int64_t i = 0; i < n; ++i) {
        if (i == 0 || less(order[i - 1], order[i])) {
          first.push_back(order[i]);
          count.push_back(0);
        }
        group_of[order[i]] = static_cast<int64_t>(first.size()) - 1;
        ++count.back();
      }
      // Y's order: ascending, or by first occurrence.
      const int64_t u = static_cast<int64_t>(first.size());
      std::vector<int64_t> rank(static_cast<size_t>(u));  // group -> position in Y
      std::vector<int64_t> by_position(static_cast<size_t>(u));
      std::iota(by_position.begin(), by_position.end(), 0);
      if (!sorted_) std::sort(by_position.begin(), by_position.end(), [&](int64_t a, int64_t b) { return first[a] < first[b]; });
      for (int64_t p = 0; p < u; ++p) rank[by_position[p]] = p;
      std::vector<int64_t> ys = has_axis_ ? xs : std::vector<int64_t>{n};
      if (has_axis_) ys[axis] = u;
      Tensor y, indices, inverse, counts;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), has_axis_ ? ys : std::vector<int64_t>{u}, &y));
      ElementsOut y_elements(y);
      T* out = y_elements.data<T>();
      for (int64_t p = 0; p < u; ++p) {
        const int64_t k = first[by_position[p]];
        for (int64_t o = 0; o < outer; ++o) {
          std::memcpy(out + (o * u + p) * inner, v + (o * n + k) * inner, sizeof(T) * inner);
        }
      }
      LOOM_SDK_RETURN_IF_ERROR(y_elements.Finish());
      if (ctx.OutputRequested(1)) {
        LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_INT64, {u}, &indices));
        for (int64_t p = 0; p < u; ++p) indices.data<int64_t>()[p] = first[by_position[p]];
      }
      if (ctx.OutputRequested(2)) {
        LOOM_SDK_RETURN_IF_ERROR(ctx.Output(2, LOOM_DTYPE_INT64, {n}, &inverse));
        for (int64_t k = 0; k < n; ++k) inverse.data<int64_t>()[k] = rank[group_of[k]];
      }
      if (ctx.OutputRequested(3)) {
        LOOM_SDK_RETURN_IF_ERROR(ctx.Output(3, LOOM_DTYPE_INT64, {u}, &counts));
        for (int64_t p = 0; p < u; ++p) counts.data<int64_t>()[p] = count[by_position[p]];
      }
      return Status::Ok();
    };
    if (x.dtype() == LOOM_DTYPE_BOOL) return run(uint8_t{});
    if (x.dtype() == LOOM_DTYPE_STRING) return run(std::string_view{});
    LOOM_CPU_DISPATCH_NUMERIC(x.dtype(), run)
    return UnsupportedDtype(label_, x.dtype());
  }

 private:
  std::string label_;
  bool has_axis_ = false, sorted_ = true;
  int64_t axis_ = 0;
};

}  // namespace

Status RegisterTensorUniqueKernels(sdk::Registrar& reg) { return reg.Kernel<UniqueKernel>("Unique", {"CPU", "", 0, {}}); }

}  // namespace cpu
}  // namespace loom
