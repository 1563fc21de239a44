// Gradients (core/autodiff): each gradient maker of the standard ops
// against central finite differences in float64, broadcasting included;
// the backward builder's accumulation of a blob read several times
// (Caffe2's _autosplit_ + Sum), stop_gradient, and its errors.
#include <cmath>
#include <string>

#include "core/autodiff/backward.h"
#include "core/net.h"
#include "testing/gradient_check.h"
#include "testing/op_runner.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using testing::CheckGradient;
using testing::CpuRegistry;
using testing::ParseOp;
using testing::RandomTensor;

Tensor D(Shape dims, uint32_t seed, double lo = -1, double hi = 1) {
  return RandomTensor(DataType::kFloat64, std::move(dims), seed, lo, hi);
}

TEST(GradientTest, BinaryOpsWithBroadcasting) {
  for (const char* type : {"Add", "Sub", "Mul"}) {
    const OperatorDef op = ParseOp(std::string("type: \"") + type + "\" input: \"a\" input: \"b\" output: \"c\"");
    EXPECT_TRUE(CheckGradient(op, {D({2, 3}, 1), D({2, 3}, 2)}, CpuRegistry())) << type << " same shapes";
    EXPECT_TRUE(CheckGradient(op, {D({2, 3, 4}, 3), D({4}, 4)}, CpuRegistry())) << type << " b [4]";
    EXPECT_TRUE(CheckGradient(op, {D({2, 1, 4}, 5), D({3, 1}, 6)}, CpuRegistry())) << type << " both broadcast";
    EXPECT_TRUE(CheckGradient(op, {D({}, 7), D({2, 2}, 8)}, CpuRegistry())) << type << " scalar a";
  }
}

TEST(GradientTest, UnaryOps) {
  for (const char* type : {"Neg", "Identity", "Exp", "Sigmoid", "Tanh"}) {
    const OperatorDef op = ParseOp(std::string("type: \"") + type + "\" input: \"x\" output: \"y\"");
    EXPECT_TRUE(CheckGradient(op, {D({3, 4}, 11)}, CpuRegistry())) << type;
  }
  // Relu away from its kink (|x| >= 0.1, where central differences are exact).
  Tensor x = D({3, 4}, 12, 0.1, 1);
  for (int64_t i = 0; i < x.num_elements(); i += 2) x.data<double>()[i] = -x.data<double>()[i];
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Relu\" input: \"x\" output: \"y\""), {x}, CpuRegistry()));
}

TEST(GradientTest, DivLogSqrt) {
  const OperatorDef div = ParseOp("type: \"Div\" input: \"a\" input: \"b\" output: \"c\"");
  EXPECT_TRUE(CheckGradient(div, {D({2, 3}, 31), D({3}, 32, 0.5, 2)}, CpuRegistry()));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Log\" input: \"x\" output: \"y\""), {D({6}, 33, 0.2, 3)}, CpuRegistry()));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Sqrt\" input: \"x\" output: \"y\""), {D({6}, 34, 0.2, 3)}, CpuRegistry()));
}

TEST(GradientTest, GemmEveryTransposeAndC) {
  const int64_t M = 3, K = 4, N = 2;
  uint32_t seed = 40;
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      for (const Shape& cs : {Shape{}, Shape{N}, Shape{M, N}, Shape{M, 1}}) {
        const bool with_c = !(cs.empty() && seed % 2 == 0);
        std::string text = "type: \"Gemm\" input: \"a\" input: \"b\" " + std::string(with_c ? "input: \"c\" " : "") +
                           "output: \"y\" arg { name: \"transA\" i: " + std::to_string(ta) +
                           " } arg { name: \"transB\" i: " + std::to_string(tb) + " } arg { name: \"alpha\" f: 0.75 }";
        std::vector<Tensor> in = {D(ta ? Shape{K, M} : Shape{M, K}, seed++), D(tb ? Shape{N, K} : Shape{K, N}, seed++)};
        if (with_c) in.push_back(D(cs, seed++));
        EXPECT_TRUE(CheckGradient(ParseOp(text), in, CpuRegistry())) << text;
      }
    }
  }
}

