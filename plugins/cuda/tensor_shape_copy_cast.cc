// Host side of the CUDA tensor family: the data-movement ops with the CPU
// plugin's ONNX semantics (plugins/cpu/tensor_copy.cc, tensor_shape.cc,
// tensor_cast.cc, tensor_expand_tile_range.cc, math_compare_logic_trig.cc),
// the same attribute forms of the older opsets and the same errors as values.
//
//   Transpose-13, Slice-13/1, Concat-13, Split-18/13/11/2, Expand-13: one
//     strided-copy kernel (tensor_shape_copy_cast.cu), every dtype by element size.
//   Reshape-14, Flatten-13, Squeeze-13/1, Unsqueeze-13/1: the shape changes,
//     the bytes are copied device to device (nothing when in place).
//   Gather-13 (int32/int64 indices), Where-16: every dtype by element size.
//   Cast-13: float32, float64, float16, bfloat16, int8, uint8, int32, int64,
//     bool, each to each.
//
// Inputs live on the device. The inputs that shape the result (shape, axes,
// starts/ends/steps, split sizes, Gather's indices) are read back to the host
// on the op's stream, which costs a stream synchronization per op.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/cast.h"
#include "ops/semantics/data_movement.h"
#include "plugins/cuda/cuda_status.h"
#include "plugins/cuda/kernel_util.h"
#include "plugins/cuda/kernels.h"
#include "plugins/cuda/tensor_shape_copy_cast.h"

