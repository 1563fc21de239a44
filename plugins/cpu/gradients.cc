// Kernels of the gradient ops the standard gradient makers emit
// (ops/gradients.cc): Accumulate, SumReduceLike, ReluGradient, SigmoidGradient,
// TanhGradient, FusedActivationGradient, GeluGradient, EluGradient,
// SoftmaxCrossEntropyLossGradient, NegativeLogLikelihoodLossGradient;
// float32 and float64, accumulating in double. The activations' float32
// gradients run oneDNN's eltwise backward (dnnl_eltwise_backward.h); their
// float64 loops are the reference (gradients_test.cc).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "plugins/cpu/dnnl_eltwise_backward.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "ops/semantics/activation.h"

namespace loom {
namespace cpu {
namespace {

const std::vector<LoomDataType> kFloats = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE};

// C [B's shape] = A summed over the dims along which B broadcasts to A.
class SumReduceLikeKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor a = ctx.Input(0), b = ctx.Input(1), c;
    const std::vector<int64_t> as = a.shape(), bs = b.shape();
    const size_t ra = as.size(), rb = bs.size();
    bool ok = rb <= ra;
    // B's stride along each dim of A (0 where B broadcasts).
    std::vector<int64_t> stride(ra, 0);
    int64_t s = 1;
    for (size_t k = 0; ok && k < rb; ++k) {
      const size_t bd = rb - 1 - k, ad = ra - 1 - k;
      ok = bs[bd] == as[ad] || bs[bd] == 1;
      stride[ad] = bs[bd] == 1 ? 0 : s;
      s *= bs[bd];
    }
    if (!ok) {
      return sdk::InvalidArgument(label_ + ": B " + ShapeStr(bs) + " does not broadcast to A " + ShapeStr(as));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, a.dtype(), bs, &c));
    if (a.dtype() == LOOM_DTYPE_FLOAT) Run<float>(a, as, stride, c);
    else Run<double>(a, as, stride, c);
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Run(const Tensor& a, const std::vector<int64_t>& as, const std::vector<int64_t>& stride, Tensor& c) {
    const int64_t n = a.num_elements(), m = c.num_elements();  // through the ABI: not per element
    const T* ap = a.data<T>();
    T* cp = c.data<T>();
    if (n == m) {  // nothing broadcast (B's extra dims are 1s): a copy
      std::copy(ap, ap + n, cp);
      return;
    }
    // B is A's trailing dims (the leading ones summed, e.g. a bias): rows
    // of A added up, in double.
    if (m > 0 && n % m == 0 && Trailing(as, stride, m)) {
      std::vector<double> acc(static_cast<size_t>(m), 0.0);
      for (int64_t r = 0; r < n / m; ++r) {
        const T* row = ap + r * m;
        for (int64_t j = 0; j < m; ++j) acc[j] += row[j];
      }
      for (int64_t j = 0; j < m; ++j) cp[j] = static_cast<T>(acc[j]);
      return;
    }
    std::vector<double> acc(static_cast<size_t>(m), 0.0);
    std::vector<int64_t> idx(as.size(), 0);
    int64_t off = 0;
    for (int64_t i = 0; i < n; ++i) {
      acc[off] += ap[i];
      for (size_t d = as.size(); d-- > 0;) {  // next index, row-major
        off += stride[d];
        if (++idx[d] < as[d]) break;
        off -= stride[d] * as[d];
        idx[d] = 0;
      }
    }
    for (size_t i = 0; i < acc.size(); ++i) cp[i] = static_cast<T>(acc[i]);
  }

  // True when B's m elements are A's trailing dims whole: B's strides are
  // A's row-major ones over a suffix of A's dims and 0 before it.
  static bool Trailing(const std::vector<int64_t>& as, const std::vector<int64_t>& stride, int64_t m) {
    int64_t s = 1;
    size_t d = as.size();
    while (d > 0 && s < m) {
      --d;
      if (stride[d] != s && as[d] != 1) return false;
      s *= as[d];
    }
    if (s != m) return false;
    for (size_t k = 0; k < d; ++k) {
      if (stride[k] != 0 && as[k] != 1) return false;
    }
    return true;
  }
};