TEST(GradientTest, MatMulWithBatchBroadcasting) {
  const OperatorDef op = ParseOp("type: \"MatMul\" input: \"a\" input: \"b\" output: \"y\"");
  EXPECT_TRUE(CheckGradient(op, {D({3, 4}, 51), D({4, 2}, 52)}, CpuRegistry())) << "2-D";
  EXPECT_TRUE(CheckGradient(op, {D({2, 3, 4}, 53), D({4, 2}, 54)}, CpuRegistry())) << "batched A";
  EXPECT_TRUE(CheckGradient(op, {D({2, 1, 3, 4}, 55), D({3, 4, 2}, 56)}, CpuRegistry())) << "both broadcast";
}

TEST(GradientTest, ShapeOps) {
  Registry* r = CpuRegistry();
  Tensor x = D({2, 3, 4}, 61);
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Reshape\" input: \"x\" input: \"s\" output: \"y\""),
                            {x, Tensor::FromVector<int64_t>({2}, {6, -1})}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Flatten\" input: \"x\" output: \"y\" arg { name: \"axis\" i: 2 }"), {x}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Unsqueeze\" input: \"x\" input: \"a\" output: \"y\""),
                            {x, Tensor::FromVector<int64_t>({2}, {0, -1})}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Squeeze\" input: \"x\" input: \"a\" output: \"y\""),
                            {D({2, 1, 3}, 62), Tensor::FromVector<int64_t>({1}, {-2})}, r));
}

TEST(GradientTest, SoftmaxAndLogSoftmaxOnEveryAxis) {
  for (const char* type : {"Softmax", "LogSoftmax"}) {
    for (int axis : {-1, 0, 1}) {
      const std::string text = std::string("type: \"") + type + "\" input: \"x\" output: \"y\" arg { name: \"axis\" i: " +
                               std::to_string(axis) + " }";
      EXPECT_TRUE(CheckGradient(ParseOp(text), {D({3, 4, 2}, 70 + axis, -2, 2)}, CpuRegistry())) << text;
    }
  }
}

// The losses' gradients with respect to the scores / input, for every
// reduction, with and without weights and ignore_index, [N, C] and
// [N, C, d].
TEST(GradientTest, SoftmaxCrossEntropyAndNllLosses) {
  testing::GradientCheckOptions only_scores;
  only_scores.inputs = {0};
  for (const char* type : {"SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss"}) {
    for (const char* reduction : {"mean", "sum", "none"}) {
      for (bool weighted : {false, true}) {
        for (bool spatial : {false, true}) {
          std::string text = std::string("type: \"") + type + "\" input: \"x\" input: \"t\" " +
                             (weighted ? "input: \"w\" " : "") + "output: \"loss\" arg { name: \"reduction\" s: \"" +
                             reduction + "\" } arg { name: \"ignore_index\" i: 2 }";
          Tensor x = D(spatial ? Shape{3, 4, 2} : Shape{3, 4}, 81, -2, 2);
          Tensor t = spatial ? Tensor::FromVector<int64_t>({3, 2}, {0, 3, 2, 1, 3, 0})
                             : Tensor::FromVector<int64_t>({3}, {1, 2, 3});  // one entry ignored (2)
          std::vector<Tensor> in = {x, t};
          if (weighted) in.push_back(D({4}, 82, 0.5, 2));
          EXPECT_TRUE(CheckGradient(ParseOp(text), in, CpuRegistry(), only_scores)) << text << (spatial ? " spatial" : "");
        }
      }
    }
  }
}

TEST(GradientTest, MoreUnaryOps) {
  Registry* r = CpuRegistry();
  // Abs and LeakyRelu away from their kink at 0.
  Tensor x = D({3, 4}, 90, 0.1, 2);
  for (int64_t i = 0; i < x.num_elements(); i += 3) x.data<double>()[i] = -x.data<double>()[i];
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Abs\" input: \"x\" output: \"y\""), {x}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"LeakyRelu\" input: \"x\" output: \"y\" arg { name: \"alpha\" f: 0.2 }"), {x}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Softplus\" input: \"x\" output: \"y\""), {D({3, 4}, 91, -3, 3)}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Erf\" input: \"x\" output: \"y\""), {D({3, 4}, 92, -2, 2)}, r));
  // The ONNX RNN activations without a composite form (opset 6/10/1); x
  // spans both sides of their kinks (HardSigmoid's at -2.5 and 2.5 with
  // these alpha/beta, ThresholdedRelu's at 0.3), no element on one.
  Tensor wide = D({3, 4}, 97, -4, 4);
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"HardSigmoid\" input: \"x\" output: \"y\" arg { name: \"alpha\" f: 0.2 } "
                                    "arg { name: \"beta\" f: 0.5 }"), {wide}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"ThresholdedRelu\" input: \"x\" output: \"y\" arg { name: \"alpha\" f: 0.3 }"),
                            {wide}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Softsign\" input: \"x\" output: \"y\""), {x}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Transpose\" input: \"x\" output: \"y\" arg { name: \"perm\" ints: [2, 0, 1] }"),
                            {D({2, 3, 4}, 93)}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Transpose\" input: \"x\" output: \"y\""), {D({2, 3, 4}, 94)}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Expand\" input: \"x\" input: \"s\" output: \"y\""),
                            {D({3, 1}, 95), Tensor::FromVector<int64_t>({3}, {2, 3, 4})}, r));
}

