// ConstantOfShape, Size, Expand, Tile, Range, Trilu and EyeLike kernels (ONNX
// semantics, see ops/tensor_expand_tile_range.cc). All but Range and
// EyeLike's fill only move bytes, so they dispatch on the element size and
// take every dtype (Expand and Tile strings too, as views of their elements:
// ElementsIn/ElementsOut in tensor_util.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ops/semantics/data_movement.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {

namespace {

// ---- ConstantOfShape-20 ------------------------------------------------------
class ConstantOfShapeKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    sdk::Tensor v;
    if (info.Has("value")) {
      LOOM_SDK_RETURN_IF_ERROR(info.GetTensor("value", &v));
      if (v.num_elements() != 1) {
        return sdk::InvalidArgument(label_ + ": attribute 'value' must have exactly one element, found " +
                                    std::to_string(v.num_elements()));
      }
      dtype_ = v.dtype();
      const size_t es = sdk::DTypeSize(dtype_);
      if (es == 0) return UnsupportedDtype(label_, dtype_);
      value_.assign(static_cast<const char*>(v.raw_data()), static_cast<const char*>(v.raw_data()) + es);
    } else {
      value_.assign(sizeof(float), 0);  // float32 0
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    std::vector<int64_t> dims;
    bool given = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 0, label_, "input", true, &dims, &given));
    for (int64_t d : dims) {
      if (d < 0) return sdk::InvalidArgument(label_ + ": input 'input' must hold dims >= 0, found " + ShapeStr(dims));
    }
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dtype_, dims, &y));
    const int64_t n = y.num_elements();
    return DispatchBytes(dtype_, label_, [&](auto tag) -> Status {
      using T = decltype(tag);
      T v;
      std::memcpy(&v, value_.data(), sizeof(T));
      T* out = y.data<T>();
      ParallelRange(n, n, ctx.num_threads(), [&](int64_t b, int64_t e) { std::fill(out + b, out + e, v); });
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  LoomDataType dtype_ = LOOM_DTYPE_FLOAT;
  std::vector<char> value_;  // one element's bytes
};

// ---- Size-13 -------------------------------------------------------------------
class SizeKernel {
 public:
  Status Init(const KernelInfo&) { return Status::Ok(); }
  Status Compute(KernelContext& ctx) {
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT64, std::vector<int64_t>{}, &y));
    *y.data<int64_t>() = ctx.Input(0).num_elements();
    return Status::Ok();
  }
};

// ---- Expand-13 -----------------------------------------------------------------
class ExpandKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    std::vector<int64_t> shape, out;
    bool given = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 1, label_, "shape", true, &shape, &given));
    const std::vector<int64_t> in = x.shape();
    LOOM_SDK_RETURN_IF_ERROR(semantics::ExpandShape(label_, in, shape, &out));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    if (y.num_elements() == 0) return Status::Ok();
    // A broadcast is a strided read with stride 0 on the broadcast dims.
    const ElementsIn xe(x);
    ElementsOut ye(y);
    StridedCopy(xe.data(), xe.esize(), 0, BroadcastStrides(in, out), out, ye.data(), ctx.num_threads());
    return ye.Finish();
  }
};

