// ReorderInput and ReorderOutput (ops/nn_nchwc.cc): plain NCHW float32 to
// oneDNN's nChw<b>c or channels-last nhwc and back (ReorderInput also from
// one blocked layout to another), by oneDNN reorders cached per shape.
// NchwcConv's kernel is Conv's (nn_conv.cc).
#include <string>
#include <vector>

#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

// ToBlocked: X [N, C, H, W] or blocked [N, C / a, H, W, a] -> Y [N, C / b,
// H, W, b] (b = C for block 0, channels-last); otherwise blocked X to plain.
template <bool ToBlocked>
class ReorderKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    if (ToBlocked) {
      LOOM_SDK_RETURN_IF_ERROR(info.GetInt("block", &block_));
      if (block_ != 0 && block_ != 8 && block_ != 16) {
        return sdk::InvalidArgument(label_ + ": block must be 8, 16 or 0 (channels-last); found " + std::to_string(block_));
      }
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    std::vector<int64_t> plain, ys;
    int64_t from_block = 0, to_block = 0;  // 0: plain NCHW
    if (ToBlocked) {
      if (xs.size() == 5 && IsBlockedShape(xs)) {  // re-blocking
        from_block = xs[4];
        plain = {xs[0], xs[1] * xs[4], xs[2], xs[3]};
      } else if (xs.size() == 4) {
        plain = xs;
      } else {
        return sdk::InvalidArgument(label_ + ": X must be [N, C, H, W] or blocked [N, C / b, H, W, b]; found " + ShapeStr(xs));
      }
      to_block = block_ > 0 ? block_ : plain[1];
      if (to_block <= 0 || plain[1] % to_block != 0) {
        return sdk::InvalidArgument(label_ + ": X has C = " + std::to_string(plain[1]) + " channels; expected a positive "
                                    "multiple of block " + std::to_string(to_block));
      }
      ys = {plain[0], plain[1] / to_block, plain[2], plain[3], to_block};
    } else {
      if (!IsBlockedShape(xs)) {
        return sdk::InvalidArgument(label_ + ": X must be blocked [N, C / b, H, W, b] with b 8, 16 or C; found " + ShapeStr(xs));
      }
      from_block = xs[4];
      plain = ys = {xs[0], xs[1] * xs[4], xs[2], xs[3]};
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys, &y));
    if (y.num_elements() == 0) return Status::Ok();
    // Primitives are built for a thread count (dnnl_common.h): rebuilt when
    // it changes too.
    if (plain != plain_ || from_block != built_from_ || to_block != built_to_ || ctx.num_threads() != threads_) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, ctx.num_threads(), [&] {
        from_ = UnboundMemory(from_block ? BlockedDesc(plain, from_block) : PlainDesc(plain));
        to_ = UnboundMemory(to_block ? BlockedDesc(plain, to_block) : PlainDesc(plain));
        reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(DnnlEngine(), from_.get_desc(), DnnlEngine(), to_.get_desc()));
      }));
      plain_ = plain;
      built_from_ = from_block;
      built_to_ = to_block;
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
  int64_t built_from_ = -1, built_to_ = -1;  // the blocks it was made for (0: plain)
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