TEST(GradientTest, PowWhereMeanReduceMean) {
  Registry* r = CpuRegistry();
  const OperatorDef pow = ParseOp("type: \"Pow\" input: \"x\" input: \"y\" output: \"z\"");
  EXPECT_TRUE(CheckGradient(pow, {D({2, 3}, 100, 0.5, 2), D({3}, 101, -1.5, 1.5)}, r));
  Tensor cond = Tensor::FromVector<bool>({2, 3}, {true, false, true, true, false, false});
  testing::GradientCheckOptions xy;
  xy.inputs = {1, 2};
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Where\" input: \"c\" input: \"a\" input: \"b\" output: \"y\""),
                            {cond, D({2, 3}, 102), D({3}, 103)}, r, xy));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Mean\" input: \"a\" input: \"b\" input: \"c\" output: \"y\""),
                            {D({2, 3}, 104), D({3}, 105), D({2, 1}, 106)}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"ReduceMean\" input: \"x\" input: \"a\" output: \"y\" arg { name: \"keepdims\" i: 0 }"),
                            {D({2, 3, 4}, 107), Tensor::FromVector<int64_t>({2}, {0, -1})}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"ReduceMean\" input: \"x\" output: \"y\""), {D({2, 3}, 108)}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"ReduceSum\" input: \"x\" input: \"a\" output: \"y\""),
                            {D({2, 3, 4}, 109), Tensor::FromVector<int64_t>({1}, {1})}, r));
}

TEST(GradientTest, ConcatSplitGather) {
  Registry* r = CpuRegistry();
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Concat\" input: \"a\" input: \"b\" output: \"y\" arg { name: \"axis\" i: -1 }"),
                            {D({2, 3}, 110), D({2, 2}, 111)}, r));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Split\" input: \"x\" input: \"s\" output: \"a\" output: \"b\" "
                                    "arg { name: \"axis\" i: 1 }"),
                            {D({2, 5}, 112), Tensor::FromVector<int64_t>({2}, {2, 3})}, r));
  // An embedding lookup with a repeated index: its rows' gradients add up.
  testing::GradientCheckOptions table;
  table.inputs = {0};
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Gather\" input: \"e\" input: \"i\" output: \"y\""),
                            {D({5, 3}, 113), Tensor::FromVector<int64_t>({2, 2}, {4, 0, 4, 2})}, r, table));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Gather\" input: \"e\" input: \"i\" output: \"y\""),
                            {D({5, 3}, 114), Tensor::FromVector<int32_t>({3}, {1, 1, 3})}, r, table));
}

TEST(GradientTest, PoolingClipMaxMinDropout) {
  Registry* r = CpuRegistry();
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"GlobalAveragePool\" input: \"x\" output: \"y\""), {D({2, 3, 4, 5}, 130)}, r));
  // Clip with both bounds as inputs, with only min, and in the opset-6 form;
  // no element within 0.05 of a bound (central differences need that).
  Tensor x = D({4, 5}, 131, -2, 2);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    double& v = x.data<double>()[i];
    if (std::abs(std::abs(v) - 1.0) < 0.05) v += 0.1;
  }
  testing::GradientCheckOptions only_x;
  only_x.inputs = {0};
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Clip\" input: \"x\" input: \"lo\" input: \"hi\" output: \"y\""),
                            {x, Tensor::FromVector<double>({}, {-1}), Tensor::FromVector<double>({}, {1})}, r, only_x));
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Clip\" input: \"x\" input: \"lo\" output: \"y\""),
                            {x, Tensor::FromVector<double>({}, {-1})}, r, only_x));
  for (const char* type : {"Max", "Min"}) {
    EXPECT_TRUE(CheckGradient(ParseOp(std::string("type: \"") + type + "\" input: \"a\" input: \"b\" input: \"c\" output: \"y\""),
                              {D({2, 3}, 132), D({3}, 133), D({2, 1}, 134)}, r)) << type;
  }
  EXPECT_TRUE(CheckGradient(ParseOp("type: \"Dropout\" input: \"x\" output: \"y\""), {D({3, 4}, 135)}, r));
}

