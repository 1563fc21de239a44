// OneHot-11 kernel (ONNX semantics, see ops/tensor_onehot.cc).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

// Element i of a numeric tensor as double (indices, depth); false for a
// non-numeric dtype.
bool NumericAt(const Tensor& t, int64_t i, double* out) {
  auto get = [&](auto tag) -> bool {
    using T = decltype(tag);
    *out = static_cast<double>(Num<T>::Load(t.data<T>()[i]));
    return true;
  };
  LOOM_CPU_DISPATCH_NUMERIC(t.dtype(), get)
  return false;
}

class OneHotKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", -1);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor indices = ctx.Input(0), depth_t = ctx.Input(1), values = ctx.Input(2), y;
    double depth_d = 0;
    if (depth_t.num_elements() != 1 || !NumericAt(depth_t, 0, &depth_d)) {
      return sdk::InvalidArgument(label_ + ": input 'depth' must be a one-element numeric tensor, found " +
                                  std::string(sdk::DTypeName(depth_t.dtype())) + ShapeStr(depth_t.shape()));
    }
    // ONNX: a non-integer depth is cast to an integer (after the range check:
    // NaN, inf or a huge value has no int64).
    if (!(depth_d >= 1) || !(depth_d < 1e12)) {
      return sdk::InvalidArgument(label_ + ": input 'depth' must be a finite number >= 1 and < 1e12; found " +
                                  std::to_string(depth_d));
    }
    const int64_t depth = static_cast<int64_t>(depth_d);
    if (values.rank() != 1 || values.num_elements() != 2) {
      return sdk::InvalidArgument(label_ + ": input 'values' must be 1-D [off_value, on_value], found shape " +
                                  ShapeStr(values.shape()));
    }
    std::vector<int64_t> out = indices.shape();
    const int64_t out_rank = static_cast<int64_t>(out.size()) + 1;
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, out_rank, label_, "axis"));
    const int64_t outer = Product(out, 0, axis), inner = Product(out, axis, out.size());
    out.insert(out.begin() + axis, depth);
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, values.dtype(), out, &y));
    const int64_t n = indices.num_elements();
    // Indices as int64 first (in [-depth, depth-1]; negative count from the
    // end; anything else gives an all-off row).
    std::vector<int64_t> idx(n);
    for (int64_t i = 0; i < n; ++i) {
      double v = 0;
      if (!NumericAt(indices, i, &v)) return UnsupportedDtype(label_, indices.dtype());
      int64_t k = std::isfinite(v) && std::fabs(v) < 1e15 ? static_cast<int64_t>(v) : depth;
      if (k < 0) k += depth;
      idx[i] = k >= 0 && k < depth ? k : -1;
    }
    return DispatchBytes(values.dtype(), label_, [&](auto tag) -> Status {
      using T = decltype(tag);
      const T off = values.data<T>()[0], on = values.data<T>()[1];
      T* dst = y.data<T>();
      ParallelFor(outer, ctx.num_threads(), [&](int64_t o) {
        T* block = dst + o * depth * inner;
        std::fill(block, block + depth * inner, off);
        for (int64_t j = 0; j < inner; ++j) {
          const int64_t k = idx[o * inner + j];
          if (k >= 0) block[k * inner + j] = on;
        }
      }, depth * inner);
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  int64_t axis_ = -1;
};

}  // namespace

Status RegisterTensorOneHotKernels(sdk::Registrar& reg) {
  std::vector<LoomDataType> numeric = AllDTypes();
  numeric.erase(std::remove(numeric.begin(), numeric.end(), LOOM_DTYPE_BOOL), numeric.end());
  return reg.Kernel<OneHotKernel>("OneHot",
                                  {"CPU", "", 0, {{"T1", numeric}, {"T2", numeric}, {"T3", AllDTypes()}}});
}

}  // namespace cpu
}  // namespace loom
