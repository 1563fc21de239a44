// CPU kernel of Compress (ONNX opset 9/11; schema in ops/tensor.cc).
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

// Compress over every dtype (it only moves bytes; strings as views of their
// elements, ElementsIn/ElementsOut in tensor_util.h): keeps the slices along
// `axis` (or the elements of the flattened input when axis is absent) whose
// `condition` entry is true. The input is seen as [outer, n, inner] and each
// kept slice is `inner` contiguous elements per outer index. Errors: a
// condition that is not 1-D bool or is longer than n, an axis out of range.
class CompressKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    has_axis_ = info.Has("axis");
    axis_ = info.IntOr("axis", 0);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), cond = ctx.Input(1), y;
    const std::vector<int64_t> shape = x.shape();
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (cond.dtype() != LOOM_DTYPE_BOOL || cond.rank() != 1) {
      return sdk::InvalidArgument(label_ + ": input 'condition' must be 1-D bool; found " +
                                  sdk::DTypeName(cond.dtype()) + ShapeStr(cond.shape()));
    }
    int64_t outer = 1, n = x.num_elements(), inner = 1;
    int64_t axis = axis_;
    if (has_axis_) {
      LOOM_SDK_RETURN_IF_ERROR(NormalizeAxisOr(&axis, rank, label_, "attribute 'axis'"));
      outer = Product(shape, 0, axis);
      n = shape[axis];
      inner = Product(shape, axis + 1, rank);
    }
    const int64_t len = cond.dim(0);
    if (len > n) {
      return sdk::InvalidArgument(label_ + ": input 'condition' has " + std::to_string(len) +
                                  " entries; expected at most " + std::to_string(n) + " (the size of " +
                                  (has_axis_ ? "axis " + std::to_string(axis) : std::string("the flattened input")) +
                                  " of 'input' " + ShapeStr(shape) + ")");
    }
    // Entries past the condition's length count as false.
    const uint8_t* c = cond.data<uint8_t>();
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < len; ++i) {
      if (c[i]) kept.push_back(i);
    }
    const int64_t nk = static_cast<int64_t>(kept.size());
    std::vector<int64_t> out_shape;
    if (has_axis_) {
      out_shape = shape;
      out_shape[axis] = nk;
    } else {
      out_shape = {nk};
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), out_shape, &y));
    const ElementsIn xe(x);
    ElementsOut ye(y);
    const size_t row = static_cast<size_t>(inner) * xe.esize();
    const char* src = xe.data<char>();
    char* dst = ye.data<char>();
    if (row == 0 || nk == 0) return Status::Ok();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < nk; ++j) {
        std::memcpy(dst + (o * nk + j) * row, src + (o * n + kept[j]) * row, row);
      }
    }
    return ye.Finish();
  }

 private:
  std::string label_;
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

}  // namespace

Status RegisterTensorCompressKernels(sdk::Registrar& reg) { return reg.Kernel<CompressKernel>("Compress"); }

}  // namespace cpu
}  // namespace loom
