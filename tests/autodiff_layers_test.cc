// The gradients of the network layers whose gradients are ops of their own
// (ConvTranspose, MaxPool, AveragePool, BatchNormalization,
// LayerNormalization, Gelu, Dropout) and of Elu, Tile and ReduceMax, each
// against central finite differences in float64 (testing/
// gradient_check.h); the float32 gradient kernels against the float64 ones.
#include <cmath>
#include <string>

#include "core/autodiff/backward.h"
#include "core/net.h"
#include "testing/gradient_check.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using testing::CheckGradient;
using testing::CpuRegistry;
using testing::GradientCheckOptions;
using testing::ParseOp;
using testing::RandomTensor;

Tensor D(Shape dims, uint32_t seed, double lo = -1, double hi = 1) {
  return RandomTensor(DataType::kFloat64, std::move(dims), seed, lo, hi);
}

GradientCheckOptions Only(std::vector<int> inputs) {
  GradientCheckOptions o;
  o.inputs = std::move(inputs);
  return o;
}

TEST(LayerGradientTest, EluAndGelu) {
  Registry* r = CpuRegistry();
  Tensor x = D({3, 5}, 1, -2, 2);
  for (int64_t i = 0; i < x.num_elements(); ++i) {  // away from Elu's kink at 0
    double& v = x.data<double>()[i];
    if (std::abs(v) < 0.05) v += 0.1;
  }
  EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "Elu" input: "x" output: "y")"), {x}, r));
  EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "Elu" input: "x" output: "y" arg { name: "alpha" f: 0.5 })"), {x}, r));
  EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "Gelu" input: "x" output: "y")"), {x}, r));
  EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "Gelu" input: "x" output: "y" arg { name: "approximate" s: "tanh" })"),
                            {x}, r));
}

TEST(LayerGradientTest, TileAndReduceMax) {
  Registry* r = CpuRegistry();
  EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "Tile" input: "x" input: "r" output: "y")"),
                            {D({2, 3}, 10), Tensor::FromVector<int64_t>({2}, {3, 2})}, r, Only({0})));
  EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "Tile" input: "x" input: "r" output: "y")"),
                            {D({2, 1, 3}, 11), Tensor::FromVector<int64_t>({3}, {1, 4, 1})}, r, Only({0})));
  // ReduceMax-18 (axes input; negative axes; keepdims 0 and 1) and the
  // opset-13 attribute form, and with no axes (everything).
  const Tensor x = D({3, 4, 2}, 12);
  for (int keep = 0; keep < 2; ++keep) {
    const std::string k = " arg { name: \"keepdims\" i: " + std::to_string(keep) + " }";
    EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "ReduceMax" input: "x" input: "a" output: "y")" + k),
                              {x, Tensor::FromVector<int64_t>({2}, {0, -1})}, r, Only({0})))
        << keep;
    EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "ReduceMax" input: "x" output: "y")" + k), {x}, r)) << keep;
  }
  EXPECT_TRUE(CheckGradient(
      ParseOp(R"(type: "ReduceMax" input: "x" output: "y" arg { name: "axes" ints: [1] } arg { name: "keepdims" i: 1 })"),
      {x}, r));
}

TEST(LayerGradientTest, MaxPoolAndAveragePool) {
  Registry* r = CpuRegistry();
  struct Case {
    std::string attrs;
    Shape x;
  };
  const std::vector<Case> cases = {
      {R"(arg { name: "kernel_shape" ints: [2, 2] })", {2, 3, 4, 4}},
      {R"(arg { name: "kernel_shape" ints: [3, 2] } arg { name: "strides" ints: [2, 1] } arg { name: "pads" ints: [1, 0, 1, 1] })",
       {1, 2, 5, 4}},
      {R"(arg { name: "kernel_shape" ints: [3, 3] } arg { name: "strides" ints: [2, 2] } arg { name: "ceil_mode" i: 1 })",
       {1, 2, 6, 6}},
      {R"(arg { name: "kernel_shape" ints: [3] } arg { name: "auto_pad" s: "SAME_UPPER" } arg { name: "strides" ints: [2] })",
       {2, 2, 7}},  // 1-D
  };
  uint32_t seed = 20;
  for (const Case& c : cases) {
    const Tensor x = D(c.x, seed++);
    EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "MaxPool" input: "x" output: "y" )" + c.attrs), {x}, r)) << c.attrs;
    for (int include = 0; include < 2; ++include) {
      const std::string op = R"(type: "AveragePool" input: "x" output: "y" arg { name: "count_include_pad" i: )" +
                             std::to_string(include) + " } " + c.attrs;
      EXPECT_TRUE(CheckGradient(ParseOp(op), {x}, r)) << op;
    }
  }
  EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "MaxPool" input: "x" output: "y" arg { name: "kernel_shape" ints: [2, 2] }
                                       arg { name: "dilations" ints: [2, 1] })"),
                            {D({1, 2, 5, 4}, 30)}, r));
}

