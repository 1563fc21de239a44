// The ONNX importer on small models built here: older opsets' semantics
// rewritten into current ops (Softmax before opset 13, legacy broadcast,
// PRelu-6), If branches whose outputs declare no type and read outer-scope
// values, and the one error listing every unsupported op. Results are
// checked against values computed in the test.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "transforms/graph_util.h"
#include "transforms/optimize.h"
#include "frontend/onnx/onnx_importer.h"

namespace loom {
namespace {

Registry* Reg() {
  static Registry* r = [] {
    Registry* reg = testing::CpuRegistry();
    absl::Status s = LoadPlugin(reg, "plugins/controlflow/libloom_controlflow.so");
    EXPECT_TRUE(s.ok()) << s;
    return reg;
  }();
  return r;
}

void AddInput(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims,
              int elem = onnx::TensorProto::FLOAT) {
  onnx::ValueInfoProto* v = g->add_input();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

void AddOutput(onnx::GraphProto* g, const std::string& name, bool typed = true) {
  onnx::ValueInfoProto* v = g->add_output();
  v->set_name(name);
  if (typed) v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& type, std::vector<std::string> in,
                         std::vector<std::string> out) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(type);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

void IntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void IntsAttr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t i : v) a->add_ints(i);
}

std::string Serialize(const onnx::GraphProto& g, int64_t opset) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(opset);
  *m.mutable_graph() = g;
  return m.SerializeAsString();
}

// Imports `model` and runs the transforms `options` selects (what the
// Session does), so that each test states the rewrites it expects.
absl::StatusOr<NetDef> ImportOptimized(const std::string& model, const transforms::OptimizeOptions& options = {}) {
  absl::StatusOr<NetDef> net = onnx_import::ImportOnnxModel(model);
  if (net.ok()) transforms::Optimize(&*net, options);
  return net;
}

// Imports, runs with `inputs`, returns output `name`.
Tensor RunModel(const std::string& model, const std::vector<std::pair<std::string, Tensor>>& inputs, const std::string& name) {
  auto net_def = ImportOptimized(model);
  EXPECT_TRUE(net_def.ok()) << net_def.status();
  if (!net_def.ok()) return Tensor();
  Workspace ws;
  for (const auto& [n, t] : inputs) ws.SetBlob(n, t);
  auto net = Net::Create(*net_def, &ws, Reg());
  EXPECT_TRUE(net.ok()) << net.status();
  if (!net.ok()) return Tensor();
  absl::Status s = (*net)->Run();
  EXPECT_TRUE(s.ok()) << s;
  const Tensor* t = ws.GetBlob(name);
  return t ? *t : Tensor();
}

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

onnx::TensorProto FloatTensor(const std::string& name, const Tensor& t) {
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : t.dims()) p.add_dims(d);
  p.set_raw_data(std::string(static_cast<const char*>(t.raw_data()), t.nbytes()));
  return p;
}

// The fusion tests check the graph the folds and fusions leave, on any
// machine: without the NCHWc pass, which on AVX-512 also rewrites dense
// convolutions (nchwc_layout.h).
absl::StatusOr<NetDef> ImportWithoutLayoutPass(const std::string& model) {
  transforms::OptimizeOptions o;
  o.nchwc_block = 0;
  return ImportOptimized(model, o);
}

// A float64 Conv -> Relu stays two ops (FusedConv has float32 kernels
// only) and runs: a float64 model imports runnable, e.g. as a reference for
// float32 results. The output is Relu of the naive float64 conv.
TEST(OnnxImporterTest, Float64ConvIsNotFused) {
  Tensor x = testing::RandomTensor(DataType::kFloat64, {1, 2, 5, 5}, 20);
  Tensor w = testing::RandomTensor(DataType::kFloat64, {3, 2, 3, 3}, 21);
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 2, 5, 5}, onnx::TensorProto::DOUBLE);
  AddOutput(&g, "y");
  onnx::TensorProto wp = FloatTensor("w", w);  // raw bytes of w
  wp.set_data_type(onnx::TensorProto::DOUBLE);
  *g.add_initializer() = wp;
  AddNode(&g, "Conv", {"x", "w"}, {"c"});
  AddNode(&g, "Relu", {"c"}, {"y"});
  auto net = ImportWithoutLayoutPass(Serialize(g, 13));
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_EQ(net->op_size(), 2);
  EXPECT_EQ(net->op(0).type(), "Conv");
  Tensor y = RunModel(Serialize(g, 13), {{"x", x}}, "y");
  auto conv = testing::RunSingleOp(testing::ParseOp("type: 'Conv' input: 'x' input: 'w' output: 'c'"), {x, w});
  ASSERT_TRUE(conv.ok()) << conv.status();
  Tensor ref = *(*conv)[0].Clone();
  for (int64_t i = 0; i < ref.num_elements(); ++i) ref.data<double>()[i] = std::max(0.0, ref.data<double>()[i]);
  EXPECT_TRUE(testing::AllClose(y, ref, 1e-12, 1e-12));
}

// Conv (weights from a Constant op, bias an initializer) -> BatchNormalization
// is folded into one Conv, with the result of the two ops run one by one.
TEST(OnnxImporterTest, BatchNormAfterConvIsFoldedIntoTheConv) {
  Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 2, 5, 5}, 30);
  Tensor w = testing::RandomTensor(DataType::kFloat32, {3, 2, 3, 3}, 31), b = testing::RandomTensor(DataType::kFloat32, {3}, 32);
  Tensor s = testing::RandomTensor(DataType::kFloat32, {3}, 33), sh = testing::RandomTensor(DataType::kFloat32, {3}, 34);
  Tensor m = testing::RandomTensor(DataType::kFloat32, {3}, 35), v = testing::RandomTensor(DataType::kFloat32, {3}, 36, 0.1, 2);
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 2, 5, 5});
  AddOutput(&g, "y");
  onnx::NodeProto* c = AddNode(&g, "Constant", {}, {"w"});
  onnx::AttributeProto* value = c->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  *value->mutable_t() = FloatTensor("", w);
  *g.add_initializer() = FloatTensor("b", b);
  *g.add_initializer() = FloatTensor("s", s);
  *g.add_initializer() = FloatTensor("sh", sh);
  *g.add_initializer() = FloatTensor("m", m);
  *g.add_initializer() = FloatTensor("v", v);
  IntAttr(AddNode(&g, "Conv", {"x", "w", "b"}, {"c"}), "group", 1);
  onnx::NodeProto* bn = AddNode(&g, "BatchNormalization", {"c", "s", "sh", "m", "v"}, {"y"});
  auto* eps = bn->add_attribute();
  eps->set_name("epsilon");
  eps->set_type(onnx::AttributeProto::FLOAT);
  eps->set_f(0.01f);
  auto net = ImportWithoutLayoutPass(Serialize(g, 13));
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_EQ(net->op_size(), 1);
  EXPECT_EQ(net->op(0).type(), "Conv");
  Tensor y = RunModel(Serialize(g, 13), {{"x", x}}, "y");
  auto conv = testing::RunSingleOp(testing::ParseOp("type: 'Conv' input: 'x' input: 'w' input: 'b' output: 'c'"), {x, w, b});
  ASSERT_TRUE(conv.ok()) << conv.status();
  auto ref = testing::RunSingleOp(
      testing::ParseOp("type: 'BatchNormalization' input: 'c' input: 's' input: 'sh' input: 'm' input: 'v' output: 'y' "
                       "arg { name: 'epsilon' f: 0.01 }"),
      {(*conv)[0], s, sh, m, v});
  ASSERT_TRUE(ref.ok()) << ref.status();
  EXPECT_TRUE(testing::AllClose(y, (*ref)[0], 1e-5, 1e-5));
}

