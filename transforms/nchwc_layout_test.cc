// transforms::Optimize's blocked layout (nchwc_layout.h) on ONNX models
// built here: convolution runs kept blocked, dense convs channels-last and
// layouts meeting by reblocking, the stem conv, Winograd for dense 3x3
// convs, Resize and channel Concat blocked, partial blocks, squeeze-and-
// excitation; every blocked graph's outputs equal the plain import's.
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
#include "transforms/graph_util.h"
#include "transforms/optimize.h"

namespace loom {
namespace testing {
namespace {

// A residual block (depthwise Conv + Relu, pointwise Conv, Add of the first
// conv's output, Relu) then MaxPool: with the blocked layout
// (nchwc_layout.h) the convolutions run as NchwcConv, the Add and the last
// Relu fold into the second one (its Sum input and activation), MaxPool
// runs blocked too (NchwcMaxPool), one ReorderInput starts the run and a
// ReorderOutput gives each net output (r, y) its plain form; the outputs
// equal the plain import's.
TEST(NchwcLayout, ConvolutionRunsKeepTheBlockedLayout) {
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
TEST(NchwcLayout, DenseConvsRunChannelsLastAndLayoutsMeetByReblocking) {
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
TEST(NchwcLayout, StemConvReadsThePlainInputAndWritesBlocks) {
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
TEST(NchwcLayout, Dense3x3ConvsOfUpTo256ChannelsRunWinograd) {
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
TEST(NchwcLayout, ResizeAndChannelConcatKeepTheBlockedLayout) {
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
TEST(NchwcLayout, ConvsWithPartialBlocksRunChannelsLast) {
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
TEST(NchwcLayout, SqueezeExcitationStaysChannelsLast) {
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

}  // namespace
}  // namespace testing
}  // namespace loom
