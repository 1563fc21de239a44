// Pad (ONNX Pad-19, and the opset-2 attribute form), DepthToSpace-13 and
// SpaceToDepth-13 kernels (schemas in ops/tensor_pad_space_depth.cc).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

// ---- Pad ----------------------------------------------------------------------
class PadKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    mode_ = info.StringOr("mode", "constant");
    if (mode_ != "constant" && mode_ != "reflect" && mode_ != "edge" && mode_ != "wrap") {
      return sdk::InvalidArgument(label_ + ": attribute 'mode' must be constant, reflect, edge or wrap, found '" +
                                  mode_ + "'");
    }
    attr_pads_given_ = info.Has("pads");
    if (attr_pads_given_) LOOM_SDK_RETURN_IF_ERROR(info.GetInts("pads", &attr_pads_));
    value_ = info.FloatOr("value", 0.0f);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> in = x.shape();
    const int64_t rank = static_cast<int64_t>(in.size());
    std::vector<int64_t> pads = attr_pads_, axes;
    bool given = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 1, label_, "pads", true, &pads, &given));
    if (!given) {
      if (!attr_pads_given_) return sdk::InvalidArgument(label_ + ": needs input 'pads' (or the opset-2 attribute)");
      pads = attr_pads_;
    }
    bool axes_given = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadIntsInput(ctx, 3, label_, "axes", true, &axes, &axes_given));
    if (!axes_given) {
      for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
    }
    if (pads.size() != 2 * axes.size()) {
      return sdk::InvalidArgument(label_ + ": input 'pads' must have 2 * " + std::to_string(axes.size()) +
                                  " entries (begins then ends), found " + std::to_string(pads.size()));
    }
    // begin/end per dim; axes not listed are not padded.
    std::vector<int64_t> begin(rank, 0), end(rank, 0), out(rank);
    std::vector<bool> seen(rank, false);
    for (size_t a = 0; a < axes.size(); ++a) {
      int64_t axis = axes[a];
      LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "axis in 'axes'"));
      if (seen[axis]) return sdk::InvalidArgument(label_ + ": input 'axes' repeats axis " + std::to_string(axis));
      seen[axis] = true;
      begin[axis] = pads[a];
      end[axis] = pads[a + axes.size()];
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (__builtin_add_overflow(in[d], begin[d], &out[d]) || __builtin_add_overflow(out[d], end[d], &out[d])) {
        return sdk::InvalidArgument(label_ + ": pads " + ShapeStr(pads) + " give a dim outside int64 on axis " +
                                    std::to_string(d) + " of input shape " + ShapeStr(in));
      }
      if (out[d] < 0) {
        return sdk::InvalidArgument(label_ + ": pads " + ShapeStr(pads) + " give a negative dim for input shape " +
                                    ShapeStr(in));
      }
      if (mode_ != "constant" && in[d] == 0 && out[d] > 0) {
        return sdk::InvalidArgument(label_ + ": mode '" + mode_ + "' cannot pad axis " + std::to_string(d) +
                                    " of size 0 (input shape " + ShapeStr(in) + ")");
      }
    }
    // The output first: its size check (the memory cap) bounds the maps.
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    const int64_t total = y.num_elements();
    if (total == 0) return Status::Ok();
    // Source index per output index per axis; -1: the constant.
    std::vector<std::vector<int64_t>> map(rank);
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t n = in[d];
      map[d].resize(out[d]);
      for (int64_t o = 0; o < out[d]; ++o) {
        int64_t j = o - begin[d];
        if (j < 0 || j >= n) {
          if (mode_ == "constant") {
            j = -1;
          } else if (mode_ == "edge") {
            j = std::min(std::max<int64_t>(j, 0), n - 1);
          } else if (mode_ == "wrap") {
            j = ((j % n) + n) % n;
          } else if (n == 1) {  // reflect
            j = 0;
          } else {
            const int64_t p = 2 * (n - 1);
            j = ((j % p) + p) % p;
            if (j >= n) j = p - j;
          }
        }
        map[d][o] = j;
      }
    }

    Tensor cv = ctx.Input(2);
    if (cv.present() && cv.num_elements() > 1) {
      return sdk::InvalidArgument(label_ + ": input 'constant_value' must be a scalar, found shape " +
                                  ShapeStr(cv.shape()));
    }
    if (cv.present() && cv.num_elements() == 1 && cv.dtype() != x.dtype()) {
      return sdk::InvalidArgument(label_ + ": input 'constant_value' must have the data's dtype " +
                                  std::string(sdk::DTypeName(x.dtype())) + ", found " + sdk::DTypeName(cv.dtype()));
    }
    return DispatchNumericOrBool<bool>(x.dtype(), label_, [&](auto tag) -> Status {
      using T = decltype(tag);
      T fill;
      if (cv.present() && cv.num_elements() == 1) {
        std::memcpy(&fill, cv.raw_data(), sizeof(T));
      } else {
        fill = Num<T>::Store(static_cast<typename Num<T>::C>(value_));
      }
      const T* src = x.data<T>();
      T* dst = y.data<T>();
      const std::vector<int64_t> st = RowMajorStrides(in);
      const int64_t inner = rank == 0 ? 1 : out[rank - 1];
      const int64_t rows = total / inner;
      // Per output row (all dims but the last): its source row, or the fill.
      ParallelFor(rows, ctx.num_threads(), [&](int64_t r) {
        T* row = dst + r * inner;
        if (rank == 0) { row[0] = src[0]; return; }
        int64_t rem = r, off = 0;
        for (int64_t d = rank - 2; d >= 0; --d) {
          const int64_t j = map[d][rem % out[d]];
          rem /= out[d];
          if (j < 0) { std::fill(row, row + inner, fill); return; }
          off += j * st[d];
        }
        const std::vector<int64_t>& last = map[rank - 1];
        for (int64_t o = 0; o < inner; ++o) row[o] = last[o] < 0 ? fill : src[off + last[o]];
      }, inner);
      return Status::Ok();
    });
  }

 private:
  std::string label_, mode_;
  bool attr_pads_given_ = false;
  std::vector<int64_t> attr_pads_;
  float value_ = 0.0f;
};