// dX from dY and the forward output Y, element by element: float32 on
// oneDNN (the `use_dst_for_bwd` algorithms), float64 in the loops below.
enum class Act { kRelu, kSigmoid, kTanh };
template <Act kAct>
class ActivationGradientKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor dy, y, dx;
    LOOM_SDK_RETURN_IF_ERROR(ElementwiseGradientOperands(ctx, label_, "Y", &dy, &y, &dx));
    if (dy.dtype() == LOOM_DTYPE_FLOAT) return dnnl_.Run(ctx, label_, dy, y, dx);
    Run<double>(dy, y, dx, ctx.num_threads());
    return Status::Ok();
  }

 private:
  static dnnl::algorithm Algorithm() {
    using A = dnnl::algorithm;
    return kAct == Act::kRelu ? A::eltwise_relu_use_dst_for_bwd
           : kAct == Act::kSigmoid ? A::eltwise_logistic_use_dst_for_bwd
                                   : A::eltwise_tanh_use_dst_for_bwd;
  }
  DnnlEltwiseBackward dnnl_{Algorithm()};

  template <typename T>
  static void Run(const Tensor& dy, const Tensor& y, Tensor& dx, int threads) {
    const T *g = dy.data<T>(), *v = y.data<T>();
    T* out = dx.data<T>();
    const int64_t n = dy.num_elements();
    ParallelRange(n, n, threads, [&](int64_t lo, int64_t hi) { Chunk<T>(g + lo, v + lo, out + lo, hi - lo); });
  }

  // (Public: FusedActivationGradient's Relu runs it too.)
 public:
  // One contiguous chunk. ReluGradient loads dY unconditionally: written as
  // `v > 0 ? g[i] : 0` the load was conditional, so gcc kept a branch that
  // mispredicts on about half the elements instead of a vector select (99
  // ms of ResNet-18's training step at batch 8, 5 ns per element).
  template <typename T>
  static void Chunk(const T* g, const T* v, T* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const T gi = g[i];
      if (kAct == Act::kRelu) out[i] = v[i] > T(0) ? gi : T(0);
      if (kAct == Act::kSigmoid) out[i] = gi * v[i] * (T(1) - v[i]);
      if (kAct == Act::kTanh) out[i] = gi * (T(1) - v[i] * v[i]);
    }
  }
};

// FusedConv's activation backward: dX = dY * f'(X), f' read off Y
// (semantics::FusedActivation::DerivativeFromOutput).
class FusedActivationGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    std::string name;
    LOOM_SDK_RETURN_IF_ERROR(info.GetString("activation", &name));
    std::vector<float> params;
    for (const char* p : {"alpha", "beta"}) {
      if (info.Has(p)) params.push_back(info.FloatOr(p, 0.0f));
    }
    LOOM_SDK_RETURN_IF_ERROR(act_.Set(name, params, label_));
    if (!act_.HasDerivativeFromOutput()) {
      return sdk::Unimplemented(label_ + ": the derivative of " + name + " cannot be had from its output");
    }
    // oneDNN's use_dst algorithms for the kinds whose derivative at the
    // kinks is the one DerivativeFromOutput states (Relu and LeakyRelu take
    // alpha at Y <= 0); Clip and HardSigmoid run the loop.
    using A = dnnl::algorithm;
    using K = semantics::FusedActivation;
    switch (act_.kind) {
      case K::kRelu: dnnl_.emplace(A::eltwise_relu_use_dst_for_bwd); break;
      case K::kLeakyRelu: dnnl_.emplace(A::eltwise_relu_use_dst_for_bwd, act_.alpha); break;
      case K::kSigmoid: dnnl_.emplace(A::eltwise_logistic_use_dst_for_bwd); break;
      case K::kTanh: dnnl_.emplace(A::eltwise_tanh_use_dst_for_bwd); break;
      default: break;
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor dy, y, dx;
    LOOM_SDK_RETURN_IF_ERROR(ElementwiseGradientOperands(ctx, label_, "Y", &dy, &y, &dx));
    if (dy.dtype() == LOOM_DTYPE_FLOAT && dnnl_) {
      return dnnl_->Run(ctx, label_, dy, y, dx);
    }
    if (dy.dtype() == LOOM_DTYPE_FLOAT) Run<float>(dy, y, dx, ctx.num_threads());
    else Run<double>(dy, y, dx, ctx.num_threads());
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const Tensor& dy, const Tensor& y, Tensor& dx, int threads) const {
    const T *g = dy.data<T>(), *v = y.data<T>();
    T* out = dx.data<T>();
    const int64_t n = dy.num_elements();
    if (act_.kind == semantics::FusedActivation::kRelu) {  // the common case: ReluGradient's loop
      ParallelRange(n, n, threads, [&](int64_t lo, int64_t hi) {
        ActivationGradientKernel<Act::kRelu>::Chunk<T>(g + lo, v + lo, out + lo, hi - lo);
      });
      return;
    }
    ParallelRange(n, n, threads, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) out[i] = static_cast<T>(g[i] * act_.DerivativeFromOutput(v[i]));
    });
  }

  semantics::FusedActivation act_;
  std::optional<DnnlEltwiseBackward> dnnl_;
};

