// The ONNX importer on small models built here: older opsets' semantics
// rewritten into current ops (Softmax before opset 13, legacy broadcast,
// PRelu-6), If branches whose outputs declare no type and read outer-scope
// values, the one error listing every unsupported op, and node domains
// checked against the opset imports. Results are checked against values
// computed in the test. The rewrites of transforms::Optimize are tested in
// transforms/ (fold_fuse_test, nchwc_layout_test).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "core/net.h"
#include "gtest/gtest.h"
#include "onnx/onnx-data_pb.h"
#include "onnx/onnx_pb.h"
#include "testing/onnx_models.h"
#include "testing/op_runner.h"
#include "frontend/onnx/onnx_importer.h"

namespace loom {
namespace testing {
namespace {

Registry* Reg() { return CpuControlFlowRegistry(); }

TEST(OnnxImporterTest, SoftmaxBeforeOpset13NormalizesTheFlattenedRows) {
  for (int64_t opset : {11, 13}) {
    onnx::GraphProto g;
    AddInput(&g, "x", {2, 3, 4});
    AddOutput(&g, "y");
    IntAttr(AddNode(&g, "Softmax", {"x"}, {"y"}), "axis", 1);
    Tensor x = testing::RandomTensor(DataType::kFloat32, {2, 3, 4}, 3);
    Tensor y = RunModel(Serialize(g, opset), {{"x", x}}, "y");
    ASSERT_EQ(y.dims(), (Shape{2, 3, 4}));
    const float* xv = x.data<float>();
    for (int n = 0; n < 2; ++n) {
      for (int c = 0; c < 3; ++c) {
        for (int k = 0; k < 4; ++k) {
          // opset 11: over the 12 values of batch n; opset 13: over axis 1.
          double denom = 0;
          for (int c2 = 0; c2 < 3; ++c2) {
            for (int k2 = 0; k2 < 4; ++k2) {
              if (opset == 13 && k2 != k) continue;
              denom += std::exp(xv[(n * 3 + c2) * 4 + k2]);
            }
          }
          int i = (n * 3 + c) * 4 + k;
          EXPECT_NEAR(y.data<float>()[i], std::exp(xv[i]) / denom, 1e-6) << "opset " << opset << " at " << i;
        }
      }
    }
  }
}

TEST(OnnxImporterTest, LegacyBroadcastWithAxisAlignsBAtTheAxis) {
  onnx::GraphProto g;
  AddInput(&g, "a", {2, 3});
  AddInput(&g, "b", {2});
  AddOutput(&g, "c");
  onnx::NodeProto* n = AddNode(&g, "Add", {"a", "b"}, {"c"});
  IntAttr(n, "broadcast", 1);
  IntAttr(n, "axis", 0);
  Tensor c = RunModel(Serialize(g, 6),
                 {{"a", Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", Tensor::FromVector<float>({2}, {10, 20})}},
                 "c");
  EXPECT_EQ(std::vector<float>(c.data<float>(), c.data<float>() + 6), (std::vector<float>{11, 12, 13, 24, 25, 26}));
}

TEST(OnnxImporterTest, PRelu6SlopeIsPerChannel) {
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 2, 2});
  AddInput(&g, "slope", {2});
  AddOutput(&g, "y");
  AddNode(&g, "PRelu", {"x", "slope"}, {"y"});
  Tensor y = RunModel(Serialize(g, 6),
                 {{"x", Tensor::FromVector<float>({1, 2, 2}, {-1, 2, -3, -4})}, {"slope", Tensor::FromVector<float>({2}, {0.5f, 0.25f})}},
                 "y");
  EXPECT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + 4), (std::vector<float>{-0.5f, 2, -0.75f, -1}));
}

TEST(OnnxImporterTest, IfBranchesWithUntypedOutputsReadOuterValues) {
  onnx::GraphProto g;
  AddInput(&g, "cond", {}, onnx::TensorProto::BOOL);
  AddInput(&g, "x", {3});
  AddOutput(&g, "y");
  onnx::NodeProto* n = AddNode(&g, "If", {"cond"}, {"y"});
  for (const char* branch : {"then_branch", "else_branch"}) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* b = a->mutable_g();
    b->set_name(branch);
    AddNode(b, std::string(branch) == "then_branch" ? "Relu" : "Neg", {"x"}, {std::string(branch) + "_out"});
    AddOutput(b, std::string(branch) + "_out", /*typed=*/false);
  }
  Tensor x = Tensor::FromVector<float>({3}, {-1, 2, -3});
  Tensor t = RunModel(Serialize(g, 13), {{"cond", Tensor::FromVector<bool>({}, {true})}, {"x", x}}, "y");
  EXPECT_EQ(std::vector<float>(t.data<float>(), t.data<float>() + 3), (std::vector<float>{0, 2, 0}));
  Tensor e = RunModel(Serialize(g, 13), {{"cond", Tensor::FromVector<bool>({}, {false})}, {"x", x}}, "y");
  EXPECT_EQ(std::vector<float>(e.data<float>(), e.data<float>() + 3), (std::vector<float>{1, -2, 3}));
}