// PyTorch's training export (opset 13): BatchNormalization with five
// outputs is training mode (training_mode = 1 after import), never folded.
// Imported for training, Conv + Relu fuses (FusedConv has a gradient) but
// Conv + LeakyRelu of negative alpha and Conv + HardSigmoid * X (HardSwish)
// do not, and no layout pass runs; imported for inference the same model
// gets the fusions and the blocked layouts.
TEST(OnnxImporterTest, ImportForTrainingAppliesOnlyRewritesWithGradients) {
  onnx::GraphProto g;
  AddInput(&g, "x", {2, 16, 8, 8});
  AddOutput(&g, "y");
  uint32_t seed = 300;
  for (const char* w : {"w1", "w2", "w3", "w4"}) *g.add_initializer() = FloatTensor(w, testing::RandomTensor(DataType::kFloat32, {16, 16, 3, 3}, seed++));
  for (const char* c : {"s", "sh", "m", "v"}) {
    *g.add_initializer() = FloatTensor(c, testing::RandomTensor(DataType::kFloat32, {16}, seed++, 0.1, 1));
  }
  auto conv = [&](const std::string& in, const std::string& w, const std::string& out) {
    IntsAttr(AddNode(&g, "Conv", {in, w}, {out}), "pads", {1, 1, 1, 1});
  };
  conv("x", "w1", "c1");
  AddNode(&g, "BatchNormalization", {"c1", "s", "sh", "m", "v"}, {"n1", "rm", "rv", "sm", "sv"});
  AddNode(&g, "Relu", {"n1"}, {"r1"});
  conv("r1", "w2", "c2");
  AddNode(&g, "Relu", {"c2"}, {"r2"});
  conv("r2", "w3", "c3");
  onnx::NodeProto* leaky = AddNode(&g, "LeakyRelu", {"c3"}, {"r3"});
  auto* alpha = leaky->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_f(-0.5f);
  conv("r3", "w4", "c4");
  onnx::NodeProto* hsig = AddNode(&g, "HardSigmoid", {"c4"}, {"hs"});
  for (const auto& [name, v] : std::vector<std::pair<std::string, float>>{{"alpha", 1.0f / 6}, {"beta", 0.5f}}) {
    auto* a = hsig->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  AddNode(&g, "Mul", {"c4", "hs"}, {"y"});
  transforms::OptimizeOptions training;
  training.training = true;
  auto net = ImportOptimized(Serialize(g, 13), training);
  ASSERT_TRUE(net.ok()) << net.status();
  std::vector<std::string> types;
  for (const OperatorDef& op : net->op()) types.push_back(op.type());
  EXPECT_EQ(types, (std::vector<std::string>{"Conv", "BatchNormalization", "Relu", "FusedConv", "Conv", "LeakyRelu",
                                             "Conv", "HardSigmoid", "Mul"}));
  const OperatorDef& bn = net->op(1);
  EXPECT_TRUE(transforms::HasNonZeroInt(bn, "training_mode"));
  ASSERT_EQ(bn.output_size(), 5);
  EXPECT_EQ(bn.output(1), "rm");
  EXPECT_EQ(bn.output(2), "rv");
  // Inference import: folds and fusions as usual around the training-mode
  // BatchNormalization, which keeps its batch statistics.
  auto inference = ImportOptimized(Serialize(g, 13));
  ASSERT_TRUE(inference.ok()) << inference.status();
  int bns = 0, fused = 0;
  for (const OperatorDef& op : inference->op()) {
    bns += op.type() == "BatchNormalization" && transforms::HasNonZeroInt(op, "training_mode");
    fused += op.type() == "FusedConv" || op.type() == "NchwcConv";
  }
  EXPECT_EQ(bns, 1);
  EXPECT_GE(fused, 3);
}

// ConvTranspose (stride 2, as PP-OCR's detection head) -> BatchNormalization
// -> Mul by a scalar folds into one ConvTranspose: its W [C, M, kH, kW] is
// scaled along M. The result equals the ops run one by one.
TEST(OnnxImporterTest, BatchNormAndScalarAfterConvTransposeAreFolded) {
  Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 2, 4, 5}, 130);
  Tensor w = testing::RandomTensor(DataType::kFloat32, {2, 3, 2, 2}, 131), b = testing::RandomTensor(DataType::kFloat32, {3}, 132);
  Tensor s = testing::RandomTensor(DataType::kFloat32, {3}, 133), sh = testing::RandomTensor(DataType::kFloat32, {3}, 134);
  Tensor m = testing::RandomTensor(DataType::kFloat32, {3}, 135), v = testing::RandomTensor(DataType::kFloat32, {3}, 136, 0.1, 2);
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 2, 4, 5});
  AddOutput(&g, "y");
  for (const auto& [name, t] : std::vector<std::pair<std::string, Tensor>>{
           {"w", w}, {"b", b}, {"s", s}, {"sh", sh}, {"m", m}, {"v", v}}) {
    *g.add_initializer() = FloatTensor(name, t);
  }
  *g.add_initializer() = FloatTensor("k", Tensor::FromVector<float>({}, {1.5f}));
  onnx::NodeProto* ct = AddNode(&g, "ConvTranspose", {"x", "w", "b"}, {"c"});
  auto* strides = ct->add_attribute();
  strides->set_name("strides");
  strides->set_type(onnx::AttributeProto::INTS);
  for (int64_t v2 : {2, 2}) strides->add_ints(v2);
  AddNode(&g, "BatchNormalization", {"c", "s", "sh", "m", "v"}, {"n"});
  AddNode(&g, "Mul", {"n", "k"}, {"y"});
  auto net = ImportWithoutLayoutPass(Serialize(g, 13));
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_EQ(net->op_size(), 1);
  EXPECT_EQ(net->op(0).type(), "ConvTranspose");
  Tensor y = RunModel(Serialize(g, 13), {{"x", x}}, "y");
  auto conv = testing::RunSingleOp(
      testing::ParseOp("type: 'ConvTranspose' input: 'x' input: 'w' input: 'b' output: 'c' "
                       "arg { name: 'strides' ints: 2 ints: 2 }"),
      {x, w, b});
  ASSERT_TRUE(conv.ok()) << conv.status();
  auto bn = testing::RunSingleOp(
      testing::ParseOp("type: 'BatchNormalization' input: 'c' input: 's' input: 'sh' input: 'm' input: 'v' output: 'y'"),
      {(*conv)[0], s, sh, m, v});
  ASSERT_TRUE(bn.ok()) << bn.status();
  Tensor ref = *(*bn)[0].Clone();
  for (int64_t i = 0; i < ref.num_elements(); ++i) ref.data<float>()[i] *= 1.5f;
  EXPECT_TRUE(testing::AllClose(y, ref, 1e-5, 1e-5));
}