// ---- DepthToSpace / SpaceToDepth ----------------------------------------------
// Both are a reshape to 6-D, a transpose, and a reshape to 4-D: one strided
// copy whose strides are the 6-D view's row-major strides, permuted.
class DepthSpaceKernel {
 public:
  explicit DepthSpaceKernel(bool to_space) : to_space_(to_space) {}
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("blocksize", &b_));
    if (b_ <= 0) return sdk::InvalidArgument(label_ + ": attribute 'blocksize' must be > 0, found " + std::to_string(b_));
    const std::string mode = info.StringOr("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") {
      return sdk::InvalidArgument(label_ + ": attribute 'mode' must be DCR or CRD, found '" + mode + "'");
    }
    crd_ = mode == "CRD";
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    if (x.rank() != 4) {
      return sdk::InvalidArgument(label_ + ": input 'input' must be 4-D [N, C, H, W], found shape " +
                                  ShapeStr(x.shape()));
    }
    const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), b = b_;
    std::vector<int64_t> view, perm, out;
    // Every output dim must fit in int64 (b^2 itself may not: then only
    // C = 0 is a multiple of it).
    const auto too_big = [&](const char* what) {
      return sdk::InvalidArgument(label_ + ": attribute 'blocksize' " + std::to_string(b) + " makes " + what +
                                  " overflow int64 for input shape " + ShapeStr(x.shape()));
    };
    int64_t bb = 0;
    const bool bb_overflows = __builtin_mul_overflow(b, b, &bb);
    if (to_space_) {
      int64_t oh = 0, ow = 0;
      if (__builtin_mul_overflow(h, b, &oh) || __builtin_mul_overflow(w, b, &ow)) return too_big("H * b or W * b");
      if (bb_overflows ? c != 0 : c % bb != 0) {
        return sdk::InvalidArgument(label_ + ": channels " + std::to_string(c) + " must be a multiple of blocksize^2 = " +
                                    (bb_overflows ? std::to_string(b) + "^2" : std::to_string(bb)));
      }
      const int64_t oc = bb_overflows ? 0 : c / bb;
      if (crd_) { view = {n, oc, b, b, h, w}; perm = {0, 1, 4, 2, 5, 3}; }
      else { view = {n, b, b, oc, h, w}; perm = {0, 3, 4, 1, 5, 2}; }
      out = {n, oc, oh, ow};
    } else {
      if (h % b != 0 || w % b != 0) {
        return sdk::InvalidArgument(label_ + ": height " + std::to_string(h) + " and width " + std::to_string(w) +
                                    " must be multiples of blocksize " + std::to_string(b));
      }
      int64_t oc = 0;
      if (c != 0 && (bb_overflows || __builtin_mul_overflow(c, bb, &oc))) return too_big("C * b^2");
      view = {n, c, h / b, b, w / b, b};
      perm = {0, 3, 5, 1, 2, 4};
      out = {n, oc, h / b, w / b};
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out, &y));
    if (y.num_elements() == 0) return Status::Ok();
    const std::vector<int64_t> st = RowMajorStrides(view);
    std::vector<int64_t> shape(6), strides(6);
    for (int k = 0; k < 6; ++k) { shape[k] = view[perm[k]]; strides[k] = st[perm[k]]; }
    StridedCopy(x.raw_data(), sdk::DTypeSize(x.dtype()), 0, strides, shape, y.raw_data(), ctx.num_threads());
    return Status::Ok();
  }

 private:
  bool to_space_;
  bool crd_ = false;
  int64_t b_ = 1;
  std::string label_;
};

struct DepthToSpaceKernel : DepthSpaceKernel { DepthToSpaceKernel() : DepthSpaceKernel(true) {} };
struct SpaceToDepthKernel : DepthSpaceKernel { SpaceToDepthKernel() : DepthSpaceKernel(false) {} };

}  // namespace

Status RegisterTensorPadSpaceDepthKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllDTypes();
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PadKernel>(
      "Pad", {"CPU", "", 0, {{"T", all}, {"Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<DepthToSpaceKernel>("DepthToSpace", {"CPU", "", 0, {{"T", all}}}));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SpaceToDepthKernel>("SpaceToDepth", {"CPU", "", 0, {{"T", all}}}));
  return Status::Ok();
}

}  // namespace cpu
}  // namespace loom
