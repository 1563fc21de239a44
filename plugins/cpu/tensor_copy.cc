// Tensor kernels that move data: Concat, Split, Slice, Transpose, Gather.
// ONNX semantics (the opsets are in ops/tensor.cc). They work on bytes, so
// every dtype takes the same path (string tensors as views of their
// elements: ElementsIn/ElementsOut in tensor_util.h); contiguous runs are
// memcpy'd, and large copies go parallel with OpenMP. Transpose of the
// dtypes oneDNN reorders runs as a oneDNN reorder.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ops/semantics/data_movement.h"
#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

size_t ElementSize(const Tensor& t) { return sdk::DTypeSize(t.dtype()); }

// Concat-13: inputs agree in rank and in every dim but `axis`. Each input is
// `outer` rows of its own width; an output row is the inputs' rows side by
// side.
class ConcatKernel : public semantics::AttrsKernel<semantics::ConcatAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    const size_t count = ctx.num_inputs();
    Tensor first = ctx.Input(0), y;
    std::vector<int64_t> out;
    int64_t axis = 0;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.OutputShape(label_, ctx, &axis, &out));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, first.dtype(), out, &y));
    const int64_t outer = Product(out, 0, axis);
    std::vector<ElementsIn> ins;
    ins.reserve(count);
    std::vector<const char*> src(count);
    std::vector<int64_t> width(count);  // bytes per row of each input
    int64_t out_width = 0;
    for (size_t i = 0; i < count; ++i) {
      Tensor t = ctx.Input(i);
      ins.emplace_back(t);
      src[i] = static_cast<const char*>(ins[i].data());
      width[i] = Product(t.shape(), axis, t.rank()) * static_cast<int64_t>(ins[i].esize());
      out_width += width[i];
    }
    ElementsOut ye(y);
    char* dst = ye.data<char>();
    if (outer * out_width == 0) return Status::Ok();
    ParallelForIf(outer * out_width > kParallelBytes, outer, ctx.num_threads(), [&](int64_t o) {
      char* row = dst + o * out_width;
      for (size_t i = 0; i < count; ++i) {
        if (width[i] == 0) continue;  // a zero-size input (its data pointer is null)
        std::memcpy(row, src[i] + o * width[i], static_cast<size_t>(width[i]));
        row += width[i];
      }
    });
    return ye.Finish();
  }
};

// Split-18/13/11: sizes from the `split` input, else the opset-2..11 `split`
// attribute, else equal parts (ceil(dim / n) each, the last one smaller).
class SplitKernel : public semantics::AttrsKernel<semantics::SplitAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0);
    const std::vector<int64_t> in = x.shape();
    int64_t axis = 0;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Axis(label_, in, &axis));
    const int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
    std::vector<int64_t> sizes;
    bool given = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 1, label_, "split", true, &sizes, &given));
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Sizes(label_, in, axis, given, sizes, n_out, &sizes));
    const ElementsIn xe(x);
    const int64_t esize = static_cast<int64_t>(xe.esize());
    const int64_t outer = Product(in, 0, axis), inner = Product(in, axis + 1, in.size()) * esize;
    const int64_t in_width = in[axis] * inner;
    std::vector<ElementsOut> ys(n_out);
    std::vector<char*> dst(n_out, nullptr);
    std::vector<int64_t> offset(n_out);  // bytes into an input row
    int64_t at = 0;
    for (int64_t i = 0; i < n_out; ++i) {
      offset[i] = at;
      at += sizes[i] * inner;
      if (!ctx.OutputRequested(i)) continue;
      Tensor y;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(i, x.dtype(), semantics::SplitAttrs::OutputShape(in, axis, sizes[i]), &y));
      ys[i] = ElementsOut(y);
      dst[i] = ys[i].data<char>();
    }
    if (outer * in_width == 0) return Status::Ok();
    const char* src = xe.data<char>();
    ParallelForIf(outer * in_width > kParallelBytes, outer, ctx.num_threads(), [&](int64_t o) {
      for (int64_t i = 0; i < n_out; ++i) {
        const int64_t w = sizes[i] * inner;
        if (dst[i] != nullptr && w > 0) std::memcpy(dst[i] + o * w, src + o * in_width + offset[i], static_cast<size_t>(w));
      }
    });
    for (const ElementsOut& y : ys) LOOM_SDK_RETURN_IF_ERROR(y.Finish());
    return Status::Ok();
  }
};