// Conv's gradient (ConvGradient) for X, W and B: 1-D and 2-D, groups,
// strides, dilations, pads, auto_pad.
TEST(GradientTest, ConvWithGroupsStridesDilationsPads) {
  Registry* r = CpuRegistry();
  struct Case {
    std::string attrs;
    Shape x, w;
    bool bias;
  };
  const std::vector<Case> cases = {
      {"", {2, 3, 5, 5}, {4, 3, 3, 3}, true},
      {"arg { name: \"pads\" ints: [1, 0, 1, 2] } arg { name: \"strides\" ints: [2, 1] }", {1, 2, 5, 6}, {3, 2, 2, 3}, true},
      {"arg { name: \"group\" i: 2 } arg { name: \"dilations\" ints: [2, 1] }", {2, 4, 6, 4}, {6, 2, 2, 2}, false},
      {"arg { name: \"auto_pad\" s: \"SAME_UPPER\" }", {1, 2, 7}, {3, 2, 4}, true},                         // 1-D
      {"arg { name: \"group\" i: 3 } arg { name: \"pads\" ints: [1, 1] }", {2, 3, 6}, {3, 1, 3}, true},     // depthwise 1-D
  };
  uint32_t seed = 140;
  for (const Case& c : cases) {
    const std::string text = std::string("type: \"Conv\" input: \"x\" input: \"w\" ") + (c.bias ? "input: \"b\" " : "") +
                             "output: \"y\" " + c.attrs;
    std::vector<Tensor> in = {D(c.x, seed++), D(c.w, seed++)};
    if (c.bias) in.push_back(D({c.w[0]}, seed++));
    EXPECT_TRUE(CheckGradient(ParseOp(text), in, r)) << text;
  }
}

// The float64 Conv (plain loops, which the gradient check differentiates)
// computes what the float32 oneDNN Conv does.
TEST(GradientTest, ConvFloat64MatchesFloat32) {
  const OperatorDef op = ParseOp(R"(type: "Conv" input: "x" input: "w" input: "b" output: "y"
      arg { name: "group" i: 2 } arg { name: "pads" ints: [1, 2, 0, 1] } arg { name: "strides" ints: [1, 2] }
      arg { name: "dilations" ints: [2, 1] })");
  Tensor x = D({2, 4, 7, 6}, 150), w = D({6, 2, 3, 2}, 151), b = D({6}, 152);
  auto to_f32 = [](const Tensor& t) {
    Tensor f = Tensor::Zeros(DataType::kFloat32, t.dims());
    for (int64_t i = 0; i < t.num_elements(); ++i) f.data<float>()[i] = static_cast<float>(t.data<double>()[i]);
    return f;
  };
  auto y64 = testing::RunSingleOp(op, {x, w, b}, CpuRegistry());
  auto y32 = testing::RunSingleOp(op, {to_f32(x), to_f32(w), to_f32(b)}, CpuRegistry());
  ASSERT_TRUE(y64.ok() && y32.ok()) << y64.status() << " " << y32.status();
  EXPECT_TRUE(testing::AllClose(to_f32((*y64)[0]), (*y32)[0], 1e-5, 1e-5));
}

TEST(GradientTest, SliceWithStepsNegativeAxesAndTheAttributeForm) {
  Registry* r = CpuRegistry();
  testing::GradientCheckOptions only_x;
  only_x.inputs = {0};
  const OperatorDef op = ParseOp(R"(type: "Slice" input: "x" input: "s" input: "e" input: "a" input: "t" output: "y")");
  EXPECT_TRUE(CheckGradient(op, {D({4, 5, 3}, 160), Tensor::FromVector<int64_t>({2}, {1, -1}),
                                 Tensor::FromVector<int64_t>({2}, {4, 0}), Tensor::FromVector<int64_t>({2}, {0, -2}),
                                 Tensor::FromVector<int64_t>({2}, {2, -2})},
                            r, only_x));
  EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "Slice" input: "x" output: "y" arg { name: "starts" ints: [1] }
                                       arg { name: "ends" ints: [3] } arg { name: "axes" ints: [1] })"),
                            {D({2, 4}, 161)}, r));
}