// paddle2onnx writes a ConvTranspose's bias as an Add of a [1, M, 1, 1]
// constant before its BatchNormalization: the Add folds into the bias, then
// the BN into the weights, leaving one ConvTranspose (M = 16: on AVX-512 the
// kernel adds that bias itself, after oneDNN's primitive). An Add of a
// constant that varies along W is not per channel and stays. Results equal
// the ops run one by one.
TEST(OnnxImporterTest, PerChannelAddAndBatchNormAfterConvTransposeAreFolded) {
  const int64_t M = 16;
  Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 4, 3, 5}, 140);
  Tensor w = testing::RandomTensor(DataType::kFloat32, {4, M, 2, 2}, 141);
  Tensor bias = testing::RandomTensor(DataType::kFloat32, {1, M, 1, 1}, 142);
  Tensor s = testing::RandomTensor(DataType::kFloat32, {M}, 143), sh = testing::RandomTensor(DataType::kFloat32, {M}, 144);
  Tensor m = testing::RandomTensor(DataType::kFloat32, {M}, 145), v = testing::RandomTensor(DataType::kFloat32, {M}, 146, 0.1, 2);
  Tensor along_w = testing::RandomTensor(DataType::kFloat32, {1, 1, 1, 10}, 147);
  for (bool per_channel : {true, false}) {
    SCOPED_TRACE(per_channel);
    onnx::GraphProto g;
    AddInput(&g, "x", {1, 4, 3, 5});
    AddOutput(&g, "y");
    for (const auto& [name, t] : std::vector<std::pair<std::string, Tensor>>{
             {"w", w}, {"bias", per_channel ? bias : along_w}, {"s", s}, {"sh", sh}, {"m", m}, {"v", v}}) {
      *g.add_initializer() = FloatTensor(name, t);
    }
    onnx::NodeProto* ct = AddNode(&g, "ConvTranspose", {"x", "w"}, {"c"});
    auto* strides = ct->add_attribute();
    strides->set_name("strides");
    strides->set_type(onnx::AttributeProto::INTS);
    for (int64_t v2 : {2, 2}) strides->add_ints(v2);
    AddNode(&g, "Add", {"c", "bias"}, {"a"});
    AddNode(&g, "BatchNormalization", {"a", "s", "sh", "m", "v"}, {"y"});
    auto net = ImportWithoutLayoutPass(Serialize(g, 13));
    ASSERT_TRUE(net.ok()) << net.status();
    ASSERT_EQ(net->op_size(), per_channel ? 1 : 3);
    EXPECT_EQ(net->op(0).type(), "ConvTranspose");
    Tensor y = RunModel(Serialize(g, 13), {{"x", x}}, "y");
    auto conv = testing::RunSingleOp(
        testing::ParseOp("type: 'ConvTranspose' input: 'x' input: 'w' output: 'c' arg { name: 'strides' ints: 2 ints: 2 }"),
        {x, w});
    ASSERT_TRUE(conv.ok()) << conv.status();
    auto add = testing::RunSingleOp(testing::ParseOp("type: 'Add' input: 'c' input: 'b' output: 'a'"),
                                    {(*conv)[0], per_channel ? bias : along_w});
    ASSERT_TRUE(add.ok()) << add.status();
    auto bn = testing::RunSingleOp(
        testing::ParseOp("type: 'BatchNormalization' input: 'a' input: 's' input: 'sh' input: 'm' input: 'v' output: 'y'"),
        {(*add)[0], s, sh, m, v});
    ASSERT_TRUE(bn.ok()) << bn.status();
    EXPECT_TRUE(testing::AllClose(y, (*bn)[0], 1e-5, 1e-5));
  }
}

// paddle2onnx's block: Conv -> Mul(s) -> Add(b) -> Add(3) -> Clip(0, 6) ->
// Mul -> Div(6) becomes one FusedConv(HardSwish) with the scalars folded
// into the weights; the result equals the ops run one by one.
TEST(OnnxImporterTest, ConvScalarAffineAndHardSwishChainBecomeOneFusedConv) {
  Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 2, 6, 6}, 40, -3, 3);
  Tensor w = testing::RandomTensor(DataType::kFloat32, {3, 2, 3, 3}, 41), b = testing::RandomTensor(DataType::kFloat32, {3}, 42);
  auto scalar = [](float v) { return Tensor::FromVector<float>({1}, {v}); };
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 2, 6, 6});
  AddOutput(&g, "y");
  *g.add_initializer() = FloatTensor("w", w);
  *g.add_initializer() = FloatTensor("b", b);
  *g.add_initializer() = FloatTensor("s", scalar(1.7f));
  *g.add_initializer() = FloatTensor("t", scalar(-0.4f));
  *g.add_initializer() = FloatTensor("three", scalar(3.0f));
  *g.add_initializer() = FloatTensor("zero", Tensor::FromVector<float>({}, {0.0f}));
  *g.add_initializer() = FloatTensor("six", Tensor::FromVector<float>({}, {6.0f}));
  AddNode(&g, "Conv", {"x", "w", "b"}, {"c"});
  AddNode(&g, "Mul", {"c", "s"}, {"cs"});
  AddNode(&g, "Add", {"cs", "t"}, {"a"});
  AddNode(&g, "Add", {"a", "three"}, {"a3"});
  AddNode(&g, "Clip", {"a3", "zero", "six"}, {"cl"});
  AddNode(&g, "Mul", {"a", "cl"}, {"m"});
  AddNode(&g, "Div", {"m", "six"}, {"y"});
  auto net = ImportWithoutLayoutPass(Serialize(g, 13));
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_EQ(net->op_size(), 1);
  EXPECT_EQ(net->op(0).type(), "FusedConv");
  Tensor y = RunModel(Serialize(g, 13), {{"x", x}}, "y");
  // Reference: Conv, then the element-wise chain by hand.
  auto conv = testing::RunSingleOp(testing::ParseOp("type: 'Conv' input: 'x' input: 'w' input: 'b' output: 'c'"), {x, w, b});
  ASSERT_TRUE(conv.ok()) << conv.status();
  Tensor ref = *(*conv)[0].Clone();
  for (int64_t i = 0; i < ref.num_elements(); ++i) {
    float a = ref.data<float>()[i] * 1.7f - 0.4f;
    ref.data<float>()[i] = a * std::min(std::max(a + 3.0f, 0.0f), 6.0f) / 6.0f;
  }
  EXPECT_TRUE(testing::AllClose(y, ref, 1e-5, 1e-5));
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