// Slice-13 (starts/ends/axes/steps inputs) and Slice-1 (attributes).
class SliceKernel : public semantics::AttrsKernel<semantics::SliceAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    std::vector<int64_t> starts, ends, axes, steps;
    bool given = false, ends_given = false, unused = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 1, label_, "starts", true, &starts, &given));
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 2, label_, "ends", true, &ends, &ends_given));
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 3, label_, "axes", true, &axes, &unused));
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 4, label_, "steps", true, &steps, &unused));
    semantics::SliceGeometry g;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, x.shape(), given, ends_given, starts, ends, axes, steps, &g));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), g.out, &y));
    const ElementsIn xe(x);
    ElementsOut ye(y);
    StridedCopy(xe.data(), xe.esize(), g.base, g.strides, g.out, ye.data(), ctx.num_threads());
    return ye.Finish();
  }
};

// SliceGradient (ops/gradients.cc): dX = zeros of X's shape with dY written
// where Slice read it (the same starts/ends/axes/steps, inputs 2..5 or the
// opset-1 attributes, resolved over X's shape). A slice reads each input
// element at most once, so every dY element has its own place.
class SliceGradientKernel : public semantics::AttrsKernel<semantics::SliceAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor dy = ctx.Input(0), x = ctx.Input(1), dx;
    std::vector<int64_t> starts, ends, axes, steps;
    bool given = false, ends_given = false, unused = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 2, label_, "starts", true, &starts, &given));
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 3, label_, "ends", true, &ends, &ends_given));
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 4, label_, "axes", true, &axes, &unused));
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 5, label_, "steps", true, &steps, &unused));
    semantics::SliceGeometry g;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, x.shape(), given, ends_given, starts, ends, axes, steps, &g));
    if (dy.shape() != g.out) {
      return sdk::InvalidArgument(label_ + ": dY " + ShapeStr(dy.shape()) + " is not the slice's shape " + ShapeStr(g.out));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dy.dtype(), x.shape(), &dx));
    const size_t size = ElementSize(dy);
    char* out = static_cast<char*>(dx.raw_data());
    const char* in = static_cast<const char*>(dy.raw_data());
    if (dx.num_elements() > 0) std::memset(out, 0, size * static_cast<size_t>(dx.num_elements()));
    std::vector<int64_t> c(g.out.size(), 0);
    for (int64_t i = 0; i < dy.num_elements(); ++i) {
      int64_t offset = g.base;
      for (size_t d = 0; d < c.size(); ++d) offset += c[d] * g.strides[d];
      std::memcpy(out + offset * size, in + i * size, size);
      for (size_t d = c.size(); d-- > 0;) {
        if (++c[d] < g.out[d]) break;
        c[d] = 0;
      }
    }
    return Status::Ok();
  }
};

