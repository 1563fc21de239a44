// Schema of TfIdfVectorizer (ONNX opset 9): n-gram counts of integer or
// string tokens against a pool of n-grams.
#include <cstdint>
#include <string>
#include <vector>

#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/tfidf.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Y: float32 [output_size] for 1-D X, [N, output_size] for [N, C].
sdk::Status InferTfIdf(sdk::InferenceContext& ctx) {
  semantics::TfIdfPool pool;
  LOOM_SDK_RETURN_IF_ERROR(semantics::ReadTfIdfPool(ctx.info(), "TfIdfVectorizer", &pool));
  const LoomDataType t = ctx.InputDType(0);
  if (t != LOOM_DTYPE_UNDEFINED && (t == LOOM_DTYPE_STRING) != !pool.string_ids.empty()) {
    return sdk::InvalidArgument("TfIdfVectorizer: input 'X' is " + sdk::TypeName(t) + " but the pool is " +
                                (t == LOOM_DTYPE_STRING ? "pool_int64s" : "pool_strings"));
  }
  ctx.SetOutputDType(0, LOOM_DTYPE_FLOAT);
  std::vector<int64_t> x;
  if (!ctx.InputShape(0, &x)) return sdk::Status::Ok();
  if (x.size() == 1) {
    ctx.SetOutputShape(0, {pool.output_size});
  } else if (x.size() == 2) {
    ctx.SetOutputShape(0, {x[0], pool.output_size});
  } else {
    return sdk::InvalidArgument("TfIdfVectorizer: input 'X' must be [C] or [N, C]; found rank " +
                                std::to_string(x.size()));
  }
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterNnTfIdfVectorizerSchemas(sdk::Registrar& reg) {
  return RegisterOps(
      reg, {{"TfIdfVectorizer", 9,
             "ONNX TfIdfVectorizer-9: counts, per row of X, the n-grams of pool_int64s (lengths min_gram_length "
             "to max_gram_length, items max_skip_count apart at most) and writes each n-gram's TF (count), IDF "
             "(weight if present) or TFIDF (count * weight) to its ngram_indexes column. Integer tokens against "
             "pool_int64s, string tokens against pool_strings.",
             {"X:T|[C] or [N, C] tokens"}, {"Y:tensor(float)|[max(ngram_indexes) + 1] or [N, that]"},
             {{"T", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64, LOOM_DTYPE_STRING}}},
             {"max_gram_length:int!|longest n-gram", "min_gram_length:int!|shortest n-gram, >= 1",
              "max_skip_count:int!|most items skipped between an n-gram's items", "mode:string!|TF, IDF or TFIDF",
              "ngram_counts:ints!|where the (i+1)-grams start in the pool",
              "ngram_indexes:ints!|output column of each n-gram of the pool",
              "pool_int64s:ints?|the n-grams, by length (integer X)", "pool_strings:strings?|the same for string X",
              "weights:floats?|one per n-gram (default 1)"},
             Fn<&InferTfIdf>()}});
}

}  // namespace ops
}  // namespace loom