// Runs `blocked` (`model` imported with the NCHWc pass) and the plain import
// of `model` on `feeds` and expects their output `out` within `tol`
// (relative and absolute).
void ExpectSameAsPlainImport(const std::string& model, const NetDef& blocked,
                             const std::vector<std::pair<std::string, Tensor>>& feeds, const std::string& out,
                             double tol = 1e-5) {
  transforms::OptimizeOptions plain;
  plain.nchwc_block = 0;
  auto reference = ImportOptimized(model, plain);
  ASSERT_TRUE(reference.ok()) << reference.status();
  Workspace ws_plain, ws_blocked;
  for (const auto& [name, t] : feeds) {
    ws_plain.SetBlob(name, t);
    ws_blocked.SetBlob(name, t);
  }
  auto a = Net::Create(*reference, &ws_plain, Reg());
  auto b = Net::Create(blocked, &ws_blocked, Reg());
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  ASSERT_TRUE((*a)->Run().ok());
  absl::Status s = (*b)->Run();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(testing::AllClose(*ws_blocked.GetBlob(out), *ws_plain.GetBlob(out), tol, tol)) << out;
}

// A residual block (depthwise Conv + Relu, pointwise Conv, Add of the first
// conv's output, Relu) then MaxPool: with the blocked layout
// (nchwc_layout.h) the convolutions run as NchwcConv, the Add and the last
// Relu fold into the second one (its Sum input and activation), MaxPool
// runs blocked too (NchwcMaxPool), one ReorderInput starts the run and a
// ReorderOutput gives each net output (r, y) its plain form; the outputs
// equal the plain import's.
TEST(OnnxImporterTest, ConvolutionRunsKeepTheBlockedLayout) {
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {2, 16, 9, 7}, 50);
  const Tensor w1 = testing::RandomTensor(DataType::kFloat32, {16, 1, 3, 3}, 51, -0.5, 0.5);
  const Tensor w2 = testing::RandomTensor(DataType::kFloat32, {16, 16, 1, 1}, 52, -0.5, 0.5);
  const Tensor b2 = testing::RandomTensor(DataType::kFloat32, {16}, 53);
  onnx::GraphProto g;
  AddInput(&g, "x", {2, 16, 9, 7});
  AddOutput(&g, "y");
  AddOutput(&g, "r");
  *g.add_initializer() = FloatTensor("w1", w1);
  *g.add_initializer() = FloatTensor("w2", w2);
  *g.add_initializer() = FloatTensor("b2", b2);
  onnx::NodeProto* c1 = AddNode(&g, "Conv", {"x", "w1"}, {"c1"});
  IntAttr(c1, "group", 16);
  auto* pads = c1->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int64_t p : {1, 1, 1, 1}) pads->add_ints(p);
  AddNode(&g, "Relu", {"c1"}, {"a1"});
  AddNode(&g, "Conv", {"a1", "w2", "b2"}, {"c2"});
  AddNode(&g, "Add", {"c2", "a1"}, {"s"});
  AddNode(&g, "Relu", {"s"}, {"r"});
  onnx::NodeProto* pool = AddNode(&g, "MaxPool", {"r"}, {"y"});
  auto* k = pool->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : {2, 2}) k->add_ints(v);
  const std::string model = Serialize(g, 13);
  for (int64_t block : {8, 16}) {
    SCOPED_TRACE(block);
    transforms::OptimizeOptions blocked;
    blocked.nchwc_block = block;
    auto net = ImportOptimized(model, blocked);
    ASSERT_TRUE(net.ok()) << net.status();
    std::vector<std::string> types;
    for (const OperatorDef& op : net->op()) types.push_back(op.type());
    EXPECT_EQ(types, (std::vector<std::string>{"ReorderInput", "NchwcConv", "NchwcConv", "NchwcMaxPool", "ReorderOutput",
                                               "ReorderOutput"}));
    const OperatorDef& second = net->op(2);
    ASSERT_EQ(second.input_size(), 4);  // X, W, B and the residual as Sum
    EXPECT_EQ(second.input(3), "a1__nchwc");
    ASSERT_NE(transforms::FindArg(second, "activation"), nullptr);
    EXPECT_EQ(transforms::FindArg(second, "activation")->s(), "Relu");
    for (const char* out : {"y", "r"}) ExpectSameAsPlainImport(model, *net, {{"x", x}}, out);
  }
}

