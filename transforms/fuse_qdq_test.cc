// transforms::FuseQdq on QDQ models built here (as ONNX Runtime's
// quantize_static and loom_quantize write them), imported as the Session
// imports them: which ops become QLinearConv, QLinearAdd and int8 MaxPool,
// which stay float (an activation the Q cannot absorb, a bias at another
// scale), and that the int8 graph's output is within one quantization step
// of the same model run op by op in float (optimization level 0).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/net.h"
#include "core/workspace.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "testing/onnx_models.h"
#include "testing/op_runner.h"

namespace loom {
namespace testing {
namespace {

struct Model {
  onnx::GraphProto g;
  // Q -> DQ of float tensor `name` at (scale, uint8 zero point): the
  // dequantized name.
  std::string QuantDequant(const std::string& name, float scale, uint8_t zp) {
    *g.add_initializer() = Initializer<float>(name + "_s", onnx::TensorProto::FLOAT, {}, {scale});
    *g.add_initializer() = Initializer<uint8_t>(name + "_z", onnx::TensorProto::UINT8, {}, {zp});
    AddNode(&g, "QuantizeLinear", {name, name + "_s", name + "_z"}, {name + "_q"});
    AddNode(&g, "DequantizeLinear", {name + "_q", name + "_s", name + "_z"}, {name + "_dq"});
    return name + "_dq";
  }
  // The same at an int8 zero point.
  std::string QuantDequantS8(const std::string& name, float scale, int8_t zp) {
    *g.add_initializer() = Initializer<float>(name + "_s", onnx::TensorProto::FLOAT, {}, {scale});
    *g.add_initializer() = Initializer<int8_t>(name + "_z", onnx::TensorProto::INT8, {}, {zp});
    AddNode(&g, "QuantizeLinear", {name, name + "_s", name + "_z"}, {name + "_q"});
    AddNode(&g, "DequantizeLinear", {name + "_q", name + "_s", name + "_z"}, {name + "_dq"});
    return name + "_dq";
  }
  // A 3x3 Conv (pads 1, no bias) named `name` of dequantized `in` with an
  // int8 W [M, C, 3, 3] (values from `step`) at per-tensor scale 0.004:
  // its output's name.
  std::string Int8Conv(const std::string& name, const std::string& in, int64_t C, int64_t M, int64_t step) {
    std::vector<int8_t> w;
    for (int64_t i = 0; i < M * C * 9; ++i) w.push_back(static_cast<int8_t>((i * step) % 255 - 127));
    *g.add_initializer() = Initializer<int8_t>(name + "_wq", onnx::TensorProto::INT8, {M, C, 3, 3}, w);
    *g.add_initializer() = Initializer<float>(name + "_ws", onnx::TensorProto::FLOAT, {}, {0.004f});
    AddNode(&g, "DequantizeLinear", {name + "_wq", name + "_ws"}, {name + "_w"});
    IntsAttr(AddNode(&g, "Conv", {in, name + "_w"}, {name}), "pads", {1, 1, 1, 1});
    return name;
  }
  // A float scalar constant of shape [1] (as paddle2onnx writes them).
  std::string Scalar(const std::string& name, float v) {
    *g.add_initializer() = Initializer<float>(name, onnx::TensorProto::FLOAT, {1}, {v});
    return name;
  }
};

// x -> Q/DQ -> Conv (int8 W per channel, int32 B) -> Relu -> Q/DQ -> MaxPool
// -> Q/DQ -> Add (of that twice) -> Q/DQ -> y. `bias_scale_factor` 1: B's
// scale is x_scale * w_scale; `relu_zero_point` 0: the Relu is removable.
std::string ConvPoolAddModel(float bias_scale_factor, uint8_t relu_zero_point) {
  Model m;
  onnx::GraphProto& g = m.g;
  const int64_t C = 4, M = 6;
  AddInput(&g, "x", {1, C, 6, 6});
  AddOutput(&g, "y");
  const float sx = 0.05f;
  const std::string xd = m.QuantDequant("x", sx, 128);
  std::vector<int8_t> w;
  for (int64_t i = 0; i < M * C * 9; ++i) w.push_back(static_cast<int8_t>((i * 37) % 255 - 127));
  std::vector<float> sw, sb;
  std::vector<int32_t> b;
  for (int64_t o = 0; o < M; ++o) {
    sw.push_back(0.004f + 0.001f * static_cast<float>(o));
    sb.push_back(sx * sw.back() * bias_scale_factor);
    b.push_back(static_cast<int32_t>(o * 300) - 700);
  }
  *g.add_initializer() = Initializer<int8_t>("w_q", onnx::TensorProto::INT8, {M, C, 3, 3}, w);
  *g.add_initializer() = Initializer<float>("w_s", onnx::TensorProto::FLOAT, {M}, sw);
  *g.add_initializer() = Initializer<int8_t>("w_z", onnx::TensorProto::INT8, {M}, std::vector<int8_t>(M, 0));
  *g.add_initializer() = Initializer<int32_t>("b_q", onnx::TensorProto::INT32, {M}, b);
  *g.add_initializer() = Initializer<float>("b_s", onnx::TensorProto::FLOAT, {M}, sb);
  IntAttr(AddNode(&g, "DequantizeLinear", {"w_q", "w_s", "w_z"}, {"w"}), "axis", 0);
  IntAttr(AddNode(&g, "DequantizeLinear", {"b_q", "b_s"}, {"b"}), "axis", 0);
  IntsAttr(AddNode(&g, "Conv", {xd, "w", "b"}, {"c"}), "pads", {1, 1, 1, 1});
  AddNode(&g, "Relu", {"c"}, {"r"});
  const std::string rd = m.QuantDequant("r", 0.03f, relu_zero_point);
  onnx::NodeProto* pool = AddNode(&g, "MaxPool", {rd}, {"p"});
  IntsAttr(pool, "kernel_shape", {2, 2});
  IntsAttr(pool, "strides", {2, 2});
  const std::string pd = m.QuantDequant("p", 0.03f, relu_zero_point);
  AddNode(&g, "Add", {pd, pd}, {"a"});
  const std::string ad = m.QuantDequant("a", 0.05f, 3);
  AddNode(&g, "Identity", {ad}, {"y"});
  return Serialize(g, 13);
}

Tensor Input() {
  Tensor x = Tensor::Zeros(DataType::kFloat32, {1, 4, 6, 6});
  for (int64_t i = 0; i < x.num_elements(); ++i) x.data<float>()[i] = std::sin(0.37f * static_cast<float>(i)) * 5.0f;
  return x;
}

// y within one quantization step (`step`) of ref everywhere, and equal to
// it at 90% of the elements or more.
void ExpectWithinOneStep(const Tensor& y, const Tensor& ref, float step, const std::string& what = "") {
  ASSERT_EQ(y.num_elements(), ref.num_elements()) << what;
  ASSERT_GT(y.num_elements(), 0) << what;
  int64_t exact = 0;
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    EXPECT_NEAR(y.data<float>()[i], ref.data<float>()[i], step * 1.001f) << what << " at " << i;
    exact += y.data<float>()[i] == ref.data<float>()[i];
  }
  EXPECT_GE(exact, y.num_elements() * 9 / 10) << what;
}

// The model's y at optimization `level`, and its ops.
Tensor RunAt(const std::string& model, int level, std::vector<std::string>* types) {
  transforms::OptimizeOptions o;
  o.level = level;
  o.nchwc_block = 0;
  auto net = ImportOptimized(model, o);
  EXPECT_TRUE(net.ok()) << net.status();
  if (!net.ok()) return Tensor();
  types->clear();
  for (const OperatorDef& op : net->op()) types->push_back(op.type());
  Workspace ws;
  ws.SetBlob("x", Input());
  auto n = Net::Create(*net, &ws, CpuControlFlowRegistry());
  EXPECT_TRUE(n.ok()) << n.status();
  if (!n.ok()) return Tensor();
  const absl::Status s = (*n)->Run();
  EXPECT_TRUE(s.ok()) << s;
  const Tensor* y = ws.GetBlob("y");
  return y != nullptr ? *y : Tensor();
}

TEST(FuseQdq, ConvReluPoolAddRunAsInt8WithinOneStep) {
  const std::string model = ConvPoolAddModel(1.0f, 0);
  std::vector<std::string> fused, plain;
  const Tensor y = RunAt(model, 1, &fused);
  const Tensor ref = RunAt(model, 0, &plain);
  // The int8 ops, channels-last (int8_channels_last.h) from one Transpose
  // in to one out before the net output (the DequantizeLinear and the
  // Identity after them are elementwise: channels-last too).
  EXPECT_EQ(fused, (std::vector<std::string>{"QuantizeLinear", "Transpose", "NhwcQLinearConv", "NhwcMaxPool",
                                             "QLinearAdd", "DequantizeLinear", "Identity", "Transpose"}));
  // One step of y's scale (0.05); the int8 path rounds once where the
  // float path rounded at every Q.
  ExpectWithinOneStep(y, ref, 0.05f);
}

// A Relu before a Q whose zero point is not 0 clips what the Q could
// represent, and a bias at another scale than x_scale * w_scale is not the
// int32 bias QLinearConv takes: both Convs stay float, and the results
// are the float path's.
TEST(FuseQdq, UnabsorbableReluAndMismatchedBiasStayFloat) {
  for (const auto& [bias_factor, relu_zp] : {std::pair<float, uint8_t>{1.0f, 20}, {2.0f, 0}}) {
    const std::string model = ConvPoolAddModel(bias_factor, relu_zp);
    std::vector<std::string> fused, plain;
    const Tensor y = RunAt(model, 1, &fused);
    const Tensor ref = RunAt(model, 0, &plain);
    EXPECT_NE(std::find(fused.begin(), fused.end(), "Conv") != fused.end() ||
                  std::find(fused.begin(), fused.end(), "FusedConv") != fused.end(),
              false)
        << "bias factor " << bias_factor << ", relu zero point " << int{relu_zp};
    EXPECT_EQ(std::count(fused.begin(), fused.end(), "QLinearConv"), 0);
    // The MaxPool and the Add after it still fuse.
    EXPECT_EQ(std::count(fused.begin(), fused.end(), "QLinearAdd"), 1);
    ASSERT_EQ(y.num_elements(), ref.num_elements());
    for (int64_t i = 0; i < y.num_elements(); ++i) EXPECT_NEAR(y.data<float>()[i], ref.data<float>()[i], 0.0501f) << i;
  }
}

// x -> Q/DQ (uint8) -> HardSwish as paddle2onnx spells it (y * Clip(y + 3,
// 0, 6) / 6) -> Mul(0.7) -> Add(0.1) -> Sub(0.5 - v) -> Q/DQ (int8) ->
// Sigmoid -> Q/DQ (uint8) -> y. With `v_is_output` v, the first region's
// output, is also a net output: that region is read outside its Q and
// stays float.
std::string LookupModel(bool v_is_output) {
  Model m;
  onnx::GraphProto& g = m.g;
  AddInput(&g, "x", {1, 4, 6, 6});
  AddOutput(&g, "y");
  const std::string xd = m.QuantDequant("x", 0.05f, 128);
  AddNode(&g, "Add", {xd, m.Scalar("three", 3.0f)}, {"p3"});
  AddNode(&g, "Clip", {"p3", m.Scalar("zero", 0.0f), m.Scalar("six", 6.0f)}, {"c"});
  AddNode(&g, "Mul", {xd, "c"}, {"m"});
  AddNode(&g, "Div", {"m", "six"}, {"hs"});
  AddNode(&g, "Mul", {"hs", m.Scalar("k", 0.7f)}, {"a1"});
  AddNode(&g, "Add", {"a1", m.Scalar("b", 0.1f)}, {"a2"});
  AddNode(&g, "Sub", {m.Scalar("half", 0.5f), "a2"}, {"v"});
  if (v_is_output) AddOutput(&g, "v");
  const std::string vd = m.QuantDequantS8("v", 0.02f, -10);
  AddNode(&g, "Sigmoid", {vd}, {"s"});
  const std::string sd = m.QuantDequant("s", 1.0f / 255, 0);
  AddNode(&g, "Identity", {sd}, {"y"});
  return Serialize(g, 13);
}

TEST(FuseQdq, ElementwiseChainsBetweenDqAndQBecomeTables) {
  const std::string model = LookupModel(false);
  std::vector<std::string> fused, plain;
  const Tensor y = RunAt(model, 1, &fused);
  const Tensor ref = RunAt(model, 0, &plain);
  EXPECT_EQ(fused, (std::vector<std::string>{"QuantizeLinear", "QLinearLookup", "QLinearLookup", "DequantizeLinear",
                                             "Identity"}));
  ASSERT_EQ(y.num_elements(), ref.num_elements());
  ASSERT_GT(y.num_elements(), 0);
  int64_t exact = 0;
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    // The table holds the float ops' results; only a kernel that rounds
    // otherwise (Sigmoid's vectorized exp) may move a value by one step.
    EXPECT_NEAR(y.data<float>()[i], ref.data<float>()[i], 1.001f / 255) << i;
    exact += y.data<float>()[i] == ref.data<float>()[i];
  }
  EXPECT_GE(exact, y.num_elements() * 95 / 100);
  // The inputs span both ends of the table (saturated and not).
  float lo = 1, hi = 0;
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    lo = std::min(lo, y.data<float>()[i]);
    hi = std::max(hi, y.data<float>()[i]);
  }
  EXPECT_LT(lo, 0.2f);
  EXPECT_GT(hi, 0.6f);
}