namespace loom {
namespace cuda {
namespace {

// ONNX shape arithmetic shared with the CPU plugin and the schemas.
using semantics::BroadcastShape;
using semantics::BroadcastStrides;
using semantics::NormalizeAxisOr;
using semantics::Product;
using semantics::RowMajorStrides;

Status UnsupportedDtype(const std::string& label, LoomDataType dt) {
  return sdk::InvalidArgument(label + ": dtype " + sdk::DTypeName(dt) + " is not supported by this kernel");
}

// ---- Reading int inputs back from the device ---------------------------------------

// An int64/int32 input (shape, axes, starts, split, indices) on its way to
// the host: Start enqueues the copy, Finish waits for all of them at once.
struct HostInts {
  std::vector<int64_t> values;
  bool given = false;  // false (and values empty) for an absent optional input
  std::vector<int32_t> staging32;
  bool is32 = false;
};

// Checks input `index` as the CPU's ReadIntsInput does (int64 or int32; 1-D
// when `must_be_1d`) and enqueues its copy to the host on the op's stream.
Status StartReadInts(const KernelContext& ctx, size_t index, const std::string& label, const char* name,
                     bool must_be_1d, HostInts* out) {
  out->values.clear();
  out->staging32.clear();
  Tensor t = ctx.Input(index);
  out->given = t.present();
  if (!t.present()) return Status::Ok();
  const LoomDataType dt = t.dtype();
  if (dt != LOOM_DTYPE_INT64 && dt != LOOM_DTYPE_INT32) {
    return sdk::InvalidArgument(label + ": input '" + name + "' must be int64 or int32, found " + sdk::DTypeName(dt));
  }
  if (must_be_1d && t.rank() > 1) {
    return sdk::InvalidArgument(label + ": input '" + name + "' must be 1-D, found shape " + ShapeStr(t.shape()));
  }
  const size_t n = static_cast<size_t>(t.num_elements());
  out->is32 = dt == LOOM_DTYPE_INT32;
  void* host = nullptr;
  size_t bytes = 0;
  if (out->is32) {
    out->staging32.resize(n);
    host = out->staging32.data();
    bytes = n * sizeof(int32_t);
  } else {
    out->values.resize(n);
    host = out->values.data();
    bytes = n * sizeof(int64_t);
  }
  if (bytes == 0) return Status::Ok();  // a zero-size tensor's data pointer may be null
  return CudaStatus(cudaMemcpyAsync(host, t.raw_data(), bytes, cudaMemcpyDeviceToHost, StreamOf(ctx)),
                    (label + ": reading input '" + name + "'").c_str());
}

// Waits for the copies of StartReadInts and widens int32 values.
Status FinishReadInts(const KernelContext& ctx, const std::string& label, std::initializer_list<HostInts*> reads) {
  LOOM_SDK_RETURN_IF_ERROR(
      CudaStatus(cudaStreamSynchronize(StreamOf(ctx)), (label + ": reading int inputs back").c_str()));
  for (HostInts* r : reads) {
    if (r->is32) r->values.assign(r->staging32.begin(), r->staging32.end());
  }
  return Status::Ok();
}

// ---- Copies ----------------------------------------------------------------------------

// Copies all of `in`'s bytes to `out` (same byte count) on the op's stream;
// nothing when they share memory (an in-place run).
Status CopyDevice(const KernelContext& ctx, const Tensor& in, const Tensor& out, const std::string& label) {
  const size_t bytes = static_cast<size_t>(in.num_elements()) * sdk::DTypeSize(in.dtype());
  if (bytes == 0 || in.raw_data() == out.raw_data()) return Status::Ok();
  return CudaStatus(cudaMemcpyAsync(out.raw_data(), in.raw_data(), bytes, cudaMemcpyDeviceToDevice, StreamOf(ctx)),
                    label.c_str());
}

// Launches the copy of already merged dims; more than kMaxRank dims (rare)
// take one launch per index of the leading dims.
Status LaunchMergedCopy(const KernelContext& ctx, const std::string& label, size_t esize, const int64_t* sh,
                        const int64_t* ss, const int64_t* ds, size_t rank, int64_t src_base, int64_t dst_base,
                        const void* src, void* dst) {
  if (rank > static_cast<size_t>(kMaxRank)) {
    for (int64_t i = 0; i < sh[0]; ++i) {
      LOOM_SDK_RETURN_IF_ERROR(LaunchMergedCopy(ctx, label, esize, sh + 1, ss + 1, ds + 1, rank - 1,
                                                src_base + i * ss[0], dst_base + i * ds[0], src, dst));
    }
    return Status::Ok();
  }
  CopyIndex ix;
  ix.rank = static_cast<int>(rank);
  int64_t n = 1;
  for (size_t d = 0; d < rank; ++d) {
    ix.dims[d] = sh[d];
    ix.src_strides[d] = ss[d];
    ix.dst_strides[d] = ds[d];
    n *= sh[d];
  }
  ix.src_base = src_base;
  ix.dst_base = dst_base;
  return CudaStatus(LaunchStridedCopy(esize, ix, n, src, dst, StreamOf(ctx)), label.c_str());
}

// dst[dst_base + sum c[d] * dst_strides[d]] = src[src_base + sum c[d] *
// src_strides[d]] for every index c over `shape` (element units of `esize`
// bytes). Size-1 dims are dropped and dims contiguous on both sides merged
// (as the CPU's StridedCopy), so that a contiguous copy becomes one
// cudaMemcpyAsync and most copies fit the kernel's 8 dims.
Status StridedCopy(const KernelContext& ctx, const std::string& label, size_t esize, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& src_strides, int64_t src_base, const std::vector<int64_t>& dst_strides,
                   int64_t dst_base, const void* src, void* dst) {
  const int64_t n = Product(shape, 0, shape.size());
  if (n == 0) return Status::Ok();
  std::vector<int64_t> sh, ss, ds;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    if (!sh.empty() && ss.back() == src_strides[k] * shape[k] && ds.back() == dst_strides[k] * shape[k]) {
      sh.back() *= shape[k];
      ss.back() = src_strides[k];
      ds.back() = dst_strides[k];
    } else {
      sh.push_back(shape[k]);
      ss.push_back(src_strides[k]);
      ds.push_back(dst_strides[k]);
    }
  }
  if (sh.empty()) {  // a single element
    sh.push_back(1);
    ss.push_back(1);
    ds.push_back(1);
  }
  if (sh.size() == 1 && ss[0] == 1 && ds[0] == 1) {
    return CudaStatus(cudaMemcpyAsync(static_cast<char*>(dst) + dst_base * static_cast<int64_t>(esize),
                                      static_cast<const char*>(src) + src_base * static_cast<int64_t>(esize),
                                      static_cast<size_t>(n) * esize, cudaMemcpyDeviceToDevice, StreamOf(ctx)),
                      label.c_str());
  }
  return LaunchMergedCopy(ctx, label, esize, sh.data(), ss.data(), ds.data(), sh.size(), src_base, dst_base, src, dst);
}

// ---- Concat-13 ----------------------------------------------------------------------------

class ConcatKernel : public semantics::AttrsKernel<semantics::ConcatAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    const size_t count = ctx.num_inputs();
    Tensor first = ctx.Input(0), y;
    std::vector<int64_t> out;
    int64_t axis = 0;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.OutputShape(label_, ctx, &axis, &out));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, first.dtype(), out, &y));
    const size_t esize = sdk::DTypeSize(first.dtype());
    const std::vector<int64_t> out_strides = RowMajorStrides(out);
    int64_t at = 0;  // position of this input along axis in the output
    for (size_t i = 0; i < count; ++i) {
      Tensor t = ctx.Input(i);
      const std::vector<int64_t> s = t.shape();
      LOOM_SDK_RETURN_IF_ERROR(StridedCopy(ctx, label_, esize, s, RowMajorStrides(s), 0, out_strides,
                                           at * out_strides[axis], t.raw_data(), y.raw_data()));
      at += s[axis];
    }
    return Status::Ok();
  }
};

