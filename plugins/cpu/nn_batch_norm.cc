// BatchNormalization: float32 on oneDNN's batch_normalization_forward,
// built at plan time: forward_inference with the given statistics, or in
// training mode forward_training, which computes the batch statistics the
// outputs are made from; float64 with plain loops.
#include <cmath>
#include <type_traits>
#include <vector>

#include "ops/semantics/normalization.h"
#include "plugins/cpu/dnnl_common.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"

namespace loom {
namespace cpu {
namespace {

using dnnl::memory;

template <typename T>
constexpr LoomDataType kDType = std::is_same<T, float>::value ? LOOM_DTYPE_FLOAT : LOOM_DTYPE_DOUBLE;

// ONNX BatchNormalization-15, inference mode: for X [N, C, D...] (rank >= 2)
// and per-channel scale, B, input_mean, input_var (each [C]),
// Y = (X - input_mean) / sqrt(input_var + epsilon) * scale + B.
// float32 and float64. Training mode (training_mode = 1): the mean and the
// (population) variance of X over N and the spatial dims replace input_mean
// / input_var, and the optional outputs running_mean = input_mean * momentum + mean * (1 -
// momentum), running_var likewise with the variance (population, or unbiased
// with Loom's running_var_unbiased, PyTorch's rule), and saved_mean /
// saved_var, the batch statistics. Errors: a request for
// any statistics output outside training mode (INVALID_ARGUMENT), X of
// rank < 2 or a per-channel input that is not [C] (INVALID_ARGUMENT).
class BatchNormKernel : public semantics::AttrsKernel<semantics::BatchNormAttrs> {
 public:
  // Checks the running-statistics outputs and the shapes, and builds the
  // primitive, when the plan knows them: errors surface at plan time.
  Status Prepare(const sdk::PrepareContext& ctx) {
    bool stats = false;
    for (size_t k = 1; k < ctx.num_outputs(); ++k) stats = stats || ctx.OutputDType(k) != LOOM_DTYPE_UNDEFINED;
    if (!attrs_.training && stats) return RunningStatsOutsideTraining();
    std::vector<std::vector<int64_t>> shapes(5);
    for (size_t i = 0; i < 5; ++i) {
      if (!ctx.InputShape(i, &shapes[i])) return Status::Ok();  // checked at the first run
    }
    return Configure(shapes, ctx.InputDType(0), ctx.num_threads());
  }

  Status Compute(KernelContext& ctx) {
    for (size_t k = 1; k < 5 && !attrs_.training; ++k) {
      if (ctx.OutputRequested(k)) return RunningStatsOutsideTraining();
    }
    Tensor x = ctx.Input(0), y;
    const int threads = ctx.num_threads();
    bool same = configured_ && threads == threads_ && x.dtype() == dtype_ && ShapeIs(x, xs_);
    for (size_t i = 1; i < 5 && same; ++i) same = ShapeIs(ctx.Input(i), {xs_[1]});
    if (!same) {
      std::vector<std::vector<int64_t>> shapes;
      for (size_t i = 0; i < 5; ++i) shapes.push_back(ctx.Input(i).shape());
      LOOM_SDK_RETURN_IF_ERROR(Configure(shapes, x.dtype(), threads));
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), xs_, &y));
    if (x.dtype() == LOOM_DTYPE_DOUBLE) return Normalize<double>(ctx, x, y);
    if (y.num_elements() == 0) return Normalize<float>(ctx, x, y);  // no primitive for an empty X
    x_mem_.set_data_handle(x.raw_data());
    y_mem_.set_data_handle(y.raw_data());
    for (size_t i = 0; i < 2; ++i) c_mem_[i].set_data_handle(ctx.Input(i + 1).raw_data());
    // Inference normalizes with input_mean / input_var; training has the
    // primitive compute the batch's mean and (population) variance into the
    // kernel's buffers, from which the statistics outputs follow.
    for (size_t i = 2; i < 4; ++i) {
      c_mem_[i].set_data_handle(attrs_.training ? batch_[i - 2].data() : ctx.Input(i + 1).raw_data());
    }
    LOOM_SDK_RETURN_IF_ERROR(DnnlExecute(label_, prim_,
                                         {{DNNL_ARG_SRC, x_mem_},
                                          {DNNL_ARG_DST, y_mem_},
                                          {DNNL_ARG_SCALE, c_mem_[0]},
                                          {DNNL_ARG_SHIFT, c_mem_[1]},
                                          {DNNL_ARG_MEAN, c_mem_[2]},
                                          {DNNL_ARG_VARIANCE, c_mem_[3]}},
                                         threads));
    if (!attrs_.training) return Status::Ok();
    const std::vector<double> mean(batch_[0].begin(), batch_[0].end()), var(batch_[1].begin(), batch_[1].end());
    return StatisticsOutputs<float>(ctx, mean, var);
  }

