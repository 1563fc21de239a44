// CPU kernels of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
// (ONNX opset 12/13; schemas in ops/nn_loss.cc).
//
// Both losses see the scores as [N, C, D] (D the product of d1..dk, 1 for
// [N, C]) and the target as [N, D]. SoftmaxCrossEntropyLoss first turns the
// scores into log-probabilities over C, then is the same NLL loss.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {

namespace {

// The loss computes in double for float32/float64 and in float for the
// 16-bit types' log-softmax; the reductions always sum in double.
template <typename S> using Calc = std::conditional_t<std::is_same_v<S, double>, double, float>;

// NegativeLogLikelihoodLoss (kSoftmax false) and SoftmaxCrossEntropyLoss
// (kSoftmax true) over float32/float64/float16/bfloat16 scores and int32 or
// int64 targets. Errors: scores of rank < 2, a target whose shape is not the
// scores' without dim 1, a weight that is not [C], a target value outside
// [0, C) that is not ignore_index, an unknown reduction.
template <bool kSoftmax>
class LossKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    has_ignore_ = info.Has("ignore_index");
    ignore_ = info.IntOr("ignore_index", 0);
    const std::string r = info.StringOr("reduction", "mean");
    if (r == "none") reduction_ = kNone;
    else if (r == "sum") reduction_ = kSum;
    else if (r == "mean") reduction_ = kMean;
    else return sdk::InvalidArgument(label_ + ": attribute 'reduction' is '" + r + "'; expected none, sum or mean");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), target = ctx.Input(1), weight = ctx.Input(2);
    const char* xname = kSoftmax ? "scores" : "input";
    const char* tname = kSoftmax ? "labels" : "target";
    const char* wname = kSoftmax ? "weights" : "weight";
    const std::vector<int64_t> xs = x.shape(), ts = target.shape();
    if (xs.size() < 2) {
      return sdk::InvalidArgument(label_ + ": input '" + xname + "' must have rank >= 2 ([N, C, d1, ...]); found " +
                                  ShapeStr(xs));
    }
    std::vector<int64_t> expect_t = xs;
    expect_t.erase(expect_t.begin() + 1);
    if (ts != expect_t) {
      return sdk::InvalidArgument(label_ + ": input '" + tname + "' must have shape " + ShapeStr(expect_t) +
                                  " (the " + xname + "' without dim 1); found " + ShapeStr(ts));
    }
    if (target.dtype() != LOOM_DTYPE_INT32 && target.dtype() != LOOM_DTYPE_INT64) {
      return sdk::InvalidArgument(label_ + ": input '" + tname + "' must be int32 or int64; found " +
                                  sdk::DTypeName(target.dtype()));
    }
    const int64_t n = xs[0], c = xs[1], d = Product(xs, 2, xs.size());
    if (weight.present() && (weight.shape() != std::vector<int64_t>{c} || weight.dtype() != x.dtype())) {
      return sdk::InvalidArgument(label_ + ": input '" + wname + "' must be " + sdk::DTypeName(x.dtype()) + " [" +
                                  std::to_string(c) + "]; found " + sdk::DTypeName(weight.dtype()) +
                                  ShapeStr(weight.shape()));
    }
    // The class of every target entry, checked before anything is written.
    const int64_t m = n * d;
    std::vector<int64_t> cls(m);
    for (int64_t i = 0; i < m; ++i) {
      cls[i] = target.dtype() == LOOM_DTYPE_INT32 ? target.data<int32_t>()[i] : target.data<int64_t>()[i];
      if (has_ignore_ && cls[i] == ignore_) {
        cls[i] = -1;  // ignored: no loss, no weight
      } else if (cls[i] < 0 || cls[i] >= c) {
        return sdk::InvalidArgument(label_ + ": input '" + tname + "' has value " + std::to_string(cls[i]) +
                                    " at flat index " + std::to_string(i) + "; expected [0, " + std::to_string(c) +
                                    ")" + (has_ignore_ ? " or ignore_index " + std::to_string(ignore_) : ""));
      }
    }
    return DispatchFloat(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      return Run<S>(ctx, x, weight, cls, n, c, d);
    });
  }

 private:
  enum Reduction { kNone, kSum, kMean };

  template <typename S>
  Status Run(KernelContext& ctx, const Tensor& x, const Tensor& weight, const std::vector<int64_t>& cls, int64_t n,
             int64_t c, int64_t d) {
    using C = Calc<S>;
    const S* in = x.data<S>();
    const int64_t m = n * d;
    // Log-probabilities [N, C, D]: the input itself for NLL; the log-softmax
    // over C (max-shifted for stability) for SCE.
    std::vector<C> logp;
    if (kSoftmax) {
      logp.resize(x.num_elements());
      ParallelFor(m, ctx.num_threads(), [&](int64_t line) {
        const int64_t base = (line / d) * c * d + line % d;
        C mx = -std::numeric_limits<C>::infinity();
        for (int64_t j = 0; j < c; ++j) mx = std::max(mx, static_cast<C>(Num<S>::Load(in[base + j * d])));
        C sum = 0;
        for (int64_t j = 0; j < c; ++j) sum += std::exp(static_cast<C>(Num<S>::Load(in[base + j * d])) - mx);
        const C lse = mx + std::log(sum);
        for (int64_t j = 0; j < c; ++j) logp[base + j * d] = static_cast<C>(Num<S>::Load(in[base + j * d])) - lse;
      }, c * 3);
      if (ctx.OutputRequested(1)) {
        Tensor lp;
        LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, x.dtype(), x.shape(), &lp));
        S* o = lp.data<S>();
        for (size_t i = 0; i < logp.size(); ++i) o[i] = Num<S>::Store(static_cast<typename Num<S>::C>(logp[i]));
      }
    }
    auto lp_at = [&](int64_t i) -> double {
      return kSoftmax ? static_cast<double>(logp[i]) : static_cast<double>(Num<S>::Load(in[i]));
    };
    const S* w = weight.present() ? weight.data<S>() : nullptr;
    // Per entry: loss = -logp[n, cls, d] * w[cls] and its weight (0 if ignored).
    std::vector<double> loss(m), wt(m);
    for (int64_t i = 0; i < m; ++i) {
      if (cls[i] < 0) { loss[i] = 0; wt[i] = 0; continue; }
      wt[i] = w ? static_cast<double>(Num<S>::Load(w[cls[i]])) : 1.0;
      const double v = -lp_at((i / d) * c * d + cls[i] * d + i % d) * wt[i];
      loss[i] = v == 0 ? 0.0 : v;  // no -0 for zero weights
    }
    Tensor out;
    if (reduction_ == kNone) {
      std::vector<int64_t> ts = x.shape();
      ts.erase(ts.begin() + 1);
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), ts, &out));
      S* o = out.data<S>();
      for (int64_t i = 0; i < m; ++i) o[i] = Num<S>::Store(static_cast<typename Num<S>::C>(loss[i]));
      return Status::Ok();
    }
    double sum = 0, wsum = 0;
    for (int64_t i = 0; i < m; ++i) { sum += loss[i]; wsum += wt[i]; }
    // mean over no weight at all is 0/0 = NaN, as in the ONNX reference.
    const double r = reduction_ == kSum ? sum : sum / wsum;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), std::vector<int64_t>{}, &out));
    out.data<S>()[0] = Num<S>::Store(static_cast<typename Num<S>::C>(r));
    return Status::Ok();
  }

  std::string label_;
  bool has_ignore_ = false;
  int64_t ignore_ = 0;
  Reduction reduction_ = kMean;
};

}  // namespace

sdk::Status RegisterNnLossKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> floats = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_FLOAT16,
                                            LOOM_DTYPE_BFLOAT16};
  const std::vector<LoomDataType> ind = {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<LossKernel<false>>(
      "NegativeLogLikelihoodLoss", {"CPU", "", 0, {{"T", floats}, {"Tind", ind}}}));
  return reg.Kernel<LossKernel<true>>(
      "SoftmaxCrossEntropyLoss", {"CPU", "", 0, {{"T", floats}, {"Tind", ind}}});
}

}  // namespace cpu
}  // namespace loom
