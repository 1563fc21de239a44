// A custom-op plugin built outside Loom's tree with the loom_plugin macro.
//
// com.example.ocr.CTCGreedyDecode (TensorFlow's ctc_greedy_decoder with
// merge_repeated): for each row of `probs` float32 [N, T, C] takes the most
// likely class per step, merges repeats, drops `blank` (attribute, default
// 0), and writes the classes kept to `labels` int64 [N, T] (padded with -1)
// and their count to `lengths` int64 [N].
#include <algorithm>
#include <vector>

#include "core/api/loom_sdk.h"

namespace {

using loom::sdk::InferenceContext;
using loom::sdk::KernelContext;
using loom::sdk::KernelInfo;
using loom::sdk::Status;
using loom::sdk::Tensor;

class CtcGreedyDecode {
 public:
  Status Init(const KernelInfo& info) { return info.GetInt("blank", &blank_); }

  Status Compute(KernelContext& ctx) {
    Tensor probs = ctx.Input(0);
    const std::vector<int64_t> dims = probs.shape();
    if (dims.size() != 3) return loom::sdk::InvalidArgument("CTCGreedyDecode: probs must be [N, T, C]");
    const int64_t n = dims[0], t = dims[1], c = dims[2];
    Tensor labels, lengths;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT64, {n, t}, &labels));
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(1, LOOM_DTYPE_INT64, {n}, &lengths));
    const float* p = probs.data<float>();
    int64_t* out = labels.data<int64_t>();
    for (int64_t row = 0; row < n; ++row) {
      int64_t kept = 0, previous = -1;
      for (int64_t step = 0; step < t; ++step) {
        const float* scores = p + (row * t + step) * c;
        const int64_t best = std::max_element(scores, scores + c) - scores;
        if (best != blank_ && best != previous) out[row * t + kept++] = best;
        previous = best;
      }
      std::fill(out + row * t + kept, out + (row + 1) * t, int64_t{-1});
      lengths.data<int64_t>()[row] = kept;
    }
    return Status::Ok();
  }

 private:
  int64_t blank_ = 0;
};

// The planner's view: labels int64 [N, T], lengths int64 [N].
Status InferDecode(InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
  ctx.SetOutputDType(1, LOOM_DTYPE_INT64);
  std::vector<int64_t> dims;
  if (ctx.InputShape(0, &dims) && dims.size() == 3) {
    ctx.SetOutputShape(0, {dims[0], dims[1]});
    ctx.SetOutputShape(1, {dims[0]});
  }
  return Status::Ok();
}

}  // namespace

LOOM_PLUGIN("ctc_decode", "1.0.0", reg) {
  loom::sdk::SchemaBuilder op("CTCGreedyDecode");
  op.Domain("com.example.ocr")
      .Doc("Greedy CTC decoding with repeats merged (TensorFlow ctc_greedy_decoder).")
      .Input("probs", "T", LOOM_PARAM_SINGLE, "class scores [N, T, C]")
      .Output("labels", "I", LOOM_PARAM_SINGLE, "classes kept [N, T], padded with -1")
      .Output("lengths", "I", LOOM_PARAM_SINGLE, "classes kept per row [N]")
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT}, "float32")
      .TypeConstraint("I", {LOOM_DTYPE_INT64}, "int64")
      .AttrInt("blank", 0, "the blank class")
      .Infer<&InferDecode>();
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(op));
  return reg.Kernel<CtcGreedyDecode>("CTCGreedyDecode");
}
