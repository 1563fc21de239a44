// ONNX TfIdfVectorizer-9's n-gram pool, shared by the schema (output size)
// and every device's kernel: the attributes checked once and turned into a
// map from each n-gram of the pool to the output column it counts into.
#ifndef LOOM_OPS_SEMANTICS_TFIDF_H_
#define LOOM_OPS_SEMANTICS_TFIDF_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/loom_sdk.h"

namespace loom {
namespace semantics {

struct TfIdfPool {
  int64_t min_gram = 1, max_gram = 1, max_skip = 0;
  enum Mode { kTF, kIDF, kTFIDF } mode = kTF;
  // N-gram (its items in order) -> its ordinal k in the pool, which counts
  // into output column columns[k] with weight weights[k].
  std::map<std::vector<int64_t>, size_t> ngrams;
  std::vector<int64_t> columns;
  std::vector<float> weights;
  int64_t output_size = 0;  // max(ngram_indexes) + 1
  // With pool_strings: each distinct pool string's id (0, 1, ...), in
  // which `ngrams` is spelled; an input string outside the pool reads as
  // -1, which no n-gram holds. Empty for an integer pool.
  std::map<std::string, int64_t> string_ids;
};

// A string as the pool's id (-1 for one outside it).
inline int64_t TfIdfStringId(const TfIdfPool& p, std::string_view item) {
  auto it = p.string_ids.find(std::string(item));
  return it == p.string_ids.end() ? -1 : it->second;
}

// Reads and checks the attributes: 1 <= min_gram_length <= max_gram_length;
// max_skip_count >= 0; mode TF, IDF or TFIDF; ngram_counts[i] is where the
// (i+1)-grams start in pool_int64s, non-decreasing, each section a whole
// number of n-grams; one ngram_indexes entry (>= 0) per n-gram of the pool
// and, when given, one weight each. The pool is pool_int64s (integer X) or
// pool_strings (string X), not both. INVALID_ARGUMENT names `label` and the
// attribute.
inline sdk::Status ReadTfIdfPool(const sdk::KernelInfo& info, const std::string& label, TfIdfPool* p) {
  auto bad = [&](const std::string& what) { return sdk::InvalidArgument(label + ": " + what); };
  p->min_gram = info.IntOr("min_gram_length", 1);
  p->max_gram = info.IntOr("max_gram_length", 1);
  p->max_skip = info.IntOr("max_skip_count", 0);
  if (p->min_gram < 1 || p->max_gram < p->min_gram) {
    return bad("min_gram_length " + std::to_string(p->min_gram) + " and max_gram_length " +
               std::to_string(p->max_gram) + " must satisfy 1 <= min <= max");
  }
  if (p->max_skip < 0) return bad("max_skip_count must be >= 0; found " + std::to_string(p->max_skip));
  const std::string mode = info.StringOr("mode", "TF");
  if (mode == "TF") p->mode = TfIdfPool::kTF;
  else if (mode == "IDF") p->mode = TfIdfPool::kIDF;
  else if (mode == "TFIDF") p->mode = TfIdfPool::kTFIDF;
  else return bad("attribute 'mode' must be TF, IDF or TFIDF; found '" + mode + "'");
  std::vector<std::string> strings;
  std::vector<int64_t> pool = info.IntsOr("pool_int64s", {});
  if (info.GetStrings("pool_strings", &strings).ok() && !strings.empty()) {
    if (!pool.empty()) return bad("give pool_int64s or pool_strings, not both");
    for (const std::string& item : strings) {
      const int64_t id = static_cast<int64_t>(p->string_ids.size());
      pool.push_back(p->string_ids.emplace(item, id).first->second);
    }
  }
  const std::vector<int64_t> counts = info.IntsOr("ngram_counts", {});
  const std::vector<int64_t> indexes = info.IntsOr("ngram_indexes", {});
  const std::vector<float> weights = info.FloatsOr("weights", {});
  int64_t k = 0;  // n-grams so far
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t begin = counts[i];
    const int64_t end = i + 1 < counts.size() ? counts[i + 1] : static_cast<int64_t>(pool.size());
    const int64_t n = static_cast<int64_t>(i) + 1;
    if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.size()) || (end - begin) % n != 0) {
      return bad("ngram_counts[" + std::to_string(i) + "] = " + std::to_string(begin) +
                 " does not start a whole number of " + std::to_string(n) + "-grams in the pool (" +
                 std::to_string(pool.size()) + " items)");
    }
    for (int64_t at = begin; at < end; at += n, ++k) {
      if (k >= static_cast<int64_t>(indexes.size())) {
        return bad("ngram_indexes has " + std::to_string(indexes.size()) + " entries; the pool has more n-grams");
      }
      if (indexes[k] < 0) return bad("ngram_indexes[" + std::to_string(k) + "] is negative");
      if (!weights.empty() && k >= static_cast<int64_t>(weights.size())) {
        return bad("weights has " + std::to_string(weights.size()) + " entries; the pool has more n-grams");
      }
      p->ngrams[std::vector<int64_t>(pool.begin() + at, pool.begin() + at + n)] = p->columns.size();
      p->columns.push_back(indexes[k]);
      p->weights.push_back(weights.empty() ? 1.0f : weights[k]);
    }
  }
  p->output_size = 0;
  for (int64_t i : indexes) p->output_size = std::max(p->output_size, i + 1);
  return sdk::Status::Ok();
}

// One row of `len` items into `out` (output_size floats; columns no n-gram
// maps to are 0). As ONNX Runtime: for each skip s in [0, max_skip_count],
// n-grams take every (s+1)-th item; unigrams are counted once (at s = 0)
// since skips do not change them. Column columns[k] gets n-gram k's count
// (TF), weights[k] if it occurs (IDF) or count * weights[k] (TFIDF).
inline void TfIdfRow(const TfIdfPool& p, const int64_t* row, int64_t len, float* out) {
  std::vector<int64_t> counts(p.columns.size(), 0), gram;
  int64_t start_n = p.min_gram;
  for (int64_t skip = 0; skip <= p.max_skip; ++skip) {
    const int64_t step = skip + 1;
    for (int64_t start = 0; start < len; ++start) {
      gram.clear();
      for (int64_t n = 1, at = start; n <= p.max_gram && at < len; ++n, at += step) {
        gram.push_back(row[at]);
        if (n < start_n) continue;
        auto it = p.ngrams.find(gram);
        if (it != p.ngrams.end()) ++counts[it->second];
      }
    }
    if (start_n == 1) {
      if (p.max_gram == 1) break;
      start_n = 2;
    }
  }
  std::fill(out, out + p.output_size, 0.0f);
  for (size_t k = 0; k < counts.size(); ++k) {
    const float c = static_cast<float>(counts[k]);
    out[p.columns[k]] = p.mode == TfIdfPool::kTF ? c : p.mode == TfIdfPool::kIDF ? (c > 0 ? p.weights[k] : 0.0f)
                                                                                 : c * p.weights[k];
  }
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_TFIDF_H_
