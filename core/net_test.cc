// Net creation checks, planning, the per-signature plan cache, profiling and
// error propagation, with a small op set registered by the test itself
// through the same C ABI as any plugin.
#include "core/net.h"

#include <atomic>

#include "core/api/loom_sdk.h"
#include "core/plugin_loader.h"
#include "core/proto_io.h"
#include "gtest/gtest.h"

namespace {

std::atomic<int> g_creates{0};

// C = (A + B) * scale; float32 only (the schema also allows float64).
class TAddKernel {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo& info) {
    ++g_creates;
    return info.GetFloat("scale", &scale_);
  }
  loom::sdk::Status Compute(loom::sdk::KernelContext& ctx) {
    loom::sdk::Tensor a = ctx.Input(0), b = ctx.Input(1), c;
    if (a.shape() != b.shape()) return loom::sdk::InvalidArgument("TAdd: A and B differ in shape");
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, a.shape(), &c));
    for (int64_t i = 0; i < a.num_elements(); ++i) c.data<float>()[i] = (a.data<float>()[i] + b.data<float>()[i]) * scale_;
    return loom::sdk::Status::Ok();
  }

 private:
  float scale_ = 0;
};

// Reads each of its attributes that is set ("extra", then "given", then
// "n") as a float, whatever the schema declares: the three ways a kernel's
// getter and a value can disagree.
class MisreadKernel {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo& info) {
    float v = 0;
    for (const char* name : {"extra", "given", "n"}) {
      if (info.Has(name)) LOOM_SDK_RETURN_IF_ERROR(info.GetFloat(name, &v));
    }
    return loom::sdk::Status::Ok();
  }
  loom::sdk::Status Compute(loom::sdk::KernelContext&) { return loom::sdk::Status::Ok(); }
};

class FailKernel {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo&) { return loom::sdk::Status::Ok(); }
  loom::sdk::Status Compute(loom::sdk::KernelContext&) { return loom::sdk::InvalidArgument("deliberate failure"); }
};

}  // namespace

LOOM_DEFINE_PLUGIN_INIT(NetTestOpsInit, "net_test_ops", "1.0", reg) {
  loom::sdk::SchemaBuilder add("TAdd");
  add.Input("A", "T").Input("B", "T").Output("C", "T")
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE})
      .AttrFloat("scale", 1.0f, "multiplier")
      .Attr("mode", LOOM_ATTR_STRING, false, "optional, unused");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(add));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<TAddKernel>("TAdd", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}}));
  loom::sdk::SchemaBuilder need("TNeeds");
  need.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT}).Attr("k", LOOM_ATTR_INT, true, "required");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(need));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<FailKernel>("TNeeds"));
  loom::sdk::SchemaBuilder misread("TMisread");
  misread.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT})
      .AttrInt("n", 3, "read as a float by the kernel")
      .Attr("given", LOOM_ATTR_INT, false, "read as a float by the kernel")
      .AllowUnknownAttrs();
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(misread));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<MisreadKernel>("TMisread"));
  loom::sdk::SchemaBuilder orphan("TNoKernel");
  orphan.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT});
  return reg.Register(orphan);
}

LOOM_DEFINE_PLUGIN_INIT(LateOpsInit, "late_ops", "1.0", reg) {
  loom::sdk::SchemaBuilder s("TLate");
  s.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT});
  return reg.Register(s);
}

namespace loom {
namespace {

class NetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterBuiltinPlugin(&registry_, &NetTestOpsInit, "<test>").ok());
    g_creates = 0;
  }
  NetDef Parse(const std::string& text) {
    auto n = ParseNetDefText(text);
    EXPECT_TRUE(n.ok()) << n.status();
    return *n;
  }
  absl::Status CreateError(const std::string& text) {
    auto net = Net::Create(Parse(text), &ws_, &registry_);
    return net.ok() ? absl::OkStatus() : net.status();
  }
  Registry registry_;
  Workspace ws_;
};

void ExpectContains(const absl::Status& s, std::initializer_list<std::string> needles) {
  ASSERT_FALSE(s.ok());
  for (const auto& n : needles) EXPECT_NE(s.message().find(n), std::string::npos) << "'" << n << "' not in: " << s;
}

TEST_F(NetTest, UnknownOp) {
  ExpectContains(CreateError(R"(name: "n" external_input: "x" op { name: "a" type: "Nope" input: "x" output: "y" })"),
                 {"op #0 'a' (Nope)", "unknown operator type 'Nope'"});
}