TEST(LayerGradientTest, BatchNormalizationTrainingAndInference) {
  Registry* r = CpuRegistry();
  const Tensor x = D({3, 2, 2, 3}, 40), scale = D({2}, 41, 0.5, 1.5), b = D({2}, 42);
  const Tensor mean = D({2}, 43), var = D({2}, 44, 0.5, 2);
  const OperatorDef train = ParseOp(R"(type: "BatchNormalization" input: "x" input: "s" input: "b" input: "m"
      input: "v" output: "y" arg { name: "training_mode" i: 1 } arg { name: "epsilon" f: 0.01 })");
  EXPECT_TRUE(CheckGradient(train, {x, scale, b, mean, var}, r, Only({0, 1, 2})));
  const OperatorDef infer = ParseOp(R"(type: "BatchNormalization" input: "x" input: "s" input: "b" input: "m"
      input: "v" output: "y")");
  EXPECT_TRUE(CheckGradient(infer, {x, scale, b, mean, var}, r, Only({0, 1, 2})));
  EXPECT_TRUE(CheckGradient(train, {D({4, 3}, 45), D({3}, 46), D({3}, 47), D({3}, 48), D({3}, 49, 0.5, 2)}, r,
                            Only({0, 1, 2})))
      << "rank 2";
}

TEST(LayerGradientTest, LayerNormalization) {
  Registry* r = CpuRegistry();
  // stash_type 11: float64 statistics (the default, float32, rounds them).
  const std::string stash = R"( arg { name: "stash_type" i: 11 })";
  EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "LayerNormalization" input: "x" input: "s" input: "b" output: "y")" + stash),
                            {D({3, 5}, 50), D({5}, 51, 0.5, 1.5), D({5}, 52)}, r));
  // axis 1 of [2, 3, 4] with Scale broadcast over the first normalized dim
  // and no B.
  EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "LayerNormalization" input: "x" input: "s" output: "y"
                                       arg { name: "axis" i: 1 })" + stash),
                            {D({2, 3, 4}, 53), D({1, 4}, 54, 0.5, 1.5)}, r));
  EXPECT_TRUE(CheckGradient(ParseOp(R"(type: "LayerNormalization" input: "x" input: "s" input: "b" output: "y"
                                       arg { name: "axis" i: -2 } arg { name: "epsilon" f: 0.1 })" + stash),
                            {D({2, 3, 4}, 55), D({3, 4}, 56), D({4}, 57)}, r));
}

TEST(LayerGradientTest, ConvTranspose) {
  Registry* r = CpuRegistry();
  struct Case {
    std::string attrs;
    Shape x, w;
    bool bias;
  };
  const std::vector<Case> cases = {
      {"", {2, 3, 3, 3}, {3, 2, 2, 2}, true},
      {R"(arg { name: "strides" ints: [2, 1] } arg { name: "pads" ints: [1, 0, 0, 1] })", {1, 2, 3, 4}, {2, 3, 3, 2}, true},
      {R"(arg { name: "group" i: 2 } arg { name: "dilations" ints: [2, 1] })", {1, 4, 3, 3}, {4, 1, 2, 2}, false},
      {R"(arg { name: "strides" ints: [2, 2] } arg { name: "output_padding" ints: [1, 0] })", {1, 2, 2, 3}, {2, 2, 3, 3}, true},
      {R"(arg { name: "strides" ints: [2] } arg { name: "auto_pad" s: "SAME_UPPER" })", {2, 2, 4}, {2, 3, 3}, true},  // 1-D
      {R"(arg { name: "strides" ints: [2] } arg { name: "output_shape" ints: [10] })", {1, 1, 4}, {1, 2, 3}, false},
  };
  uint32_t seed = 60;
  for (const Case& c : cases) {
    const std::string text = std::string(R"(type: "ConvTranspose" input: "x" input: "w" )") +
                             (c.bias ? R"(input: "b" )" : "") + R"(output: "y" )" + c.attrs;
    std::vector<Tensor> in = {D(c.x, seed++), D(c.w, seed++)};
    if (c.bias) {
      const int64_t group = c.attrs.find("group") != std::string::npos ? 2 : 1;
      in.push_back(D({c.w[1] * group}, seed++));
    }
    EXPECT_TRUE(CheckGradient(ParseOp(text), in, r)) << text;
  }
}

