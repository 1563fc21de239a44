// CPU kernels of the optimizers (ops/training.cc: ONNX
// ai.onnx.preview.training Adagrad, Momentum, Adam), float32 and float64,
// computing in double. Each output may be its input's blob (a training net
// updating parameters and states in place): every element is read before
// it is written.
#include <cmath>
#include <string>
#include <vector>

#include "plugins/cpu/kernels.h"
#include "ops/semantics/optimizer.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

enum class Opt { kAdagrad, kMomentum, kAdam };

template <Opt kOpt>
class OptimizerKernel : public LabeledKernel {
 public:
  static constexpr int kStates = kOpt == Opt::kAdam ? 2 : 1;

  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    if (kOpt == Opt::kAdagrad) {
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("decay_factor", &decay_));
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("epsilon", &epsilon_));
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("norm_coefficient", &norm_));
    } else if (kOpt == Opt::kMomentum) {
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("alpha", &alpha_));
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("beta", &beta_));
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("norm_coefficient", &norm_));
      std::string mode;
      LOOM_SDK_RETURN_IF_ERROR(info.GetString("mode", &mode));
      if (mode != "standard" && mode != "nesterov") {
        return sdk::InvalidArgument(label_ + ": attribute 'mode' is '" + mode + "'; expected standard or nesterov");
      }
      nesterov_ = mode == "nesterov";
    } else {
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("alpha", &alpha_));
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("beta", &beta_));
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("epsilon", &epsilon_));
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("norm_coefficient", &norm_));
      LOOM_SDK_RETURN_IF_ERROR(info.GetFloat("norm_coefficient_post", &norm_post_));
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    const size_t groups = 2 + kStates, inputs = ctx.num_inputs();
    const semantics::OptimizerLayout layout(inputs, ctx.num_outputs(), kStates);
    if (!layout.valid) {
      return sdk::InvalidArgument(label_ + ": expected R, T, then " + std::to_string(groups) +
                                  " groups of n tensors and " + std::to_string(1 + kStates) + " groups of n outputs; found " +
                                  std::to_string(inputs) + " inputs and " + std::to_string(ctx.num_outputs()) + " outputs");
    }
    Tensor r = ctx.Input(0), t = ctx.Input(1);
    if (r.num_elements() != 1 || t.num_elements() != 1) {
      return sdk::InvalidArgument(label_ + ": R and T must be scalars; found " + ShapeStr(r.shape()) + " and " +
                                  ShapeStr(t.shape()));
    }
    const double rate = r.dtype() == LOOM_DTYPE_FLOAT ? r.data<float>()[0] : r.data<double>()[0];
    const int64_t step = t.data<int64_t>()[0];
    for (size_t i = 0; i < layout.n; ++i) {
      std::vector<Tensor> in;  // X, G, states
      for (size_t g = 0; g < groups; ++g) in.push_back(ctx.Input(layout.Input(g, i)));
      for (size_t g = 1; g < groups; ++g) {
        if (in[g].shape() != in[0].shape() || in[g].dtype() != in[0].dtype()) {
          return sdk::InvalidArgument(label_ + ": input " + std::to_string(layout.Input(g, i)) + " is " +
                                      sdk::DTypeName(in[g].dtype()) + ShapeStr(in[g].shape()) + "; expected " +
                                      sdk::DTypeName(in[0].dtype()) + ShapeStr(in[0].shape()) + " like its X");
        }
      }
      // Pointers first (an output may be its input's blob), then outputs.
      std::vector<Tensor> out(1 + kStates);
      for (size_t g = 0; g <= static_cast<size_t>(kStates); ++g) {
        LOOM_SDK_RETURN_IF_ERROR(ctx.Output(layout.Output(g, i), in[0].dtype(), in[0].shape(), &out[g]));
      }
      if (in[0].dtype() == LOOM_DTYPE_FLOAT) Update<float>(rate, step, in, out, ctx.num_threads());
      else Update<double>(rate, step, in, out, ctx.num_threads());
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Update(double rate, int64_t step, const std::vector<Tensor>& in, std::vector<Tensor>& out, int threads) const {
    const T *x = in[0].data<T>(), *g = in[1].data<T>(), *s1 = in[2].data<T>();
    const T* s2 = kStates > 1 ? in[3].data<T>() : nullptr;
    T *xo = out[0].data<T>(), *o1 = out[1].data<T>();
    T* o2 = kStates > 1 ? out[2].data<T>() : nullptr;
    const double a = alpha_, b = beta_, eps = epsilon_, nc = norm_;
    const double adagrad_r = rate / (1.0 + static_cast<double>(step) * decay_);
    const double momentum_b = step > 0 ? b : 1.0;
    const double adam_r = step > 0 ? rate * std::sqrt(1.0 - std::pow(b, static_cast<double>(step))) /
                                         (1.0 - std::pow(a, static_cast<double>(step)))
                                   : rate;
    ParallelFor(in[0].num_elements(), threads, [&](int64_t i) {
      const double xv = x[i], gr = nc * xv + static_cast<double>(g[i]);
      if (kOpt == Opt::kAdagrad) {
        const double h = static_cast<double>(s1[i]) + gr * gr;
        o1[i] = static_cast<T>(h);
        xo[i] = static_cast<T>(xv - adagrad_r * gr / (std::sqrt(h) + eps));
      } else if (kOpt == Opt::kMomentum) {
        const double v = a * static_cast<double>(s1[i]) + momentum_b * gr;
        o1[i] = static_cast<T>(v);
        xo[i] = static_cast<T>(nesterov_ ? xv - rate * (gr + a * v) : xv - rate * v);
      } else {
        const double v = a * static_cast<double>(s1[i]) + (1.0 - a) * gr;
        const double h = b * static_cast<double>(s2[i]) + (1.0 - b) * gr * gr;
        o1[i] = static_cast<T>(v);
        o2[i] = static_cast<T>(h);
        xo[i] = static_cast<T>((1.0 - norm_post_) * (xv - adam_r * v / (std::sqrt(h) + eps)));
      }
    });
  }

  float decay_ = 0, epsilon_ = 1e-6f, norm_ = 0, norm_post_ = 0, alpha_ = 0.9f, beta_ = 0.999f;
  bool nesterov_ = false;
};

}  // namespace

Status RegisterTrainingKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> f = {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE};
  const sdk::KernelOptions opts{"CPU", "", 0, {{"T1", f}, {"T2", {LOOM_DTYPE_INT64}}, {"T3", f}}};
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<OptimizerKernel<Opt::kAdagrad>>("Adagrad", opts));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<OptimizerKernel<Opt::kMomentum>>("Momentum", opts));
  return reg.Kernel<OptimizerKernel<Opt::kAdam>>("Adam", opts);
}

}  // namespace cpu
}  // namespace loom