TEST(FuseQdq, ChainReadElsewhereStaysFloat) {
  const std::string model = LookupModel(true);
  std::vector<std::string> fused, plain;
  const Tensor y = RunAt(model, 1, &fused);
  const Tensor ref = RunAt(model, 0, &plain);
  // The HardSwish region is no int8 table (v is read as float too) but a
  // float one, v's QuantizeLinear after it; the Sigmoid's is an int8 table.
  EXPECT_EQ(fused, (std::vector<std::string>{"QuantizeLinear", "QLinearLookup", "QuantizeLinear", "QLinearLookup",
                                             "DequantizeLinear", "Identity"}));
  ASSERT_EQ(y.num_elements(), ref.num_elements());
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    EXPECT_NEAR(y.data<float>()[i], ref.data<float>()[i], 1.001f / 255) << i;
  }
}

// x -> Q/DQ -> Conv (int8 W, int32 B) -> Q/DQ -> a squeeze-and-excitation
// block: GlobalAveragePool -> Q/DQ -> HardSigmoid (the gate, float) ->
// Mul(conv output, gate) -> Q/DQ -> y. With `hardswish_first` the block
// reads HardSwish(conv output), a float tensor no Q follows (as in the
// PP-OCRv4 recognizer).
std::string SqueezeExciteModel(bool hardswish_first = false) {
  Model m;
  onnx::GraphProto& g = m.g;
  const int64_t C = 4, M = 8;
  AddInput(&g, "x", {1, C, 6, 6});
  AddOutput(&g, "y");
  const float sx = 0.05f;
  const std::string xd = m.QuantDequant("x", sx, 128);
  std::vector<int8_t> w;
  for (int64_t i = 0; i < M * C * 9; ++i) w.push_back(static_cast<int8_t>((i * 53) % 255 - 127));
  std::vector<int32_t> b;
  for (int64_t o = 0; o < M; ++o) b.push_back(static_cast<int32_t>(o * 211) - 600);
  *g.add_initializer() = Initializer<int8_t>("w_q", onnx::TensorProto::INT8, {M, C, 3, 3}, w);
  *g.add_initializer() = Initializer<float>("w_s", onnx::TensorProto::FLOAT, {}, {0.003f});
  *g.add_initializer() = Initializer<int32_t>("b_q", onnx::TensorProto::INT32, {M}, b);
  *g.add_initializer() = Initializer<float>("b_s", onnx::TensorProto::FLOAT, {}, {sx * 0.003f});
  AddNode(&g, "DequantizeLinear", {"w_q", "w_s"}, {"w"});
  AddNode(&g, "DequantizeLinear", {"b_q", "b_s"}, {"b"});
  IntsAttr(AddNode(&g, "Conv", {xd, "w", "b"}, {"c"}), "pads", {1, 1, 1, 1});
  std::string cd = m.QuantDequant("c", 0.04f, 120);
  if (hardswish_first) {
    AddNode(&g, "HardSwish", {cd}, {"h"});
    cd = "h";
  }
  AddNode(&g, "GlobalAveragePool", {cd}, {"p"});
  const std::string pd = m.QuantDequant("p", 0.01f, 100);
  AddNode(&g, "HardSigmoid", {pd}, {"gate"});
  AddNode(&g, "Mul", {cd, "gate"}, {"se"});
  const std::string sd = m.QuantDequant("se", 0.03f, 110);
  AddNode(&g, "Identity", {sd}, {"y"});
  return Serialize(g, 13);
}

