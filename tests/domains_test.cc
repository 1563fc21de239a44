// Operator domains (issue 36): two plugins that define the same op type,
// Scale, in two domains (tests/plugins/domain_scale.cc: com.vendor_a's
// Y = 2 X, com.vendor_b's Y = 3 X) both load, and each op runs its own
// domain's kernel, forward and backward; an op of a domain no plugin serves,
// of a domain without that type, or of a type two domains define with no
// domain stated is an error that says which; and a NetDef that an importer
// from before domains wrote (no domain on any op, Loom's NCHWc ops among
// them) still loads and computes its float64 reference.
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/autodiff/backward.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "core/proto_io.h"
#include "core/registry.h"
#include "testing/op_runner.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "ops/std_ops.h"
#include "frontend/onnx/onnx_importer.h"

namespace loom {
namespace {

class DomainsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterBuiltinPlugin(&registry_, &LoomStdOpsInit, "<built-in>").ok());
    for (const char* p : {"plugins/cpu/libloom_cpu.so", "tests/plugins/libdomain_a.so", "tests/plugins/libdomain_b.so"}) {
      const absl::Status s = LoadPlugin(&registry_, p);
      ASSERT_TRUE(s.ok()) << p << ": " << s;
    }
  }

  // Runs `text` (a NetDef reading "x" [2, 3]) and returns blob `out`.
  absl::StatusOr<Tensor> Run(const std::string& text, const std::string& out) {
    NetDef def;
    if (!google::protobuf::TextFormat::ParseFromString(text, &def)) return absl::InternalError("bad test NetDef");
    Workspace ws;
    ws.SetBlob("x", X());
    auto net = Net::Create(def, &ws, &registry_);
    if (!net.ok()) return net.status();
    absl::Status s = (*net)->Run();
    if (!s.ok()) return s;
    return ws.GetBlob(out)->Clone();
  }

  static Tensor X() { return testing::RandomTensor(DataType::kFloat32, {2, 3}, 7); }

  static void ExpectScaled(const Tensor& y, float factor) {
    const Tensor x = X();
    ASSERT_EQ(y.num_elements(), x.num_elements());
    for (int64_t i = 0; i < y.num_elements(); ++i) EXPECT_FLOAT_EQ(y.data<float>()[i], factor * x.data<float>()[i]) << i;
  }

  static void ExpectError(const absl::Status& s, absl::StatusCode code, std::initializer_list<std::string> needles) {
    EXPECT_EQ(s.code(), code) << s;
    for (const std::string& n : needles) EXPECT_NE(s.message().find(n), std::string::npos) << "'" << n << "' not in: " << s;
  }

  Registry registry_;
};

TEST_F(DomainsTest, BothPluginsLoadAndEachOpRunsItsDomainsKernel) {
  ASSERT_NE(registry_.FindSchema("com.vendor_a", "Scale"), nullptr);
  ASSERT_NE(registry_.FindSchema("com.vendor_b", "Scale"), nullptr);
  EXPECT_EQ(registry_.FindSchema("com.vendor_a", "Scale")->plugin, "domain_a");
  EXPECT_EQ(registry_.FindSchema("com.vendor_b", "Scale")->plugin, "domain_b");
  // Each kernel bound to its own plugin's schema (no domain stated in LoomKernelDef).
  ASSERT_EQ(registry_.KernelsFor(OpKey{"com.vendor_a", "Scale"}).size(), 1u);
  EXPECT_EQ(registry_.KernelsFor(OpKey{"com.vendor_a", "Scale"})[0]->plugin, "domain_a");
  EXPECT_EQ(registry_.KernelsFor(OpKey{"com.vendor_b", "Scale"})[0]->plugin, "domain_b");
  const std::string net = R"pb(
    name: "two_vendors" external_input: "x" external_output: "a" external_output: "b"
    op { type: "Scale" domain: "com.vendor_a" input: "x" output: "a" }
    op { type: "Scale" domain: "com.vendor_b" input: "x" output: "b" }
  )pb";
  absl::StatusOr<Tensor> a = Run(net, "a");
  ASSERT_TRUE(a.ok()) << a.status();
  ExpectScaled(*a, 2.0f);
  absl::StatusOr<Tensor> b = Run(net, "b");
  ASSERT_TRUE(b.ok()) << b.status();
  ExpectScaled(*b, 3.0f);
}

