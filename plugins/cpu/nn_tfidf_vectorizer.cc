// TfIdfVectorizer-9 kernel (ops/nn_tfidf_vectorizer.cc): the pool is read
// once at Init (ops/semantics/tfidf.h); rows are counted in parallel.
#include <cstdint>
#include <string>
#include <vector>

#include "ops/semantics/tfidf.h"
#include "plugins/cpu/cpu_common.h"
#include "plugins/cpu/kernels.h"

namespace loom {
namespace cpu {
namespace {

class TfIdfVectorizerKernel {
 public:
  Status Init(const KernelInfo& info) {
    label_ = OpLabel(info);
    return semantics::ReadTfIdfPool(info, label_, &pool_);
  }

  Status Compute(KernelContext& ctx) {
    Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> xs = x.shape();
    if (xs.empty() || xs.size() > 2) {
      return sdk::InvalidArgument(label_ + ": input 'X' must be [C] or [N, C]; found " + ShapeStr(xs));
    }
    const int64_t rows = xs.size() == 2 ? xs[0] : 1, len = xs.back();
    std::vector<int64_t> ys = xs.size() == 2 ? std::vector<int64_t>{rows, pool_.output_size}
                                             : std::vector<int64_t>{pool_.output_size};
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, ys, &y));
    const bool strings = x.dtype() == LOOM_DTYPE_STRING;
    if (strings != !pool_.string_ids.empty()) {
      return sdk::InvalidArgument(label_ + ": input 'X' is " + sdk::TypeName(x.dtype()) + " but the pool is " +
                                  (strings ? "pool_int64s" : "pool_strings"));
    }
    std::vector<int64_t> ids;
    if (strings) {
      ids.resize(static_cast<size_t>(x.num_elements()));
      for (size_t i = 0; i < ids.size(); ++i) ids[i] = semantics::TfIdfStringId(pool_, sdk::StringAt(x, i));
    } else {
      ReadInts(x, &ids);  // int32 or int64 (the schema's T)
    }
    float* out = y.data<float>();
#pragma omp parallel for if (rows > 1)
    for (int64_t r = 0; r < rows; ++r) semantics::TfIdfRow(pool_, ids.data() + r * len, len, out + r * pool_.output_size);
    return Status::Ok();
  }

 private:
  std::string label_;
  semantics::TfIdfPool pool_;
};

}  // namespace

Status RegisterNnTfIdfVectorizerKernels(sdk::Registrar& reg) {
  return reg.Kernel<TfIdfVectorizerKernel>("TfIdfVectorizer", {"CPU", "", 0, {}});
}

}  // namespace cpu
}  // namespace loom