 private:
  Status RunningStatsOutsideTraining() const {
    return sdk::InvalidArgument(label_ + ": outputs running_mean, running_var, saved_mean and saved_var exist only in "
                                         "training mode (training_mode = 1); found training_mode = 0");
  }

  // Checks X [N, C, ...] and the four [C] inputs (shapes[0..4]) and, in
  // inference mode, builds the primitive.
  Status Configure(const std::vector<std::vector<int64_t>>& shapes, LoomDataType dtype, int threads) {
    configured_ = false;
    const std::vector<int64_t>& xs = shapes[0];
    if (xs.size() < 2) return sdk::InvalidArgument(label_ + ": input X must be [N, C, D...]; found " + ShapeStr(xs));
    const int64_t N = xs[0], C = xs[1];
    static const char* const kNames[] = {"X", "scale", "B", "input_mean", "input_var"};
    for (size_t i = 1; i < 5; ++i) {
      if (shapes[i].size() != 1 || shapes[i][0] != C) {
        return sdk::InvalidArgument(label_ + ": input " + kNames[i] + " must be [" + std::to_string(C) + "] (C of X " +
                                    ShapeStr(xs) + "); found " + ShapeStr(shapes[i]));
      }
    }
    // The op is per channel, so any rank is [N, C, S] with S the product of
    // the spatial dims (given to oneDNN as [N, C, S, 1]).
    int64_t S = 1;
    for (size_t i = 2; i < xs.size(); ++i) S *= xs[i];
    if (N * C * S != 0 && dtype == LOOM_DTYPE_FLOAT) {
      LOOM_SDK_RETURN_IF_ERROR(DnnlCreate(label_, threads, [&] {
        // 4-D [N, C, S, 1]: oneDNN 2.6 has only its reference kernel for
        // 3-D data (bnorm_ref), several times slower than the jit one.
        const memory::desc x_md = PlainDesc({N, C, S, 1}), c_md = PlainDesc({C});
        const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
        dnnl::batch_normalization_forward::desc d(
            attrs_.training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference, x_md, attrs_.epsilon,
            attrs_.training ? flags : flags | dnnl::normalization_flags::use_global_stats);
        prim_ = dnnl::batch_normalization_forward(dnnl::batch_normalization_forward::primitive_desc(d, DnnlEngine()));
        x_mem_ = UnboundMemory(x_md);
        y_mem_ = UnboundMemory(x_md);
        for (memory& m : c_mem_) m = UnboundMemory(c_md);
      }));
      for (std::vector<float>& b : batch_) b.assign(static_cast<size_t>(C), 0.0f);
    }
    xs_ = xs;
    N_ = N;
    C_ = C;
    S_ = S;
    threads_ = threads;
    dtype_ = dtype;
    configured_ = true;
    return Status::Ok();
  }

