// transforms::Optimize picks its passes by level, training and device, and
// the picked passes rewrite the net (a Conv -> activation pair).
#include "transforms/optimize.h"

#include <string>
#include <utility>
#include <vector>

#include "core/proto_io.h"
#include "gtest/gtest.h"

namespace loom {
namespace transforms {
namespace {

// x -> Conv(W: a float32 initializer [2, 2, 1, 1]) -> `activation` -> y.
NetDef ConvThen(const std::string& activation) {
  NetDef net;
  net.add_external_input("x");
  net.add_external_output("y");
  TensorProto* w = net.add_initializer();
  w->set_name("w");
  w->set_data_type(static_cast<int>(DataType::kFloat32));
  for (int64_t d : {2, 2, 1, 1}) w->add_dims(d);
  for (float v : {1.f, 2.f, 3.f, 4.f}) w->add_float_data(v);
  OperatorDef* conv = net.add_op();
  conv->set_type("Conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_output("c");
  OperatorDef* act = net.add_op();
  act->set_type(activation);
  act->add_input("c");
  act->add_output("y");
  return net;
}

std::vector<std::string> Names(const std::vector<std::pair<std::string, int>>& ran) {
  std::vector<std::string> names;
  for (const auto& [name, count] : ran) names.push_back(name);
  return names;
}

TEST(OptimizeTest, InferenceOnCpuRunsEveryOptimizationAndFuses) {
  NetDef net = ConvThen("HardSwish");
  OptimizeOptions options;
  options.nchwc_block = 0;  // the same graph on AVX2 and AVX-512 machines
  const auto ran = Optimize(&net, options);
  EXPECT_EQ(Names(ran), (std::vector<std::string>{"fuse_qdq", "int8_channels_last", "fuse_dynamic_quant",
                                                  "fold_into_conv", "fuse_hard_swish", "fuse_conv_activation",
                                                  "nchwc_layout"}));
  ASSERT_EQ(net.op_size(), 1);
  EXPECT_EQ(net.op(0).type(), "FusedConv");
  EXPECT_EQ(net.op(0).domain(), "loom");
  EXPECT_EQ(net.op(0).output(0), "y");
}

TEST(OptimizeTest, LevelZeroLeavesTheGraphAsImported) {
  NetDef net = ConvThen("Relu");
  OptimizeOptions options;
  options.level = 0;
  EXPECT_TRUE(Optimize(&net, options).empty());
  EXPECT_EQ(net.op_size(), 2);
  options.training = true;  // what training needs still runs
  EXPECT_EQ(Names(Optimize(&net, options)), (std::vector<std::string>{"name_running_statistics"}));
  EXPECT_EQ(net.op_size(), 2);
}

// Training runs only gradient-safe passes: a Relu fuses (FusedConv's
// gradient reads its derivative off the output), a HardSwish does not.
TEST(OptimizeTest, TrainingRunsOnlyGradientSafePasses) {
  OptimizeOptions options;
  options.training = true;
  NetDef relu = ConvThen("Relu");
  EXPECT_EQ(Names(Optimize(&relu, options)),
            (std::vector<std::string>{"name_running_statistics", "fuse_conv_activation"}));
  ASSERT_EQ(relu.op_size(), 1);
  EXPECT_EQ(relu.op(0).type(), "FusedConv");
  NetDef hard_swish = ConvThen("HardSwish");
  Optimize(&hard_swish, options);
  EXPECT_EQ(hard_swish.op_size(), 2);
}

TEST(OptimizeTest, CpuOnlyPassesSkipOtherDevices) {
  OptimizeOptions options;
  options.device = "CUDA:0";
  NetDef net = ConvThen("Relu");
  EXPECT_EQ(Names(Optimize(&net, options)),
            (std::vector<std::string>{"fold_into_conv", "fuse_hard_swish", "fuse_conv_activation"}));
  options.device = "CPU:0";
  EXPECT_EQ(Names(Optimize(&net, options)).back(), "nchwc_layout");
  options.device = "";  // the host
  EXPECT_EQ(Names(Optimize(&net, options)).back(), "nchwc_layout");
}

}  // namespace
}  // namespace transforms
}  // namespace loom
