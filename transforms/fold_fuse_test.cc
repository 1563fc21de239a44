// transforms::Optimize's folds and fusions on ONNX models built here and
// imported as the Session imports them: BatchNormalization and scalar or
// per-channel affines folded into Conv and ConvTranspose, Conv + activation
// and Conv + residual Add fused into FusedConv, HardSwish chains, the
// gradient-safe set for training, and what must not fuse (float64 convs, an
// Add of a pooled branch). Each rewritten graph's output equals the
// unrewritten one's or a value computed in the test.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "core/net.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "testing/onnx_models.h"
#include "testing/op_runner.h"
#include "frontend/onnx/onnx_importer.h"
#include "transforms/graph_util.h"
#include "transforms/optimize.h"

namespace loom {
namespace testing {
namespace {

// A float64 Conv -> Relu stays two ops (FusedConv has float32 kernels
// only) and runs: a float64 model imports runnable, e.g. as a reference for
// float32 results. The output is Relu of the naive float64 conv.
TEST(FoldFuse, Float64ConvIsNotFused) {
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
TEST(FoldFuse, BatchNormAfterConvIsFoldedIntoTheConv) {
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
TEST(FoldFuse, ImportForTrainingAppliesOnlyRewritesWithGradients) {
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
TEST(FoldFuse, BatchNormAndScalarAfterConvTransposeAreFolded) {
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
TEST(FoldFuse, PerChannelAddAndBatchNormAfterConvTransposeAreFolded) {
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
TEST(FoldFuse, ConvScalarAffineAndHardSwishChainBecomeOneFusedConv) {
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

// x + Conv1x1(GlobalAveragePool(x)) (a GCNet-style context block): the 1x1
// conv's output is 1 x 1, so the Add must not fuse into it as its Sum (x
// would have to broadcast the other way); it stays an Add that broadcasts.
TEST(FoldFuse, AddOfAPooledBranchIsNotFusedIntoItsConv) {
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
TEST(FoldFuse, ResidualAddFusesIntoTheLaterConv) {
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
TEST(FoldFuse, FusedResidualAddBroadcastsLikeTheAdd) {
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

TEST(FoldFuse, ConvThenActivationIsFusedIntoFusedConv) {
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
}  // namespace testing
}  // namespace loom
