// StringNormalizer (nn_string_normalizer.cc) on hand-worked cases: stopwords
// with and without case, each case change, a [1, C] input, everything
// removed; a bad action names the attribute.
#include <string>
#include <vector>

#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

Tensor Strings(Shape dims, std::vector<std::string> v) {
  Tensor t = *Tensor::Create(DataType::kString, std::move(dims));
  *t.mutable_strings() = std::move(v);
  return t;
}

absl::StatusOr<std::vector<Tensor>> Normalize(const std::string& attrs, const Tensor& x) {
  return testing::RunSingleOp(testing::ParseOp(R"(type: "StringNormalizer" input: "x" output: "y" )" + attrs), {x});
}

TEST(StringNormalizer, StopwordsAndCase) {
  const Tensor x = Strings({4}, {"Monday", "tuesday", "MONDAY", "Straße"});
  // Case-insensitive stopword "monday" drops both Mondays; UPPER changes
  // ASCII letters only (ß stays).
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
  y = Normalize(R"(arg { name: "case_change_action" s: "TITLE" })", x);
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("'case_change_action'"), std::string::npos) << y.status();
}

}  // namespace
}  // namespace loom