TEST_F(DomainsTest, GradientOpsAreTakenFromTheForwardOpsDomain) {
  // loss = sum(Scale_a(x) + Scale_b(x)): dloss/dx = 2 + 3 everywhere. Each
  // gradient maker emits "ScaleGradient" without a domain, which both
  // plugins define: autodiff gives it the forward op's domain.
  NetDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
    name: "grad" external_input: "x"
    op { type: "Scale" domain: "com.vendor_a" input: "x" output: "a" }
    op { type: "Scale" domain: "com.vendor_b" input: "x" output: "b" }
    op { type: "Add" input: "a" input: "b" output: "s" }
    op { type: "ReduceSum" input: "s" output: "loss" arg { name: "keepdims" i: 0 } }
  )pb", &def));
  BackwardOptions o;
  o.wrt = {"x"};
  auto r = AddBackward(registry_, {"loss"}, o, &def);
  ASSERT_TRUE(r.ok()) << r.status();
  int per_domain[2] = {0, 0};
  for (const OperatorDef& op : def.op()) {
    if (op.type() != "ScaleGradient") continue;
    per_domain[0] += op.domain() == "com.vendor_a";
    per_domain[1] += op.domain() == "com.vendor_b";
  }
  EXPECT_EQ(per_domain[0], 1);
  EXPECT_EQ(per_domain[1], 1);
  Workspace ws;
  ws.SetBlob("x", X());
  auto net = Net::Create(def, &ws, &registry_);
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  const Tensor& dx = *ws.GetBlob(r->gradients.at("x"));
  for (int64_t i = 0; i < dx.num_elements(); ++i) EXPECT_FLOAT_EQ(dx.data<float>()[i], 5.0f) << i;
}

TEST_F(DomainsTest, ATypeOfSeveralDomainsNeedsItsDomainStated) {
  ExpectError(Run(R"pb(name: "n" external_input: "x" op { type: "Scale" input: "x" output: "y" })pb", "y").status(),
              absl::StatusCode::kFailedPrecondition,
              {"op #0", "'Scale' is defined in domains com.vendor_a and com.vendor_b", "set its domain"});
}

TEST_F(DomainsTest, ADomainNoPluginServesIsAnError) {
  ExpectError(
      Run(R"pb(name: "n" external_input: "x" op { type: "Scale" domain: "com.other" input: "x" output: "y" })pb", "y")
          .status(),
      absl::StatusCode::kNotFound,
      {"op #0", "operator domain 'com.other' (of op type 'Scale') is served by no loaded plugin",
       "domains served: ai.onnx", "com.vendor_a", "com.vendor_b"});
}

TEST_F(DomainsTest, ATypeADomainLacksIsAnErrorNamingWhereItIs) {
  // ONNX's default domain, stated as the importer states it, has no Scale.
  ExpectError(
      Run(R"pb(name: "n" external_input: "x" op { type: "Scale" domain: "ai.onnx" input: "x" output: "y" })pb", "y")
          .status(),
      absl::StatusCode::kNotFound,
      {"operator domain 'ai.onnx' has no operator 'Scale'", "'Scale' is in domain com.vendor_a and com.vendor_b"});
  ExpectError(
      Run(R"pb(name: "n" external_input: "x" op { type: "Relu" domain: "com.vendor_a" input: "x" output: "y" })pb",
          "y").status(),
      absl::StatusCode::kNotFound, {"operator domain 'com.vendor_a' has no operator 'Relu'", "'Relu' is in domain ai.onnx"});
  // "" and "ai.onnx" are the same domain.
  absl::StatusOr<Tensor> relu =
      Run(R"pb(name: "n" external_input: "x" op { type: "Relu" domain: "ai.onnx" input: "x" output: "y" })pb", "y");
  EXPECT_TRUE(relu.ok()) << relu.status();
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// tests/testdata/pre_domains/model.pbtxt is what loom_import (at 08bcfef,
// before domains) wrote for a Conv-Relu-MaxPool-Conv-Relu-GlobalAveragePool
// model: NchwcConv, NchwcMaxPool, NchwcGlobalAveragePool and ReorderOutput
// (now in domain "loom") with no domain. output_0.pb is the float64
// reference of the ONNX model (NumPy), for input_0.pb.
TEST_F(DomainsTest, ANetDefSavedBeforeDomainsStillLoadsAndRuns) {
  NetDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(ReadFile("tests/testdata/pre_domains/model.pbtxt"), &def));
  for (const OperatorDef& op : def.op()) ASSERT_FALSE(op.has_domain()) << op.type();
  absl::StatusOr<TensorProto> x = onnx_import::ImportOnnxTensor(ReadFile("tests/testdata/pre_domains/input_0.pb"));
  absl::StatusOr<TensorProto> y = onnx_import::ImportOnnxTensor(ReadFile("tests/testdata/pre_domains/output_0.pb"));
  ASSERT_TRUE(x.ok() && y.ok());
  Workspace ws;
  absl::StatusOr<Tensor> xt = TensorFromProto(*x);
  absl::StatusOr<Tensor> yt = TensorFromProto(*y);
  ASSERT_TRUE(xt.ok() && yt.ok());
  ws.SetBlob("x", *std::move(xt));
  auto net = Net::Create(def, &ws, &registry_);
  ASSERT_TRUE(net.ok()) << net.status();
  const absl::Status s = (*net)->Run();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(testing::AllClose(*ws.GetBlob("y"), *yt, 1e-4, 1e-5));
  // Each op found its schema by type alone; Loom's own in domain "loom".
  bool loom_domain = false;
  for (const OperatorDef& op : def.op()) {
    absl::StatusOr<const OpSchema*> schema = registry_.ResolveSchema(op.domain(), op.type());
    ASSERT_TRUE(schema.ok()) << schema.status();
    loom_domain = loom_domain || (op.type() == "NchwcConv" && (*schema)->domain == kLoomDomain);
  }
  EXPECT_TRUE(loom_domain);
}

}  // namespace
}  // namespace loom
