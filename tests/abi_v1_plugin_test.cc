// A plugin built against the frozen ABI version 1 header
// (tests/plugins/abi_v1_plugin.c, tests/abi_v1/loom_c_api.h) loads and runs
// on this core although the header has grown since: its schema's formal
// parameters, type constraints and attribute defaults are read at their
// version-1 layout, and its kernel (no prepare) runs.
#include "core/plugin_loader.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

Registry* V1Registry() {
  static Registry* r = [] {
    Registry* reg = testing::CpuRegistry();
    absl::Status s = LoadPlugin(reg, "tests/plugins/libabi_v1_plugin.so");
    EXPECT_TRUE(s.ok()) << s;
    return reg;
  }();
  return r;
}

TEST(AbiV1Plugin, RegistersWithItsVersionOneLayouts) {
  std::optional<PluginRecord> rec = V1Registry()->FindPlugin("abi_v1");
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->abi_version, 1u);
  const OpSchema* s = V1Registry()->FindSchema("V1Scale");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->domain, "test.v1");
  ASSERT_EQ(s->inputs.size(), 1u);
  EXPECT_EQ(s->inputs[0].name, "X");
  EXPECT_EQ(s->inputs[0].type_str, "T");
  EXPECT_EQ(s->outputs[0].name, "Y");
  ASSERT_EQ(s->type_constraints.size(), 1u);
  EXPECT_EQ(s->type_constraints[0].allowed, std::vector<DataType>{DataType::kFloat32});
  ASSERT_EQ(s->attrs.size(), 2u);
  EXPECT_EQ(s->attrs[0].name, "scale");
  EXPECT_FLOAT_EQ(s->attrs[0].default_value.f(), 3.0f);
  EXPECT_EQ(s->attrs[1].name, "tags");
  ASSERT_EQ(s->attrs[1].default_value.strings_size(), 1);
  EXPECT_EQ(s->attrs[1].default_value.strings(0), "plain");
  std::vector<const KernelDef*> k = V1Registry()->KernelsFor("V1Scale");
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0]->prepare, nullptr);
}

TEST(AbiV1Plugin, RunsWithDefaultsAndGivenAttributes) {
  Tensor x = Tensor::FromVector<float>({2, 2}, {1, -2, 0.5f, 4});
  auto out = testing::RunSingleOp(testing::ParseOp(R"(type: "V1Scale" input: "x" output: "y")"), {x}, V1Registry());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(testing::AllClose((*out)[0], Tensor::FromVector<float>({2, 2}, {3, -6, 1.5f, 12})));
  out = testing::RunSingleOp(testing::ParseOp(R"(type: "V1Scale" input: "x" output: "y"
      arg { name: "scale" f: 0.5 } arg { name: "tags" strings: "shift" })"), {x}, V1Registry());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(testing::AllClose((*out)[0], Tensor::FromVector<float>({2, 2}, {1.5f, 0, 1.25f, 3})));
  // Its type constraint (read from the version-1 array) still binds.
  auto bad = testing::RunSingleOp(testing::ParseOp(R"(type: "V1Scale" input: "x" output: "y")"),
                                  {Tensor::FromVector<double>({1}, {1.0})}, V1Registry());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("allows float32; found float64"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace loom
