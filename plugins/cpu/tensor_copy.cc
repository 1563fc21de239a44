// Tensor kernels that move data: Concat, Split, Slice, Transpose, Gather.
// ONNX semantics (the opsets are in ops/tensor.cc). They work on bytes, so
// every dtype takes the same path; contiguous runs are memcpy'd, and large
// copies go parallel with OpenMP.
#include <cstdint>
#include <cstring>

#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

size_t ElementSize(const Tensor& t) { return sdk::DTypeSize(t.dtype()); }

// Concat-13: inputs agree in rank and in every dim but `axis`. Each input is
// `outer` rows of its own width; an output row is the inputs' rows side by
// side.
class ConcatKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 0);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    const size_t count = ctx.num_inputs();
    Tensor first = ctx.Input(0), y;
    std::vector<int64_t> out = first.shape();
    const int64_t rank = static_cast<int64_t>(out.size());
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "axis"));
    for (size_t i = 1; i < count; ++i) {
      const std::vector<int64_t> s = ctx.Input(i).shape();
      bool same = s.size() == out.size();
      for (int64_t d = 0; same && d < rank; ++d) same = d == axis || s[d] == out[d];
      if (!same) {
        return sdk::InvalidArgument(label_ + ": input " + std::to_string(i) + " has shape " + ShapeStr(s) +
                                    "; expected rank " + std::to_string(rank) + " and the dims of input 0 " +
                                    ShapeStr(first.shape()) + " except on axis " + std::to_string(axis));
      }
      out[axis] += s[axis];
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, first.dtype(), out, &y));
    const size_t esize = ElementSize(first);
    const int64_t outer = Product(out, 0, axis);
    std::vector<const char*> src(count);
    std::vector<int64_t> width(count);  // bytes per row of each input
    int64_t out_width = 0;
    for (size_t i = 0; i < count; ++i) {
      Tensor t = ctx.Input(i);
      src[i] = static_cast<const char*>(t.raw_data());
      width[i] = Product(t.shape(), axis, t.rank()) * static_cast<int64_t>(esize);
      out_width += width[i];
    }
    char* dst = static_cast<char*>(y.raw_data());
    if (outer * out_width == 0) return Status::Ok();
#pragma omp parallel for if (outer * out_width > kParallelBytes && outer > 1) num_threads(ctx.num_threads())
    for (int64_t o = 0; o < outer; ++o) {
      char* row = dst + o * out_width;
      for (size_t i = 0; i < count; ++i) {
        if (width[i] == 0) continue;  // a zero-size input (its data pointer is null)
        std::memcpy(row, src[i] + o * width[i], static_cast<size_t>(width[i]));
        row += width[i];
      }
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  int64_t axis_ = 0;
};

// Split-18/13/11: sizes from the `split` input, else the opset-2..11 `split`
// attribute, else equal parts (ceil(dim / n) each, the last one smaller).
class SplitKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 0);
    attr_split_ = info.IntsOr("split", {});
    num_outputs_ = info.IntOr("num_outputs", -1);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0);
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size());
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "axis"));
    const int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
    std::vector<int64_t> sizes;
    bool given = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 1, label_, "split", true, &sizes, &given));
    if (!given) sizes = attr_split_;
    if (sizes.empty()) {  // an empty split also means equal parts (as in ONNX Runtime)
      const int64_t n = num_outputs_ >= 0 ? num_outputs_ : n_out;
      if (n != n_out) {
        return sdk::InvalidArgument(label_ + ": attribute num_outputs is " + std::to_string(n) + " but the op has " +
                                    std::to_string(n_out) + " outputs");
      }
      const int64_t chunk = (in[axis] + n - 1) / n;
      for (int64_t i = 0; i < n; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, in[axis] - i * chunk)));
    }
    int64_t sum = 0;
    bool negative = false;
    for (int64_t s : sizes) {
      sum += s;
      negative = negative || s < 0;
    }
    if (static_cast<int64_t>(sizes.size()) != n_out || sum != in[axis] || negative) {
      return sdk::InvalidArgument(label_ + ": split " + ShapeStr(sizes) + " must be " + std::to_string(n_out) +
                                  " non-negative sizes summing to dim " + std::to_string(in[axis]) + " of axis " +
                                  std::to_string(axis) + " of input " + ShapeStr(in));
    }
    const int64_t esize = static_cast<int64_t>(ElementSize(x));
    const int64_t outer = Product(in, 0, axis), inner = Product(in, axis + 1, in.size()) * esize;
    const int64_t in_width = in[axis] * inner;
    std::vector<char*> dst(n_out, nullptr);
    std::vector<int64_t> offset(n_out);  // bytes into an input row
    int64_t at = 0;
    for (int64_t i = 0; i < n_out; ++i) {
      offset[i] = at;
      at += sizes[i] * inner;
      if (!ctx.OutputRequested(i)) continue;
      std::vector<int64_t> s = in;
      s[axis] = sizes[i];
      Tensor y;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(i, x.dtype(), s, &y));
      dst[i] = static_cast<char*>(y.raw_data());
    }
    if (outer * in_width == 0) return Status::Ok();
    const char* src = static_cast<const char*>(x.raw_data());
