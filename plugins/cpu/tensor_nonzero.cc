// CPU kernel of NonZero (schema in ops/tensor.cc).
#include <string>
#include <vector>

#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

// NonZero over any numeric dtype or bool: int64 [rank, nnz], row-major order.
// A scalar is seen as a 1-element vector (output [1, nnz]).
class NonZeroKernel : public LabeledKernel {
 public:
  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    std::vector<int64_t> shape = x.shape();
    if (shape.empty()) shape.push_back(1);
    const int64_t n = x.num_elements(), rank = static_cast<int64_t>(shape.size());
    return DispatchNumericOrBool<uint8_t>(x.dtype(), label_, [&](auto tag) -> Status {
      using S = decltype(tag);
      const S* in = x.data<S>();
      std::vector<int64_t> hits;
      for (int64_t i = 0; i < n; ++i) {
        if (Num<S>::Load(in[i]) != typename Num<S>::C(0)) hits.push_back(i);
      }
      const int64_t nnz = static_cast<int64_t>(hits.size());
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT64, {rank, nnz}, &y));
      int64_t* out = y.data<int64_t>();
      for (int64_t j = 0; j < nnz; ++j) {
        int64_t f = hits[j];
        for (int64_t d = rank; d-- > 0;) {
          out[d * nnz + j] = f % shape[d];
          f /= shape[d];
        }
      }
      return Status::Ok();
    });
  }
};

}  // namespace

Status RegisterTensorNonZeroKernels(sdk::Registrar& reg) { return reg.Kernel<NonZeroKernel>("NonZero"); }

}  // namespace cpu
}  // namespace loom
