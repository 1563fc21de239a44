// NetOptions::fpmath_mode bf16 on the CPU kernels (dnnl_fpmath.h): Conv,
// FusedConv, NchwcConv, MatMul, Gemm and FC, with weights as initializers
// (packed as bf16 once) and fed (rounded every run). Where oneDNN has bf16
// arithmetic (AVX-512 BF16, AMX), each output equals the same op run in
// float32 ("strict") on X and W rounded to bf16 (round to nearest even)
// within float32 accumulation error, and differs from the float32 result
// on the unrounded inputs by more than that: the rounding happened, and
// only there. Elsewhere bf16 changes nothing: the outputs equal strict.
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "core/net.h"
#include "core/proto_io.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using testing::RandomTensor;

bool CpuHasBf16() {
  const auto bf16 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_bf16);
  return (static_cast<unsigned>(dnnl::get_effective_cpu_isa()) & bf16) == bf16;
}

// `t` (float32) with every value rounded to bf16 and back.
Tensor RoundedToBf16(const Tensor& t) {
  Tensor r = *t.Clone();
  for (int64_t i = 0; i < r.num_elements(); ++i) {
    r.data<float>()[i] = sdk::BFloat16::ToFloat(sdk::BFloat16::FromFloat(r.data<float>()[i]));
  }
  return r;
}

struct Case {
  std::string name;
  std::string op;                   // OperatorDef text; output y
  std::vector<std::string> inputs;  // blob names in op order
  std::vector<Tensor> values;       // their values
  std::vector<int> rounded;         // the inputs bf16 mode rounds (X and W; not biases or Sum)
  int weight;                       // the input that may be an initializer
};

// Runs c's op once in a net with `mode`; input `weight` an initializer when
// `constant`.
Tensor Run(const Case& c, const std::vector<Tensor>& values, FpMathMode mode, bool constant) {
  NetDef net;
  net.set_name(c.name);
  *net.add_op() = testing::ParseOp(c.op);
  Workspace ws;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (constant && static_cast<int>(i) == c.weight) {
      *net.add_initializer() = TensorToProto(values[i], c.inputs[i]);
    } else {
      net.add_external_input(c.inputs[i]);
      ws.SetBlob(c.inputs[i], *values[i].Clone());
    }
  }
  net.add_external_output("y");
  NetOptions options;
  options.num_threads = 2;
  options.fpmath_mode = mode;
  auto n = Net::Create(net, &ws, testing::CpuRegistry(), options);
  EXPECT_TRUE(n.ok()) << n.status();
  if (!n.ok()) return Tensor();
  absl::Status s = (*n)->Run();
  EXPECT_TRUE(s.ok()) << s;
  return *ws.GetBlob("y")->Clone();
}

void CheckCase(const Case& c) {
  std::vector<Tensor> rounded = c.values;
  for (int i : c.rounded) rounded[i] = RoundedToBf16(c.values[i]);
  for (bool constant : {true, false}) {
    SCOPED_TRACE(c.name + (constant ? ", W an initializer" : ", W fed"));
    const Tensor strict = Run(c, c.values, FpMathMode::kStrict, constant);
    const Tensor bf16 = Run(c, c.values, FpMathMode::kBf16, constant);
    if (!CpuHasBf16()) {
      EXPECT_TRUE(testing::AllClose(bf16, strict, 0, 0)) << "no bf16 arithmetic here: float32 as in strict";
      continue;
    }
    const Tensor reference = Run(c, rounded, FpMathMode::kStrict, constant);
    EXPECT_TRUE(testing::AllClose(bf16, reference, 1e-5, 1e-5)) << "bf16 = float32 arithmetic on bf16-rounded X and W";
    EXPECT_FALSE(testing::AllClose(bf16, strict, 1e-4, 1e-4)) << "bf16 must differ from float32 on the exact inputs";
  }
}

Tensor R(Shape s, uint32_t seed) { return RandomTensor(DataType::kFloat32, std::move(s), seed, -1.0, 1.0); }

TEST(FpMathBf16, Conv) {
  CheckCase({"Conv", R"(type: "Conv" input: "x" input: "w" input: "b" output: "y"
                        arg { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 })",
             {"x", "w", "b"}, {R({1, 16, 10, 10}, 1), R({32, 16, 3, 3}, 2), R({32}, 3)}, {0, 1}, 1});
}

TEST(FpMathBf16, DepthwiseConvAndFusedConv) {
  CheckCase({"depthwise", R"(type: "Conv" input: "x" input: "w" output: "y" arg { name: "group" i: 32 }
                             arg { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 })",
             {"x", "w"}, {R({2, 32, 9, 9}, 4), R({32, 1, 3, 3}, 5)}, {0, 1}, 1});
  CheckCase({"FusedConv", R"(type: "FusedConv" input: "x" input: "w" input: "b" output: "y"
                             arg { name: "activation" s: "Relu" })",
             {"x", "w", "b"}, {R({1, 64, 7, 7}, 6), R({48, 64, 1, 1}, 7), R({48}, 8)}, {0, 1}, 1});
}

TEST(FpMathBf16, NchwcConvWithSum) {
  // X and Sum blocked nChw16c ([N, C / 16, H, W, 16]); the Sum stays float32.
  CheckCase({"NchwcConv", R"(type: "NchwcConv" input: "x" input: "w" input: "b" input: "s" output: "y"
                             arg { name: "block" i: 16 } arg { name: "activation" s: "Relu" }
                             arg { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 })",
             {"x", "w", "b", "s"}, {R({1, 2, 6, 6, 16}, 9), R({32, 32, 3, 3}, 10), R({32}, 11), R({1, 2, 6, 6, 16}, 12)},
             {0, 1}, 1});
}

TEST(FpMathBf16, MatMulGemmAndFC) {
  CheckCase({"MatMul", R"(type: "MatMul" input: "a" input: "b" output: "y")",
             {"a", "b"}, {R({2, 5, 96}, 13), R({96, 40}, 14)}, {0, 1}, 1});
  CheckCase({"Gemm", R"(type: "Gemm" input: "a" input: "b" input: "c" output: "y" arg { name: "transB" i: 1 })",
             {"a", "b", "c"}, {R({7, 128}, 15), R({24, 128}, 16), R({24}, 17)}, {0, 1}, 1});
  CheckCase({"FC", R"(type: "FC" input: "x" input: "w" input: "b" output: "y")",
             {"x", "w", "b"}, {R({3, 200}, 18), R({16, 200}, 19), R({16}, 20)}, {0, 1}, 1});
}

}  // namespace
}  // namespace loom