NetDef Parse(const std::string& text) {
  NetDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return def;
}

// loss = sum(x * x + exp(x)): x is read by three op inputs, so its gradient
// is the sum of three parts; d loss / dx = 2x + exp(x).
TEST(BackwardTest, ABlobReadSeveralTimesSumsItsParts) {
  NetDef net = Parse(R"pb(
    name: "n" external_input: "x"
    op { type: "Mul" input: "x" input: "x" output: "sq" }
    op { type: "Exp" input: "x" output: "e" }
    op { type: "Add" input: "sq" input: "e" output: "y" }
    op { type: "ReduceSum" input: "y" output: "loss" arg { name: "keepdims" i: 0 } }
  )pb");
  BackwardOptions o;
  o.wrt = {"x"};
  auto r = AddBackward(*CpuRegistry(), {"loss"}, o, &net);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->gradients.at("x"), "x_grad");
  int autosplit = 0, sums = 0;
  for (const OperatorDef& op : net.op()) {
    for (const std::string& out : op.output()) autosplit += out.find("x_grad_autosplit_") == 0;
    sums += op.type() == "Sum" && op.output(0) == "x_grad";
  }
  EXPECT_EQ(autosplit, 3);
  EXPECT_EQ(sums, 1);
  Workspace ws;
  Tensor x = D({5}, 21);
  ws.SetBlob("x", *x.Clone());
  auto n = Net::Create(net, &ws, CpuRegistry());
  ASSERT_TRUE(n.ok()) << n.status();
  ASSERT_TRUE((*n)->Run().ok()) << (*n)->Run();
  const Tensor* g = ws.GetBlob("x_grad");
  for (int64_t i = 0; i < 5; ++i) {
    const double v = x.data<double>()[i];
    EXPECT_NEAR(g->data<double>()[i], 2 * v + std::exp(v), 1e-12) << i;
  }
}

// Two losses, the second made from the first: dL1's seed and the part
// through L2 add up: d(L1 + L2)/dx = (1 + w) per element, L1 = sum(x),
// L2 = L1 * w.
TEST(BackwardTest, ALossOfALossSumsItsSeedWithItsParts) {
  NetDef net = Parse(R"pb(
    name: "n" external_input: "x" external_input: "w"
    op { type: "ReduceSum" input: "x" output: "L1" arg { name: "keepdims" i: 0 } }
    op { type: "Mul" input: "L1" input: "w" output: "L2" }
  )pb");
  BackwardOptions o;
  o.wrt = {"x"};
  auto r = AddBackward(*CpuRegistry(), {"L1", "L2"}, o, &net);
  ASSERT_TRUE(r.ok()) << r.status();
  Workspace ws;
  ws.SetBlob("x", D({3}, 120));
  ws.SetBlob("w", Tensor::FromVector<double>({}, {2.5}));
  auto n = Net::Create(net, &ws, CpuRegistry());
  ASSERT_TRUE(n.ok()) << n.status();
  ASSERT_TRUE((*n)->Run().ok()) << (*n)->Run();
  const Tensor* g = ws.GetBlob(r->gradients.at("x"));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(g->data<double>()[i], 3.5, 1e-12) << i;
  // A loss listed twice, and a gradient name the net already uses.
  NetDef again = Parse(R"pb(
    name: "n" external_input: "x"
    op { type: "ReduceSum" input: "x" output: "L" arg { name: "keepdims" i: 0 } }
    op { type: "Identity" input: "x" output: "x_grad" }
  )pb");
  EXPECT_EQ(AddBackward(*CpuRegistry(), {"L", "L"}, o, &again).status().code(), absl::StatusCode::kInvalidArgument);
  auto taken = AddBackward(*CpuRegistry(), {"L"}, o, &again);
  ASSERT_EQ(taken.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(taken.status().message().find("'x_grad' is already a blob"), std::string::npos) << taken.status();
}

TEST(BackwardTest, StopGradientAndUnreachedBlobs) {
  // loss = sum(a * b) with b = exp(c): stopping at b leaves c without a
  // gradient; a's gradient is b.
  NetDef net = Parse(R"pb(
    name: "n" external_input: "a" external_input: "c"
    op { type: "Exp" input: "c" output: "b" }
    op { type: "Mul" input: "a" input: "b" output: "y" }
    op { type: "ReduceSum" input: "y" output: "loss" arg { name: "keepdims" i: 0 } }
  )pb");
  BackwardOptions o;
  o.wrt = {"a", "c"};
  o.stop_gradients = {"b"};
  auto r = AddBackward(*CpuRegistry(), {"loss"}, o, &net);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->gradients.count("a"));
  EXPECT_FALSE(r->gradients.count("c"));
}