TEST(FuseQdq, SqueezeExciteRunsOnInt8ChannelsLast) {
  const std::string model = SqueezeExciteModel();
  std::vector<std::string> fused, plain;
  const Tensor y = RunAt(model, 1, &fused);
  const Tensor ref = RunAt(model, 0, &plain);
  // The pool reads the conv's int8 output; the gate (float: a float32 table
  // of HardSigmoid on the pool's int8 output) scales it without a
  // DequantizeLinear.
  EXPECT_EQ(fused, (std::vector<std::string>{"QuantizeLinear", "Transpose", "NhwcQLinearConv",
                                             "QLinearGlobalAveragePool", "QLinearLookup", "QLinearFloatMul",
                                             "DequantizeLinear", "Identity", "Transpose"}));
  ExpectWithinOneStep(y, ref, 0.03f);
}

// The block on a float tensor (HardSwish of the conv's output): the pool
// runs on it channels-last (NhwcGlobalAveragePool), no Transpose between.
TEST(FuseQdq, SqueezeExciteOnAFloatActivationPoolsChannelsLast) {
  const std::string model = SqueezeExciteModel(true);
  std::vector<std::string> fused, plain;
  const Tensor y = RunAt(model, 1, &fused);
  const Tensor ref = RunAt(model, 0, &plain);
  EXPECT_EQ(fused, (std::vector<std::string>{"QuantizeLinear", "Transpose", "NhwcQLinearConv", "QLinearLookup",
                                             "NhwcGlobalAveragePool", "QuantizeLinear", "QLinearLookup", "Mul",
                                             "QuantizeLinear", "DequantizeLinear", "Identity", "Transpose"}));
  ExpectWithinOneStep(y, ref, 0.03f);
}