TEST_F(NetTest, InputNothingProduces) {
  ExpectContains(CreateError(R"(external_input: "x"
      op { name: "a" type: "TAdd" input: "x" input: "x" output: "y" }
      op { name: "b" type: "TAdd" input: "y" input: "ghost" output: "z" })"),
                 {"op #1 'b' (TAdd)", "input 1 'ghost'", "not produced by an earlier op"});
}

TEST_F(NetTest, WrongArity) {
  ExpectContains(CreateError(R"(external_input: "x" op { name: "a" type: "TAdd" input: "x" output: "y" })"),
                 {"op #0 'a' (TAdd)", "expected 2 inputs, found 1"});
}

TEST_F(NetTest, AttributeErrorsNameOpAttributeExpectedAndFound) {
  ExpectContains(CreateError(R"(external_input: "x"
      op { name: "a" type: "TAdd" input: "x" input: "x" output: "y" arg { name: "scal" f: 2 } })"),
                 {"op #0 'a' (TAdd)", "unknown attribute 'scal'", "scale"});
  ExpectContains(CreateError(R"(external_input: "x"
      op { name: "a" type: "TAdd" input: "x" input: "x" output: "y" arg { name: "scale" i: 2 } })"),
                 {"op #0 'a' (TAdd)", "the model gives attribute 'scale' as int, but the schema of TAdd declares it float"});
  ExpectContains(CreateError(R"(external_input: "x" op { name: "r" type: "TNeeds" input: "x" output: "y" })"),
                 {"op #0 'r' (TNeeds)", "missing required attribute 'k'", "int"});
}

// A kernel reading an attribute as another type: the error names the op
// once and says whose value it is (issue 36).
TEST_F(NetTest, KernelAttributeReadErrorsSayWhoseValueItIs) {
  auto once = [](const absl::Status& s) {
    const std::string m(s.message());
    EXPECT_EQ(m.find("op #0"), m.rfind("op #0")) << "the op is named more than once: " << s;
  };
  ws_.SetBlob("x", Tensor::FromVector<float>({1}, {1}));
  auto run = [&](const std::string& text) {  // kernels are made when the first run plans
    auto net = Net::Create(Parse(text), &ws_, &registry_);
    return net.ok() ? (*net)->Run() : net.status();
  };
  absl::Status s = run(R"(external_input: "x" op { name: "m" type: "TMisread" input: "x" output: "y" })");
  ExpectContains(s, {"op #0 'm' (TMisread): the kernel reads attribute 'n' as float, but the schema of TMisread "
                     "declares it int (the value is the schema's default): the kernel and its schema disagree"});
  once(s);
  s = run(R"(external_input: "x"
      op { name: "m" type: "TMisread" input: "x" output: "y" arg { name: "given" i: 2 } })");
  ExpectContains(s, {"op #0 'm' (TMisread): the kernel reads attribute 'given' as float, but the schema of TMisread "
                     "declares it int (the model gives it so): the kernel and its schema disagree"});
  once(s);
  s = run(R"(external_input: "x"
      op { name: "m" type: "TMisread" input: "x" output: "y" arg { name: "extra" i: 2 } })");
  ExpectContains(s, {"op #0 'm' (TMisread): the kernel reads attribute 'extra' as float, but the model gives it as "
                     "int (the schema of TMisread does not declare it)"});
  once(s);
}

TEST_F(NetTest, NoDeviceOrNoKernel) {
  ExpectContains(CreateError(R"(external_input: "x"
      op { name: "a" type: "TAdd" input: "x" input: "x" output: "y" device_option { device_type: "CUDA" } })"),
                 {"op #0 'a' (TAdd)", "device CUDA:0 is not available", "CPU"});
  ExpectContains(CreateError(R"(external_input: "x" op { name: "o" type: "TNoKernel" input: "x" output: "y" })"),
                 {"op #0 'o' (TNoKernel)", "no kernel for device CPU", "none"});
}

