// The backward half of a convolution-like op on oneDNN, shared by
// ConvGradient (nn_conv_gradient.cc) and ConvTransposeGradient
// (nn_conv_transpose_gradient.cc): the backward_weights primitive (dW, and
// dB when it computes it) and the backward_data one (dX), their operands
// (reorders between the tensors' plain layouts and the primitives' through
// per-call scratch) and user-managed scratchpads. The kernels describe the
// primitives; this runs them.
#ifndef LOOM_PLUGINS_CPU_NN_CONV_BACKWARD_H_
#define LOOM_PLUGINS_CPU_NN_CONV_BACKWARD_H_

#include <string>
#include <unordered_map>

#include "plugins/cpu/dnnl_common.h"

namespace loom {
namespace cpu {

class DnnlConvBackward {
 public:
  // From the primitive descriptors (`data` null: dX is not computed) and the
  // tensors' plain layouts: X, W, dY (or the window of dY the primitives
  // read) and B. `bias`: the weights primitive computes dB.
  void Build(const dnnl::primitive_desc& weights, const dnnl::primitive_desc* data, const dnnl::memory::desc& x_md,
             const dnnl::memory::desc& w_md, const dnnl::memory::desc& dy_md, const dnnl::memory::desc& b_md,
             bool bias) {
    using q = dnnl::query;
    weights_ = dnnl::primitive(weights);
    weights_scratchpad_.Reset(weights.query_md(q::scratchpad_md));
    x_.Make(x_md, weights.query_md(q::src_md), /*input=*/true);
    dy_w_.Make(dy_md, weights.query_md(q::diff_dst_md), /*input=*/true);
    dw_.Make(w_md, weights.query_md(q::diff_weights_md), /*input=*/false);
    bias_ = bias;
    db_.Make(b_md, bias ? weights.query_md(q::diff_weights_md, 1) : b_md, /*input=*/false);
    has_data_ = data != nullptr;
    if (!has_data_) return;
    data_ = dnnl::primitive(*data);
    data_scratchpad_.Reset(data->query_md(q::scratchpad_md));
    // dY is reordered once when both primitives read the same layout.
    dy_same_ = data->query_md(q::diff_dst_md) == weights.query_md(q::diff_dst_md);
    dy_d_.Make(dy_md, data->query_md(q::diff_dst_md), /*input=*/true);
    w_.Make(w_md, data->query_md(q::weights_md), /*input=*/true);
    dx_.Make(x_md, data->query_md(q::diff_src_md), /*input=*/false);
  }

  // dW (and dB when the weights primitive computes it) from X and dY, then
  // dX from dY and W when Build had a data primitive.
  Status Run(sdk::KernelContext& ctx, const std::string& label, int threads, const sdk::Tensor& x,
             const sdk::Tensor& w, const sdk::Tensor& dy, sdk::Tensor& dw, sdk::Tensor& db, sdk::Tensor& dx) {
    dnnl::memory src, diff_dst, diff_weights, diff_bias;
    LOOM_SDK_RETURN_IF_ERROR(x_.Bind(ctx, x.raw_data(), &src));
    LOOM_SDK_RETURN_IF_ERROR(dy_w_.Bind(ctx, dy.raw_data(), &diff_dst));
    LOOM_SDK_RETURN_IF_ERROR(dw_.Bind(ctx, dw.raw_data(), &diff_weights));
    LOOM_SDK_RETURN_IF_ERROR(x_.ReorderIn(label, threads));
    LOOM_SDK_RETURN_IF_ERROR(dy_w_.ReorderIn(label, threads));
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_DIFF_WEIGHTS, diff_weights}};
    if (bias_) {
      LOOM_SDK_RETURN_IF_ERROR(db_.Bind(ctx, db.raw_data(), &diff_bias));
      args[DNNL_ARG_DIFF_BIAS] = diff_bias;
    }
    LOOM_SDK_RETURN_IF_ERROR(weights_scratchpad_.Bind(ctx, &args));
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label, weights_, args, threads));
    LOOM_SDK_RETURN_IF_ERROR(dw_.ReorderOut(label, threads));
    if (bias_) LOOM_SDK_RETURN_IF_ERROR(db_.ReorderOut(label, threads));
    if (!has_data_) return Status::Ok();
    dnnl::memory weights, diff_src, dy_d = diff_dst;
    if (!dy_same_) {
      LOOM_SDK_RETURN_IF_ERROR(dy_d_.Bind(ctx, dy.raw_data(), &dy_d));
      LOOM_SDK_RETURN_IF_ERROR(dy_d_.ReorderIn(label, threads));
    }
    LOOM_SDK_RETURN_IF_ERROR(w_.Bind(ctx, w.raw_data(), &weights));
    LOOM_SDK_RETURN_IF_ERROR(w_.ReorderIn(label, threads));
    LOOM_SDK_RETURN_IF_ERROR(dx_.Bind(ctx, dx.raw_data(), &diff_src));
    std::unordered_map<int, dnnl::memory> dargs = {
        {DNNL_ARG_DIFF_DST, dy_d}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DIFF_SRC, diff_src}};
    LOOM_SDK_RETURN_IF_ERROR(data_scratchpad_.Bind(ctx, &dargs));
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label, data_, dargs, threads));
    return dx_.ReorderOut(label, threads);
  }

 private:
  dnnl::primitive weights_, data_;
  DnnlScratchpad weights_scratchpad_, data_scratchpad_;
  DnnlOperand x_, dy_w_, dw_, db_;  // backward weights: X, dY in; dW, dB out
  DnnlOperand dy_d_, w_, dx_;       // backward data: dY, W in; dX out
  bool bias_ = false, has_data_ = false, dy_same_ = false;
};

}  // namespace cpu
}  // namespace loom

#endif  // LOOM_PLUGINS_CPU_NN_CONV_BACKWARD_H_
