// A plugin built against the frozen ABI version 9 header
// (tests/plugins/abi_v9_plugin.c, tests/abi_v9/loom_c_api.h: the last flat
// table, before operator domains) loads and runs on this core: its kernels,
// whose LoomKernelDef ends before version 10's domain member, bind to its own
// schemas in domain test.v9; its prepare step runs (and its error reaches
// the caller, naming the op); its schema's gradient maker and the one it
// registered with RegisterGradient (version 6) make a backward pass whose
// result is the hand-computed one.
#include "core/autodiff/backward.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "core/registry.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "ops/std_ops.h"
#include "testing/op_runner.h"

namespace loom {
namespace {

class AbiV9Plugin : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterBuiltinPlugin(&registry_, &LoomStdOpsInit, "<built-in>").ok());
    for (const char* p : {"plugins/cpu/libloom_cpu.so", "tests/plugins/libabi_v9_plugin.so"}) {
      const absl::Status s = LoadPlugin(&registry_, p);
      ASSERT_TRUE(s.ok()) << p << ": " << s;
    }
  }

  static NetDef Parse(const char* text) {
    NetDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
    return def;
  }

  Registry registry_;
};

TEST_F(AbiV9Plugin, RegistersAtVersionNineAndItsKernelsBindToItsOwnDomain) {
  std::optional<PluginRecord> rec = registry_.FindPlugin("abi_v9");
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(rec->abi_version, 9u);
  for (const char* type : {"V9Scale", "V9Offset"}) {
    const OpSchema* s = registry_.FindSchema("test.v9", type);
    ASSERT_NE(s, nullptr) << type;
    EXPECT_EQ(s->plugin, "abi_v9");
    std::vector<const KernelDef*> k = registry_.KernelsFor(OpKey{"test.v9", type});
    ASSERT_EQ(k.size(), 1u) << type;
    EXPECT_EQ(k[0]->plugin, "abi_v9");
  }
  EXPECT_NE(registry_.KernelsFor(OpKey{"test.v9", "V9Scale"})[0]->prepare, nullptr);
  EXPECT_FLOAT_EQ(registry_.FindSchema("test.v9", "V9Scale")->attrs.at(0).default_value.f(), 2.0f);
  // Its LoomSchemaDef ends before version 11's fold: read as never folding.
  EXPECT_EQ(registry_.FindSchema("test.v9", "V9Scale")->fold, LOOM_FOLD_NEVER);
}

TEST_F(AbiV9Plugin, RunsWithItsPrepareStep) {
  const Tensor x = Tensor::FromVector<float>({2, 2}, {1, -2, 0.5f, 4});
  auto out = testing::RunSingleOp(testing::ParseOp(R"(type: "V9Scale" input: "x" output: "y")"), {x}, &registry_);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(testing::AllClose((*out)[0], Tensor::FromVector<float>({2, 2}, {2, -4, 1, 8})));
  out = testing::RunSingleOp(testing::ParseOp(R"(type: "V9Scale" domain: "test.v9" input: "x" output: "y"
      arg { name: "scale" f: -0.5 })"), {x}, &registry_);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(testing::AllClose((*out)[0], Tensor::FromVector<float>({2, 2}, {-0.5f, 1, -0.25f, -2})));
  // The plugin's prepare refuses rank 5; the error names it.
  auto bad = testing::RunSingleOp(testing::ParseOp(R"(type: "V9Scale" input: "x" output: "y")"),
                                  {Tensor::FromVector<float>({1, 1, 1, 1, 2}, {1, 2})}, &registry_);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("V9Scale: input X has rank above 4"), std::string::npos) << bad.status();
}

TEST_F(AbiV9Plugin, ItsGradientMakersMakeTheBackwardPass) {
  // loss = sum(3 * (x + 1)): dloss/dx = 3 everywhere, through both makers
  // (V9Scale's from its schema, V9Offset's from RegisterGradient).
  NetDef def = Parse(R"pb(
    name: "v9_grad" external_input: "x" external_output: "loss"
    op { type: "V9Offset" input: "x" output: "o" }
    op { type: "V9Scale" input: "o" output: "y" arg { name: "scale" f: 3 } }
    op { type: "ReduceSum" input: "y" output: "loss" arg { name: "keepdims" i: 0 } }
  )pb");
  BackwardOptions o;
  o.wrt = {"x"};
  auto r = AddBackward(registry_, {"loss"}, o, &def);
  ASSERT_TRUE(r.ok()) << r.status();
  Workspace ws;
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {3, 4}, 9);
  ws.SetBlob("x", *x.Clone());
  auto net = Net::Create(def, &ws, &registry_);
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  float expected_loss = 0;
  for (int64_t i = 0; i < x.num_elements(); ++i) expected_loss += 3 * (x.data<float>()[i] + 1);
  EXPECT_NEAR(ws.GetBlob("loss")->data<float>()[0], expected_loss, 1e-4f);
  const Tensor& dx = *ws.GetBlob(r->gradients.at("x"));
  ASSERT_EQ(dx.num_elements(), x.num_elements());
  for (int64_t i = 0; i < dx.num_elements(); ++i) EXPECT_FLOAT_EQ(dx.data<float>()[i], 3.0f) << i;
}

}  // namespace
}  // namespace loom
