// ReorderInput and ReorderOutput (ops/nn_nchwc.cc): plain NCHW float32 to
// oneDNN's nChw<b>c and back, by oneDNN reorders cached per shape.
// NchwcConv's kernel is Conv's (nn_conv.cc).
#include <string>
#include <vector>

#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

// ToBlocked: X [N, C, H, W] -> Y [N, C / b, H, W, b]; otherwise the reverse.
template <bool ToBlocked>
class ReorderKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    if (ToBlocked) {
      LOOM_SDK_RETURN_IF_ERROR(info.GetInt("block", &block_));
      if (block_ != 8 && block_ != 16) {
        return sdk::InvalidArgument(label_ + ": block must be 8 or 16; found " + std::to_string(block_));
      }
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    std::vector<int64_t> plain, ys;
    if (ToBlocked) {
      if (xs.size() != 4 || xs[1] % block_ != 0) {
        return sdk::InvalidArgument(label_ + ": X must be [N, C, H, W] with C a multiple of " + std::to_string(block_) +
                                    "; found " + ShapeStr(xs));
      }
      plain = xs;
      ys = {xs[0], xs[1] / block_, xs[2], xs[3], block_};
    } else {
      if (xs.size() != 5 || (xs[4] != 8 && xs[4] != 16)) {
        return sdk::InvalidArgument(label_ + ": X must be blocked [N, C / b, H, W, b] with b 8 or 16; found " + ShapeStr(xs));
      }
      plain = ys = {xs[0], xs[1] * xs[4], xs[2], xs[3]};
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    const int64_t block = ToBlocked ? block_ : xs[4];
    // Primitives are built for a thread count (dnnl_common.h): rebuilt when
    // it changes too.
    if (plain != plain_ || block != built_block_ || ctx.num_threads() != threads_) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, ctx.num_threads(), [&] {
        const dnnl::memory::desc p = PlainDesc(plain), b = BlockedDesc(plain, block);
        from_ = UnboundMemory(ToBlocked ? p : b);
        to_ = UnboundMemory(ToBlocked ? b : p);
        reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), from_.get_desc(), DnnlEngine(), to_.get_desc()));
      }));
      plain_ = plain;
      built_block_ = block;
      threads_ = ctx.num_threads();
    }
    from_.set_data_handle(x.raw_data());
    to_.set_data_handle(y.raw_data());
    return DnnlExecute(label_, reorder_, {{DNNL_ARG_FROM, from_}, {DNNL_ARG_TO, to_}}, ctx.num_threads());
  }

 private:
  std::string label_;
  int64_t block_ = 0;
  std::vector<int64_t> plain_;  // the plain shape the reorder was made for
  int64_t built_block_ = 0;
  int threads_ = 0;
  dnnl::memory from_, to_;
  dnnl::reorder reorder_;
};

}  // namespace

sdk::Status RegisterNnNchwcKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ReorderKernel<true>>("ReorderInput", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}}));
  return reg.Kernel<ReorderKernel<false>>("ReorderOutput", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}});
}

}  // namespace cpu
}  // namespace loom
