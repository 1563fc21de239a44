// The type names: the core's DataTypeName / ParseDataType and the plugin
// SDK's TypeName / TypeFromName (core/api/loom_sdk.h, which plugins use
// without linking the core) spell every type alike, and each reads back.
#include "core/dtype.h"

#include <vector>

#include "core/api/loom_sdk.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

TEST(DataTypeNameTest, CoreAndSdkSpellEveryTypeAlikeAndReadItBack) {
  std::vector<DataType> types;
  for (int32_t c : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16}) {
    const DataType t = static_cast<DataType>(c);
    types.push_back(t);
    types.push_back(SequenceOf(t));
    types.push_back(OptionalOf(t));
    types.push_back(OptionalOf(SequenceOf(t)));
  }
  for (DataType t : types) {
    const std::string name = DataTypeName(t);
    EXPECT_EQ(sdk::TypeName(static_cast<LoomDataType>(t)), name);
    EXPECT_EQ(sdk::TypeFromName(name), static_cast<LoomDataType>(t)) << name;
    absl::StatusOr<DataType> parsed = ParseDataType(name);
    ASSERT_TRUE(parsed.ok()) << name << ": " << parsed.status();
    EXPECT_EQ(*parsed, t) << name;
  }
  EXPECT_EQ(std::string(DataTypeName(OptionalOf(SequenceOf(DataType::kInt64)))), "optional(seq(int64))");
  for (const char* bad : {"float33", "seq(seq(float32))", "optional(optional(int8))", "seq()", ""}) {
    EXPECT_EQ(sdk::TypeFromName(bad), LOOM_DTYPE_UNDEFINED) << bad;
    EXPECT_FALSE(ParseDataType(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace loom
