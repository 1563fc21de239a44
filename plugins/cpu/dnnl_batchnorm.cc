// BatchNormalization (inference, float32) on oneDNN's
// batch_normalization_forward with global statistics, cached per shape.
#include "plugins/cpu/dnnl_common.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

// ONNX BatchNormalization-15, inference mode: for X [N, C, D...] (rank >= 2)
// and per-channel scale, B, input_mean, input_var (each [C]),
// Y = (X - input_mean) / sqrt(input_var + epsilon) * scale + B.
// momentum is accepted and unused. Errors: training_mode = 1 or a request
// for running_mean / running_var (UNIMPLEMENTED), X of rank < 2 or a
// per-channel input that is not [C] (INVALID_ARGUMENT).
class BatchNormKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("epsilon", &epsilon_));
    if (info.IntOr("training_mode", 0) != 0) {
      return sdk::Unimplemented(label_ + ": training_mode = 1 is not supported (inference only)");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    if (ctx.OutputRequested(1) || ctx.OutputRequested(2)) {
      return sdk::Unimplemented(label_ + ": outputs running_mean and running_var exist only in training mode, "
                                         "which is not supported");
    }
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    if (xs.size() < 2) return sdk::InvalidArgument(label_ + ": input X must be [N, C, D...]; found " + ShapeStr(xs));
    const int64_t N = xs[0], C = xs[1];
    static const char* const kNames[] = {"X", "scale", "B", "input_mean", "input_var"};
    for (size_t i = 1; i < 5; ++i) {
      Tensor t = ctx.Input(i);
      if (t.rank() != 1 || t.dim(0) != C) {
        return sdk::InvalidArgument(label_ + ": input " + kNames[i] + " must be [" + std::to_string(C) + "] (C of X " +
                                    ShapeStr(xs) + "); found " + ShapeStr(t.shape()));
      }
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, xs, &y));
    if (y.num_elements() == 0) return Status::Ok();
    // The op is per channel, so any rank is oneDNN's 3-D [N, C, S] with S
    // the product of the spatial dims.
    int64_t S = 1;
    for (size_t i = 2; i < xs.size(); ++i) S *= xs[i];
    const int threads = ctx.num_threads();
    const std::vector<int64_t> key = {N, C, S, threads};
    if (key != key_) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
        const memory::desc x_md = PlainDesc({N, C, S}), c_md = PlainDesc({C});
        dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_inference, x_md, epsilon_,
                                                  dnnl::normalization_flags::use_global_stats |
                                                      dnnl::normalization_flags::use_scale |
                                                      dnnl::normalization_flags::use_shift);
        prim_ = dnnl::batch_normalization_forward(dnnl::batch_normalization_forward::primitive_desc(d, DnnlEngine()));
        x_mem_ = UnboundMemory(x_md);
        y_mem_ = UnboundMemory(x_md);
        for (memory& m : c_mem_) m = UnboundMemory(c_md);
      }));
      key_ = key;
    }
    x_mem_.set_data_handle(x.raw_data());
    y_mem_.set_data_handle(y.raw_data());
    for (size_t i = 0; i < 4; ++i) c_mem_[i].set_data_handle(ctx.Input(i + 1).raw_data());
    return DnnlExecute(label_, prim_,
                       {{DNNL_ARG_SRC, x_mem_},
                        {DNNL_ARG_DST, y_mem_},
                        {DNNL_ARG_SCALE, c_mem_[0]},
                        {DNNL_ARG_SHIFT, c_mem_[1]},
                        {DNNL_ARG_MEAN, c_mem_[2]},
                        {DNNL_ARG_VARIANCE, c_mem_[3]}},
                       threads);
  }

 private:
  std::string label_;
  float epsilon_ = 1e-5f;
  std::vector<int64_t> key_;  // N, C, spatial size, threads of the cached primitive
  dnnl::batch_normalization_forward prim_;
  memory x_mem_, y_mem_, c_mem_[4];  // c_mem_: scale, B, input_mean, input_var
};

}  // namespace

sdk::Status RegisterDnnlBatchNormKernels(sdk::Registrar& reg) {
  return reg.Kernel<BatchNormKernel>("BatchNormalization", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}});
}

}  // namespace cpu
}  // namespace loom
