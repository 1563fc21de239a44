// The two kernels of ONNX LSTM, GRU and RNN agree: the step-net expansion
// (engine STEPNET, rnn plugin) against the default kernel (the CPU plugin's
// DNNL engine), on random inputs, every direction, layouts, sequence_lens
// below T.
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
  std::string op = "LSTM";
  std::string extra;  // more attributes
};

class OnnxLstmAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(OnnxLstmAgreement, StepNetMatchesDefaultKernel) {
  const Case c = GetParam();
  const int64_t T = 7, N = 3, I = 4, H = 5, D = c.direction == "bidirectional" ? 2 : 1;
  const int64_t G = c.op == "LSTM" ? 4 : (c.op == "GRU" ? 3 : 1);
  std::vector<Tensor> in = {
      testing::RandomTensor(DataType::kFloat32, c.layout ? Shape{N, T, I} : Shape{T, N, I}, 1),
      testing::RandomTensor(DataType::kFloat32, {D, G * H, I}, 2, -0.5, 0.5),
      testing::RandomTensor(DataType::kFloat32, {D, G * H, H}, 3, -0.5, 0.5),
      c.bias ? testing::RandomTensor(DataType::kFloat32, {D, 2 * G * H}, 4, -0.2, 0.2) : Tensor(),
      c.lens ? Tensor::FromVector<int32_t>({N}, {5, 7, 2}) : Tensor(),
      c.initial ? testing::RandomTensor(DataType::kFloat32, c.layout ? Shape{N, D, H} : Shape{D, N, H}, 5) : Tensor(),
      c.initial ? testing::RandomTensor(DataType::kFloat32, c.layout ? Shape{N, D, H} : Shape{D, N, H}, 6) : Tensor(),
  };
  std::string op = "type: \"" + c.op + "\" name: \"rnn\" input: \"X\" input: \"W\" input: \"R\" input: \"" +
                   std::string(c.bias ? "B" : "") + "\" input: \"" + (c.lens ? "L" : "") + "\" input: \"" +
                   (c.initial ? "H0" : "") + "\"" + (c.op == "LSTM" ? std::string(" input: \"") + (c.initial ? "C0" : "") + "\"" : "") +
                   " output: \"Y\" output: \"Yh\"" + (c.op == "LSTM" ? " output: \"Yc\"" : "") +
                   " arg { name: \"hidden_size\" i: 5 } " + c.extra + " "
                   "arg { name: \"direction\" s: \"" + c.direction + "\" } arg { name: \"layout\" i: " +
                   std::to_string(c.layout) + " }";
  auto dflt = testing::RunSingleOp(testing::ParseOp(op), in, RnnRegistry());
  ASSERT_TRUE(dflt.ok()) << dflt.status();
  auto stepnet = testing::RunSingleOp(testing::ParseOp(op + " engine: \"STEPNET\""), in, RnnRegistry());
  ASSERT_TRUE(stepnet.ok()) << stepnet.status();
  for (size_t k = 0; k < dflt->size(); ++k) EXPECT_TRUE(testing::AllClose((*stepnet)[k], (*dflt)[k], 1e-4, 1e-5)) << "output " << k;
}

INSTANTIATE_TEST_SUITE_P(Variants, OnnxLstmAgreement,
                         ::testing::Values(Case{"forward", 0, true, true, false}, Case{"reverse", 0, true, true, false},
                                           Case{"bidirectional", 0, true, true, false}, Case{"forward", 0, false, false, false},
                                           Case{"forward", 0, true, true, true}, Case{"reverse", 0, true, false, true},
                                           Case{"bidirectional", 1, true, true, true},
                                           Case{"forward", 0, true, true, false, "GRU"},
                                           Case{"reverse", 0, true, true, true, "GRU"},
                                           Case{"bidirectional", 1, true, true, true, "GRU"},
                                           Case{"forward", 0, true, true, true, "GRU", "arg { name: \"linear_before_reset\" i: 1 }"},
                                           Case{"bidirectional", 0, false, false, false, "GRU", "arg { name: \"linear_before_reset\" i: 1 }"},
                                           Case{"forward", 0, true, true, true, "RNN"},
                                           Case{"bidirectional", 1, true, true, false, "RNN"},
                                           Case{"reverse", 0, true, false, false, "RNN",
                                                "arg { name: \"activations\" strings: \"Relu\" }"}));

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
