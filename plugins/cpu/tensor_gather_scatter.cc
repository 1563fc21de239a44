// CPU kernels of GatherElements, GatherND, ScatterElements and ScatterND
// (schemas in ops/tensor_gather_scatter.cc). Index values are checked
// before any write, so a bad index gives an error naming the op and the
// input, never a stray access. GatherElements sees the data as
// [outer, n, inner] around its axis.
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

enum class Red { kNone, kAdd, kMul, kMax, kMin };

Status ParseReduction(const std::string& s, const std::string& label, Red* r) {
  if (s == "none") *r = Red::kNone;
  else if (s == "add") *r = Red::kAdd;
  else if (s == "mul") *r = Red::kMul;
  else if (s == "max") *r = Red::kMax;
  else if (s == "min") *r = Red::kMin;
  else return sdk::InvalidArgument(label + ": attribute 'reduction' must be none, add, mul, max or min; found '" + s + "'");
  return Status::Ok();
}

// dst = reduce(dst, src) in S's compute type.
template <typename S>
inline void Combine(Red r, S* dst, S src) {
  using C = typename Num<S>::C;
  const C a = Num<S>::Load(*dst), b = Num<S>::Load(src);
  switch (r) {
    case Red::kNone: *dst = src; return;
    case Red::kAdd: *dst = Num<S>::Store(static_cast<C>(a + b)); return;
    case Red::kMul: *dst = Num<S>::Store(static_cast<C>(a * b)); return;
    case Red::kMax: *dst = Num<S>::Store(a < b ? b : a); return;
    case Red::kMin: *dst = Num<S>::Store(b < a ? b : a); return;
  }
}

// String elements (views, ElementsIn in tensor_util.h): reduction none only,
// which the kernels check first.
inline void Combine(Red, std::string_view* dst, std::string_view src) { *dst = src; }

// out's first n elements = in's (none when they are the same memory: an
// in-place run).
void CopyElements(const ElementsIn& in, ElementsOut* out, int64_t n) {
  if (n > 0 && out->data() != in.data()) std::memcpy(out->data(), in.data(), static_cast<size_t>(n) * in.esize());
}

// Strings take reduction none only; INVALID_ARGUMENT naming it otherwise.
Status CheckStringReduction(const Tensor& data, Red r, const std::string& label) {
  if (data.dtype() != LOOM_DTYPE_STRING || r == Red::kNone) return Status::Ok();
  return sdk::InvalidArgument(label + ": attribute 'reduction' other than none needs a numeric 'data'; found string");
}

// Calls f(T{}) with a C++ type fit for reduction r on dtype: any same-size
// type moves bytes for none; the numeric types otherwise.
#define LOOM_INDEX_EXT_DISPATCH(red, dtype, F)                                  \
  if ((red) == Red::kNone) {                                                    \
    LOOM_CPU_DISPATCH_BYTES(dtype, F)                                           \
  } else {                                                                      \
    LOOM_CPU_DISPATCH_NUMERIC(dtype, F)                                         \
  }

// Checks and normalizes the index tuples of GatherND/ScatterND: idx holds
// rows of k values, each against dims[0..k). The error names input 'indices'.
Status NormalizeTuples(std::vector<int64_t>* idx, const int64_t* dims, int64_t k, const std::string& label) {
  for (size_t i = 0; i < idx->size(); ++i) {
    int64_t& v = (*idx)[i];
    const int64_t s = dims[i % k];
    if (v < -s || v >= s) {
      return sdk::InvalidArgument(label + ": input 'indices' value " + std::to_string(v) + " at flat position " +
                                  std::to_string(i) + " is out of range for a dim of size " + std::to_string(s) +
                                  " (expected [" + std::to_string(-s) + ", " + std::to_string(s - 1) + "])");
    }
    if (v < 0) v += s;
  }
  return Status::Ok();
}

// ------------------------------------------------------------------ GatherND

class GatherNDKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    batch_dims_ = info.IntOr("batch_dims", 0);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor data = ctx.Input(0), indices = ctx.Input(1), y;
    const std::vector<int64_t> ds = data.shape(), is = indices.shape();
    const int64_t r = static_cast<int64_t>(ds.size()), q = static_cast<int64_t>(is.size()), b = batch_dims_;
    if (r < 1 || q < 1) {
      return sdk::InvalidArgument(label_ + ": inputs 'data' and 'indices' must have rank >= 1; found " +
                                  ShapeStr(ds) + " and " + ShapeStr(is));
    }
    if (b < 0 || b >= std::min(r, q)) {
      return sdk::InvalidArgument(label_ + ": attribute 'batch_dims' " + std::to_string(b) +
                                  " must be in [0, min(rank(data), rank(indices)) - 1]");
    }
    const int64_t k = is.back();
    if (k < 1 || k > r - b) {  // b < r: no overflow
      return sdk::InvalidArgument(label_ + ": the last dim of input 'indices' (" + std::to_string(k) +
                                  ") must be in [1, rank(data) - batch_dims] = [1, " + std::to_string(r - b) + "]");
    }
    for (int64_t d = 0; d < b; ++d) {
      if (ds[d] != is[d]) {
        return sdk::InvalidArgument(label_ + ": batch dim " + std::to_string(d) + " differs: 'data' " +
                                    ShapeStr(ds) + ", 'indices' " + ShapeStr(is));
      }
    }
    std::vector<int64_t> idx;
    if (!ReadInts(indices, &idx)) {
      return sdk::InvalidArgument(label_ + ": input 'indices' must be int64, found " + sdk::DTypeName(indices.dtype()));
    }
    LOOM_SDK_RETURN_IF_ERROR(NormalizeTuples(&idx, ds.data() + b, k, label_));
    std::vector<int64_t> out_shape(is.begin(), is.end() - 1);
    out_shape.insert(out_shape.end(), ds.begin() + b + k, ds.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, data.dtype(), out_shape, &y));
    const std::vector<int64_t> st = RowMajorStrides(ds);
    const int64_t slice = Product(ds, b + k, r);
    const int64_t batches = Product(ds, 0, b), per_batch = Product(is, b, q - 1);
    const int64_t batch_stride = Product(ds, b, r);
    const ElementsIn de(data);  // strings as views (tensor_util.h)
    ElementsOut ye(y);
    const size_t es = de.esize();
    const char* in = de.data<char>();
    char* out = ye.data<char>();
    for (int64_t t = 0; t < batches * per_batch; ++t) {
      int64_t off = (t / per_batch) * batch_stride;
      for (int64_t j = 0; j < k; ++j) off += idx[t * k + j] * st[b + j];
      std::memcpy(out + t * slice * es, in + off * es, slice * es);
    }
    return ye.Finish();
  }

 private:
  std::string label_;
  int64_t batch_dims_ = 0;
};

// ----------------------------------------------------------- ScatterElements

class ScatterElementsKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 0);
    return ParseReduction(info.StringOr("reduction", "none"), label_, &red_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor data = ctx.Input(0), indices = ctx.Input(1), updates = ctx.Input(2), y;
    const std::vector<int64_t> ds = data.shape(), is = indices.shape();
    const int64_t rank = static_cast<int64_t>(ds.size());
    if (rank == 0) return sdk::InvalidArgument(label_ + ": input 'data' must have rank >= 1, found a scalar");
    if (is.size() != ds.size()) {
      return sdk::InvalidArgument(label_ + ": input 'indices' must have the rank of 'data' (" + ShapeStr(ds) +
                                  "), found shape " + ShapeStr(is));
    }
    if (updates.shape() != is || updates.dtype() != data.dtype()) {
      return sdk::InvalidArgument(label_ + ": input 'updates' must be " + sdk::DTypeName(data.dtype()) +
                                  ShapeStr(is) + " (data's dtype, indices' shape); found " +
                                  sdk::DTypeName(updates.dtype()) + ShapeStr(updates.shape()));
    }
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "attribute 'axis'"));
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && is[d] > ds[d]) {
        return sdk::InvalidArgument(label_ + ": input 'indices' shape " + ShapeStr(is) + " exceeds 'data' shape " +
                                    ShapeStr(ds) + " on dim " + std::to_string(d));
      }
    }
    std::vector<int64_t> idx;
    if (!ReadInts(indices, &idx)) {
      return sdk::InvalidArgument(label_ + ": input 'indices' must be int32 or int64, found " +
                                  sdk::DTypeName(indices.dtype()));
    }
    const int64_t n_axis = ds[axis];
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < -n_axis || idx[i] >= n_axis) {
        return sdk::InvalidArgument(label_ + ": input 'indices' value " + std::to_string(idx[i]) +
                                    " at flat position " + std::to_string(i) + " is out of range for axis " +
                                    std::to_string(axis) + " of size " + std::to_string(n_axis));
      }
      if (idx[i] < 0) idx[i] += n_axis;
    }
    LOOM_SDK_RETURN_IF_ERROR(CheckStringReduction(data, red_, label_));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, data.dtype(), ds, &y));
    // Strings as views (tensor_util.h): the output starts as data's views.
    const ElementsIn de(data), ue(updates);
    ElementsOut ye(y);
    CopyElements(de, &ye, data.num_elements());
    const std::vector<int64_t> dstride = RowMajorStrides(ds);
    const Red red = red_;
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      const S* up = ue.data<S>();
      S* out = static_cast<S*>(ye.data());
      // Odometer over indices' shape; `base` is the data offset without the axis term.
      std::vector<int64_t> c(rank, 0);
      int64_t base = 0;
      for (size_t i = 0; i < idx.size(); ++i) {
        Combine(red, out + base + idx[i] * dstride[axis], up[i]);
        for (int64_t d = rank; d-- > 0;) {
          if (d != axis) base += dstride[d];
          if (++c[d] < is[d]) break;
          if (d != axis) base -= c[d] * dstride[d];
          c[d] = 0;
        }
      }
      return Status::Ok();
    };
    if (data.dtype() == LOOM_DTYPE_STRING) {
      LOOM_SDK_RETURN_IF_ERROR(run(std::string_view{}));
      return ye.Finish();
    }
    LOOM_INDEX_EXT_DISPATCH(red, data.dtype(), run)
    return UnsupportedDtype(label_ + " (reduction " + ReductionName() + ")", data.dtype());
  }

 private:
  std::string ReductionName() const {
    const char* n[] = {"none", "add", "mul", "max", "min"};
    return n[static_cast<int>(red_)];
  }
  std::string label_;
  int64_t axis_ = 0;
  Red red_ = Red::kNone;
};

// ---------------------------------------------------------------- ScatterND

class ScatterNDKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return ParseReduction(info.StringOr("reduction", "none"), label_, &red_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor data = ctx.Input(0), indices = ctx.Input(1), updates = ctx.Input(2), y;
    const std::vector<int64_t> ds = data.shape(), is = indices.shape();
    const int64_t r = static_cast<int64_t>(ds.size()), q = static_cast<int64_t>(is.size());
    if (r < 1 || q < 1) {
      return sdk::InvalidArgument(label_ + ": inputs 'data' and 'indices' must have rank >= 1; found " +
                                  ShapeStr(ds) + " and " + ShapeStr(is));
    }
    const int64_t k = is.back();
    if (k < 1 || k > r) {
      return sdk::InvalidArgument(label_ + ": the last dim of input 'indices' (" + std::to_string(k) +
                                  ") must be in [1, rank(data) = " + std::to_string(r) + "]");
    }
    std::vector<int64_t> want(is.begin(), is.end() - 1);
    want.insert(want.end(), ds.begin() + k, ds.end());
    if (updates.shape() != want || updates.dtype() != data.dtype()) {
      return sdk::InvalidArgument(label_ + ": input 'updates' must be " + sdk::DTypeName(data.dtype()) +
                                  ShapeStr(want) + "; found " + sdk::DTypeName(updates.dtype()) +
                                  ShapeStr(updates.shape()));
    }
    std::vector<int64_t> idx;
    if (!ReadInts(indices, &idx)) {
      return sdk::InvalidArgument(label_ + ": input 'indices' must be int64, found " + sdk::DTypeName(indices.dtype()));
    }
    LOOM_SDK_RETURN_IF_ERROR(NormalizeTuples(&idx, ds.data(), k, label_));
    LOOM_SDK_RETURN_IF_ERROR(CheckStringReduction(data, red_, label_));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, data.dtype(), ds, &y));
    const ElementsIn de(data), ue(updates);  // strings as views (tensor_util.h)
    ElementsOut ye(y);
    CopyElements(de, &ye, data.num_elements());
    const std::vector<int64_t> st = RowMajorStrides(ds);
    const int64_t slice = Product(ds, k, r), tuples = Product(is, 0, q - 1);
    const Red red = red_;
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      const S* up = ue.data<S>();
      S* out = static_cast<S*>(ye.data());
      for (int64_t t = 0; t < tuples; ++t) {
        int64_t off = 0;
        for (int64_t j = 0; j < k; ++j) off += idx[t * k + j] * st[j];
        for (int64_t e = 0; e < slice; ++e) Combine(red, out + off + e, up[t * slice + e]);
      }
      return Status::Ok();
    };
    if (data.dtype() == LOOM_DTYPE_STRING) {
      LOOM_SDK_RETURN_IF_ERROR(run(std::string_view{}));
      return ye.Finish();
    }
    LOOM_INDEX_EXT_DISPATCH(red, data.dtype(), run)
    return UnsupportedDtype(label_, data.dtype());
  }

 private:
  std::string label_;
  Red red_ = Red::kNone;
};