// With block 16 (AVX-512) dense convs run channels-last (NchwcConv block
// 0); a pointwise conv keeps its input's layout, so the residual Add fuses
// into it; a depthwise conv after them wants nChw16c, so its input is
// re-blocked (a ReorderInput of a blocked tensor), and an Add of the two
// layouts re-blocks one operand. A stem from 3 channels, a channels-last
// MaxPool and 16-channel tensors (one block: channels-last and nChw16c are
// the same bytes) are covered. The outputs equal the plain import's.
TEST(OnnxImporterTest, DenseConvsRunChannelsLastAndLayoutsMeetByReblocking) {
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 3, 10, 9}, 80);
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 3, 10, 9});
  AddOutput(&g, "y");
  int seed = 81;
  auto weight = [&](const char* name, std::vector<int64_t> dims) {
    *g.add_initializer() = FloatTensor(name, testing::RandomTensor(DataType::kFloat32, Shape(dims), seed++, -0.5, 0.5));
  };
  weight("w0", {16, 3, 3, 3});
  weight("w1", {16, 16, 3, 3});
  weight("w2", {16, 16, 1, 1});
  weight("w3", {16, 1, 3, 3});
  auto pads = [](onnx::NodeProto* n) {
    auto* a = n->add_attribute();
    a->set_name("pads");
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t p : {1, 1, 1, 1}) a->add_ints(p);
    return n;
  };
  pads(AddNode(&g, "Conv", {"x", "w0"}, {"c0"}));  // the stem: dense, channels-last
  AddNode(&g, "Relu", {"c0"}, {"a0"});
  onnx::NodeProto* pool = pads(AddNode(&g, "MaxPool", {"a0"}, {"p"}));  // channels-last NchwcMaxPool
  auto* k = pool->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : {3, 3}) k->add_ints(v);
  pads(AddNode(&g, "Conv", {"p", "w1"}, {"c1"}));  // dense
  AddNode(&g, "Conv", {"p", "w2"}, {"sc"});        // pointwise on a channels-last input
  AddNode(&g, "Add", {"c1", "sc"}, {"s"});          // fused into the later conv, sc's
  IntAttr(pads(AddNode(&g, "Conv", {"s", "w3"}, {"d"})), "group", 16);  // depthwise: nChw16c
  AddNode(&g, "Add", {"d", "s"}, {"y"});            // two layouts
  const std::string model = Serialize(g, 13);
  transforms::OptimizeOptions blocked;
  blocked.nchwc_block = 16;
  blocked.winograd = false;  // w1 would run Winograd (the next test)
  auto net = ImportOptimized(model, blocked);
  ASSERT_TRUE(net.ok()) << net.status();
  int channels_last = 0, reblocks = 0;
  for (const OperatorDef& op : net->op()) {
    EXPECT_NE(op.type(), "MaxPool") << "pooled in the blocked layout";
    const Argument* b = transforms::FindArg(op, "block");
    if (op.type() == "NchwcConv" && b != nullptr && b->i() == 0) ++channels_last;
    if (op.type() == "ReorderInput" && absl::EndsWith(op.input(0), "__nchwc")) ++reblocks;
    if (op.type() == "NchwcConv" && op.output(0) == "s__nchwc") {
      EXPECT_EQ(op.input(3), "c1__nchwc");  // Sum
    }
  }
  EXPECT_EQ(channels_last, 3) << "the two dense convs and the pointwise one";
  EXPECT_EQ(reblocks, 1) << "s to nChw16c, once, for the depthwise conv and the Add";
  ExpectSameAsPlainImport(model, *net, {{"x", x}}, "y");
  // On AVX2 (block 8) dense convs stay plain Conv.
  blocked.nchwc_block = 8;
  auto avx2 = ImportOptimized(model, blocked);
  ASSERT_TRUE(avx2.ok()) << avx2.status();
  EXPECT_EQ(avx2->op(0).type(), "FusedConv");
  ExpectSameAsPlainImport(model, *avx2, {{"x", x}}, "y");
}

// An image stem (a dense conv of 3 input channels, stride 2) whose output
// feeds (through Relu and MaxPool) a depthwise conv reads the plain input x
// itself and writes the nChw<b>c of the depthwise conv: no reorder on either
// side of it, with block 16 and with block 8 (AVX2). One that feeds a dense
// conv which runs channels-last (block 16, Winograd off) runs channels-last
// as before (DenseConvsRunChannelsLastAndLayoutsMeetByReblocking). The
// outputs equal the plain import's.
TEST(OnnxImporterTest, StemConvReadsThePlainInputAndWritesBlocks) {
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {2, 3, 17, 12}, 90);
  onnx::GraphProto g;
  AddInput(&g, "x", {2, 3, 17, 12});
  AddOutput(&g, "y");
  *g.add_initializer() = FloatTensor("w0", testing::RandomTensor(DataType::kFloat32, {16, 3, 3, 3}, 91, -0.5, 0.5));
  *g.add_initializer() = FloatTensor("w1", testing::RandomTensor(DataType::kFloat32, {16, 1, 3, 3}, 92, -0.5, 0.5));
  onnx::NodeProto* stem = AddNode(&g, "Conv", {"x", "w0"}, {"c0"});
  IntsAttr(stem, "strides", {2, 2});
  IntsAttr(stem, "pads", {1, 1, 1, 1});
  AddNode(&g, "Relu", {"c0"}, {"a0"});
  IntsAttr(AddNode(&g, "MaxPool", {"a0"}, {"p"}), "kernel_shape", {2, 2});
  onnx::NodeProto* dw = AddNode(&g, "Conv", {"p", "w1"}, {"y"});
  IntAttr(dw, "group", 16);
  IntsAttr(dw, "pads", {1, 1, 1, 1});
  const std::string model = Serialize(g, 13);
  for (int64_t block : {16, 8}) {
    transforms::OptimizeOptions blocked;
    blocked.nchwc_block = block;
    auto net = ImportOptimized(model, blocked);
    ASSERT_TRUE(net.ok()) << net.status();
    ASSERT_GE(net->op_size(), 1);
    EXPECT_EQ(net->op(0).type(), "NchwcConv") << "block " << block;
    EXPECT_EQ(net->op(0).input(0), "x") << "block " << block << ": the plain input, no ReorderInput";
    int reorders = 0;
    for (const OperatorDef& op : net->op()) reorders += op.type() == "ReorderInput" || op.type() == "ReorderOutput";
    EXPECT_EQ(reorders, 1) << "block " << block << ": y's ReorderOutput only";
    ExpectSameAsPlainImport(model, *net, {{"x", x}}, "y");
  }
}

