// The activations' gradient kernels (gradients.cc): float32 runs oneDNN's
// eltwise backward, held here to the float64 loops (which the
// finite-difference checks of tests/autodiff_test.cc and
// autodiff_layers_test.cc hold to the definitions) on random shapes, with
// values spread over both sides of the kinks and exact zeros at Relu's.
#include <cmath>
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

struct Case {
  std::string op;        // the gradient op with its attributes
  std::string forward;   // the forward op that gives its second input ("" : X itself)
};

// dX of `c` in float32 and float64 from the same dY and X (or Y = forward(X)).
void ExpectFloat32MatchesFloat64(const Case& c, const Shape& shape, uint32_t seed) {
  Tensor x = RandomTensor(DataType::kFloat32, shape, seed, -4, 4);
  for (int64_t i = 0; i < x.num_elements(); i += 7) x.data<float>()[i] = 0;  // the kinks themselves
  Tensor v = x;
  if (!c.forward.empty()) {
    auto y = RunSingleOp(ParseOp(c.forward), {x});
    ASSERT_TRUE(y.ok()) << c.forward << ": " << y.status();
    v = (*y)[0];
  }
  const Tensor dy = RandomTensor(DataType::kFloat32, shape, seed + 1);
  const OperatorDef op = ParseOp(c.op);
  auto f32 = RunSingleOp(op, {dy, v});
  auto f64 = RunSingleOp(op, {Cast(DataType::kFloat64, dy), Cast(DataType::kFloat64, v)});
  ASSERT_TRUE(f32.ok()) << c.op << ": " << f32.status();
  ASSERT_TRUE(f64.ok()) << c.op << ": " << f64.status();
  EXPECT_TRUE(AllClose((*f32)[0], Cast(DataType::kFloat32, (*f64)[0]), 1e-5, 2e-6)) << c.op << " on " << ShapeToString(shape);
}

TEST(ActivationGradientTest, Float32OnOneDnnMatchesFloat64Reference) {
  const std::vector<Case> cases = {
      {R"(type: "ReluGradient" input: "dy" input: "y" output: "dx")", R"(type: "Relu" input: "x" output: "y")"},
      {R"(type: "SigmoidGradient" input: "dy" input: "y" output: "dx")", R"(type: "Sigmoid" input: "x" output: "y")"},
      {R"(type: "TanhGradient" input: "dy" input: "y" output: "dx")", R"(type: "Tanh" input: "x" output: "y")"},
      {R"(type: "GeluGradient" input: "dy" input: "x" output: "dx")", ""},
      {R"(type: "GeluGradient" input: "dy" input: "x" output: "dx" arg { name: "approximate" s: "tanh" })", ""},
      {R"(type: "EluGradient" input: "dy" input: "x" output: "dx")", ""},
      {R"(type: "EluGradient" input: "dy" input: "x" output: "dx" arg { name: "alpha" f: 0.3 })", ""},
      {R"(type: "EluGradient" input: "dy" input: "x" output: "dx" arg { name: "alpha" f: -0.5 })", ""},
      {R"(type: "FusedActivationGradient" input: "dy" input: "y" output: "dx" arg { name: "activation" s: "Relu" })",
       R"(type: "Relu" input: "x" output: "y")"},
      {R"(type: "FusedActivationGradient" input: "dy" input: "y" output: "dx" arg { name: "activation" s: "LeakyRelu" }
          arg { name: "alpha" f: 0.2 })",
       R"(type: "LeakyRelu" input: "x" output: "y" arg { name: "alpha" f: 0.2 })"},
      {R"(type: "FusedActivationGradient" input: "dy" input: "y" output: "dx" arg { name: "activation" s: "Sigmoid" })",
       R"(type: "Sigmoid" input: "x" output: "y")"},
      {R"(type: "FusedActivationGradient" input: "dy" input: "y" output: "dx" arg { name: "activation" s: "Tanh" })",
       R"(type: "Tanh" input: "x" output: "y")"},
  };
  // The last one is above kParallelThreshold: oneDNN runs it on the context's threads.
  const std::vector<Shape> shapes = {{1}, {17}, {2, 3, 5, 7}, {4, 33, 65}, {8, 64, 81}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (const Shape& s : shapes) ExpectFloat32MatchesFloat64(c, s, seed += 2);
  }
}

// Known values: Relu passes dY where Y > 0 only (0 at Y = 0, PyTorch's
// choice); Elu at X <= 0 is dY * alpha * exp(X).
TEST(ActivationGradientTest, KnownValues) {
  const Tensor dy = F32({4}, {1, 2, 3, 4});
  EXPECT_TRUE(AllClose(Run1(ParseOp(R"(type: "ReluGradient" input: "dy" input: "y" output: "dx")"),
                            {dy, F32({4}, {0, 0.5f, 0, 2})}),
                       F32({4}, {0, 2, 0, 4})));
  EXPECT_TRUE(AllClose(Run1(ParseOp(R"(type: "EluGradient" input: "dy" input: "x" output: "dx" arg { name: "alpha" f: 2 })"),
                            {dy, F32({4}, {-1, 0, 1, -2})}),
                       F32({4}, {2 * std::exp(-1.0f), 4, 3, 8 * std::exp(-2.0f)})));
}

TEST(ActivationGradientTest, MismatchedOperandsAreAnError) {
  ExpectError(ParseOp(R"(type: "EluGradient" name: "e" input: "dy" input: "x" output: "dx")"),
              {F32({3}, {1, 2, 3}), F32({2}, {1, 2})}, "dY float32[3] and X float32[2] must have the same shape");
}

}  // namespace
}  // namespace loom