// Training-mode Dropout: the seeded mask (the net rebuilt for every run so
// each draws the first mask of the seed) scales the kept elements by
// 1 / (1 - ratio) forward and backward.
TEST(LayerGradientTest, DropoutTrainingMode) {
  Registry* r = CpuRegistry();
  const OperatorDef op = ParseOp(R"(type: "Dropout" input: "x" input: "ratio" input: "training" output: "y"
      output: "mask" arg { name: "seed" i: 5 })");
  const Tensor x = D({4, 6}, 70, 0.5, 1.5);
  const Tensor ratio = Tensor::FromVector<double>({}, {0.25});
  Tensor training = Tensor::Zeros(DataType::kBool, {});
  training.data<bool>()[0] = true;
  auto out = testing::RunSingleOp(op, {x, ratio, training}, r);
  ASSERT_TRUE(out.ok()) << out.status();
  int kept = 0;
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const bool m = (*out)[1].data<bool>()[i];
    kept += m;
    EXPECT_DOUBLE_EQ((*out)[0].data<double>()[i], m ? x.data<double>()[i] / 0.75 : 0.0) << i;
  }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, x.num_elements());
  GradientCheckOptions o = Only({0});
  o.rebuild_net_per_run = true;
  EXPECT_TRUE(CheckGradient(op, {x, ratio, training}, r, o));
  // Without the mask output the backward pass cannot know the mask.
  const OperatorDef no_mask = ParseOp(R"(type: "Dropout" input: "x" input: "ratio" input: "training" output: "y")");
  EXPECT_FALSE(CheckGradient(no_mask, {x, ratio, training}, r, o));
  // training_mode false: the identity, mask all true.
  training.data<bool>()[0] = false;
  EXPECT_TRUE(CheckGradient(op, {x, ratio, training}, r, Only({0})));
}