  // Y by plain loops (float64, and empty tensors): with the batch
  // statistics (training mode; the requested statistics outputs too) or
  // input_mean / input_var.
  template <typename T>
  Status Normalize(KernelContext& ctx, const Tensor& x, const Tensor& y) {
    const int64_t N = N_, C = C_, S = S_;
    std::vector<double> mean(C, 0.0), var(C, 0.0);
    const T* xv = x.data<T>();
    T* yv = y.data<T>();
    const T* scale = ctx.Input(1).data<T>();
    const T* bias = ctx.Input(2).data<T>();
    const T* stats[2] = {ctx.Input(3).data<T>(), ctx.Input(4).data<T>()};
    const double count = static_cast<double>(N * S);
    ParallelFor(C, ctx.num_threads(), [&](int64_t c) {
      if (attrs_.training) {
        double sum = 0, sq = 0;
        for (int64_t n = 0; n < N; ++n) {
          const T* p = xv + (n * C + c) * S;
          for (int64_t s = 0; s < S; ++s) sum += p[s];
        }
        mean[c] = count > 0 ? sum / count : 0.0;
        for (int64_t n = 0; n < N; ++n) {
          const T* p = xv + (n * C + c) * S;
          for (int64_t s = 0; s < S; ++s) sq += (p[s] - mean[c]) * (p[s] - mean[c]);
        }
        var[c] = count > 0 ? sq / count : 0.0;
      } else {
        mean[c] = stats[0][c];
        var[c] = stats[1][c];
      }
      const double inv = 1.0 / std::sqrt(var[c] + attrs_.epsilon);
      for (int64_t n = 0; n < N; ++n) {
        const T* p = xv + (n * C + c) * S;
        T* q = yv + (n * C + c) * S;
        for (int64_t s = 0; s < S; ++s) q[s] = static_cast<T>((p[s] - mean[c]) * inv * scale[c] + bias[c]);
      }
    });
    if (!attrs_.training) return Status::Ok();
    return StatisticsOutputs<T>(ctx, mean, var);
  }

  // Training mode's outputs 1 to 4 that are asked for, from the batch's
  // mean and population variance.
  template <typename T>
  Status StatisticsOutputs(KernelContext& ctx, const std::vector<double>& mean, const std::vector<double>& var) {
    const int64_t C = C_;
    const double count = static_cast<double>(N_ * S_);
    const T* stats[2] = {ctx.Input(3).data<T>(), ctx.Input(4).data<T>()};
    // The running variance blends in the population variance (ONNX) or,
    // with running_var_unbiased, the unbiased one (PyTorch, cuDNN, Caffe2);
    // saved_var is the population variance the op normalized with. Each
    // element is read before it is written, so outputs may share the
    // inputs' blobs.
    const double unbias = attrs_.unbiased && count > 1 ? count / (count - 1) : 1.0;
    const std::vector<double>* batch[2] = {&mean, &var};
    for (size_t k = 0; k < 2; ++k) {
      if (!ctx.OutputRequested(1 + k)) continue;
      Tensor r;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1 + k, kDType<T>, {C}, &r));
      const double f = k == 1 ? unbias : 1.0;
      for (int64_t c = 0; c < C; ++c) {
        r.data<T>()[c] = static_cast<T>(stats[k][c] * attrs_.momentum + (*batch[k])[c] * f * (1.0 - attrs_.momentum));
      }
    }
    for (size_t k = 0; k < 2; ++k) {
      if (!ctx.OutputRequested(3 + k)) continue;
      Tensor r;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(3 + k, kDType<T>, {C}, &r));
      for (int64_t c = 0; c < C; ++c) r.data<T>()[c] = static_cast<T>((*batch[k])[c]);
    }
    return Status::Ok();
  }

  // What the primitive was configured for: X's shape as [N, C, S].
  std::vector<int64_t> xs_;
  int64_t N_ = 0, C_ = 0, S_ = 1;
  int threads_ = 0;
  LoomDataType dtype_ = LOOM_DTYPE_UNDEFINED;
  bool configured_ = false;
  dnnl::batch_normalization_forward prim_;  // forward_inference, or forward_training in training mode
  memory x_mem_, y_mem_, c_mem_[4];  // c_mem_: scale, B, and input_mean, input_var or batch_
  std::vector<float> batch_[2];      // training mode: the batch's mean and variance from the primitive
};

}  // namespace

sdk::Status RegisterNnBatchNormKernels(sdk::Registrar& reg) {
  return reg.Kernel<BatchNormKernel>("BatchNormalization", CpuFloatAndDouble());
}

}  // namespace cpu
}  // namespace loom
