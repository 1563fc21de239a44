// Dropout (ONNX Dropout-13) in inference and training mode, and its gradient
// DropoutGrad (ONNX Runtime's and Caffe2's name). Training mode keeps each
// element with probability 1 - ratio and scales the kept ones by
// 1 / (1 - ratio) (inverted dropout, as ONNX's reference and PyTorch).
#include <mutex>
#include <random>

#include "plugins/cpu/kernels.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

// The value of a one-element float tensor.
bool ScalarAsFloat(const Tensor& t, float* out) {
  if (t.num_elements() != 1) return false;
  switch (t.dtype()) {
    case LOOM_DTYPE_FLOAT: *out = t.data<float>()[0]; return true;
    case LOOM_DTYPE_DOUBLE: *out = static_cast<float>(t.data<double>()[0]); return true;
    case LOOM_DTYPE_FLOAT16: *out = Float16::ToFloat(t.data<uint16_t>()[0]); return true;
    case LOOM_DTYPE_BFLOAT16: *out = BFloat16::ToFloat(t.data<uint16_t>()[0]); return true;
    default: return false;
  }
}

// Dropout's ratio (input `ratio_input`, else the opset-7/10 attribute, else
// 0.5) and training_mode (the next input, default false), checked; Dropout
// and DropoutGrad take them at inputs 1 and 2 or 2 and 3.
Status ReadDropoutMode(KernelContext& ctx, size_t ratio_input, float attr_ratio, const std::string& label,
                       float* ratio, bool* training) {
  Tensor r = ctx.Input(ratio_input), t = ctx.Input(ratio_input + 1);
  *ratio = attr_ratio;
  if (r.present() && !ScalarAsFloat(r, ratio)) {
    return sdk::InvalidArgument(label + ": input 'ratio' must be a float scalar; found " + sdk::DTypeName(r.dtype()) +
                                ShapeStr(r.shape()));
  }
  *training = false;
  if (t.present()) {
    if (t.dtype() != LOOM_DTYPE_BOOL || t.num_elements() != 1) {
      return sdk::InvalidArgument(label + ": input 'training_mode' must be a bool scalar; found " +
                                  sdk::DTypeName(t.dtype()) + ShapeStr(t.shape()));
    }
    *training = t.data<bool>()[0];
  }
  if (*training && !(*ratio >= 0.0f && *ratio < 1.0f)) {
    return sdk::InvalidArgument(label + ": ratio must be in [0, 1) in training mode; found " + std::to_string(*ratio));
  }
  return Status::Ok();
}

// ONNX Dropout-13 over any shape. Inference (training_mode false or absent)
// or ratio 0: output = data, mask all true, for every dtype. Training mode
// (float32 / float64): mask ~ Bernoulli(1 - ratio) per element and output =
// data * mask / (1 - ratio). The masks come from one generator per kernel
// (per op in a net), seeded by the `seed` attribute when given (so a net
// built again draws the same masks in the same order) and from
// std::random_device otherwise; each run draws new ones.
class DropoutKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    ratio_ = info.FloatOr("ratio", 0.5f);
    gen_.seed(info.Has("seed") ? static_cast<uint64_t>(info.IntOr("seed", 0)) : std::random_device{}());
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y, mask;
    float ratio = 0;
    bool training = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadDropoutMode(ctx, 1, ratio_, label_, &ratio, &training));
    const bool drop = training && ratio != 0.0f;
    if (drop && x.dtype() != LOOM_DTYPE_FLOAT && x.dtype() != LOOM_DTYPE_DOUBLE) {
      return sdk::Unimplemented(label_ + ": training mode for dtype " + sdk::DTypeName(x.dtype()) +
                                " (float32 and float64 are supported)");
    }
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    std::vector<char> keep;
    if (drop) {
      keep.resize(static_cast<size_t>(x.num_elements()));
      std::lock_guard<std::mutex> lock(mu_);  // one generator; runs of one net may overlap
      std::bernoulli_distribution bernoulli(1.0 - static_cast<double>(ratio));
      for (char& k : keep) k = bernoulli(gen_);
    }
    if (!drop) {
      CopyData(x, y);
    } else if (x.dtype() == LOOM_DTYPE_FLOAT) {
      Apply<float>(x, keep, ratio, y);
    } else {
      Apply<double>(x, keep, ratio, y);
    }
    if (ctx.OutputRequested(1)) {
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_BOOL, x.shape(), &mask));
      bool* m = mask.data<bool>();
      for (int64_t i = 0; i < mask.num_elements(); ++i) m[i] = drop ? keep[i] != 0 : true;
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Apply(const Tensor& x, const std::vector<char>& keep, float ratio, Tensor& y) {
    const T scale = T(1) / (T(1) - static_cast<T>(ratio));
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (size_t i = 0; i < keep.size(); ++i) out[i] = keep[i] ? in[i] * scale : T(0);
  }

  float ratio_ = 0.5f;
  std::mutex mu_;
  std::mt19937_64 gen_;
};

// DropoutGrad(dY, mask, ratio?, training_mode?): dX = dY * mask / (1 -
// ratio) in training mode, else dY (float32 / float64).
class DropoutGradKernel : public LabeledKernel {
 public:
  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(LabeledKernel::Init(info));
    ratio_ = info.FloatOr("ratio", 0.5f);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor dy = ctx.Input(0), mask = ctx.Input(1), dx;
    if (mask.dtype() != LOOM_DTYPE_BOOL || mask.shape() != dy.shape()) {
      return sdk::InvalidArgument(label_ + ": mask must be bool " + ShapeStr(dy.shape()) + " (dY's shape); found " +
                                  sdk::DTypeName(mask.dtype()) + ShapeStr(mask.shape()));
    }
    float ratio = 0;
    bool training = false;
    LOOM_SDK_RETURN_IF_ERROR(ReadDropoutMode(ctx, 2, ratio_, label_, &ratio, &training));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, dy.dtype(), dy.shape(), &dx));
    if (!training || ratio == 0.0f) {
      CopyData(dy, dx);
    } else if (dy.dtype() == LOOM_DTYPE_FLOAT) {
      Run<float>(dy, mask, ratio, dx);
    } else {
      Run<double>(dy, mask, ratio, dx);
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Run(const Tensor& dy, const Tensor& mask, float ratio, Tensor& dx) {
    const T scale = T(1) / (T(1) - static_cast<T>(ratio));
    const T* g = dy.data<T>();
    const bool* m = mask.data<bool>();
    T* out = dx.data<T>();
    for (int64_t i = 0; i < dy.num_elements(); ++i) out[i] = m[i] ? g[i] * scale : T(0);
  }

  float ratio_ = 0.5f;
};

}  // namespace

Status RegisterNnDropoutKernels(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<DropoutKernel>("Dropout", {"CPU", "", 0, {{"T", AllDTypes()}}}));
  return reg.Kernel<DropoutGradKernel>("DropoutGrad", CpuFloatAndDouble());
}

}  // namespace cpu
}  // namespace loom
