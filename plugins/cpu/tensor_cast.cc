// Cast-13 kernel and CastTensor (also CastLike's): every dtype to every
// dtype by ONNX Cast's element rules (ops/semantics/cast.h).
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

namespace {

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

}  // namespace

Status RegisterTensorCastKernels(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllDTypes();
  return reg.Kernel<CastKernel>("Cast", {"CPU", "", 0, {{"T1", all}, {"T2", all}}});
}

}  // namespace cpu
}  // namespace loom