// FusedConv (the importer's Conv + activation) has the gradient of the
// ops it fused: for every activation whose derivative FusedConv can read off
// its output, the float32 gradients of X, W and B equal those of Conv
// followed by the activation. HardSwish, whose derivative needs the
// pre-activation, is UNIMPLEMENTED with the reason.
TEST(BackwardTest, FusedConvHasTheGradientOfConvAndItsActivation) {
  struct Act {
    std::string name, params, unfused;  // FusedConv's activation and params; the ops after Conv
  };
  const std::vector<Act> acts = {
      {"Relu", "", R"(op { type: "Relu" input: "z" output: "y" })"},
      {"LeakyRelu", "arg { name: \"activation_params\" floats: [0.2] }",
       R"(op { type: "LeakyRelu" input: "z" output: "y" arg { name: "alpha" f: 0.2 } })"},
      {"Clip", "arg { name: \"activation_params\" floats: [-0.3, 0.4] }",
       R"(op { type: "Clip" input: "z" input: "lo" input: "hi" output: "y" })"},
      {"Sigmoid", "", R"(op { type: "Sigmoid" input: "z" output: "y" })"},
      {"Tanh", "", R"(op { type: "Tanh" input: "z" output: "y" })"},
      {"HardSigmoid", "arg { name: \"activation_params\" floats: [0.5, 0.4] }",
       R"(op { type: "HardSigmoid" input: "z" output: "y" arg { name: "alpha" f: 0.5 } arg { name: "beta" f: 0.4 } })"},
  };
  const std::string conv_args = R"(arg { name: "pads" ints: [1, 1, 1, 1] } arg { name: "strides" ints: [1, 2] })";
  const std::string tail = R"(
    op { type: "Mul" input: "y" input: "r" output: "yr" }
    op { type: "ReduceSum" input: "yr" output: "loss" arg { name: "keepdims" i: 0 } })";
  const std::string inputs = R"(name: "n" external_input: "x" external_input: "w" external_input: "b"
    external_input: "r" external_input: "lo" external_input: "hi" )";
  Tensor x = RandomTensor(DataType::kFloat32, {2, 3, 6, 7}, 301), w = RandomTensor(DataType::kFloat32, {4, 3, 3, 3}, 302);
  Tensor b = RandomTensor(DataType::kFloat32, {4}, 303), r = RandomTensor(DataType::kFloat32, {2, 4, 6, 4}, 304);
  auto gradients = [&](const std::string& text, std::vector<Tensor>* out) {
    NetDef net = Parse(text);
    BackwardOptions o;
    o.wrt = {"x", "w", "b"};
    auto result = AddBackward(*CpuRegistry(), {"loss"}, o, &net);
    ASSERT_TRUE(result.ok()) << result.status();
    Workspace ws;
    for (const auto& [name, t] : std::vector<std::pair<std::string, const Tensor*>>{{"x", &x}, {"w", &w}, {"b", &b}, {"r", &r}}) {
      ws.SetBlob(name, *t->Clone());
    }
    ws.SetBlob("lo", Tensor::FromVector<float>({}, {-0.3f}));
    ws.SetBlob("hi", Tensor::FromVector<float>({}, {0.4f}));
    auto n = Net::Create(net, &ws, CpuRegistry());
    ASSERT_TRUE(n.ok()) << n.status();
    absl::Status run = (*n)->Run();
    ASSERT_TRUE(run.ok()) << run;
    for (const char* p : {"x", "w", "b"}) out->push_back(*ws.GetBlob(result->gradients.at(p))->Clone());
  };
  for (const Act& a : acts) {
    std::vector<Tensor> fused, unfused;
    gradients(inputs + R"(op { type: "FusedConv" input: "x" input: "w" input: "b" output: "y" arg { name: "activation" s: ")" +
                  a.name + "\" } " + a.params + " " + conv_args + " }" + tail,
              &fused);
    gradients(inputs + R"(op { type: "Conv" input: "x" input: "w" input: "b" output: "z" )" + conv_args + " } " + a.unfused +
                  tail,
              &unfused);
    ASSERT_EQ(fused.size(), 3u) << a.name;
    ASSERT_EQ(unfused.size(), 3u) << a.name;
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(testing::AllClose(fused[i], unfused[i], 1e-5, 1e-5)) << a.name << " input " << i;
  }
  NetDef hard_swish = Parse(inputs + R"(op { type: "FusedConv" input: "x" input: "w" input: "b" output: "y"
      arg { name: "activation" s: "HardSwish" } } )" + tail);
  BackwardOptions o;
  o.wrt = {"w"};
  auto result = AddBackward(*CpuRegistry(), {"loss"}, o, &hard_swish);
  ASSERT_EQ(result.status().code(), absl::StatusCode::kUnimplemented) << result.status();
  EXPECT_NE(result.status().message().find("HardSwish"), std::string::npos) << result.status();
  EXPECT_NE(result.status().message().find("pre-activation"), std::string::npos) << result.status();
}