// ---- Split-18/13/11/2 -------------------------------------------------------------------------
// Sizes from the `split` input, else the opset-2..11 attribute, else equal
// parts (ceil(dim / n) each, the last one smaller).
class SplitKernel : public semantics::AttrsKernel<semantics::SplitAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0);
    const std::vector<int64_t> in = x.shape();
    int64_t axis = 0;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Axis(label_, in, &axis));
    const int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
    HostInts split;
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, label_, "split", true, &split));
    if (split.given) LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, label_, {&split}));
    std::vector<int64_t> sizes;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Sizes(label_, in, axis, split.given, split.values, n_out, &sizes));
    const size_t esize = sdk::DTypeSize(x.dtype());
    const std::vector<int64_t> in_strides = RowMajorStrides(in);
    int64_t at = 0;
    for (int64_t i = 0; i < n_out; ++i) {
      const int64_t offset = at;
      at += sizes[i];
      if (!ctx.OutputRequested(static_cast<size_t>(i))) continue;
      const std::vector<int64_t> s = semantics::SplitAttrs::OutputShape(in, axis, sizes[i]);
      Tensor y;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(static_cast<size_t>(i), x.dtype(), s, &y));
      LOOM_SDK_RETURN_IF_ERROR(StridedCopy(ctx, label_, esize, s, in_strides, offset * in_strides[axis],
                                           RowMajorStrides(s), 0, x.raw_data(), y.raw_data()));
    }
    return Status::Ok();
  }
};

// ---- Slice-13 (starts/ends/axes/steps inputs) and Slice-1 (attributes) --------------------------
class SliceKernel : public semantics::AttrsKernel<semantics::SliceAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    HostInts r_starts, r_ends, r_axes, r_steps;
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, label_, "starts", true, &r_starts));
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 2, label_, "ends", true, &r_ends));
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 3, label_, "axes", true, &r_axes));
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 4, label_, "steps", true, &r_steps));
    LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, label_, {&r_starts, &r_ends, &r_axes, &r_steps}));
    semantics::SliceGeometry g;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Resolve(label_, x.shape(), r_starts.given, r_ends.given, r_starts.values,
                                            r_ends.values, r_axes.values, r_steps.values, &g));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), g.out, &y));
    return StridedCopy(ctx, label_, sdk::DTypeSize(x.dtype()), g.out, g.strides, g.base, RowMajorStrides(g.out), 0,
                       x.raw_data(), y.raw_data());
  }
};

// ---- Transpose-13: output dim i is input dim perm[i] (default: reversed) ------------------------
class TransposeKernel : public semantics::AttrsKernel<semantics::TransposeAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> in = x.shape();
    std::vector<int64_t> out, strides;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.OutputShape(label_, in, &out, &strides));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    return StridedCopy(ctx, label_, sdk::DTypeSize(x.dtype()), out, strides, 0, RowMajorStrides(out), 0, x.raw_data(),
                       y.raw_data());
  }
};