// x -> Q/DQ -> Conv (int8) -> Q/DQ (c) -> three nearest 2x Resizes of it, as a
// feature pyramid's neck upsamples: one Q/DQ'd at c's parameters, one
// read by the Concat directly, one Q/DQ'd at other parameters -> Concat
// (axis 1) -> Q/DQ at c's parameters -> y.
std::string ResizeConcatModel() {
  Model m;
  onnx::GraphProto& g = m.g;
  const int64_t C = 4, M = 4;
  AddInput(&g, "x", {1, C, 6, 6});
  AddOutput(&g, "y");
  m.Int8Conv("c", m.QuantDequant("x", 0.05f, 128), C, M, 29);
  const float sc = 0.06f;
  const std::string cd = m.QuantDequant("c", sc, 125);
  *g.add_initializer() = Initializer<float>("scales", onnx::TensorProto::FLOAT, {4}, {1, 1, 2, 2});
  AddNode(&g, "Resize", {cd, "", "scales"}, {"r0"});
  const std::string r0d = m.QuantDequant("r0", sc, 125);
  AddNode(&g, "Resize", {cd, "", "scales"}, {"r1"});
  AddNode(&g, "Resize", {cd, "", "scales"}, {"r2"});
  const std::string r2d = m.QuantDequant("r2", 0.05f, 120);
  IntAttr(AddNode(&g, "Concat", {r0d, "r1", r2d}, {"cat"}), "axis", 1);
  const std::string catd = m.QuantDequant("cat", sc, 125);
  AddNode(&g, "Identity", {catd}, {"y"});
  return Serialize(g, 13);
}

