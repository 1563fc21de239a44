// RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike (ONNX
// opset 1) and Bernoulli (opset 15) kernels (ops/random.cc). Each kernel
// (one per op in a net) owns a std::mt19937_64 seeded with the op's `seed`
// when given, else from std::random_device. Values are drawn one after
// another in row-major order on the calling thread: the same seed gives the
// same values whatever the thread count, and each run continues the stream
// (as ONNX Runtime's kernels do). The values are libstdc++'s
// uniform_real_distribution / normal_distribution over that engine, so they
// are not ONNX Runtime's or numpy's.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

enum class Draw { kUniform, kNormal, kBernoulli };

template <Draw kDraw, bool kLike>
class RandomKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    float seed = 0;
    if (info.GetFloat("seed", &seed).ok()) {
      gen_.seed(static_cast<uint64_t>(static_cast<int64_t>(seed)));
    } else {
      gen_.seed((static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}());
    }
    has_dtype_ = info.Has("dtype");
    dtype_ = static_cast<LoomDataType>(info.IntOr("dtype", LOOM_DTYPE_FLOAT));
    if (kDraw == Draw::kNormal) {
      a_ = info.FloatOr("mean", 0.0f);
      b_ = info.FloatOr("scale", 1.0f);
    } else {
      a_ = info.FloatOr("low", 0.0f);
      b_ = info.FloatOr("high", 1.0f);
    }
    if (!kLike) LOOM_SDK_RETURN_IF_ERROR(info.GetInts("shape", &shape_));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    std::vector<int64_t> shape = shape_;
    LoomDataType dt = dtype_;
    Tensor p;
    if (kLike) {
      p = ctx.Input(0);
      shape = p.shape();
      if (!has_dtype_) dt = p.dtype();
    }
    Tensor y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dt, shape, &y));
    const int64_t n = y.num_elements();
    if (kDraw == Draw::kBernoulli) {
      std::vector<double> probs(static_cast<size_t>(n));
      LOOM_SDK_RETURN_IF_ERROR(DispatchFloat(p.dtype(), label_, [&](auto tag) -> Status {
        using S = decltype(tag);
        for (int64_t i = 0; i < n; ++i) probs[i] = static_cast<double>(Num<S>::Load(p.data<S>()[i]));
        return Status::Ok();
      }));
      std::uniform_real_distribution<double> u(0.0, 1.0);
      return DispatchNumericOrBool<bool>(dt, label_, [&](auto tag) -> Status {
        using S = decltype(tag);
        S* out = y.data<S>();
        for (int64_t i = 0; i < n; ++i) {
          out[i] = Num<S>::Store(static_cast<typename Num<S>::C>(u(gen_) < probs[i] ? 1 : 0));
        }
        return Status::Ok();
      });
    }
    return DispatchFloat(dt, label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      S* out = y.data<S>();
      if (kDraw == Draw::kNormal) {
        std::normal_distribution<double> d(a_, b_);
        for (int64_t i = 0; i < n; ++i) out[i] = Num<S>::Store(static_cast<typename Num<S>::C>(d(gen_)));
      } else {
        std::uniform_real_distribution<double> d(a_, b_);
        for (int64_t i = 0; i < n; ++i) out[i] = Num<S>::Store(static_cast<typename Num<S>::C>(d(gen_)));
      }
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  std::mt19937_64 gen_;
  bool has_dtype_ = false;
  LoomDataType dtype_ = LOOM_DTYPE_FLOAT;
  double a_ = 0, b_ = 1;
  std::vector<int64_t> shape_;
};

}  // namespace

Status RegisterRandomKernels(sdk::Registrar& reg) {
  const sdk::KernelOptions cpu{"CPU", "", 0, {}};
  using Uniform = RandomKernel<Draw::kUniform, false>;
  using Normal = RandomKernel<Draw::kNormal, false>;
  using UniformLike = RandomKernel<Draw::kUniform, true>;
  using NormalLike = RandomKernel<Draw::kNormal, true>;
  using Bernoulli = RandomKernel<Draw::kBernoulli, true>;
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<Uniform>("RandomUniform", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<Normal>("RandomNormal", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<UniformLike>("RandomUniformLike", cpu));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<NormalLike>("RandomNormalLike", cpu));
  return reg.Kernel<Bernoulli>("Bernoulli", cpu);
}

}  // namespace cpu
}  // namespace loom
