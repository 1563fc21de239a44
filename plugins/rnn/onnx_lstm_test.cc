// The two ONNX LSTM kernels agree: the step-net expansion (engine STEPNET,
// rnn plugin) against the default kernel (the CPU plugin's DNNL engine), on
// random inputs, every direction, layouts, sequence_lens below T.
#include <string>

#include "core/plugin_loader.h"
#include "core/testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

Registry* RnnRegistry() {
  static Registry* r = [] {
    Registry* reg = testing::CpuRegistry();
    absl::Status s = LoadPlugin(reg, "plugins/rnn/libloom_rnn.so");
    EXPECT_TRUE(s.ok()) << s;
    return reg;
  }();
  return r;
}

struct Case {
  std::string direction;
  int layout;
  bool bias, initial, lens;
};

class OnnxLstmAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(OnnxLstmAgreement, StepNetMatchesDefaultKernel) {
  const Case c = GetParam();
  const int64_t T = 7, N = 3, I = 4, H = 5, D = c.direction == "bidirectional" ? 2 : 1;
  std::vector<Tensor> in = {
      testing::RandomTensor(DataType::kFloat32, c.layout ? Shape{N, T, I} : Shape{T, N, I}, 1),
      testing::RandomTensor(DataType::kFloat32, {D, 4 * H, I}, 2, -0.5, 0.5),
      testing::RandomTensor(DataType::kFloat32, {D, 4 * H, H}, 3, -0.5, 0.5),
      c.bias ? testing::RandomTensor(DataType::kFloat32, {D, 8 * H}, 4, -0.2, 0.2) : Tensor(),
      c.lens ? Tensor::FromVector<int32_t>({N}, {5, 7, 2}) : Tensor(),
      c.initial ? testing::RandomTensor(DataType::kFloat32, c.layout ? Shape{N, D, H} : Shape{D, N, H}, 5) : Tensor(),
      c.initial ? testing::RandomTensor(DataType::kFloat32, c.layout ? Shape{N, D, H} : Shape{D, N, H}, 6) : Tensor(),
  };
  std::string op = "type: \"LSTM\" name: \"lstm\" input: \"X\" input: \"W\" input: \"R\" input: \"" +
                   std::string(c.bias ? "B" : "") + "\" input: \"" + (c.lens ? "L" : "") + "\" input: \"" +
                   (c.initial ? "H0" : "") + "\" input: \"" + (c.initial ? "C0" : "") +
                   "\" output: \"Y\" output: \"Yh\" output: \"Yc\" arg { name: \"hidden_size\" i: 5 } "
                   "arg { name: \"direction\" s: \"" + c.direction + "\" } arg { name: \"layout\" i: " +
                   std::to_string(c.layout) + " }";
  auto dflt = testing::RunSingleOp(testing::ParseOp(op), in, RnnRegistry());
  ASSERT_TRUE(dflt.ok()) << dflt.status();
  auto stepnet = testing::RunSingleOp(testing::ParseOp(op + " engine: \"STEPNET\""), in, RnnRegistry());
  ASSERT_TRUE(stepnet.ok()) << stepnet.status();
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(testing::AllClose((*stepnet)[k], (*dflt)[k], 1e-4, 1e-5)) << "output " << k;
}

INSTANTIATE_TEST_SUITE_P(Variants, OnnxLstmAgreement,
                         ::testing::Values(Case{"forward", 0, true, true, false}, Case{"reverse", 0, true, true, false},
                                           Case{"bidirectional", 0, true, true, false}, Case{"forward", 0, false, false, false},
                                           Case{"forward", 0, true, true, true}, Case{"reverse", 0, true, false, true},
                                           Case{"bidirectional", 1, true, true, true}));

TEST(OnnxLstmStepNet, SequenceLengthOutOfRangeNamesTheEntry) {
  std::vector<Tensor> in = {testing::RandomTensor(DataType::kFloat32, {4, 2, 3}, 1),
                            testing::RandomTensor(DataType::kFloat32, {1, 8, 3}, 2),
                            testing::RandomTensor(DataType::kFloat32, {1, 8, 2}, 3), Tensor(),
                            Tensor::FromVector<int32_t>({2}, {4, 0})};
  auto out = testing::RunSingleOp(
      testing::ParseOp(R"(type: "LSTM" input: "X" input: "W" input: "R" input: "" input: "L" output: "Y" engine: "STEPNET")"),
      in, RnnRegistry());
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("sequence_lens[1]"), std::string::npos) << out.status();
}

}  // namespace
}  // namespace loom
