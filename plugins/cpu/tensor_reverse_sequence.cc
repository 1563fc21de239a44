// ReverseSequence-10 kernel (ops/tensor_reverse_sequence.cc): element
// moves, any dtype.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

class ReverseSequenceKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    batch_axis_ = info.IntOr("batch_axis", 1);
    time_axis_ = info.IntOr("time_axis", 0);
    if (!((batch_axis_ == 0 && time_axis_ == 1) || (batch_axis_ == 1 && time_axis_ == 0))) {
      return sdk::InvalidArgument(label_ + ": batch_axis and time_axis must be 0 and 1, either way round; found " +
                                  std::to_string(batch_axis_) + " and " + std::to_string(time_axis_));
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), lens = ctx.Input(1), y;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 2) return sdk::InvalidArgument(label_ + ": input must have rank >= 2; found " + ShapeStr(xs));
    const int64_t B = xs[batch_axis_], T = xs[time_axis_];
    if (lens.rank() != 1 || lens.dim(0) != B) {
      return sdk::InvalidArgument(label_ + ": sequence_lens must be [" + std::to_string(B) + "] (input's batch); found " +
                                  ShapeStr(lens.shape()));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &y));
    int64_t inner = 1;
    for (size_t i = 2; i < xs.size(); ++i) inner *= xs[i];
    const size_t row = static_cast<size_t>(inner) * sdk::DTypeSize(x.dtype());
    const char* src = static_cast<const char*>(x.raw_data());
    char* dst = static_cast<char*>(y.raw_data());
    // Element (b, t)'s row of `inner` values.
    auto at = [&](int64_t b, int64_t t) { return (batch_axis_ == 0 ? b * T + t : t * B + b) * static_cast<int64_t>(row); };
    for (int64_t b = 0; b < B; ++b) {
      const int64_t len = lens.data<int64_t>()[b];
      if (len < 0 || len > T) {
        return sdk::InvalidArgument(label_ + ": sequence_lens[" + std::to_string(b) + "] = " + std::to_string(len) +
                                    " is outside [0, " + std::to_string(T) + "]");
      }
      for (int64_t t = 0; t < T; ++t) std::memcpy(dst + at(b, t), src + at(b, t < len ? len - 1 - t : t), row);
    }
    return Status::Ok();
  }

 private:
  std::string label_;
  int64_t batch_axis_ = 1, time_axis_ = 0;
};

}  // namespace

Status RegisterTensorReverseSequenceKernels(sdk::Registrar& reg) {
  return reg.Kernel<ReverseSequenceKernel>("ReverseSequence", {"CPU", "", 0, {}});
}

}  // namespace cpu
}  // namespace loom
