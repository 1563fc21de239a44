// transforms::FuseDynamicQuant on dynamically quantized MatMuls built here
// as ONNX Runtime's quantize_dynamic writes them (DynamicQuantizeLinear ->
// MatMulInteger -> Cast -> Mul by the scales' product [-> Add bias]),
// imported as the Session imports them: which become one
// DynamicQuantizeMatMul, which stay as they are, and that the fused op's
// output equals the pattern's run op by op (optimization level 0) bit for
// bit.
#include <cmath>
#include <string>
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

constexpr int64_t kK = 48, kN = 20;

struct Options {
  bool per_column = true;     // b_scale [N] (else a scalar)
  bool b_zero_point = true;   // given (zeros), else absent
  int8_t b_zero_value = 0;    // its value
  bool bias = true;           // an Add of a constant [N] after
  bool scales_first = false;  // Mul(scales, cast) instead of Mul(cast, scales)
  bool cast_is_output = false;  // the Cast's output is also a net output
};

// x [2, 3, K] -> the quantize_dynamic pattern with B [K, N] int8 -> y.
std::string DynamicMatMulModel(const Options& o) {
  onnx::GraphProto g;
  AddInput(&g, "x", {2, 3, kK});
  AddOutput(&g, "y");
  std::vector<int8_t> b;
  for (int64_t i = 0; i < kK * kN; ++i) b.push_back(static_cast<int8_t>((i * 37) % 255 - 127));
  std::vector<float> scales, bias;
  for (int64_t j = 0; j < kN; ++j) {
    scales.push_back(0.003f + 0.0007f * static_cast<float>(j));
    bias.push_back(0.25f * static_cast<float>(j) - 2.0f);
  }
  *g.add_initializer() = Initializer<int8_t>("B", onnx::TensorProto::INT8, {kK, kN}, b);
  if (o.per_column) {
    *g.add_initializer() = Initializer<float>("B_scale", onnx::TensorProto::FLOAT, {kN}, scales);
  } else {
    *g.add_initializer() = Initializer<float>("B_scale", onnx::TensorProto::FLOAT, {}, {scales[0]});
  }
  const int64_t nz = o.per_column ? kN : 1;
  if (o.b_zero_point) {
    *g.add_initializer() = Initializer<int8_t>("B_zero_point", onnx::TensorProto::INT8,
                                               o.per_column ? std::vector<int64_t>{kN} : std::vector<int64_t>{},
                                               std::vector<int8_t>(nz, o.b_zero_value));
  }
  AddNode(&g, "DynamicQuantizeLinear", {"x"}, {"x_q", "x_scale", "x_zero_point"});
  std::vector<std::string> mm = {"x_q", "B", "x_zero_point"};
  if (o.b_zero_point) mm.push_back("B_zero_point");
  AddNode(&g, "MatMulInteger", mm, {"acc"});
  IntAttr(AddNode(&g, "Cast", {"acc"}, {"acc_f"}), "to", onnx::TensorProto::FLOAT);
  AddNode(&g, "Mul", {"x_scale", "B_scale"}, {"scales"});
  const std::string product = o.bias ? "product" : "y";
  AddNode(&g, "Mul", o.scales_first ? std::vector<std::string>{"scales", "acc_f"} : std::vector<std::string>{"acc_f", "scales"},
          {product});
  if (o.bias) {
    *g.add_initializer() = Initializer<float>("bias", onnx::TensorProto::FLOAT, {kN}, bias);
    AddNode(&g, "Add", {"product", "bias"}, {"y"});
  }
  if (o.cast_is_output) AddOutput(&g, "acc_f");
  return Serialize(g, 13);
}

// The model's y at optimization `level` on x, and its ops.
Tensor RunAt(const std::string& model, int level, const Tensor& x, std::vector<std::string>* types) {
  transforms::OptimizeOptions o;
  o.level = level;
  auto net = ImportOptimized(model, o);
  EXPECT_TRUE(net.ok()) << net.status();
  if (!net.ok()) return Tensor();
  types->clear();
  for (const OperatorDef& op : net->op()) types->push_back(op.type());
  Workspace ws;
  ws.SetBlob("x", x);
  auto n = Net::Create(*net, &ws, CpuControlFlowRegistry());
  EXPECT_TRUE(n.ok()) << n.status();
  if (!n.ok()) return Tensor();
  const absl::Status s = (*n)->Run();
  EXPECT_TRUE(s.ok()) << s;
  const Tensor* y = ws.GetBlob("y");
  return y != nullptr ? *y->Clone() : Tensor();
}

Tensor Input(float amplitude, float offset) {
  Tensor x = Tensor::Zeros(DataType::kFloat32, {2, 3, kK});
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    x.data<float>()[i] = std::sin(0.37f * static_cast<float>(i)) * amplitude + offset;
  }
  return x;
}

void ExpectFusedAndExact(const Options& o, const std::string& what) {
  SCOPED_TRACE(what);
  const std::string model = DynamicMatMulModel(o);
  // Values of both signs, all positive (A's zero point 0) and all zero
  // (scale 0: Y is the bias).
  for (const Tensor& x : {Input(3.0f, 0.5f), Input(1.0f, 1.5f), Input(0.0f, 0.0f)}) {
    std::vector<std::string> fused, plain;
    const Tensor y = RunAt(model, 1, x, &fused);
    const Tensor ref = RunAt(model, 0, x, &plain);
    EXPECT_EQ(fused, std::vector<std::string>{"DynamicQuantizeMatMul"});
    EXPECT_TRUE(AllClose(y, ref, 0, 0)) << "the pattern's values exactly";
  }
}

TEST(FuseDynamicQuant, QuantizeDynamicMatMulPatternsFuseAndGiveThePatternsValues) {
  ExpectFusedAndExact({}, "per-column scales, zero points and bias");
  Options scalar;
  scalar.per_column = false;
  scalar.b_zero_point = false;
  scalar.bias = false;
  scalar.scales_first = true;
  ExpectFusedAndExact(scalar, "scalar scale, no zero point, no bias, Mul(scales, cast)");
}

TEST(FuseDynamicQuant, NonzeroWeightZeroPointsAndIntermediatesReadElsewhereStay) {
  Options zp;
  zp.b_zero_value = 3;  // oneDNN's int8 matmul takes no weight zero point
  Options read;
  read.cast_is_output = true;
  for (const Options& o : {zp, read}) {
    std::vector<std::string> types;
    const Tensor x = Input(3.0f, 0.5f);
    const Tensor y = RunAt(DynamicMatMulModel(o), 1, x, &types);
    EXPECT_EQ(types, (std::vector<std::string>{"DynamicQuantizeLinear", "MatMulInteger", "Cast", "Mul", "Mul", "Add"}));
    std::vector<std::string> plain;
    EXPECT_TRUE(AllClose(y, RunAt(DynamicMatMulModel(o), 0, x, &plain), 0, 0));
  }
}

}  // namespace
}  // namespace testing
}  // namespace loom