TEST(FuseQdq, NearestResizeAndConcatMoveInt8Values) {
  const std::string model = ResizeConcatModel();
  std::vector<std::string> fused, plain;
  const Tensor y = RunAt(model, 1, &fused);
  const Tensor ref = RunAt(model, 0, &plain);
  // The Resizes and the Concat run on the int8 tensors, channels-last; the
  // third Resize's Q at other parameters is a table, and so is its
  // requantization back for the Concat.
  EXPECT_EQ(fused, (std::vector<std::string>{"QuantizeLinear", "Transpose", "NhwcQLinearConv", "Resize", "Resize",
                                             "Resize", "QLinearLookup", "QLinearLookup", "Concat",
                                             "DequantizeLinear", "Identity", "Transpose"}));
  ASSERT_EQ(y.num_elements(), ref.num_elements());
  ASSERT_EQ(y.num_elements(), 1 * 12 * 12 * 12);
  // Moving values is exact; the conv's int8 rounding may differ by a step.
  ExpectWithinOneStep(y, ref, 0.06f);
}

// x -> Q/DQ -> Conv (int8) -> Q/DQ -> HardSwish -> Q/DQ (int8) -> y: the
// HardSwish's table is applied by the conv itself.
TEST(FuseQdq, TableAfterAConvIsTheConvsOutputTable) {
  Model m;
  onnx::GraphProto& g = m.g;
  const int64_t C = 4, M = 5;
  AddInput(&g, "x", {1, C, 6, 6});
  AddOutput(&g, "y");
  m.Int8Conv("c", m.QuantDequant("x", 0.05f, 128), C, M, 41);
  const std::string cd = m.QuantDequant("c", 0.05f, 128);
  AddNode(&g, "HardSwish", {cd}, {"h"});
  const std::string hd = m.QuantDequant("h", 0.03f, 28);
  AddNode(&g, "Identity", {hd}, {"y"});
  const std::string model = Serialize(g, 14);
  std::vector<std::string> fused, plain;
  const Tensor y = RunAt(model, 1, &fused);
  const Tensor ref = RunAt(model, 0, &plain);
  EXPECT_EQ(fused, (std::vector<std::string>{"QuantizeLinear", "Transpose", "NhwcQLinearConv", "DequantizeLinear",
                                             "Identity", "Transpose"}));
  // The conv's int8 rounding may move c by a step, h by what that moves.
  ExpectWithinOneStep(y, ref, 0.05f);
}