// With block 16 a dense 3x3 conv of stride 1 with 16 to 256 channels runs
// nChw16c with algorithm "winograd"; one of stride 2, or with more than 256
// channels, runs channels-last and direct, as every conv does with
// OptimizeOptions::winograd off. The output equals the plain import's within
// Winograd's rounding (direct's without it).
TEST(OnnxImporterTest, Dense3x3ConvsOfUpTo256ChannelsRunWinograd) {
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 16, 12, 10}, 70);
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 16, 12, 10});
  AddOutput(&g, "y");
  int seed = 71;
  auto conv = [&](const char* in, const char* out, std::vector<int64_t> w, int64_t stride) {
    const std::string name = std::string(out) + "_w";
    *g.add_initializer() = FloatTensor(name, testing::RandomTensor(DataType::kFloat32, Shape(w), seed++, -0.2, 0.2));
    onnx::NodeProto* n = AddNode(&g, "Conv", {in, name}, {out});
    auto ints = [&](const char* attr, std::vector<int64_t> values) {
      auto* a = n->add_attribute();
      a->set_name(attr);
      a->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : values) a->add_ints(v);
    };
    ints("pads", {1, 1, 1, 1});
    ints("strides", {stride, stride});
  };
  conv("x", "c1", {32, 16, 3, 3}, 1);    // Winograd
  AddNode(&g, "Relu", {"c1"}, {"a1"});
  conv("a1", "c2", {32, 32, 3, 3}, 2);   // stride 2: channels-last
  conv("c2", "c3", {272, 32, 3, 3}, 1);  // 272 channels: channels-last
  AddNode(&g, "Relu", {"c3"}, {"y"});
  const std::string model = Serialize(g, 13);
  for (bool winograd : {true, false}) {
    SCOPED_TRACE(winograd);
    transforms::OptimizeOptions options;
    options.nchwc_block = 16;
    options.winograd = winograd;
    auto net = ImportOptimized(model, options);
    ASSERT_TRUE(net.ok()) << net.status();
    std::map<std::string, std::pair<int64_t, std::string>> convs;  // weight -> (block, algorithm)
    for (const OperatorDef& op : net->op()) {
      if (op.type() != "NchwcConv") continue;
      const Argument* a = transforms::FindArg(op, "algorithm");
      convs[op.input(1)] = {transforms::FindArg(op, "block")->i(), a != nullptr ? a->s() : ""};
    }
    using P = std::pair<int64_t, std::string>;
    EXPECT_EQ(convs["c1_w"], winograd ? P(16, "winograd") : P(0, ""));
    EXPECT_EQ(convs["c2_w"], P(0, ""));
    EXPECT_EQ(convs["c3_w"], P(0, ""));
    ExpectSameAsPlainImport(model, *net, {{"x", x}}, "y", winograd ? 1e-4 : 1e-5);
  }
}

// PP-OCR's FPN: a Resize by constant scales [1, 1, sh, sw] of a blocked
// tensor and a Concat on channels of blocked tensors run on the blocked
// forms (Resize with scales [1, 1, sh, sw, 1]; Concat of channels-last
// tensors along their last axis), so the only reorders are the net's input
// and output ones. Nearest and linear modes; outputs equal the plain
// import's.
TEST(OnnxImporterTest, ResizeAndChannelConcatKeepTheBlockedLayout) {
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 8, 5, 6}, 150);
  for (const char* mode : {"nearest", "linear"}) {
    SCOPED_TRACE(mode);
    onnx::GraphProto g;
    AddInput(&g, "x", {1, 8, 5, 6});
    AddOutput(&g, "y");
    int seed = 151;
    auto conv = [&](const char* in, const char* out, std::vector<int64_t> w) {
      const std::string name = std::string(out) + "_w";
      *g.add_initializer() = FloatTensor(name, testing::RandomTensor(DataType::kFloat32, Shape(w), seed++, -0.2, 0.2));
      auto* pads = AddNode(&g, "Conv", {in, name}, {out})->add_attribute();
      pads->set_name("pads");
      pads->set_type(onnx::AttributeProto::INTS);
      for (int64_t p : {1, 1, 1, 1}) pads->add_ints(p);
    };
    *g.add_initializer() = FloatTensor("roi", Tensor::Zeros(DataType::kFloat32, {0}));
    *g.add_initializer() = FloatTensor("scales", Tensor::FromVector<float>({4}, {1, 1, 2, 2}));
    conv("x", "c1", {24, 8, 3, 3});
    auto* m = AddNode(&g, "Resize", {"c1", "roi", "scales"}, {"r"})->add_attribute();
    m->set_name("mode");
    m->set_type(onnx::AttributeProto::STRING);
    m->set_s(mode);
    conv("r", "c2", {24, 24, 3, 3});
    IntAttr(AddNode(&g, "Concat", {"r", "c2"}, {"cat"}), "axis", 1);
    conv("cat", "y", {8, 48, 3, 3});
    const std::string model = Serialize(g, 13);
    transforms::OptimizeOptions options;
    options.nchwc_block = 16;
    auto net = ImportOptimized(model, options);
    ASSERT_TRUE(net.ok()) << net.status();
    int reorders = 0;
    for (const OperatorDef& op : net->op()) {
      if (op.type() == "ReorderInput" || op.type() == "ReorderOutput") ++reorders;
      if (op.type() == "Resize") {
        EXPECT_EQ(op.input(0), "c1__nchwc");
        EXPECT_EQ(op.input(2), "scales__nchwc");
      }
      if (op.type() == "Concat") {
        EXPECT_EQ(op.input(0), "r__nchwc");
        EXPECT_EQ(transforms::FindArg(op, "axis")->i(), 4) << "channels-last: the last axis";
      }
    }
    EXPECT_EQ(reorders, 2) << "x in, y out";
    ExpectSameAsPlainImport(model, *net, {{"x", x}}, "y");
  }
}

// Pointwise and depthwise convs whose channels are not multiples of the
// block (24 and 40 here, as in PP-OCR's classifier) run channels-last on
// AVX-512 (block 16); with block 8 (24 and 40 are multiples of 8) they run
// nChw8c.
TEST(OnnxImporterTest, ConvsWithPartialBlocksRunChannelsLast) {
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 24, 7, 6}, 90);
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 24, 7, 6});
  AddOutput(&g, "y");
  *g.add_initializer() = FloatTensor("w1", testing::RandomTensor(DataType::kFloat32, {24, 1, 3, 3}, 91, -0.5, 0.5));
  *g.add_initializer() = FloatTensor("w2", testing::RandomTensor(DataType::kFloat32, {40, 24, 1, 1}, 92, -0.5, 0.5));
  onnx::NodeProto* dw = AddNode(&g, "Conv", {"x", "w1"}, {"d"});
  IntAttr(dw, "group", 24);
  auto* pads = dw->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int64_t p : {1, 1, 1, 1}) pads->add_ints(p);
  AddNode(&g, "Relu", {"d"}, {"a"});
  AddNode(&g, "Conv", {"a", "w2"}, {"y"});
  const std::string model = Serialize(g, 13);
  for (int64_t block : {16, 8}) {
    SCOPED_TRACE(block);
    transforms::OptimizeOptions o;
    o.nchwc_block = block;
    auto net = ImportOptimized(model, o);
    ASSERT_TRUE(net.ok()) << net.status();
    int channels_last = 0;
    for (const OperatorDef& op : net->op()) {
      const Argument* b = transforms::FindArg(op, "block");
      channels_last += op.type() == "NchwcConv" && b != nullptr && b->i() == 0;
    }
    EXPECT_EQ(channels_last, block == 16 ? 2 : 0);
    EXPECT_EQ(std::count_if(net->op().begin(), net->op().end(),
                            [](const OperatorDef& op) { return op.type() == "NchwcConv"; }), 2);
    ExpectSameAsPlainImport(model, *net, {{"x", x}}, "y");
  }
}