// ---- Tile-13 -------------------------------------------------------------------
class TileKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    std::vector<int64_t> reps;
    bool given = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 1, label_, "repeats", true, &reps, &given));
    const std::vector<int64_t> in = x.shape();
    if (reps.size() != in.size()) {
      return sdk::InvalidArgument(label_ + ": input 'repeats' must have one entry per input dim (" +
                                  std::to_string(in.size()) + "), found " + std::to_string(reps.size()));
    }
    std::vector<int64_t> out(in.size()), view, strides;
    const std::vector<int64_t> in_strides = RowMajorStrides(in);
    for (size_t i = 0; i < in.size(); ++i) {
      if (reps[i] < 0) {
        return sdk::InvalidArgument(label_ + ": input 'repeats' must be >= 0, found " + ShapeStr(reps));
      }
      if (__builtin_mul_overflow(in[i], reps[i], &out[i])) {
        return sdk::InvalidArgument(label_ + ": dim " + std::to_string(i) + " of input shape " + ShapeStr(in) +
                                    " times repeats " + std::to_string(reps[i]) + " overflows int64");
      }
      // Output dim i = [reps[i], in[i]] row-major: the copy index reads
      // input index j of the inner part whatever the repeat.
      view.push_back(reps[i]);
      strides.push_back(0);
      view.push_back(in[i]);
      strides.push_back(in_strides[i]);
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    if (y.num_elements() == 0) return Status::Ok();
    const ElementsIn xe(x);
    ElementsOut ye(y);
    StridedCopy(xe.data(), xe.esize(), 0, strides, view, ye.data(), ctx.num_threads());
    return ye.Finish();
  }
};

// ---- Range-11 ------------------------------------------------------------------
class RangeKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    static const char* kNames[] = {"start", "limit", "delta"};
    for (size_t i = 0; i < 3; ++i) {
      Tensor t = ctx.Input(i);
      if (t.num_elements() != 1 || t.rank() > 1) {
        return sdk::InvalidArgument(label_ + ": input '" + kNames[i] + "' must be a scalar, found shape " +
                                    ShapeStr(t.shape()));
      }
      if (t.dtype() != ctx.Input(0).dtype()) {
        return sdk::InvalidArgument(label_ + ": input '" + kNames[i] + "' must have start's dtype " +
                                    sdk::DTypeName(ctx.Input(0).dtype()) + ", found " + sdk::DTypeName(t.dtype()));
      }
    }
    const LoomDataType dt = ctx.Input(0).dtype();
    auto run = [&](auto tag) -> Status {
      using T = decltype(tag);
      const T start = *ctx.Input(0).data<T>(), limit = *ctx.Input(1).data<T>(), delta = *ctx.Input(2).data<T>();
      if (delta == T(0)) return sdk::InvalidArgument(label_ + ": input 'delta' must be nonzero, found 0");
      // ONNX: max(ceil((limit - start) / delta), 0), computed in double.
      const double count = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                                     static_cast<double>(delta));
      if (std::isnan(count) || count > 1e15) {
        return sdk::InvalidArgument(label_ + ": the range from start, limit and delta has no reasonable element "
                                    "count (found " + std::to_string(count) + ")");
      }
      const int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
      Tensor y;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, std::vector<int64_t>{n}, &y));
      T* out = y.data<T>();
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(start + static_cast<T>(i) * delta);
      return Status::Ok();
    };
    switch (dt) {
      case LOOM_DTYPE_FLOAT: return run(float{});
      case LOOM_DTYPE_DOUBLE: return run(double{});
      case LOOM_DTYPE_INT16: return run(int16_t{});
      case LOOM_DTYPE_INT32: return run(int32_t{});
      case LOOM_DTYPE_INT64: return run(int64_t{});
      default: return UnsupportedDtype(label_, dt);
    }
  }
};