// ---- Expand-13: numpy broadcast of the input to (with) `shape` -----------------------------------
class ExpandKernel : public semantics::AttrsKernel<semantics::NoAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    HostInts shape;
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, label_, "shape", true, &shape));
    LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, label_, {&shape}));
    const std::vector<int64_t> in = x.shape();
    std::vector<int64_t> out;
    LOOM_SDK_RETURN_IF_ERROR(semantics::ExpandShape(label_, in, shape.values, &out));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    // A broadcast is a strided read with stride 0 on the broadcast dims.
    return StridedCopy(ctx, label_, sdk::DTypeSize(x.dtype()), out, BroadcastStrides(in, out), 0, RowMajorStrides(out),
                       0, x.raw_data(), y.raw_data());
  }
};

// ---- Gather-13 ------------------------------------------------------------------------------------
// out[o, j, i] = data[o, indices[j], i]; negative indices count from the end,
// others out of range are an error. The indices are checked on the host
// before the launch: an out-of-range read on the device would be a sticky
// illegal-address error rather than a status.
class GatherKernel : public semantics::AttrsKernel<semantics::GatherAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), idx_t = ctx.Input(1), y;
    const std::vector<int64_t> in = x.shape();
    int64_t axis = 0;
    LOOM_SDK_RETURN_IF_ERROR(attrs_.Axis(label_, in, &axis));
    HostInts idx;
    LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, label_, "indices", false, &idx));
    LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, label_, {&idx}));
    semantics::GatherGeometry g;
    LOOM_SDK_RETURN_IF_ERROR(semantics::GatherAttrs::Resolve(label_, in, axis, idx.values, idx_t.shape(), &g));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), g.out, &y));
    const int64_t n = static_cast<int64_t>(idx.values.size());
    return CudaStatus(LaunchGather(sdk::DTypeSize(x.dtype()), g.outer, g.dim, g.inner, n, x.raw_data(), idx_t.raw_data(),
                                   idx_t.dtype() == LOOM_DTYPE_INT64, y.raw_data(), StreamOf(ctx)),
                      label_.c_str());
  }
};

// ---- Cast-13 ----------------------------------------------------------------------------------------
class CastKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return semantics::ReadCastTo(info, label_, &to_);
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    if (!CastSupports(x.dtype())) return UnsupportedDtype(label_, x.dtype());
    if (!CastSupports(to_)) return UnsupportedDtype(label_, to_);
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, to_, x.shape(), &y));
    if (x.dtype() == to_) return CopyDevice(ctx, x, y, label_);
    return CudaStatus(LaunchCast(x.dtype(), to_, x.num_elements(), x.raw_data(), y.raw_data(), StreamOf(ctx)),
                      label_.c_str());
  }

 private:
  std::string label_;
  LoomDataType to_ = LOOM_DTYPE_FLOAT;
};

// ---- Where-16: condition ? X : Y, all three broadcast together --------------------------------------
class WhereKernel : public semantics::AttrsKernel<semantics::NoAttrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor cond = ctx.Input(0), x = ctx.Input(1), y = ctx.Input(2), out;
    std::vector<int64_t> shape;
    LOOM_SDK_RETURN_IF_ERROR(semantics::WhereShape(label_, cond, x, y, &shape));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), shape, &out));
    const int64_t n = out.num_elements();
    if (n == 0) return Status::Ok();
    const std::vector<int64_t> sc = BroadcastStrides(cond.shape(), shape), sx = BroadcastStrides(x.shape(), shape),
                               sy = BroadcastStrides(y.shape(), shape);
    // Size-1 dims dropped, and a dim merged into its outer neighbour where
    // all three operands walk both as one (fewer divisions per element).
    std::vector<int64_t> dims, mc, mx, my;
    for (size_t k = 0; k < shape.size(); ++k) {
      if (shape[k] == 1) continue;
      if (!dims.empty() && mc.back() == sc[k] * shape[k] && mx.back() == sx[k] * shape[k] &&
          my.back() == sy[k] * shape[k]) {
        dims.back() *= shape[k];
        mc.back() = sc[k];
        mx.back() = sx[k];
        my.back() = sy[k];
      } else {
        dims.push_back(shape[k]);
        mc.push_back(sc[k]);
        mx.push_back(sx[k]);
        my.push_back(sy[k]);
      }
    }
    if (dims.size() > static_cast<size_t>(kMaxRank)) {
      return sdk::Unimplemented(label_ + ": the broadcast of " + ShapeStr(cond.shape()) + ", " + ShapeStr(x.shape()) +
                                " and " + ShapeStr(y.shape()) + " has " + std::to_string(dims.size()) +
                                " dims after merging; the CUDA kernel handles at most " + std::to_string(kMaxRank));
    }
    WhereIndex ix;
    ix.rank = static_cast<int>(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      ix.dims[d] = dims[d];
      ix.sc[d] = mc[d];
      ix.sx[d] = mx[d];
      ix.sy[d] = my[d];
    }
    return CudaStatus(LaunchWhere(sdk::DTypeSize(x.dtype()), ix, n, cond.raw_data(), x.raw_data(), y.raw_data(),
                                  out.raw_data(), StreamOf(ctx)),
                      label_.c_str());
  }
};