// x -> Q/DQ -> [Conv (int8) -> Q/DQ] -> ConvTranspose (kernel 2, stride 2,
// int8 W per output channel or per tensor, int32 B) -> Q/DQ -> y, as the
// PP-OCR detector's head upsamples. `after_conv`: the ConvTranspose reads a
// channels-last int8 conv output (oneDNN's int8 deconvolution); else it
// reads x with `group` groups and `output_padding` (the int32 loops).
std::string ConvTransposeModel(bool after_conv, int64_t group, int64_t output_padding) {
  Model m;
  onnx::GraphProto& g = m.g;
  const int64_t C = 4, M = 6;
  AddInput(&g, "x", {1, C, 6, 6});
  AddOutput(&g, "y");
  const float sx = 0.05f;
  std::string in = m.QuantDequant("x", sx, 128);
  float s_in = sx;
  if (after_conv) {
    in = m.QuantDequant(m.Int8Conv("c", in, C, C, 23), 0.04f, 110);
    s_in = 0.04f;
  }
  const int64_t Mg = M / group;
  std::vector<int8_t> w;
  for (int64_t i = 0; i < C * Mg * 4; ++i) w.push_back(static_cast<int8_t>((i * 31) % 255 - 127));
  *g.add_initializer() = Initializer<int8_t>("tw_q", onnx::TensorProto::INT8, {C, Mg, 2, 2}, w);
  std::vector<float> ws, bs;
  std::vector<int32_t> b;
  const int64_t scales = group == 1 ? M : 1;
  for (int64_t o = 0; o < scales; ++o) ws.push_back(0.003f + 0.0005f * static_cast<float>(o));
  for (float v : ws) bs.push_back(s_in * v);
  for (int64_t o = 0; o < M; ++o) b.push_back(static_cast<int32_t>(o * 150) - 400);
  *g.add_initializer() = Initializer<float>("tw_s", onnx::TensorProto::FLOAT, group == 1 ? std::vector<int64_t>{M}
                                                                                        : std::vector<int64_t>{}, ws);
  *g.add_initializer() = Initializer<int32_t>("tb_q", onnx::TensorProto::INT32, {M}, b);
  *g.add_initializer() = Initializer<float>("tb_s", onnx::TensorProto::FLOAT, group == 1 ? std::vector<int64_t>{M}
                                                                                        : std::vector<int64_t>{}, bs);
  onnx::NodeProto* dq = AddNode(&g, "DequantizeLinear", {"tw_q", "tw_s"}, {"tw"});
  if (group == 1) IntAttr(dq, "axis", 1);
  onnx::NodeProto* bdq = AddNode(&g, "DequantizeLinear", {"tb_q", "tb_s"}, {"tb"});
  if (group == 1) IntAttr(bdq, "axis", 0);
  onnx::NodeProto* t = AddNode(&g, "ConvTranspose", {in, "tw", "tb"}, {"t"});
  IntsAttr(t, "strides", {2, 2});
  IntAttr(t, "group", group);
  if (output_padding > 0) IntsAttr(t, "output_padding", {output_padding, output_padding});
  const std::string td = m.QuantDequant("t", 0.05f, 100);
  AddNode(&g, "Identity", {td}, {"y"});
  return Serialize(g, 13);
}