#pragma omp parallel for if (outer * in_width > kParallelBytes && outer > 1) num_threads(ctx.num_threads())
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < n_out; ++i) {
        const int64_t w = sizes[i] * inner;
        if (dst[i] != nullptr && w > 0) std::memcpy(dst[i] + o * w, src + o * in_width + offset[i], static_cast<size_t>(w));
      }
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  int64_t axis_ = 0, num_outputs_ = -1;
  std::vector<int64_t> attr_split_;
};

// Slice-13 (starts/ends/axes/steps inputs) and Slice-1 (attributes).
class SliceKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    has_attrs_ = info.Has("starts") && info.Has("ends");
    attr_starts_ = info.IntsOr("starts", {});
    attr_ends_ = info.IntsOr("ends", {});
    attr_axes_ = info.IntsOr("axes", {});
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    std::vector<int64_t> starts, ends, axes, steps;
    bool given = false, ends_given = false, unused = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 1, label_, "starts", true, &starts, &given));
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 2, label_, "ends", true, &ends, &ends_given));
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 3, label_, "axes", true, &axes, &unused));
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 4, label_, "steps", true, &steps, &unused));
    if (!given) {
      if (!has_attrs_) return sdk::InvalidArgument(label_ + ": starts and ends are required (inputs, or opset-1 attributes)");
      starts = attr_starts_;
      ends = attr_ends_;
      axes = attr_axes_;
    } else if (!ends_given) {
      return sdk::InvalidArgument(label_ + ": input 'ends' is required with input 'starts'");
    }
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size());
    if (axes.empty()) for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
      return sdk::InvalidArgument(label_ + ": starts " + ShapeStr(starts) + ", ends " + ShapeStr(ends) + ", axes " +
                                  ShapeStr(axes) + " and steps " + ShapeStr(steps) + " must have the same length");
    }
    // Per dim: first input index and step; untouched dims take all of it.
    std::vector<int64_t> first(in.size(), 0), step(in.size(), 1), out = in;
    std::vector<bool> seen(in.size(), false);
    for (size_t i = 0; i < starts.size(); ++i) {
      int64_t a = axes[i];
      LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&a, rank, label_, "axis"));
      if (seen[a]) return sdk::InvalidArgument(label_ + ": axis " + std::to_string(axes[i]) + " appears twice in 'axes'");
      seen[a] = true;
      const int64_t d = in[a], s = steps[i];
      if (s == 0) return sdk::InvalidArgument(label_ + ": input 'steps' " + ShapeStr(steps) + " has a 0");
      // Negative positions count from the end; then clamp to the dim (the
      // first element for a backward walk may be at most d - 1, and its end
      // may reach -1, one before the first element).
      int64_t b = starts[i] < 0 ? starts[i] + d : starts[i];
      int64_t e = ends[i] < 0 ? ends[i] + d : ends[i];
      if (s > 0) {
        b = std::clamp<int64_t>(b, 0, d);
        e = std::clamp<int64_t>(e, 0, d);
        out[a] = e > b ? (e - b - 1) / s + 1 : 0;
      } else {
        b = std::clamp<int64_t>(b, 0, std::max<int64_t>(d - 1, 0));
        e = std::clamp<int64_t>(e, -1, d - 1);
        const int64_t back = s == INT64_MIN ? INT64_MAX : -s;  // |s| without overflow
        out[a] = d > 0 && b > e ? (b - e - 1) / back + 1 : 0;
      }
      first[a] = b;
      step[a] = out[a] > 1 ? s : 1;  // a step never taken (and never multiplied: INT64_MAX steps)
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    const std::vector<int64_t> in_strides = RowMajorStrides(in);
    std::vector<int64_t> strides(in.size());
    int64_t base = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      strides[d] = in_strides[d] * step[d];
      if (out[d] > 0) base += first[d] * in_strides[d];
    }
    StridedCopy(x.raw_data(), ElementSize(x), base, strides, out, y.raw_data(), ctx.num_threads());
    return Status::Ok();
  }

 private:
  std::string label_;
  bool has_attrs_ = false;
  std::vector<int64_t> attr_starts_, attr_ends_, attr_axes_;
};