// A squeeze-excitation block on channels-last tensors (24 channels, block
// 16): GlobalAveragePool runs blocked (NchwcGlobalAveragePool), its 1x1
// convs too, and the gate's Mul broadcasts [1, 1, 1, 1, C] over [1, 1, H,
// W, C] without reorders. Then a 1-channel conv's output is added to X: two
// layouts meet in channels-last, where one channel broadcasts as in NCHW.
// The outputs equal the plain import's.
TEST(OnnxImporterTest, SqueezeExcitationStaysChannelsLast) {
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 24, 5, 6}, 100);
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 24, 5, 6});
  AddOutput(&g, "y");
  int seed = 101;
  auto weight = [&](const char* name, std::vector<int64_t> dims) {
    *g.add_initializer() = FloatTensor(name, testing::RandomTensor(DataType::kFloat32, Shape(dims), seed++, -0.5, 0.5));
  };
  weight("w0", {24, 24, 1, 1});
  weight("w1", {8, 24, 1, 1});
  weight("w2", {24, 8, 1, 1});
  weight("w3", {1, 24, 3, 3});
  AddNode(&g, "Conv", {"x", "w0"}, {"c0"});  // channels-last (24 is not a multiple of 16)
  AddNode(&g, "GlobalAveragePool", {"c0"}, {"p"});
  AddNode(&g, "Conv", {"p", "w1"}, {"q"});
  AddNode(&g, "Relu", {"q"}, {"r"});
  AddNode(&g, "Conv", {"r", "w2"}, {"e"});
  AddNode(&g, "Sigmoid", {"e"}, {"gate"});
  AddNode(&g, "Mul", {"c0", "gate"}, {"m"});
  onnx::NodeProto* one = AddNode(&g, "Conv", {"m", "w3"}, {"o"});  // M = 1
  auto* pads = one->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int64_t p : {1, 1, 1, 1}) pads->add_ints(p);
  AddNode(&g, "Add", {"m", "o"}, {"y"});
  const std::string model = Serialize(g, 13);
  transforms::OptimizeOptions o;
  o.nchwc_block = 16;
  auto net = ImportOptimized(model, o);
  ASSERT_TRUE(net.ok()) << net.status();
  std::vector<std::string> types;
  for (const OperatorDef& op : net->op()) types.push_back(op.type());
  EXPECT_EQ(std::count(types.begin(), types.end(), "NchwcGlobalAveragePool"), 1);
  EXPECT_EQ(std::count(types.begin(), types.end(), "ReorderOutput"), 1) << "only y's";
  EXPECT_EQ(types.back(), "ReorderOutput");
  ExpectSameAsPlainImport(model, *net, {{"x", x}}, "y");
}

// x + Conv1x1(GlobalAveragePool(x)) (a GCNet-style context block): the 1x1
// conv's output is 1 x 1, so the Add must not fuse into it as its Sum (x
// would have to broadcast the other way); it stays an Add that broadcasts.
TEST(OnnxImporterTest, AddOfAPooledBranchIsNotFusedIntoItsConv) {
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 16, 5, 4}, 120);
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 16, 5, 4});
  AddOutput(&g, "y");
  *g.add_initializer() = FloatTensor("w0", testing::RandomTensor(DataType::kFloat32, {16, 1, 1, 1}, 121, -0.5, 0.5));
  *g.add_initializer() = FloatTensor("w1", testing::RandomTensor(DataType::kFloat32, {16, 16, 1, 1}, 122, -0.5, 0.5));
  IntAttr(AddNode(&g, "Conv", {"x", "w0"}, {"c"}), "group", 16);  // depthwise: blocked with 8 and 16
  AddNode(&g, "GlobalAveragePool", {"c"}, {"p"});
  AddNode(&g, "Conv", {"p", "w1"}, {"q"});
  AddNode(&g, "Add", {"c", "q"}, {"y"});
  const std::string model = Serialize(g, 13);
  for (int64_t block : {16, 8}) {
    SCOPED_TRACE(block);
    transforms::OptimizeOptions o;
    o.nchwc_block = block;
    auto net = ImportOptimized(model, o);
    ASSERT_TRUE(net.ok()) << net.status();
    bool add = false;
    for (const OperatorDef& op : net->op()) add = add || op.type() == "Add";
    EXPECT_TRUE(add) << "the Add stays";
    ExpectSameAsPlainImport(model, *net, {{"x", x}}, "y");
  }
}

// A residual block whose shortcut conv comes after the branch's last conv
// (as ResNet's downsampling blocks): the Add fuses into the shortcut conv
// (whose Sum is the branch, written before it), never into a conv that
// would read a later value.
TEST(OnnxImporterTest, ResidualAddFusesIntoTheLaterConv) {
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 16, 6, 6}, 60);
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 16, 6, 6});
  AddOutput(&g, "s");
  *g.add_initializer() = FloatTensor("w1", testing::RandomTensor(DataType::kFloat32, {16, 1, 1, 1}, 61, -0.5, 0.5));
  int seed = 62;
  for (const char* w : {"w2", "w3"}) {
    *g.add_initializer() = FloatTensor(w, testing::RandomTensor(DataType::kFloat32, {16, 16, 1, 1}, seed++, -0.5, 0.5));
  }
  IntAttr(AddNode(&g, "Conv", {"x", "w1"}, {"c1"}), "group", 16);  // depthwise: the run starts here
  AddNode(&g, "Conv", {"c1", "w2"}, {"c2"});
  AddNode(&g, "Conv", {"x", "w3"}, {"sc"});
  AddNode(&g, "Add", {"c2", "sc"}, {"s"});
  const std::string model = Serialize(g, 13);
  transforms::OptimizeOptions blocked;
  blocked.nchwc_block = 16;
  auto net = ImportOptimized(model, blocked);
  ASSERT_TRUE(net.ok()) << net.status();
  const OperatorDef& shortcut = net->op(net->op_size() - 2);  // before the final ReorderOutput
  ASSERT_EQ(shortcut.type(), "NchwcConv");
  ASSERT_EQ(shortcut.input_size(), 4);
  EXPECT_EQ(shortcut.input(3), "c2__nchwc");
  ExpectSameAsPlainImport(model, *net, {{"x", x}}, "s");
}