// ---- Trilu-14 ------------------------------------------------------------------
class TriluKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    upper_ = info.IntOr("upper", 1) != 0;
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    if (x.rank() < 2) {
      return sdk::InvalidArgument(label_ + ": input 'input' must have rank >= 2, found shape " + ShapeStr(x.shape()));
    }
    int64_t k = 0;
    Tensor kt = ctx.Input(1);
    if (kt.present()) {
      if (kt.dtype() != LOOM_DTYPE_INT64 || kt.num_elements() != 1) {
        return sdk::InvalidArgument(label_ + ": input 'k' must be an int64 scalar, found " +
                                    sdk::DTypeName(kt.dtype()) + ShapeStr(kt.shape()));
      }
      k = *kt.data<int64_t>();
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    const int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
    const int64_t mats = rows * cols == 0 ? 0 : x.num_elements() / (rows * cols);
    const size_t es = sdk::DTypeSize(x.dtype());
    const char* in = static_cast<const char*>(x.raw_data());
    char* out = static_cast<char*>(y.raw_data());
    // Per row, the kept columns are one contiguous range: j >= i + k (upper)
    // or j <= i + k (lower); the rest is zero bytes (0 in every dtype).
    ParallelFor(mats * rows, ctx.num_threads(), [&](int64_t r) {
      const int64_t i = r % rows;
      int64_t lo = 0, hi = cols;  // kept [lo, hi)
      if (upper_) lo = std::min(cols, std::max<int64_t>(0, i + k));
      else hi = std::max<int64_t>(0, std::min(cols, i + k + 1));
      if (hi < lo) hi = lo;
      const size_t base = static_cast<size_t>(r * cols) * es;
      std::memset(out + base, 0, static_cast<size_t>(lo) * es);
      if (out != in) std::memcpy(out + base + lo * es, in + base + lo * es, static_cast<size_t>(hi - lo) * es);
      std::memset(out + base + hi * es, 0, static_cast<size_t>(cols - hi) * es);
    }, cols);
    return Status::Ok();
  }

 private:
  std::string label_;
  bool upper_ = true;
};

// ---- EyeLike-9 -----------------------------------------------------------------
class EyeLikeKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    k_ = info.IntOr("k", 0);
    dtype_ = static_cast<LoomDataType>(info.IntOr("dtype", 0));
    if (dtype_ != LOOM_DTYPE_UNDEFINED && sdk::DTypeSize(dtype_) == 0) {
      return sdk::InvalidArgument(label_ + ": attribute 'dtype' = " + std::to_string(dtype_) +
                                  " is not a dtype Loom supports");
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    if (x.rank() != 2) {
      return sdk::InvalidArgument(label_ + ": input 'input' must be 2-D, found shape " + ShapeStr(x.shape()));
    }
    const LoomDataType dt = dtype_ != LOOM_DTYPE_UNDEFINED ? dtype_ : x.dtype();
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, x.shape(), &y));
    const int64_t rows = x.dim(0), cols = x.dim(1);
    if (y.num_elements() == 0) return Status::Ok();  // no buffer: memset(nullptr, ...) is undefined
    std::memset(y.raw_data(), 0, static_cast<size_t>(y.num_elements()) * sdk::DTypeSize(dt));
    return DispatchNumericOrBool<bool>(dt, label_, [&](auto tag) -> Status {
      using T = decltype(tag);
      T* out = y.data<T>();
      for (int64_t i = std::max<int64_t>(0, -k_); i < rows && i + k_ < cols; ++i) out[i * cols + i + k_] = Num<T>::Store(1);
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  int64_t k_ = 0;
  LoomDataType dtype_ = LOOM_DTYPE_UNDEFINED;
};

}  // namespace

sdk::Status RegisterTensorExpandTileRangeKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllDTypes();
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConstantOfShapeKernel>(
      "ConstantOfShape", {"CPU", "", 0, {{"T1", {LOOM_DTYPE_INT64}}, {"T2", all}}}));
  const std::vector<LoomDataType> with_string = TensorDTypes();  // whole elements moved: strings too
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SizeKernel>("Size", {"CPU", "", 0, {{"T", with_string}, {"T1", {LOOM_DTYPE_INT64}}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ExpandKernel>("Expand", {"CPU", "", 0, {{"T", with_string}}}));
  LOOM_SDK_RETURN_IF_ERROR(
      reg.Kernel<TileKernel>("Tile", {"CPU", "", 0, {{"T", with_string}, {"T1", {LOOM_DTYPE_INT64}}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<RangeKernel>(
      "Range", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_INT16, LOOM_DTYPE_INT32,
                                      LOOM_DTYPE_INT64}}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<TriluKernel>("Trilu", {"CPU", "", 0, {{"T", all}}}));
  return reg.Kernel<EyeLikeKernel>("EyeLike", {"CPU", "", 0, {{"T1", all}, {"T2", all}}});
}

}  // namespace cpu
}  // namespace loom