// Caffe2 Accumulate: Y = X + gamma * Y, Y's previous value read from the
// output blob as it stands (zeros unless it holds X's shape and dtype).
class AccumulateKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    return info.GetFloat("gamma", &gamma_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const LoomTensor* before = sdk::Api().Ctx_OutputHandle(ctx.handle(), 0);
    const Tensor prev(before);
    const bool holds = before != nullptr && prev.dtype() == x.dtype() && prev.shape() == x.shape();
    if (before != nullptr && !holds && prev.dtype() == x.dtype() && prev.num_elements() == x.num_elements() &&
        prev.num_elements() > 0) {
      // Same size, other shape (e.g. a link of the wrong rows): adding
      // nothing would silently drop what it holds.
      return sdk::InvalidArgument(label_ + ": the accumulator holds " + ShapeStr(prev.shape()) + "; X is " +
                                  ShapeStr(x.shape()));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    if (x.dtype() == LOOM_DTYPE_FLOAT) Run<float>(x, holds, y);
    else Run<double>(x, holds, y);
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const Tensor& x, bool holds, Tensor& y) const {
    const T* in = x.data<T>();
    T* out = y.data<T>();
    const T g = static_cast<T>(gamma_);
    const int64_t n = x.num_elements();
    if (holds && gamma_ == 1.0f) {
      for (int64_t i = 0; i < n; ++i) out[i] += in[i];
    } else if (holds) {
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] + g * out[i];
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = in[i];
    }
  }

  float gamma_ = 1.0f;
};

// GeluGradient(dY, X) -> dX: dY times Gelu-20's derivative at X, exact
// (Phi(x) + x phi(x)) or, with approximate = "tanh", that of the tanh form;
// float32 on oneDNN (eltwise_gelu_erf / eltwise_gelu_tanh).
class GeluGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    const std::string approx = info.StringOr("approximate", "none");
    if (approx != "none" && approx != "tanh") {
      return sdk::InvalidArgument(label_ + ": attribute 'approximate' must be \"none\" or \"tanh\"; found \"" + approx +
                                  "\"");
    }
    tanh_ = approx == "tanh";
    dnnl_.emplace(tanh_ ? dnnl::algorithm::eltwise_gelu_tanh : dnnl::algorithm::eltwise_gelu_erf);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor dy, x, dx;
    LOOM_SDK_RETURN_IF_ERROR(ElementwiseGradientOperands(ctx, label_, "X", &dy, &x, &dx));
    if (dy.dtype() == LOOM_DTYPE_FLOAT) return dnnl_->Run(ctx, label_, dy, x, dx);
    Run<double>(dy, x, dx, ctx.num_threads());
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(const Tensor& dy, const Tensor& x, Tensor& dx, int threads) const {
    const T *g = dy.data<T>(), *v = x.data<T>();
    T* out = dx.data<T>();
    const bool approx = tanh_;
    ParallelFor(dy.num_elements(), threads, [&](int64_t i) {
      const double a = static_cast<double>(v[i]);
      double d;
      if (approx) {
        const double k = 0.7978845608028654, c = 0.044715;  // sqrt(2 / pi)
        const double t = std::tanh(k * (a + c * a * a * a));
        d = 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * k * (1 + 3 * c * a * a);
      } else {
        d = 0.5 * (1 + std::erf(a * 0.7071067811865476)) + a * std::exp(-0.5 * a * a) * 0.3989422804014327;  // 1/sqrt(2 pi)
      }
      out[i] = static_cast<T>(static_cast<double>(g[i]) * d);
    });
  }

  bool tanh_ = false;
  std::optional<DnnlEltwiseBackward> dnnl_;
};