// Transpose-13: output dim i is input dim perm[i] (default: reversed).
class TransposeKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    perm_ = info.IntsOr("perm", {});
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size());
    std::vector<int64_t> perm = perm_;
    if (perm.empty()) for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
    const std::vector<int64_t> in_strides = RowMajorStrides(in);
    std::vector<int64_t> out, strides;
    std::vector<bool> seen(in.size(), false);
    for (int64_t p : perm) {
      int64_t a = p;
      if (static_cast<int64_t>(perm.size()) != rank || a < -rank || a >= rank || seen[a < 0 ? a + rank : a]) {
        return sdk::InvalidArgument(label_ + ": attribute perm " + ShapeStr(perm) + " is not a permutation of the " +
                                    std::to_string(rank) + " axes of input " + ShapeStr(in));
      }
      if (a < 0) a += rank;
      seen[a] = true;
      out.push_back(in[a]);
      strides.push_back(in_strides[a]);
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    StridedCopy(x.raw_data(), ElementSize(x), 0, strides, out, y.raw_data(), ctx.num_threads());
    return Status::Ok();
  }

 private:
  std::string label_;
  std::vector<int64_t> perm_;
};

// Gather-13: out[o, j, i] = data[o, indices[j], i] over the flattened
// (before axis, indices, after axis) index; negative indices count from the
// end, others out of range are an error (checked before anything is written).
class GatherKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    axis_ = info.IntOr("axis", 0);
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), idx_t = ctx.Input(1), y;
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size());
    int64_t axis = axis_;
    LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "axis"));
    std::vector<int64_t> idx;
    bool given = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 1, label_, "indices", false, &idx, &given));
    const int64_t dim = in[axis];
    for (size_t j = 0; j < idx.size(); ++j) {
      if (idx[j] < -dim || idx[j] >= dim) {
        return sdk::InvalidArgument(label_ + ": input 'indices' has value " + std::to_string(idx[j]) + " at flat index " +
                                    std::to_string(j) + ", out of range for axis " + std::to_string(axis) + " of size " +
                                    std::to_string(dim) + " (expected [" + std::to_string(-dim) + ", " +
                                    std::to_string(dim - 1) + "])");
      }
      if (idx[j] < 0) idx[j] += dim;
    }
    std::vector<int64_t> out(in.begin(), in.begin() + axis);
    const std::vector<int64_t> ishape = idx_t.shape();
    out.insert(out.end(), ishape.begin(), ishape.end());
    out.insert(out.end(), in.begin() + axis + 1, in.end());
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    const int64_t outer = Product(in, 0, axis), n = static_cast<int64_t>(idx.size());
    const int64_t inner = Product(in, axis + 1, in.size()) * static_cast<int64_t>(ElementSize(x));
    const int64_t blocks = outer * n;
    if (blocks * inner == 0) return Status::Ok();
    const char* src = static_cast<const char*>(x.raw_data());
    char* dst = static_cast<char*>(y.raw_data());
#pragma omp parallel for if (blocks * inner > kParallelBytes) num_threads(ctx.num_threads())
    for (int64_t k = 0; k < blocks; ++k) {
      const int64_t o = k / n, j = k % n;
      std::memcpy(dst + k * inner, src + (o * dim + idx[j]) * inner, static_cast<size_t>(inner));
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  int64_t axis_ = 0;
};

}  // namespace

Status RegisterTensorCopyKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllDTypes();
  const std::vector<LoomDataType> index = {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConcatKernel>("Concat", {"CPU", "", 0, {{"T", all}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SplitKernel>("Split", {"CPU", "", 0, {{"T", all}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SliceKernel>("Slice", {"CPU", "", 0, {{"T", all}, {"Tind", index}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<TransposeKernel>("Transpose", {"CPU", "", 0, {{"T", all}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GatherKernel>("Gather", {"CPU", "", 0, {{"T", all}, {"Tind", index}}}));
  return Status::Ok();
}

}  // namespace cpu
}  // namespace loom
