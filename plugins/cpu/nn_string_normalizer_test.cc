// StringNormalizer (nn_string_normalizer.cc) on hand-worked cases: stopwords
// with and without case, each case change (beyond ASCII too), a [1, C]
// input, everything removed; a bad action and text that is not UTF-8 are
// errors naming them.
#include <string>
#include <vector>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using kernel_test::Strings;

absl::StatusOr<std::vector<Tensor>> Normalize(const std::string& attrs, const Tensor& x) {
  return testing::RunSingleOp(testing::ParseOp(R"(type: "StringNormalizer" input: "x" output: "y" )" + attrs), {x});
}

TEST(StringNormalizer, StopwordsAndCase) {
  const Tensor x = Strings({4}, {"Monday", "tuesday", "MONDAY", "Straße"});
  // Case-insensitive stopword "monday" drops both Mondays; UPPER maps one
  // code point to one (ß has no single upper case: it stays).
  auto y = Normalize(R"(arg { name: "stopwords" strings: "monday" } arg { name: "case_change_action" s: "UPPER" })", x);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].dims(), Shape({2}));
  EXPECT_EQ((*y)[0].strings(), (std::vector<std::string>{"TUESDAY", "STRAßE"}));
  // Case-sensitive: only the exact "MONDAY" goes; LOWER.
  y = Normalize(R"(arg { name: "stopwords" strings: "MONDAY" } arg { name: "is_case_sensitive" i: 1 }
                   arg { name: "case_change_action" s: "LOWER" })",
                x);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].strings(), (std::vector<std::string>{"monday", "tuesday", "straße"}));
  // [1, C] keeps its leading 1; everything removed gives [1, 1] holding "".
  y = Normalize(R"(arg { name: "stopwords" strings: "a" })", Strings({1, 2}, {"a", "A"}));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].dims(), Shape({1, 1}));
  EXPECT_EQ((*y)[0].strings(), (std::vector<std::string>{""}));
  // Beyond ASCII: é, σ and Cyrillic letters change case; a stopword matches
  // whatever the case of its accented letters.
  y = Normalize(R"(arg { name: "stopwords" strings: "ÉTÉ" } arg { name: "case_change_action" s: "UPPER" })",
                Strings({4}, {"café", "été", "σοφία", "москва"}));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].strings(), (std::vector<std::string>{"CAFÉ", "ΣΟΦΊΑ", "МОСКВА"}));
  y = Normalize(R"(arg { name: "case_change_action" s: "LOWER" })", Strings({2}, {"ÀÖ", "ΣΟΦΊΑ"}));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].strings(), (std::vector<std::string>{"àö", "σοφία"}));
  y = Normalize(R"(arg { name: "case_change_action" s: "LOWER" })", Strings({2}, {"ok", "\xff\xfe"}));
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("element 1 of input 'X' is not UTF-8"), std::string::npos) << y.status();
  y = Normalize(R"(arg { name: "case_change_action" s: "TITLE" })", x);
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("'case_change_action'"), std::string::npos) << y.status();
}

}  // namespace
}  // namespace loom
