// DynamicQuantizeMatMul (quantized_dynamic_matmul.cc) against a reference
// loop written here from its definition: A quantized as
// DynamicQuantizeLinear-11 (ops/semantics/quantization.h), the int32
// products, float(acc) * (a_scale * b_scale[n]) + bias[n] in float32; with
// B fed and as an initializer (packed); errors name the input.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/net.h"
#include "core/proto_io.h"
#include "ops/semantics/quantization.h"
#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

const char kOp[] = R"(type: "DynamicQuantizeMatMul" domain: "loom" input: "a" input: "b" input: "s" input: "z"
                      input: "bias" output: "y")";

Tensor Reference(const Tensor& a, const Tensor& b, const Tensor& s, const Tensor& bias) {
  const int64_t K = b.dims()[0], N = b.dims()[1], M = a.num_elements() / K;
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    lo = std::min(lo, a.data<float>()[i]);
    hi = std::max(hi, a.data<float>()[i]);
  }
  const semantics::DynamicQuantParams p = semantics::DynamicUint8Params(lo, hi);
  Shape ys = a.dims();
  ys.back() = N;
  Tensor y = Tensor::Zeros(DataType::kFloat32, ys);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      int32_t acc = 0;
      for (int64_t k = 0; k < K; ++k) {
        const int32_t q = p.scale == 0 ? 0 : semantics::QuantizeValue<uint8_t>(a.data<float>()[m * K + k], p.scale, p.zero_point);
        acc += (q - p.zero_point) * b.data<int8_t>()[k * N + n];
      }
      const float scale = p.scale * s.data<float>()[s.num_elements() == 1 ? 0 : n];
      y.data<float>()[m * N + n] = static_cast<float>(acc) * scale + (bias.num_elements() ? bias.data<float>()[n] : 0.0f);
    }
  }
  return y;
}

Tensor RandomInt8(Shape dims, uint32_t seed) { return Cast(DataType::kInt8, RandomTensor(DataType::kFloat32, dims, seed, -127, 127)); }

TEST(DynamicQuantizeMatMul, MatchesTheDefinitionBitForBit) {
  const Tensor a = RandomTensor(DataType::kFloat32, {2, 5, 40}, 1, -3.0, 2.0);
  const Tensor b = RandomInt8({40, 24}, 2);
  const Tensor s = RandomTensor(DataType::kFloat32, {24}, 3, 0.001, 0.01);
  const Tensor z = Tensor::Zeros(DataType::kInt8, {24});
  const Tensor bias = RandomTensor(DataType::kFloat32, {24}, 4, -1.0, 1.0);
  auto y = testing::RunSingleOp(testing::ParseOp(kOp), {a, b, s, z, bias});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(AllClose((*y)[0], Reference(a, b, s, bias), 0, 0));
  // Scalar scale, no zero point, no bias; B an initializer (packed once).
  NetDef net;
  net.set_name("dqmm");
  *net.add_op() = testing::ParseOp(R"(type: "DynamicQuantizeMatMul" domain: "loom" input: "a" input: "b" input: "s"
                                      output: "y")");
  *net.add_initializer() = TensorToProto(b, "b");
  net.add_external_input("a");
  net.add_external_input("s");
  net.add_external_output("y");
  Workspace ws;
  ws.SetBlob("a", *a.Clone());
  const Tensor s1 = F32({}, {0.004f});
  ws.SetBlob("s", *s1.Clone());
  auto n = Net::Create(net, &ws, testing::CpuRegistry());
  ASSERT_TRUE(n.ok()) << n.status();
  for (int run = 0; run < 2; ++run) {
    ASSERT_TRUE((*n)->Run().ok());
    EXPECT_TRUE(AllClose(*ws.GetBlob("y"), Reference(a, b, s1, Tensor::Zeros(DataType::kFloat32, {0})), 0, 0)) << run;
  }
}

TEST(DynamicQuantizeMatMul, ErrorsNameTheInput) {
  const Tensor a = RandomTensor(DataType::kFloat32, {3, 8}, 1);
  const Tensor s = F32({}, {0.01f});
  const Tensor bias = F32({4}, {0, 0, 0, 0});
  auto run = [&](const Tensor& b, const Tensor& z, const Tensor& bs) {
    auto y = testing::RunSingleOp(testing::ParseOp(kOp), {a, b, s, z, bs});
    return y.ok() ? std::string("OK") : std::string(y.status().ToString());
  };
  const Tensor z0 = Tensor::Zeros(DataType::kInt8, {});
  const Tensor b_u8 = Cast(DataType::kUInt8, RandomTensor(DataType::kFloat32, {8, 4}, 2, 0, 255));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {run(b_u8, Tensor::Zeros(DataType::kUInt8, {}), bias), "UNIMPLEMENTED: op #0 '' (DynamicQuantizeMatMul): B must be int8"},
      {run(RandomInt8({8, 4}, 2), Tensor::FromVector<int8_t>({}, {1}), bias), "b_zero_point must be 0"},
      {run(RandomInt8({6, 4}, 2), z0, bias), "A must be [..., M, K] and B [K, N] with the same K; found A [3, 8], B [6, 4]"},
      {run(RandomInt8({8, 4}, 2), z0, F32({3}, {0, 0, 0})), "input bias must have N = 4 elements; found [3]"},
  };
  for (const auto& [message, expected] : cases) EXPECT_NE(message.find(expected), std::string::npos) << message;
}

}  // namespace
}  // namespace loom