// ---- Shape-only ops: Reshape-14, Flatten-13, Squeeze-13/1, Unsqueeze-13/1 ---------------------------

// Reshape-14, Flatten-13, Squeeze-13/1, Unsqueeze-13/1: the output shape
// from the attributes and the int input Attrs::kIntsInput (ops/semantics/
// data_movement.h), read back when given; the bytes are copied device to
// device (nothing when in place).
template <typename Attrs>
class ShapeOnlyKernel : public semantics::AttrsKernel<Attrs> {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    HostInts ints;
    if constexpr (Attrs::kIntsInput != nullptr) {
      LOOM_SDK_RETURN_IF_ERROR(StartReadInts(ctx, 1, this->label_, Attrs::kIntsInput, true, &ints));
      if (ints.given) LOOM_SDK_RETURN_IF_ERROR(FinishReadInts(ctx, this->label_, {&ints}));
    }
    std::vector<int64_t> out;
    LOOM_SDK_RETURN_IF_ERROR(this->attrs_.OutputShape(this->label_, x.shape(), ints.given, ints.values, &out));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    return CopyDevice(ctx, x, y, this->label_);
  }
};

// Every dtype a Loom tensor can hold: the byte-moving kernels take them all.
std::vector<LoomDataType> AllDTypes() {
  return {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_INT8,
          LOOM_DTYPE_UINT8, LOOM_DTYPE_INT16,  LOOM_DTYPE_UINT16,  LOOM_DTYPE_INT32,    LOOM_DTYPE_UINT32,
          LOOM_DTYPE_INT64, LOOM_DTYPE_UINT64, LOOM_DTYPE_BOOL};
}

// The dtypes Cast converts between on CUDA (LaunchCast).
std::vector<LoomDataType> CastDTypes() {
  return {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16, LOOM_DTYPE_BFLOAT16, LOOM_DTYPE_INT8,
          LOOM_DTYPE_UINT8, LOOM_DTYPE_INT32, LOOM_DTYPE_INT64,   LOOM_DTYPE_BOOL};
}

}  // namespace

sdk::Status RegisterTensorShapeCopyCastKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllDTypes(), cast = CastDTypes();
  const std::vector<LoomDataType> index = {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64};
  auto t = [&](std::vector<std::pair<std::string, std::vector<LoomDataType>>> tc) {
    return sdk::KernelOptions{"CUDA", "", 0, std::move(tc)};
  };
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<TransposeKernel>("Transpose", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ConcatKernel>("Concat", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SplitKernel>("Split", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SliceKernel>("Slice", t({{"T", all}, {"Tind", index}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ShapeOnlyKernel<semantics::ReshapeAttrs>>("Reshape", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ShapeOnlyKernel<semantics::FlattenAttrs>>("Flatten", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ShapeOnlyKernel<semantics::SqueezeAttrs>>("Squeeze", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ShapeOnlyKernel<semantics::UnsqueezeAttrs>>("Unsqueeze", t({{"T", all}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GatherKernel>("Gather", t({{"T", all}, {"Tind", index}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CastKernel>("Cast", t({{"T1", cast}, {"T2", cast}})));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<WhereKernel>("Where", t({{"B", {LOOM_DTYPE_BOOL}}, {"T", all}})));
  return reg.Kernel<ExpandKernel>("Expand", t({{"T", all}}));
}

}  // namespace cuda
}  // namespace loom