// Transpose-13: output dim i is input dim perm[i] (default: reversed).
// Transpose-13. float32, int32, int8 and uint8 tensors of rank 2 to 6 go
// through oneDNN's jit reorder (X read through permuted strides into a
// dense Y: 10x the strided byte copy on the int8 channels-last rewrite's
// NCHW <-> NHWC transposes, transforms/int8_channels_last.h), cached per
// shape; other dtypes and ranks, or a reorder oneDNN has no jit kernel
// for, take the strided copy.
class TransposeKernel : public semantics::AttrsKernel<semantics::TransposeAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> in = x.shape();
    std::vector<int64_t> out, strides;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.OutputShape(label_, in, &out, &strides));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    if (y.num_elements() > 0 && Reorder(x.dtype(), out, strides, ctx.num_threads())) {
      src_.set_data_handle(x.raw_data());
      dst_.set_data_handle(y.raw_data());
      return DnnlExecute(label_, reorder_, {{DNNL_ARG_FROM, src_}, {DNNL_ARG_TO, dst_}}, ctx.num_threads());
    }
    const ElementsIn xe(x);
    ElementsOut ye(y);
    StridedCopy(xe.data(), xe.esize(), 0, strides, out, ye.data(), ctx.num_threads());
    return ye.Finish();
  }

 private:
  // Whether reorder_ (built now unless built for these) does this transpose.
  bool Reorder(LoomDataType dt, const std::vector<int64_t>& out, const std::vector<int64_t>& strides, int threads) {
    if (built_ && dt == dt_ && out == out_ && strides == strides_ && threads == threads_) return ok_;
    built_ = true;
    ok_ = false;
    dt_ = dt;
    out_ = out;
    strides_ = strides;
    threads_ = threads;
    using mdt = dnnl::memory::data_type;
    mdt t;
    switch (dt) {
      case LOOM_DTYPE_FLOAT: t = mdt::f32; break;
      case LOOM_DTYPE_INT32: t = mdt::s32; break;
      case LOOM_DTYPE_INT8: t = mdt::s8; break;
      case LOOM_DTYPE_UINT8: t = mdt::u8; break;
      default: return false;
    }
    if (out.size() < 2 || out.size() > 6) return false;
    const Status s = DnnlCreate(label_, threads, [&] {
      const dnnl::memory::desc from(Dims(out), t, Dims(strides)), to = PlainDesc(out, t);
      dnnl::reorder::primitive_desc pd(DnnlEngine(), from, DnnlEngine(), to);
      if (std::string(pd.impl_info_str()).rfind("jit", 0) != 0) return;
      reorder_ = dnnl::reorder(pd);
      src_ = UnboundMemory(from);
      dst_ = UnboundMemory(to);
      ok_ = true;
    });
    ok_ = ok_ && s.ok();
    return ok_;
  }

  bool built_ = false, ok_ = false;
  LoomDataType dt_ = LOOM_DTYPE_UNDEFINED;
  std::vector<int64_t> out_, strides_;
  int threads_ = 0;
  dnnl::reorder reorder_;
  dnnl::memory src_, dst_;
};

// Gather-13: out[o, j, i] = data[o, indices[j], i] over the flattened
// (before axis, indices, after axis) index; negative indices count from the
// end, others out of range are an error (checked before anything is written).
class GatherKernel : public semantics::AttrsKernel<semantics::GatherAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), idx_t = ctx.Input(1), y;
    const std::vector<int64_t> in = x.shape();
    int64_t axis = 0;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Axis(label_, in, &axis));
    std::vector<int64_t> idx;
    bool given = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 1, label_, "indices", false, &idx, &given));
    semantics::GatherGeometry g;
    LOOM_SDK_RETURN_IF_ERROR(semantics::GatherAttrs::Resolve(label_, in, axis, idx, idx_t.shape(), &g));
    const int64_t dim = g.dim;
    for (int64_t& v : idx) {
      if (v < 0) v += dim;
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), g.out, &y));
    const int64_t outer = g.outer, n = static_cast<int64_t>(idx.size());
    const ElementsIn xe(x);
    ElementsOut ye(y);
    const int64_t inner = g.inner * static_cast<int64_t>(xe.esize());
    const int64_t blocks = outer * n;
    if (blocks * inner == 0) return Status::Ok();
    const char* src = xe.data<char>();
    char* dst = ye.data<char>();
    ParallelForIf(blocks * inner > kParallelBytes, blocks, ctx.num_threads(), [&](int64_t k) {
      const int64_t o = k / n, j = k % n;
      std::memcpy(dst + k * inner, src + (o * dim + idx[j]) * inner, static_cast<size_t>(inner));
    });
    return ye.Finish();
  }
};

}  // namespace

Status RegisterTensorCopyKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllDTypes();
  const std::vector<LoomDataType> with_string = TensorDTypes();  // whole elements moved: strings too
  const std::vector<LoomDataType> index = {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConcatKernel>("Concat", {"CPU", "", 0, {{"T", with_string}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SplitKernel>("Split", {"CPU", "", 0, {{"T", with_string}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SliceKernel>("Slice", {"CPU", "", 0, {{"T", with_string}, {"Tind", index}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SliceGradientKernel>("SliceGradient", {"CPU", "", 0, {{"T", all}, {"Tind", index}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<TransposeKernel>("Transpose", {"CPU", "", 0, {{"T", with_string}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GatherKernel>("Gather", {"CPU", "", 0, {{"T", with_string}, {"Tind", index}}}));
  return Status::Ok();
}

}  // namespace cpu
}  // namespace loom