TEST(FuseQdq, ConvTransposeRunsAsInt8WithinOneStep) {
  struct Case {
    bool after_conv;
    int64_t group, output_padding;
    std::vector<std::string> ops;
  };
  const Case cases[] = {
      {true, 1, 0, {"QuantizeLinear", "Transpose", "NhwcQLinearConv", "QLinearConvTranspose", "DequantizeLinear",
                    "Identity", "Transpose"}},
      {false, 2, 1, {"QuantizeLinear", "QLinearConvTranspose", "DequantizeLinear", "Identity"}},
      {false, 1, 0, {"QuantizeLinear", "QLinearConvTranspose", "DequantizeLinear", "Identity"}},
  };
  for (const Case& c : cases) {
    const std::string model = ConvTransposeModel(c.after_conv, c.group, c.output_padding);
    std::vector<std::string> fused, plain;
    const Tensor y = RunAt(model, 1, &fused);
    const Tensor ref = RunAt(model, 0, &plain);
    EXPECT_EQ(fused, c.ops) << "group " << c.group;
    const int64_t side = 12 + c.output_padding;
    ASSERT_EQ(y.num_elements(), 6 * side * side);
    ExpectWithinOneStep(y, ref, 0.05f, "group " + std::to_string(c.group));
  }
}

}  // namespace
}  // namespace testing
}  // namespace loom
