// Cast-13 and CastLike-15 kernels over CastTensor: every dtype to every
// dtype by ONNX Cast's element rules (ops/semantics/cast.h; to and from
// string: ops/semantics/cast_string.h). CastLike takes the target dtype from
// its second input, whose values are not read.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/semantics/cast.h"
#include "ops/semantics/cast_string.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

// y = x converted element by element to `to_dt`; y is already sized as x with
// dtype `to_dt`. A plain copy when the dtypes agree. INVALID_ARGUMENT (naming
// `label`) for a dtype without a C++ storage type.
// Numbers to text (cast_string.h's rules).
Status CastToString(const std::string& label, const Tensor& x, const Tensor& y) {
  return DispatchNumericOrBool<bool>(x.dtype(), label, [&](auto tag) -> Status {
    using From = decltype(tag);
    const From* in = x.data<From>();
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      std::string text;
      if constexpr (std::is_same_v<From, bool>) {
        text = in[i] ? "True" : "False";
      } else if constexpr (std::is_integral_v<From>) {
        text = std::to_string(in[i]);
      } else {
        const double v = static_cast<double>(Num<From>::Load(in[i]));
        text = semantics::FloatToText(v, !std::is_same_v<From, double>);
      }
      LOOM_SDK_RETURN_IF_ERROR(sdk::SetStringAt(y, static_cast<size_t>(i), text));
    }
    return Status::Ok();
  });
}

// Text to numbers: an element that does not read as one is an error naming it.
Status CastFromString(const std::string& label, const Tensor& x, LoomDataType to_dt, const Tensor& y) {
  return DispatchNumericOrBool<bool>(to_dt, label, [&](auto tag) -> Status {
    using To = decltype(tag);
    To* out = y.data<To>();
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const std::string_view text = sdk::StringAt(x, static_cast<size_t>(i));
      bool ok = false;
      if constexpr (std::is_same_v<To, bool>) {
        bool b = false;
        ok = semantics::TextToBool(text, &b);
        out[i] = b;
      } else if constexpr (std::is_integral_v<To> && std::is_unsigned_v<To>) {
        unsigned long long v = 0;
        ok = semantics::TextToUnsigned(text, &v) && v <= std::numeric_limits<To>::max();
        out[i] = static_cast<To>(v);
      } else if constexpr (std::is_integral_v<To>) {
        long long v = 0;
        ok = semantics::TextToInt(text, &v) && v >= std::numeric_limits<To>::min() && v <= std::numeric_limits<To>::max();
        out[i] = static_cast<To>(v);
      } else {
        double v = 0;
        ok = semantics::TextToFloat(text, &v);
        out[i] = Num<To>::Store(static_cast<typename Num<To>::C>(v));
      }
      if (!ok) {
        return sdk::InvalidArgument(label + ": element " + std::to_string(i) + " \"" + std::string(text) +
                                    "\" is not a " + sdk::DTypeName(to_dt) + " (or is out of its range)");
      }
    }
    return Status::Ok();
  });
}

Status CastTensor(const std::string& label, const Tensor& x, LoomDataType to_dt, Tensor& y, int threads) {
  const int64_t n = x.num_elements();
  if (x.dtype() == to_dt) {
    CopyData(x, y);
    return Status::Ok();
  }
  if (to_dt == LOOM_DTYPE_STRING) return CastToString(label, x, y);
  if (x.dtype() == LOOM_DTYPE_STRING) return CastFromString(label, x, to_dt, y);
  return DispatchNumericOrBool<bool>(x.dtype(), label, [&](auto in_tag) -> Status {
    using From = decltype(in_tag);
    return DispatchNumericOrBool<bool>(to_dt, label, [&](auto out_tag) -> Status {
      using To = decltype(out_tag);
      const From* in = x.data<From>();
      To* out = y.data<To>();
      ParallelRange(n, n, threads, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) out[i] = semantics::Convert<To, From>(in[i]);
      });
      return Status::Ok();
    });
  });
}

class CastKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return semantics::ReadCastTo(info, label_, &to_);
  }
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, to_, x.shape(), &y));
    return CastTensor(label_, x, to_, y, ctx.num_threads());
  }

 private:
  std::string label_;
  LoomDataType to_ = LOOM_DTYPE_FLOAT;
};

class CastLikeKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const LoomDataType to_dt = ctx.Input(1).dtype();
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, to_dt, x.shape(), &y));
    return CastTensor(label_, x, to_dt, y, ctx.num_threads());
  }
};

}  // namespace

Status RegisterTensorCastKernels(sdk::Registrar& reg) {
  std::vector<LoomDataType> all = AllDTypes();
  all.push_back(LOOM_DTYPE_STRING);
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CastKernel>("Cast", {"CPU", "", 0, {{"T1", all}, {"T2", all}}}));
  return reg.Kernel<CastLikeKernel>("CastLike", {"CPU", "", 0, {{"T1", all}, {"T2", all}}});
}

}  // namespace cpu
}  // namespace loom
