// Cast-13 and CastLike-15 kernels over CastTensor: every dtype to every
// dtype by ONNX Cast's element rules (ops/semantics/cast.h). CastLike takes
// the target dtype from its second input, whose values are not read.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/semantics/cast.h"
#include "plugins/cpu/kernels.h"
#include "plugins/cpu/parallel_for.h"
#include "plugins/cpu/tensor_util.h"

namespace loom {
namespace cpu {
namespace {

// y = x converted element by element to `to_dt`; y is already sized as x with
// dtype `to_dt`. A plain copy when the dtypes agree. INVALID_ARGUMENT (naming
// `label`) for a dtype without a C++ storage type.
Status CastTensor(const std::string& label, const Tensor& x, LoomDataType to_dt, Tensor& y, int threads) {
  const int64_t n = x.num_elements();
  if (x.dtype() == to_dt) {
    CopyData(x, y);
    return Status::Ok();
  }
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
  const std::vector<LoomDataType> all = AllDTypes();
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<CastKernel>("Cast", {"CPU", "", 0, {{"T1", all}, {"T2", all}}}));
  return reg.Kernel<CastLikeKernel>("CastLike", {"CPU", "", 0, {{"T1", all}, {"T2", all}}});
}

}  // namespace cpu
}  // namespace loom
