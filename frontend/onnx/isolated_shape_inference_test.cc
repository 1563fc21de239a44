// ONNX shape inference run in a child process: types come back into the
// model, a model that crashes libonnx 1.12's inference (the fuzz finding
// crash-1f27f88f: an AveragePool with a zero stride divides by zero) leaves
// the importing process alive and the model unchanged, and only models that
// need the inference get it.
#include "frontend/onnx/isolated_shape_inference.h"

#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "frontend/onnx/onnx_importer.h"
#include "testing/onnx_models.h"

namespace loom {
namespace onnx_import {
namespace {

using testing::AddNode;
using testing::IntsAttr;

onnx::ValueInfoProto* AddValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
                               const std::string& name, std::vector<int64_t> dims, bool typed = true) {
  onnx::ValueInfoProto* v = list->Add();
  v->set_name(name);
  if (typed) {
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  return v;
}

// x[2,3,8,8] -> AveragePool(kernel 2x2, strides s) -> Softmax -> y.
onnx::ModelProto PoolSoftmax(int64_t opset, std::vector<int64_t> strides) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(opset);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("pool_softmax");
  AddValue(g->mutable_input(), "x", {2, 3, 8, 8});
  onnx::NodeProto* pool = AddNode(g, "AveragePool", {"x"}, {"p"});
  IntsAttr(pool, "kernel_shape", {2, 2});
  IntsAttr(pool, "strides", strides);
  AddNode(g, "Softmax", {"p"}, {"y"});
  AddValue(g->mutable_output(), "y", {}, /*typed=*/false);
  return m;
}

TEST(IsolatedShapeInferenceTest, InferredTypesComeBackIntoTheModel) {
  onnx::ModelProto m = PoolSoftmax(11, {2, 2});
  ASSERT_TRUE(NeedsShapeInference(m, 11));
  absl::Status s = InferShapesIsolated(&m, absl::Seconds(30));
  ASSERT_TRUE(s.ok()) << s;
  // p: float32[2, 3, 4, 4] (hand-computed: (8 - 2) / 2 + 1 = 4).
  const onnx::ValueInfoProto* found = nullptr;
  for (const auto& v : m.graph().value_info()) {
    if (v.name() == "p") found = &v;
  }
  ASSERT_NE(found, nullptr);
  const onnx::ValueInfoProto& p = *found;
  EXPECT_EQ(p.type().tensor_type().elem_type(), onnx::TensorProto::FLOAT);
  ASSERT_EQ(p.type().tensor_type().shape().dim_size(), 4);
  EXPECT_EQ(p.type().tensor_type().shape().dim(2).dim_value(), 4);
  // The untyped graph output got its type.
  EXPECT_EQ(m.graph().output(0).type().tensor_type().elem_type(), onnx::TensorProto::FLOAT);
  EXPECT_EQ(m.graph().output(0).type().tensor_type().shape().dim(3).dim_value(), 4);
}

TEST(IsolatedShapeInferenceTest, ACrashInLibonnxLeavesTheProcessAndTheModelAsTheyWere) {
  onnx::ModelProto m = PoolSoftmax(11, {0, 1});
  const std::string before = m.SerializeAsString();
  absl::Status s = InferShapesIsolated(&m, absl::Seconds(30));
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
  EXPECT_NE(s.message().find("crashed: signal 8"), std::string::npos) << s;  // SIGFPE
  EXPECT_EQ(m.SerializeAsString(), before);
  // The importer goes on without the inferred types; the zero stride is
  // then Loom's to refuse or run, without a crash either way.
  absl::StatusOr<NetDef> net = ImportOnnxModel(before);
  if (net.ok()) EXPECT_GT(net->op_size(), 0);
}

TEST(IsolatedShapeInferenceTest, OnlyModelsThatUseTheResultAreInferred) {
  EXPECT_TRUE(NeedsShapeInference(PoolSoftmax(12, {1, 1}), 12));   // Softmax before 13
  EXPECT_FALSE(NeedsShapeInference(PoolSoftmax(13, {1, 1}), 13));  // Softmax from 13: no rank needed
  onnx::ModelProto legacy = PoolSoftmax(13, {1, 1});
  onnx::NodeProto* add = AddNode(legacy.mutable_graph(), "Add", {"y", "y"}, {"z"});
  auto* b = add->add_attribute();
  b->set_name("broadcast");
  b->set_type(onnx::AttributeProto::INT);
  b->set_i(1);
  EXPECT_TRUE(NeedsShapeInference(legacy, 6));
  EXPECT_FALSE(NeedsShapeInference(legacy, 13));
  // An If body output without a type, two levels down.
  onnx::ModelProto nested = PoolSoftmax(13, {1, 1});
  onnx::NodeProto* outer_if = AddNode(nested.mutable_graph(), "If", {"c"}, {"o"});
  auto* then_branch = outer_if->add_attribute();
  then_branch->set_name("then_branch");
  then_branch->set_type(onnx::AttributeProto::GRAPH);
  onnx::NodeProto* inner_if = AddNode(then_branch->mutable_g(), "If", {"c"}, {"o"});
  AddValue(then_branch->mutable_g()->mutable_output(), "o", {1});
  auto* inner_branch = inner_if->add_attribute();
  inner_branch->set_name("then_branch");
  inner_branch->set_type(onnx::AttributeProto::GRAPH);
  AddValue(inner_branch->mutable_g()->mutable_output(), "o", {1});
  EXPECT_FALSE(NeedsShapeInference(nested, 13));
  inner_branch->mutable_g()->mutable_output(0)->clear_type();
  EXPECT_TRUE(NeedsShapeInference(nested, 13));
}

}  // namespace
}  // namespace onnx_import
}  // namespace loom