// A fused residual Add whose other operand broadcasts ([1, 16, 1, 1] against
// [1, 16, 6, 6]): the Sum input is broadcast into Y as the Add did.
TEST(OnnxImporterTest, FusedResidualAddBroadcastsLikeTheAdd) {
  onnx::GraphProto g;
  AddInput(&g, "x", {1, 16, 6, 6});
  AddInput(&g, "x2", {1, 16, 1, 1});
  AddOutput(&g, "s");
  *g.add_initializer() = FloatTensor("w1", testing::RandomTensor(DataType::kFloat32, {16, 1, 1, 1}, 71, -0.5, 0.5));
  *g.add_initializer() = FloatTensor("w2", testing::RandomTensor(DataType::kFloat32, {16, 1, 1, 1}, 72, -0.5, 0.5));
  IntAttr(AddNode(&g, "Conv", {"x2", "w2"}, {"c2"}), "group", 16);
  IntAttr(AddNode(&g, "Conv", {"x", "w1"}, {"c1"}), "group", 16);
  AddNode(&g, "Add", {"c1", "c2"}, {"s"});
  const std::string model = Serialize(g, 13);
  transforms::OptimizeOptions blocked;
  blocked.nchwc_block = 16;
  auto net = ImportOptimized(model, blocked);
  ASSERT_TRUE(net.ok()) << net.status();
  const OperatorDef& fused = net->op(net->op_size() - 2);  // before the final ReorderOutput
  ASSERT_EQ(fused.type(), "NchwcConv");
  ASSERT_EQ(fused.input_size(), 4);
  EXPECT_EQ(fused.input(3), "c2__nchwc");
  ExpectSameAsPlainImport(model, *net,
                          {{"x", testing::RandomTensor(DataType::kFloat32, {1, 16, 6, 6}, 73)},
                           {"x2", testing::RandomTensor(DataType::kFloat32, {1, 16, 1, 1}, 74)}},
                          "s");
}

TEST(OnnxImporterTest, ConvThenActivationIsFusedIntoFusedConv) {
  Tensor x = testing::RandomTensor(DataType::kFloat32, {1, 2, 6, 5}, 40);
  Tensor w = testing::RandomTensor(DataType::kFloat32, {4, 2, 3, 3}, 41), b = testing::RandomTensor(DataType::kFloat32, {4}, 42);
  auto conv = testing::RunSingleOp(
      testing::ParseOp("type: 'Conv' input: 'x' input: 'w' input: 'b' output: 'c' arg { name: 'pads' ints: 1 ints: 0 "
                       "ints: 1 ints: 2 }"),
      {x, w, b});
  ASSERT_TRUE(conv.ok()) << conv.status();
  auto pads = [](onnx::NodeProto* n) {
    auto* a = n->add_attribute();
    a->set_name("pads");
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t p : {1, 0, 1, 2}) a->add_ints(p);
  };
  {  // Conv -> Relu: one FusedConv with the Relu's output, same values.
    onnx::GraphProto g;
    AddInput(&g, "x", {1, 2, 6, 5});
    AddOutput(&g, "y");
    *g.add_initializer() = FloatTensor("w", w);
    *g.add_initializer() = FloatTensor("b", b);
    pads(AddNode(&g, "Conv", {"x", "w", "b"}, {"c"}));
    AddNode(&g, "Relu", {"c"}, {"y"});
    auto net = ImportWithoutLayoutPass(Serialize(g, 13));
    ASSERT_TRUE(net.ok()) << net.status();
    ASSERT_EQ(net->op_size(), 1);
    EXPECT_EQ(net->op(0).type(), "FusedConv");
    EXPECT_EQ(net->op(0).output(0), "y");
    auto ref = testing::RunSingleOp(testing::ParseOp("type: 'Relu' input: 'c' output: 'y'"), {(*conv)[0]});
    ASSERT_TRUE(ref.ok()) << ref.status();
    EXPECT_TRUE(testing::AllClose(RunModel(Serialize(g, 13), {{"x", x}}, "y"), (*ref)[0], 1e-5, 1e-5));
  }
  {  // Clip-13 with constant bounds fuses (the bounds are dropped); with a
     // bound that is a graph input it does not.
    for (bool constant_max : {true, false}) {
      onnx::GraphProto g;
      AddInput(&g, "x", {1, 2, 6, 5});
      if (!constant_max) AddInput(&g, "hi", {});
      AddOutput(&g, "y");
      *g.add_initializer() = FloatTensor("w", w);
      *g.add_initializer() = FloatTensor("b", b);
      *g.add_initializer() = FloatTensor("lo", Tensor::FromVector<float>({}, {-0.5f}));
      if (constant_max) *g.add_initializer() = FloatTensor("hi", Tensor::FromVector<float>({}, {0.25f}));
      pads(AddNode(&g, "Conv", {"x", "w", "b"}, {"c"}));
      AddNode(&g, "Clip", {"c", "lo", "hi"}, {"y"});
      auto net = ImportWithoutLayoutPass(Serialize(g, 13));
      ASSERT_TRUE(net.ok()) << net.status();
      ASSERT_EQ(net->op_size(), constant_max ? 1 : 2);
      EXPECT_EQ(net->op(0).type(), constant_max ? "FusedConv" : "Conv");
      if (constant_max) {
        EXPECT_EQ(net->initializer_size(), 2);  // w, b
      }
      const Tensor hi = Tensor::FromVector<float>({}, {0.25f});
      auto ref = testing::RunSingleOp(testing::ParseOp("type: 'Clip' input: 'c' input: 'lo' input: 'hi' output: 'y'"),
                                      {(*conv)[0], Tensor::FromVector<float>({}, {-0.5f}), hi});
      ASSERT_TRUE(ref.ok()) << ref.status();
      std::vector<std::pair<std::string, Tensor>> in = {{"x", x}};
      if (!constant_max) in.push_back({"hi", hi});
      EXPECT_TRUE(testing::AllClose(RunModel(Serialize(g, 13), in, "y"), (*ref)[0], 1e-5, 1e-5));
    }
  }
  {  // The Conv's output is also a net output: nothing is fused.
    onnx::GraphProto g;
    AddInput(&g, "x", {1, 2, 6, 5});
    AddOutput(&g, "y");
    AddOutput(&g, "c");
    *g.add_initializer() = FloatTensor("w", w);
    AddNode(&g, "Conv", {"x", "w"}, {"c"});
    AddNode(&g, "Sigmoid", {"c"}, {"y"});
    auto net = ImportWithoutLayoutPass(Serialize(g, 13));
    ASSERT_TRUE(net.ok()) << net.status();
    ASSERT_EQ(net->op_size(), 2);
    EXPECT_EQ(net->op(0).type(), "Conv");
  }
}

}  // namespace
}  // namespace loom