// The float32 gradient kernels compute what the float64 ones do (BatchMatMul
// is MatMul's gradient op).
TEST(LayerGradientTest, Float32KernelsMatchFloat64) {
  Registry* r = CpuRegistry();
  auto to_f32 = [](const Tensor& t) {
    Tensor f = Tensor::Zeros(DataType::kFloat32, t.dims());
    for (int64_t i = 0; i < t.num_elements(); ++i) f.data<float>()[i] = static_cast<float>(t.data<double>()[i]);
    return f;
  };
  struct Case {
    std::string op;
    std::vector<Tensor> in;
  };
  const std::vector<Case> cases = {
      {R"(type: "MaxPoolGradient" input: "x" input: "y" input: "dy" output: "dx" arg { name: "kernel_shape" ints: [2, 2] })",
       {D({1, 2, 4, 4}, 80), D({1, 2, 3, 3}, 81), D({1, 2, 3, 3}, 82)}},
      {R"(type: "AveragePoolGradient" input: "x" input: "y" input: "dy" output: "dx" arg { name: "kernel_shape" ints: [3, 3] }
          arg { name: "pads" ints: [1, 1, 1, 1] })",
       {D({1, 2, 4, 4}, 83), D({1, 2, 4, 4}, 84), D({1, 2, 4, 4}, 85)}},
      {R"(type: "BatchNormalizationGradient" input: "x" input: "s" input: "dy" input: "m" input: "v" output: "dx"
          output: "ds" output: "db" arg { name: "training_mode" i: 1 })",
       {D({2, 3, 4}, 86), D({3}, 87), D({2, 3, 4}, 88), D({3}, 89), D({3}, 90, 0.5, 1)}},
      // float32 on oneDNN's batch_normalization_backward: a CNN's 4-D shape,
      // and dX alone.
      {R"(type: "BatchNormalizationGradient" input: "x" input: "s" input: "dy" input: "m" input: "v" output: "dx"
          output: "ds" output: "db" arg { name: "training_mode" i: 1 } arg { name: "epsilon" f: 0.001 })",
       {D({4, 16, 7, 7}, 106, -2, 3), D({16}, 107), D({4, 16, 7, 7}, 108), D({16}, 109), D({16}, 110, 0.5, 1)}},
      {R"(type: "BatchNormalizationGradient" input: "x" input: "s" input: "dy" input: "m" input: "v" output: "dx"
          arg { name: "training_mode" i: 1 })",
       {D({8, 8, 5, 5}, 111), D({8}, 112), D({8, 8, 5, 5}, 113), D({8}, 114), D({8}, 115, 0.5, 1)}},
      {R"(type: "LayerNormalizationGradient" input: "x" input: "s" input: "dy" input: "b" output: "dx" output: "ds"
          output: "db")",
       {D({3, 4}, 91), D({4}, 92), D({3, 4}, 93), D({4}, 94)}},
      {R"(type: "ConvTransposeGradient" input: "x" input: "w" input: "dy" output: "dw" output: "db" output: "dx"
          arg { name: "strides" ints: [2, 2] })",
       {D({1, 2, 3, 3}, 95), D({2, 3, 2, 2}, 96), D({1, 3, 6, 6}, 97)}},
      // float32 on oneDNN's deconvolution backward: groups, pads and
      // dilations; output_padding and a larger output_shape (negative
      // padding: dY read through a window, dB summed over all of dY); 1-D;
      // dW alone.
      {R"(type: "ConvTransposeGradient" input: "x" input: "w" input: "dy" output: "dw" output: "db" output: "dx"
          arg { name: "group" i: 2 } arg { name: "pads" ints: [1, 0, 0, 1] } arg { name: "dilations" ints: [1, 2] })",
       {D({2, 4, 5, 4}, 116), D({4, 3, 3, 2}, 117), D({2, 6, 6, 5}, 118)}},
      {R"(type: "ConvTransposeGradient" input: "x" input: "w" input: "dy" output: "dw" output: "db" output: "dx"
          arg { name: "strides" ints: [2, 2] } arg { name: "output_padding" ints: [1, 1] })",
       {D({1, 3, 4, 4}, 119), D({3, 2, 3, 3}, 120), D({1, 2, 10, 10}, 121)}},
      {R"(type: "ConvTransposeGradient" input: "x" input: "w" input: "dy" output: "dw" output: "db" output: "dx"
          arg { name: "strides" ints: [2] } arg { name: "output_shape" ints: [13] })",
       {D({2, 3, 5}, 122), D({3, 4, 3}, 123), D({2, 4, 13}, 124)}},
      {R"(type: "ConvTransposeGradient" input: "x" input: "w" input: "dy" output: "dw"
          arg { name: "strides" ints: [2, 2] })",
       {D({2, 16, 6, 6}, 125), D({16, 16, 2, 2}, 126), D({2, 16, 12, 12}, 127)}},
      {R"(type: "GeluGradient" input: "dy" input: "x" output: "dx")", {D({7}, 98), D({7}, 99, -3, 3)}},
      // MatMul's gradient ops: oneDNN reading the transposes through strides.
      {R"(type: "BatchMatMul" input: "a" input: "b" output: "y" arg { name: "trans_a" i: 1 })",
       {D({2, 1, 4, 3}, 100), D({3, 4, 5}, 101)}},
      {R"(type: "BatchMatMul" input: "a" input: "b" output: "y" arg { name: "trans_b" i: 1 })",
       {D({1, 3, 4}, 102), D({2, 5, 4}, 103)}},
      {R"(type: "BatchMatMul" input: "a" input: "b" output: "y" arg { name: "trans_a" i: 1 } arg { name: "trans_b" i: 1 })",
       {D({4, 3}, 104), D({5, 4}, 105)}},
  };
  for (const Case& c : cases) {
    std::vector<Tensor> in32;
    for (const Tensor& t : c.in) in32.push_back(to_f32(t));
    auto y64 = testing::RunSingleOp(ParseOp(c.op), c.in, r);
    auto y32 = testing::RunSingleOp(ParseOp(c.op), in32, r);
    ASSERT_TRUE(y64.ok() && y32.ok()) << c.op << ": " << y64.status() << " " << y32.status();
    ASSERT_EQ(y64->size(), y32->size());
    for (size_t k = 0; k < y64->size(); ++k) {
      EXPECT_TRUE(testing::AllClose(to_f32((*y64)[k]), (*y32)[k], 1e-5, 1e-5)) << c.op << " output " << k;
    }
  }
}

}  // namespace
}  // namespace loom
