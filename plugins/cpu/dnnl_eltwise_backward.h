// oneDNN's eltwise backward over a whole float32 tensor: dX = dY * f'(.),
// f' read off the forward's output Y (the `*_use_dst_for_bwd` algorithms)
// or its input X. The gradient kernels of the activations (gradients.cc:
// ReluGradient, SigmoidGradient, TanhGradient, GeluGradient, EluGradient,
// FusedActivationGradient) run it for float32; their float64 loops stay as
// the reference the tests hold it to.
#ifndef LOOM_PLUGINS_CPU_DNNL_ELTWISE_BACKWARD_H_
#define LOOM_PLUGINS_CPU_DNNL_ELTWISE_BACKWARD_H_

#include <string>
#include <unordered_map>

#include "plugins/cpu/dnnl_common.h"

namespace loom {
namespace cpu {

class DnnlEltwiseBackward {
 public:
  // `alg` and its `alpha`, `beta` as oneDNN defines them (e.g.
  // eltwise_relu_use_dst_for_bwd with alpha = LeakyRelu's slope).
  DnnlEltwiseBackward(dnnl::algorithm alg, float alpha = 0.0f, float beta = 0.0f)
      : alg_(alg), alpha_(alpha), beta_(beta) {}

  // dx[i] = dy[i] * f'(v[i]) for n elements; `v` is Y for a use_dst
  // algorithm, X otherwise. Any layout: the three buffers are read as one
  // run of n floats. Errors: oneDNN's (UNIMPLEMENTED / INTERNAL), naming
  // `label`.
  // The same over float32 tensors of one size (the gradient kernels check
  // the operands first: ElementwiseGradientOperands).
  Status Run(sdk::KernelContext& ctx, const std::string& label, const sdk::Tensor& dy, const sdk::Tensor& v,
             sdk::Tensor& dx) {
    return Run(ctx, label, dy.data<float>(), v.data<float>(), dx.data<float>(), dy.num_elements());
  }

  Status Run(sdk::KernelContext& ctx, const std::string& label, const float* dy, const float* v, float* dx, int64_t n) {
    if (n == 0) return Status::Ok();
    const int threads = DnnlThreadsFor(n, ctx.num_threads());
    if (n != n_ || threads != threads_) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label, threads, [&] {
        const dnnl::memory::desc md({n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
        const dnnl::eltwise_forward::primitive_desc hint(
            dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, alg_, md, alpha_, beta_), DnnlEngine());
        const dnnl::eltwise_backward::primitive_desc pd(dnnl::eltwise_backward::desc(alg_, md, md, alpha_, beta_),
                                                        UserScratchpad(), DnnlEngine(), hint);
        prim_ = dnnl::eltwise_backward(pd);
        dy_ = UnboundMemory(md), v_ = UnboundMemory(md), dx_ = UnboundMemory(md);
        scratchpad_.Reset(pd.scratchpad_desc());
      }));
      n_ = n, threads_ = threads;
    }
    dy_.set_data_handle(const_cast<float*>(dy));
    v_.set_data_handle(const_cast<float*>(v));
    dx_.set_data_handle(dx);
    const bool from_dst = alg_ == dnnl::algorithm::eltwise_relu_use_dst_for_bwd ||
                          alg_ == dnnl::algorithm::eltwise_logistic_use_dst_for_bwd ||
                          alg_ == dnnl::algorithm::eltwise_tanh_use_dst_for_bwd ||
                          alg_ == dnnl::algorithm::eltwise_elu_use_dst_for_bwd;
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_DIFF_DST, dy_}, {from_dst ? DNNL_ARG_DST : DNNL_ARG_SRC, v_}, {DNNL_ARG_DIFF_SRC, dx_}};
    LOOM_SDK_RETURN_IF_ERROR(scratchpad_.Bind(ctx, &args));
    return DnnlExecute(label, prim_, args, threads);
  }

 private:
  dnnl::algorithm alg_;
  float alpha_, beta_;
  int64_t n_ = -1;
  int threads_ = 0;
  dnnl::eltwise_backward prim_;
  dnnl::memory dy_, v_, dx_;
  DnnlScratchpad scratchpad_;
};

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_DNNL_ELTWISE_BACKWARD_H_