// ------------------------------------------------------------ GatherElements

// GatherElements over any dtype (moves bytes; strings as views of their
// elements, ElementsIn/ElementsOut in tensor_util.h), int32 or int64 indices.
class GatherElementsKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 0);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor data = ctx.Input(0), indices = ctx.Input(1), y;
    const std::vector<int64_t> ds = data.shape(), is = indices.shape();
    const int64_t rank = static_cast<int64_t>(ds.size());
    if (rank == 0) return sdk::InvalidArgument(label_ + ": input 'data' must have rank >= 1, found a scalar");
    if (is.size() != ds.size()) {
      return sdk::InvalidArgument(label_ + ": input 'indices' must have the rank of 'data' (" + ShapeStr(ds) +
                                  "), found shape " + ShapeStr(is));
    }
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "attribute 'axis'"));
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && is[d] > ds[d]) {
        return sdk::InvalidArgument(label_ + ": input 'indices' shape " + ShapeStr(is) + " exceeds 'data' shape " +
                                    ShapeStr(ds) + " on dim " + std::to_string(d));
      }
    }
    std::vector<int64_t> idx;
    if (!ReadInts(indices, &idx)) {
      return sdk::InvalidArgument(label_ + ": input 'indices' must be int32 or int64, found " +
                                  sdk::DTypeName(indices.dtype()));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, data.dtype(), is, &y));
    const std::vector<int64_t> dstride = RowMajorStrides(ds);
    const int64_t n_axis = ds[axis];
    const ElementsIn de(data);
    ElementsOut ye(y);
    auto run = [&](auto tag) -> Status {
      using S = decltype(tag);
      const S* in = de.data<S>();
      S* out = ye.data<S>();
      // Odometer over the indices' shape; `base` is the data offset of the
      // current coordinates without the axis term.
      std::vector<int64_t> c(rank, 0);
      int64_t base = 0;
      for (int64_t i = 0; i < static_cast<int64_t>(idx.size()); ++i) {
        int64_t k = idx[i];
        if (k < -n_axis || k >= n_axis) {
          return sdk::InvalidArgument(label_ + ": input 'indices' value " + std::to_string(k) + " at flat position " +
                                      std::to_string(i) + " is out of range for axis " + std::to_string(axis) +
                                      " of size " + std::to_string(n_axis) + " (expected [" +
                                      std::to_string(-n_axis) + ", " + std::to_string(n_axis - 1) + "])");
        }
        if (k < 0) k += n_axis;
        out[i] = in[base + k * dstride[axis]];
        for (int64_t d = rank; d-- > 0;) {
          if (d != axis) base += dstride[d];
          if (++c[d] < is[d]) break;
          if (d != axis) base -= c[d] * dstride[d];
          c[d] = 0;
        }
      }
      return ye.Finish();
    };
    return DispatchElements(data.dtype(), label_, run);
  }

 private:
  std::string label_;
  int64_t axis_ = 0;
};

}  // namespace

Status RegisterTensorGatherScatterKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GatherElementsKernel>("GatherElements"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GatherNDKernel>("GatherND"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ScatterElementsKernel>("ScatterElements"));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ScatterElementsKernel>("Scatter"));  // Scatter-9: no reduction attribute
  return reg.Kernel<ScatterNDKernel>("ScatterND");
}

}  // namespace cpu
}  // namespace loom