// grad_req add: with BackwardOptions::accumulate each run adds its
// gradient into <wrt>_grad_accum, which starts at zero when empty.
TEST(BackwardTest, AccumulateAddsEachRunsGradient) {
  NetDef net = Parse(R"pb(
    name: "n" external_input: "x" external_input: "w"
    op { type: "Mul" input: "x" input: "w" output: "y" }
    op { type: "ReduceSum" input: "y" output: "loss" arg { name: "keepdims" i: 0 } }
  )pb");
  BackwardOptions o;
  o.wrt = {"w"};
  o.accumulate = true;
  auto r = AddBackward(*CpuRegistry(), {"loss"}, o, &net);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->gradients.at("w"), "w_grad_accum");
  Workspace ws;
  ws.SetBlob("w", Tensor::FromVector<double>({3}, {1, 2, 3}));
  auto n = Net::Create(net, &ws, CpuRegistry());
  ASSERT_TRUE(n.ok()) << n.status();
  // d loss / d w = x: after runs with x = a, then x = b, the accumulator holds a + b.
  ws.SetBlob("x", Tensor::FromVector<double>({3}, {1, -2, 0.5}));
  ASSERT_TRUE((*n)->Run().ok());
  ws.SetBlob("x", Tensor::FromVector<double>({3}, {4, 1, -1.5}));
  ASSERT_TRUE((*n)->Run().ok());
  const Tensor* g = ws.GetBlob("w_grad_accum");
  EXPECT_EQ(g->data<double>()[0], 5);
  EXPECT_EQ(g->data<double>()[1], -1);
  EXPECT_EQ(g->data<double>()[2], -1);
}

TEST(BackwardTest, Errors) {
  const std::string body = R"pb(
    name: "n" external_input: "x"
    op { type: "Floor" input: "x" output: "y" }
    op { type: "ReduceSum" input: "y" output: "loss" arg { name: "keepdims" i: 0 } }
  )pb";
  BackwardOptions o;
  o.wrt = {"x"};
  // Floor has no gradient maker: UNIMPLEMENTED naming the op and input.
  NetDef net = Parse(body);
  auto r = AddBackward(*CpuRegistry(), {"loss"}, o, &net);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kUnimplemented) << r.status();
  EXPECT_NE(r.status().message().find("(Floor): no gradient is implemented for Floor"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("'x'"), std::string::npos) << r.status();
  // Unknown loss, and a net that is not SSA.
  NetDef net2 = Parse(body);
  EXPECT_EQ(AddBackward(*CpuRegistry(), {"nope"}, o, &net2).status().code(), absl::StatusCode::kInvalidArgument);
  NetDef inplace = Parse(R"pb(
    name: "n" external_input: "x"
    op { type: "Exp" input: "x" output: "y" }
    op { type: "Exp" input: "y" output: "y" }
  )pb");
  auto s = AddBackward(*CpuRegistry(), {"y"}, o, &inplace);
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("SSA"), std::string::npos) << s.status();
}

}  // namespace
}  // namespace loom