TEST_F(NetTest, DefaultsAppliedAndResultsComputed) {
  ws_.SetBlob("x", Tensor::FromVector<float>({2}, {1, 2}));
  ws_.SetBlob("w", Tensor::FromVector<float>({2}, {10, 20}));
  auto net = Net::Create(Parse(R"(external_input: "x" external_input: "w"
      op { type: "TAdd" input: "x" input: "w" output: "y" }
      op { type: "TAdd" input: "y" input: "y" output: "z" arg { name: "scale" f: 0.5 } })"), &ws_, &registry_);
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  const Tensor* z = ws_.GetBlob("z");
  EXPECT_EQ(z->data<float>()[0], 11.0f);  // (1+10)*1 then (11+11)*0.5
  EXPECT_EQ(z->data<float>()[1], 22.0f);
}

TEST_F(NetTest, DtypeOutsideConstraintAndNoKernelForDtype) {
  ws_.SetBlob("i", Tensor::FromVector<int64_t>({1}, {1}));
  auto net = Net::Create(Parse(R"(external_input: "i" op { name: "a" type: "TAdd" input: "i" input: "i" output: "y" })"),
                         &ws_, &registry_);
  ASSERT_TRUE(net.ok());
  ExpectContains((*net)->Run(), {"op #0 'a' (TAdd)", "type constraint T allows float32, float64; found int64"});
  ws_.SetBlob("i", Tensor::FromVector<double>({1}, {1}));
  ExpectContains((*net)->Run(), {"op #0 'a' (TAdd)", "no kernel", "T=float64", "kernels that exist", "T: float32"});
}

TEST_F(NetTest, PlanCachedPerInputSignature) {
  ws_.SetBlob("x", Tensor::FromVector<float>({2}, {1, 2}));
  auto net = Net::Create(Parse(R"(external_input: "x"
      op { type: "TAdd" input: "x" input: "x" output: "y" }
      op { type: "TAdd" input: "y" input: "x" output: "z" })"), &ws_, &registry_);
  ASSERT_TRUE(net.ok());
  ASSERT_TRUE((*net)->Run().ok());
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ((*net)->plans_built(), 1);
  EXPECT_EQ(g_creates.load(), 2);  // one kernel per op, created once
  const void* y_data = ws_.GetBlob("y")->raw_data();
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ(ws_.GetBlob("y")->raw_data(), y_data);  // steady state: no reallocation

  ws_.SetBlob("x", Tensor::FromVector<float>({3}, {1, 2, 3}));
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ((*net)->plans_built(), 2);
  EXPECT_EQ(ws_.GetBlob("z")->data<float>()[2], 9.0f);
  ws_.SetBlob("x", Tensor::FromVector<float>({2}, {5, 6}));
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ((*net)->plans_built(), 2);  // the first signature's plan is reused
  EXPECT_EQ((*net)->cached_plans(), 2u);
  EXPECT_EQ(ws_.GetBlob("z")->data<float>()[1], 18.0f);

  // A plugin loaded later invalidates cached plans.
  ASSERT_TRUE(RegisterBuiltinPlugin(&registry_, &LateOpsInit, "<late>").ok());
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ((*net)->plans_built(), 3);
}

TEST_F(NetTest, ProfilingPerOpAndPerType) {
  ws_.SetBlob("x", Tensor::FromVector<float>({4}, {1, 2, 3, 4}));
  auto net = Net::Create(Parse(R"(external_input: "x"
      op { name: "first" type: "TAdd" input: "x" input: "x" output: "y" }
      op { name: "second" type: "TAdd" input: "y" input: "x" output: "z" })"), &ws_, &registry_);
  ASSERT_TRUE(net.ok());
  (*net)->set_profiling(true);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*net)->Run().ok());
  const Profile& p = (*net)->profile();
  EXPECT_EQ(p.runs, 3);
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_EQ(p.ops[0].label, "op #0 'first' (TAdd)");
  EXPECT_EQ(p.ops[1].runs, 3);
  EXPECT_EQ(p.by_type.at("TAdd").calls, 6);
  EXPECT_GE(p.total_ms, 0.0);
  EXPECT_NE(p.ToString().find("TAdd"), std::string::npos);
  EXPECT_NE(p.ops[0].kernel.find("from plugin 'net_test_ops'"), std::string::npos) << p.ops[0].kernel;
}

TEST_F(NetTest, KernelErrorNamesOpAndNetCanRunAgain) {
  ws_.SetBlob("x", Tensor::FromVector<float>({1}, {1}));
  auto net = Net::Create(Parse(R"(external_input: "x"
      op { name: "bad" type: "TNeeds" input: "x" output: "y" arg { name: "k" i: 1 } })"), &ws_, &registry_);
  ASSERT_TRUE(net.ok()) << net.status();
  ExpectContains((*net)->Run(), {"op #0 'bad' (TNeeds)", "deliberate failure"});
  ExpectContains((*net)->Run(), {"deliberate failure"});
}

TEST_F(NetTest, MissingExternalInputAtRun) {
  auto net = Net::Create(Parse(R"(name: "m" external_input: "x" op { type: "TAdd" input: "x" input: "x" output: "y" })"),
                         &ws_, &registry_);
  ASSERT_TRUE(net.ok());
  ExpectContains((*net)->Run(), {"net 'm'", "input 'x' is not set"});
}

TEST_F(NetTest, UnknownExecutorType) {
  ExpectContains(CreateError(R"(name: "e" type: "dag_magic")"), {"executor type 'dag_magic'"});
}

}  // namespace
}  // namespace loom
