// TfIdfVectorizer (nn_tfidf_vectorizer.cc) against hand-counted n-grams:
// skips reach n-grams with items apart, unigrams count once whatever the
// skip, TF / IDF / TFIDF on a batch; bad pools name the attribute.
#include <string>
#include <vector>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// Pool: unigrams [1], [2] (columns 0, 1), bigrams [1, 2], [2, 1] (2, 3).
std::string Op(int skip, const std::string& mode, const std::string& extra = "") {
  return R"(type: "TfIdfVectorizer" input: "x" output: "y"
            arg { name: "min_gram_length" i: 1 } arg { name: "max_gram_length" i: 2 }
            arg { name: "max_skip_count" i: )" +
         std::to_string(skip) + R"( } arg { name: "mode" s: ")" + mode + R"(" }
            arg { name: "ngram_counts" ints: 0 ints: 2 }
            arg { name: "ngram_indexes" ints: 0 ints: 1 ints: 2 ints: 3 }
            arg { name: "pool_int64s" ints: 1 ints: 2 ints: 1 ints: 2 ints: 2 ints: 1 } )" +
         extra;
}

TEST(TfIdfVectorizer, SkipsReachItemsApart) {
  // X = [1, 3, 2]: no adjacent pool bigram; with one skip, (1, 2) is one.
  const Tensor x = Tensor::FromVector<int64_t>({3}, {1, 3, 2});
  auto y = testing::RunSingleOp(testing::ParseOp(Op(0, "TF")), {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({4}, {1, 1, 0, 0}), 0, 0));
  y = testing::RunSingleOp(testing::ParseOp(Op(1, "TF")), {x});
  ASSERT_TRUE(y.ok()) << y.status();
  // Unigrams still 1 each: they are counted at skip 0 only.
  EXPECT_TRUE(AllClose((*y)[0], F32({4}, {1, 1, 1, 0}), 0, 0));
}

TEST(TfIdfVectorizer, ModesOnABatch) {
  // Row 0 [1, 2, 1]: 1 x2, 2 x1, (1,2) x1, (2,1) x1. Row 1 [2, 2, 2]: 2 x3.
  const Tensor x = Tensor::FromVector<int32_t>({2, 3}, {1, 2, 1, 2, 2, 2});
  const std::string w = R"(arg { name: "weights" floats: 0.5 floats: 2 floats: 3 floats: 4 })";
  auto y = testing::RunSingleOp(testing::ParseOp(Op(0, "TF", w)), {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({2, 4}, {2, 1, 1, 1, 0, 3, 0, 0}), 0, 0));
  y = testing::RunSingleOp(testing::ParseOp(Op(0, "TFIDF", w)), {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({2, 4}, {1, 2, 3, 4, 0, 6, 0, 0}), 0, 0));
  y = testing::RunSingleOp(testing::ParseOp(Op(0, "IDF", w)), {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({2, 4}, {0.5, 2, 3, 4, 0, 2, 0, 0}), 0, 0));
}

// The same pool spelled in strings: unigrams "a", "b", bigrams (a, b), (b, a).
std::string StringOp(int skip) {
  return R"(type: "TfIdfVectorizer" input: "x" output: "y"
            arg { name: "min_gram_length" i: 1 } arg { name: "max_gram_length" i: 2 }
            arg { name: "max_skip_count" i: )" +
         std::to_string(skip) + R"( } arg { name: "mode" s: "TF" }
            arg { name: "ngram_counts" ints: 0 ints: 2 }
            arg { name: "ngram_indexes" ints: 0 ints: 1 ints: 2 ints: 3 }
            arg { name: "pool_strings" strings: "a" strings: "b" strings: "a" strings: "b" strings: "b"
                  strings: "a" })";
}

TEST(TfIdfVectorizer, StringTokensCountAgainstPoolStrings) {
  // "c" is in no n-gram: [a, c, b] has no adjacent pool bigram; with one
  // skip (a, b) is one.
  const Tensor x = Strings({3}, {"a", "c", "b"});
  auto y = testing::RunSingleOp(testing::ParseOp(StringOp(0)), {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({4}, {1, 1, 0, 0}), 0, 0));
  y = testing::RunSingleOp(testing::ParseOp(StringOp(1)), {x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({4}, {1, 1, 1, 0}), 0, 0));
  // A batch, as ModesOnABatch's TF row with a for 1 and b for 2.
  y = testing::RunSingleOp(testing::ParseOp(StringOp(0)), {Strings({2, 3}, {"a", "b", "a", "b", "b", "b"})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], F32({2, 4}, {2, 1, 1, 1, 0, 3, 0, 0}), 0, 0));
  // Tokens and pool of different kinds are refused.
  y = testing::RunSingleOp(testing::ParseOp(StringOp(0)), {Tensor::FromVector<int64_t>({1}, {1})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("input 'X' is int64 but the pool is pool_strings"), std::string::npos)
      << y.status();
  y = testing::RunSingleOp(testing::ParseOp(Op(0, "TF")), {x});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("input 'X' is string but the pool is pool_int64s"), std::string::npos)
      << y.status();
}

TEST(TfIdfVectorizer, BadPoolsAreErrors) {
  const Tensor x = Tensor::FromVector<int64_t>({3}, {1, 3, 2});
  auto y = testing::RunSingleOp(testing::ParseOp(Op(0, "TF", R"(arg { name: "pool_strings" strings: "a" })")), {x});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("pool_strings"), std::string::npos) << y.status();
  // Bigrams starting at 1 leave 5 items: not a whole number of 2-grams.
  y = testing::RunSingleOp(testing::ParseOp(R"(type: "TfIdfVectorizer" input: "x" output: "y"
            arg { name: "min_gram_length" i: 1 } arg { name: "max_gram_length" i: 2 }
            arg { name: "max_skip_count" i: 0 } arg { name: "mode" s: "TF" }
            arg { name: "ngram_counts" ints: 0 ints: 1 } arg { name: "ngram_indexes" ints: 0 ints: 1 ints: 2 }
            arg { name: "pool_int64s" ints: 1 ints: 2 ints: 1 ints: 2 ints: 2 ints: 1 })"),
                           {x});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("ngram_counts[1] = 1"), std::string::npos) << y.status();
  y = testing::RunSingleOp(testing::ParseOp(Op(0, "BM25")), {x});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("'mode'"), std::string::npos) << y.status();
}

}  // namespace
}  // namespace loom
