// The OpSpec text forms (ops/schema_helpers.h): what Describe makes of
// inputs, outputs and attributes, and the errors for text it cannot read.
#include <string>

#include "core/api/loom_sdk.h"
#include "gtest/gtest.h"
#include "ops/schema_helpers.h"

namespace loom {
namespace ops {
namespace {

// Statuses without the core: the SDK's errors need only these three calls.
struct FakeStatus {
  LoomStatusCode code;
  std::string message;
};
LoomStatus* CreateStatus(LoomStatusCode code, const char* message) {
  return reinterpret_cast<LoomStatus*>(new FakeStatus{code, message});
}
LoomStatusCode StatusCode(const LoomStatus* s) { return reinterpret_cast<const FakeStatus*>(s)->code; }
const char* StatusMessage(const LoomStatus* s) { return reinterpret_cast<const FakeStatus*>(s)->message.c_str(); }
void ReleaseStatus(LoomStatus* s) { delete reinterpret_cast<FakeStatus*>(s); }

class DescribeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api_.struct_size = sizeof(LoomApi);
    api_.CreateStatus = &CreateStatus;
    api_.StatusCode = &StatusCode;
    api_.StatusMessage = &StatusMessage;
    api_.ReleaseStatus = &ReleaseStatus;
    sdk::GlobalApi() = &api_;
  }
  LoomApi api_{};
};

TEST_F(DescribeTest, ParamsAndAttrs) {
  sdk::SchemaBuilder s("Op");
  const OpSpec spec = {"Op", 1, "doc",
                       {"X:T", "axes:tensor(int64)?|1-D | with a bar", "rest:T*|more"},
                       {"Y:T|out"},
                       {{"T", {LOOM_DTYPE_FLOAT}, "floats"}},
                       {"n:int=-3|an int", "f:float=1e-5", "mode:string=DCR|a string", "req:ints!|required",
                        "opt:tensor?|optional"},
                       nullptr,
                       true};
  ASSERT_TRUE(Describe(s, spec).ok());
  const LoomSchemaDef& d = s.Build();
  ASSERT_EQ(d.num_inputs, 3u);
  EXPECT_STREQ(d.inputs[0].name, "X");
  EXPECT_STREQ(d.inputs[0].type_str, "T");
  EXPECT_EQ(d.inputs[0].option, LOOM_PARAM_SINGLE);
  EXPECT_STREQ(d.inputs[0].doc, "");
  EXPECT_STREQ(d.inputs[1].type_str, "tensor(int64)");
  EXPECT_EQ(d.inputs[1].option, LOOM_PARAM_OPTIONAL);
  EXPECT_STREQ(d.inputs[1].doc, "1-D | with a bar");
  EXPECT_EQ(d.inputs[2].option, LOOM_PARAM_VARIADIC);
  ASSERT_EQ(d.num_outputs, 1u);
  EXPECT_STREQ(d.outputs[0].doc, "out");
  ASSERT_EQ(d.num_type_constraints, 1u);
  EXPECT_STREQ(d.type_constraints[0].doc, "floats");
  ASSERT_EQ(d.num_attrs, 5u);
  EXPECT_EQ(d.attrs[0].type, LOOM_ATTR_INT);
  EXPECT_TRUE(d.attrs[0].has_default);
  EXPECT_EQ(d.attrs[0].default_int, -3);
  EXPECT_EQ(d.attrs[1].default_float, 1e-5f);
  EXPECT_STREQ(d.attrs[1].doc, "");
  EXPECT_STREQ(d.attrs[2].default_string, "DCR");
  EXPECT_EQ(d.attrs[3].type, LOOM_ATTR_INTS);
  EXPECT_TRUE(d.attrs[3].required);
  EXPECT_FALSE(d.attrs[3].has_default);
  EXPECT_EQ(d.attrs[4].type, LOOM_ATTR_TENSOR);
  EXPECT_FALSE(d.attrs[4].required);
  EXPECT_FALSE(d.attrs[4].has_default);
  EXPECT_EQ(d.num_inplace_pairs, 1u);
}

TEST_F(DescribeTest, UnreadableTextIsAnError) {
  for (const OpSpec& spec : std::initializer_list<OpSpec>{
           {"Op", 1, "", {"X"}, {}, {}},
           {"Op", 1, "", {}, {"Y:"}, {}},
           {"Op", 1, "", {}, {}, {}, {"n:int"}},
           {"Op", 1, "", {}, {}, {}, {"n:integer=1"}},
           {"Op", 1, "", {}, {}, {}, {"n:int=one"}},
           {"Op", 1, "", {}, {}, {}, {"n:ints=1"}},
           {"Op", 1, "", {}, {}, {}, {"n:int!x"}}}) {
    sdk::SchemaBuilder s("Op");
    const sdk::Status st = Describe(s, spec);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("Op: bad"), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace ops
}  // namespace loom