// EluGradient(dY, X) -> dX, the gradient of ONNX Elu-6: dY where X > 0,
// else dY * alpha * exp(X) (PyTorch's elu_backward from the input). From X,
// not Y: with a negative alpha, Y > 0 on both sides of 0. float32 on
// oneDNN's eltwise_elu backward.
class EluGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    alpha_ = info.FloatOr("alpha", 1.0f);
    dnnl_.emplace(dnnl::algorithm::eltwise_elu, alpha_);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor dy, x, dx;
    LOOM_SDK_RETURN_IF_ERROR(ElementwiseGradientOperands(ctx, label_, "X", &dy, &x, &dx));
    if (dy.dtype() == LOOM_DTYPE_FLOAT) return dnnl_->Run(ctx, label_, dy, x, dx);
    const double* g = dy.data<double>();
    const double* v = x.data<double>();
    double* out = dx.data<double>();
    const double alpha = alpha_;
    ParallelFor(dy.num_elements(), ctx.num_threads(),
                [&](int64_t i) { out[i] = v[i] > 0 ? g[i] : g[i] * alpha * std::exp(v[i]); });
    return Status::Ok();
  }

 private:
  float alpha_ = 1.0f;
  std::optional<DnnlEltwiseBackward> dnnl_;
};

// The gradient of NegativeLogLikelihoodLoss (kSoftmax false: X is its
// input) or SoftmaxCrossEntropyLoss (true: X is the log-probabilities) with
// respect to its input/scores, from dLoss, X [N, C, d...], the target
// [N, d...] and the optional weight [C]; the forward op's reduction and
// ignore_index. Per entry i of class k with weight w (0 if ignored):
//   NLL: dX[n, k, d] = -w g / Z;  SCE: dX[n, j, d] = (p_j - [j = k]) w g / Z,
// g the (per-entry, for "none") loss gradient and Z the sum of weights
// ("mean"), else 1.
template <bool kSoftmax>
class LossGradientKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    has_ignore_ = info.Has("ignore_index");
    ignore_ = info.IntOr("ignore_index", 0);
    reduction_ = info.StringOr("reduction", "mean");
    if (reduction_ != "none" && reduction_ != "sum" && reduction_ != "mean") {
      return sdk::InvalidArgument(label_ + ": attribute 'reduction' is '" + reduction_ + "'; expected none, sum or mean");
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor dy = ctx.Input(0), x = ctx.Input(1), target = ctx.Input(2), weight = ctx.Input(3), dx;
    const std::vector<int64_t> xs = x.shape();
    std::vector<int64_t> ts = xs;
    if (xs.size() >= 2) ts.erase(ts.begin() + 1);
    if (xs.size() < 2 || target.shape() != ts) {
      return sdk::InvalidArgument(label_ + ": X " + ShapeStr(xs) + " and target " + ShapeStr(target.shape()) +
                                  " do not match ([N, C, d...] and [N, d...])");
    }
    if (target.dtype() != LOOM_DTYPE_INT32 && target.dtype() != LOOM_DTYPE_INT64) {
      return sdk::InvalidArgument(label_ + ": target must be int32 or int64; found " + sdk::DTypeName(target.dtype()));
    }
    const int64_t c = xs[1], d = semantics::Product(xs, 2, xs.size()), m = target.num_elements();
    if (weight.present() && (weight.shape() != std::vector<int64_t>{c} || weight.dtype() != x.dtype())) {
      return sdk::InvalidArgument(label_ + ": weight must be " + sdk::DTypeName(x.dtype()) + " [" + std::to_string(c) +
                                  "]; found " + sdk::DTypeName(weight.dtype()) + ShapeStr(weight.shape()));
    }
    if (dy.dtype() != x.dtype()) {
      return sdk::InvalidArgument(label_ + ": dLoss must be " + sdk::DTypeName(x.dtype()) + "; found " +
                                  sdk::DTypeName(dy.dtype()));
    }
    const bool none = reduction_ == "none";
    if (none ? dy.num_elements() != m : dy.num_elements() != 1) {
      return sdk::InvalidArgument(label_ + ": dLoss " + ShapeStr(dy.shape()) + " does not match reduction " + reduction_);
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs, &dx));
    if (x.num_elements() == 0) return Status::Ok();  // d or C is 0: nothing to write
    if (x.dtype() == LOOM_DTYPE_FLOAT) return Run<float>(dy, x, target, weight, c, d, m, dx);
    return Run<double>(dy, x, target, weight, c, d, m, dx);
  }

 private:
  template <typename T>
  Status Run(const Tensor& dy, const Tensor& x, const Tensor& target, const Tensor& weight, int64_t c, int64_t d,
             int64_t m, Tensor& dx) {
    std::vector<int64_t> cls(m);
    std::vector<double> w(m);
    double z = 0;
    for (int64_t i = 0; i < m; ++i) {
      cls[i] = target.dtype() == LOOM_DTYPE_INT32 ? target.data<int32_t>()[i] : target.data<int64_t>()[i];
      const bool ignored = has_ignore_ && cls[i] == ignore_;
      if (!ignored && (cls[i] < 0 || cls[i] >= c)) {
        return sdk::InvalidArgument(label_ + ": target has value " + std::to_string(cls[i]) + " at flat index " +
                                    std::to_string(i) + "; expected [0, " + std::to_string(c) + ")");
      }
      w[i] = ignored ? 0.0 : weight.present() ? static_cast<double>(weight.data<T>()[cls[i]]) : 1.0;
      z += w[i];
    }
    const double scale = reduction_ == "mean" ? (z != 0 ? 1.0 / z : 0.0) : 1.0;
    const bool none = reduction_ == "none";
    const T* xp = x.data<T>();
    T* out = dx.data<T>();
    for (int64_t i = 0; i < m; ++i) {
      const double g = static_cast<double>(dy.data<T>()[none ? i : 0]) * w[i] * scale;
      const int64_t base = (i / d) * c * d + i % d;
      for (int64_t j = 0; j < c; ++j) {
        const bool hit = j == cls[i] && w[i] != 0;
        const double v = kSoftmax ? (std::exp(static_cast<double>(xp[base + j * d])) - (j == cls[i] ? 1.0 : 0.0)) * g
                                  : (hit ? -g : 0.0);
        out[base + j * d] = static_cast<T>(v);
      }
    }
    return Status::Ok();
  }

  bool has_ignore_ = false;
  int64_t ignore_ = 0;
  std::string reduction_;
};

}  // namespace

Status RegisterGradientKernels(sdk::Registrar& reg) {
  const sdk::KernelOptions loss{"CPU", "", 0, {{"T", kFloats}}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<LossGradientKernel<true>>("SoftmaxCrossEntropyLossGradient", loss));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<LossGradientKernel<false>>("NegativeLogLikelihoodLossGradient", loss));
  const sdk::KernelOptions opts{"CPU", "", 0, {{"T", kFloats}}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<SumReduceLikeKernel>("SumReduceLike", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ActivationGradientKernel<Act::kRelu>>("ReluGradient", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<ActivationGradientKernel<Act::kSigmoid>>("SigmoidGradient", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<GeluGradientKernel>("GeluGradient", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<EluGradientKernel>("EluGradient", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<FusedActivationGradientKernel>("FusedActivationGradient", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<AccumulateKernel>("Accumulate", opts));
  return reg.Kernel<ActivationGradientKernel<Act::kTanh>>("TanhGradient", opts);
}

}  // namespace cpu
}  // namespace loom