TEST(OnnxImporterTest, EveryUnsupportedOpIsListedInOneError) {
  onnx::GraphProto g;
  AddInput(&g, "x", {3});
  AddOutput(&g, "z");
  AddNode(&g, "Relu", {"x"}, {"a"});
  AddNode(&g, "NoSuchOpA", {"a"}, {"b"});
  AddNode(&g, "NoSuchOpB", {"b"}, {"z"});
  auto net = ImportOptimized(Serialize(g, 13));
  ASSERT_TRUE(net.ok()) << net.status();
  absl::Status s = onnx_import::CheckSupported(*net, *Reg());
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("(ai.onnx, NoSuchOpA, opset 13)"), std::string::npos) << s;
  EXPECT_NE(s.message().find("(ai.onnx, NoSuchOpB, opset 13)"), std::string::npos) << s;
  EXPECT_EQ(s.message().find("Relu"), std::string::npos) << s;
}

// A node's domain must be one the model imports (onnx.checker's rule); the
// imports are kept, and an unserved op is listed with its own domain's
// version.
TEST(OnnxImporterTest, NodeDomainsAreCheckedAgainstTheOpsetImports) {
  onnx::GraphProto g;
  AddInput(&g, "x", {3});
  AddOutput(&g, "y");
  onnx::NodeProto* n = AddNode(&g, "SoftShrink", {"x"}, {"y"});
  n->set_name("shrink");
  n->set_domain("com.acme");
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(13);
  *m.mutable_graph() = g;
  auto unlisted = onnx_import::ImportOnnxModel(m.SerializeAsString());
  EXPECT_EQ(unlisted.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unlisted.status().message().find(
                "node #0 'shrink' (SoftShrink) is in domain 'com.acme', which the model's opset_import does not "
                "list (it lists: ai.onnx 13)"),
            std::string::npos)
      << unlisted.status();

  onnx::OperatorSetIdProto* acme = m.add_opset_import();
  acme->set_domain("com.acme");
  acme->set_version(2);
  auto net = onnx_import::ImportOnnxModel(m.SerializeAsString());
  ASSERT_TRUE(net.ok()) << net.status();
  EXPECT_EQ(net->op(0).domain(), "com.acme");
  const Argument* imports = nullptr;
  for (const Argument& a : net->arg()) {
    if (a.name() == "opset_import") imports = &a;
  }
  ASSERT_NE(imports, nullptr);
  ASSERT_EQ(imports->strings_size(), 2);
  ASSERT_EQ(imports->ints_size(), 2);
  EXPECT_EQ(imports->strings(0), "ai.onnx");
  EXPECT_EQ(imports->ints(0), 13);
  EXPECT_EQ(imports->strings(1), "com.acme");
  EXPECT_EQ(imports->ints(1), 2);
  absl::Status s = onnx_import::CheckSupported(*net, *Reg());
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("(com.acme, SoftShrink, opset 2)"), std::string::npos) << s;
}

// ONNX's value messages, as ONNX's tests store sequence and optional inputs
// and outputs: ExportOnnxValue writes them and ImportOnnxValue reads them
// back, for a sequence of tensors, an optional tensor and sequence (and
// "none"); the bytes are ONNX's messages (checked with its own parser), and
// bytes that are not the declared message are errors.
TEST(OnnxValueTest, SequencesAndOptionalsRoundTripThroughOnnxMessages) {
  const Tensor a = Tensor::FromVector<float>({2}, {1.5f, -2.0f}), b = Tensor::FromVector<float>({1, 3}, {1, 2, 3});
  const DataType seq = SequenceOf(DataType::kFloat32);
  const Tensor s = *Tensor::MakeValue(seq, {a, b});
  const std::string bytes = onnx_import::ExportOnnxValue(s, "s");
  onnx::SequenceProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(parsed.name(), "s");
  EXPECT_EQ(parsed.elem_type(), onnx::SequenceProto::TENSOR);
  ASSERT_EQ(parsed.tensor_values_size(), 2);
  EXPECT_EQ(parsed.tensor_values(1).dims_size(), 2);
  absl::StatusOr<Tensor> back = onnx_import::ImportOnnxValue(bytes, seq);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->dtype(), seq);
  ASSERT_EQ(back->values().size(), 2u);
  EXPECT_EQ(back->values()[1].dims(), (Shape{1, 3}));
  EXPECT_EQ(back->values()[0].data<float>()[1], -2.0f);
  EXPECT_EQ(back->values()[1].data<float>()[2], 3.0f);

  const DataType opt = OptionalOf(DataType::kFloat32), opt_seq = OptionalOf(seq);
  for (const Tensor& o : {*Tensor::MakeValue(opt, {a}), *Tensor::MakeValue(opt, {}), *Tensor::MakeValue(opt_seq, {s}),
                          *Tensor::MakeValue(opt_seq, {})}) {
    const std::string ob = onnx_import::ExportOnnxValue(o, "o");
    onnx::OptionalProto op;
    ASSERT_TRUE(op.ParseFromString(ob));
    EXPECT_EQ(op.elem_type(), IsSequenceType(ValueElementType(o.dtype())) ? onnx::OptionalProto::SEQUENCE
                                                                           : onnx::OptionalProto::TENSOR);
    EXPECT_EQ(op.has_tensor_value() || op.has_sequence_value(), !o.values().empty());
    absl::StatusOr<Tensor> ob_back = onnx_import::ImportOnnxValue(ob, o.dtype());
    ASSERT_TRUE(ob_back.ok()) << ob_back.status();
    ASSERT_EQ(ob_back->dtype(), o.dtype());
    ASSERT_EQ(ob_back->values().size(), o.values().size());
    if (!o.values().empty() && o.dtype() == opt_seq) EXPECT_EQ(ob_back->values()[0].values().size(), 2u);
    if (!o.values().empty() && o.dtype() == opt) EXPECT_EQ(ob_back->values()[0].data<float>()[0], 1.5f);
  }

  // A tensor is ExportOnnxTensor's TensorProto; strings go as string_data.
  Tensor str = *Tensor::Create(DataType::kString, {2});
  *str.mutable_strings() = {"a", "bc"};
  absl::StatusOr<Tensor> str_back = onnx_import::ImportOnnxValue(onnx_import::ExportOnnxValue(str, "t"),
                                                                 DataType::kString);
  ASSERT_TRUE(str_back.ok()) << str_back.status();
  EXPECT_EQ(str_back->strings(), (std::vector<std::string>{"a", "bc"}));

  // Bytes that parse as a TensorProto without a data_type (here none at all;
  // a MapProto's too) are refused, as are a sequence's bytes read as a
  // tensor, and items of another dtype than the declared sequence's.
  absl::StatusOr<Tensor> wrong = onnx_import::ImportOnnxValue("", DataType::kFloat32);
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(absl::StrContains(wrong.status().message(), "no data_type")) << wrong.status();
  EXPECT_FALSE(onnx_import::ImportOnnxValue(bytes, DataType::kFloat32).ok());
  EXPECT_FALSE(onnx_import::ImportOnnxValue(bytes, SequenceOf(DataType::kInt64)).ok());
}

}  // namespace
}  // namespace testing
}  // namespace loom
