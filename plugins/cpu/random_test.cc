// Random generators (random.cc): a seed fixes the values (the same on 1 and
// 2 threads, again when the op is made again), runs continue the stream,
// the draws have the distributions' moments and bounds, Bernoulli follows
// its probabilities exactly at 0 and 1; *Like ops take the input's shape.
#include <cmath>
#include <string>
#include <vector>

#include "core/net.h"
#include "core/workspace.h"
#include "plugins/cpu/kernel_test_util.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

std::vector<double> Draw(const std::string& op, const std::vector<Tensor>& inputs = {}) {
  auto y = testing::RunSingleOp(testing::ParseOp(op), inputs);
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() ? Values((*y)[0]) : std::vector<double>();
}

// `runs` runs of a net holding `op` (output "y", no inputs) on `threads`
// threads: the values of each run.
std::vector<std::vector<double>> DrawInNet(const std::string& op, int threads, int runs) {
  Workspace ws;
  NetDef def;
  def.set_name("n");
  *def.add_op() = testing::ParseOp(op);
  def.add_external_output("y");
  NetOptions options;
  options.num_threads = threads;
  auto net = Net::Create(def, &ws, testing::CpuRegistry(), options);
  EXPECT_TRUE(net.ok()) << net.status();
  std::vector<std::vector<double>> out;
  for (int r = 0; net.ok() && r < runs; ++r) {
    EXPECT_TRUE((*net)->Run().ok());
    out.push_back(Values(*ws.GetBlob("y")));
  }
  return out;
}

void Moments(const std::vector<double>& v, double* mean, double* sd) {
  double s = 0, s2 = 0;
  for (double x : v) s += x;
  *mean = s / v.size();
  for (double x : v) s2 += (x - *mean) * (x - *mean);
  *sd = std::sqrt(s2 / v.size());
}

TEST(Random, SeedFixesTheValuesOnAnyThreadCount) {
  const std::string op = R"(type: "RandomUniform" output: "y" arg { name: "shape" ints: 1000 }
                            arg { name: "seed" f: 7 })";
  const std::vector<std::vector<double>> a = DrawInNet(op, 1, 2), b = DrawInNet(op, 2, 2);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(a[0].size(), 1000u);
  EXPECT_EQ(a, b);              // the same seed: the same values on 1 and 2 threads, run after run
  EXPECT_NE(a[0], a[1]);        // a second run continues the stream
  EXPECT_EQ(a[0], Draw(op));    // the op made again starts over
  EXPECT_NE(a[0], Draw(R"(type: "RandomUniform" output: "y" arg { name: "shape" ints: 1000 } arg { name: "seed" f: 8 })"));
}

TEST(Random, UniformAndNormalMoments) {
  // U(2, 4): mean 3, sd 2 / sqrt(12) = 0.577; every value in [2, 4).
  std::vector<double> u = Draw(R"(type: "RandomUniform" output: "y" arg { name: "shape" ints: 100 ints: 1000 }
                                   arg { name: "low" f: 2 } arg { name: "high" f: 4 } arg { name: "seed" f: 1 })");
  double mean = 0, sd = 0;
  Moments(u, &mean, &sd);
  EXPECT_NEAR(mean, 3.0, 0.01);
  EXPECT_NEAR(sd, 2.0 / std::sqrt(12.0), 0.01);
  for (double x : u) ASSERT_TRUE(x >= 2 && x < 4) << x;
  // N(-1, 0.5^2) as float64, shaped like the input.
  std::vector<double> n = Draw(R"(type: "RandomNormalLike" input: "x" output: "y" arg { name: "mean" f: -1 }
                                   arg { name: "scale" f: 0.5 } arg { name: "dtype" i: 11 } arg { name: "seed" f: 2 })",
                               {Tensor::Zeros(DataType::kInt32, {50000, 2})});
  ASSERT_EQ(n.size(), 100000u);
  Moments(n, &mean, &sd);
  EXPECT_NEAR(mean, -1.0, 0.01);
  EXPECT_NEAR(sd, 0.5, 0.01);
}

TEST(Random, BernoulliFollowsItsProbabilities) {
  // p = 0 and p = 1 are exact; p = 0.3 over 100000 draws within 0.01.
  std::vector<float> p(100002, 0.3f);
  p[0] = 0;
  p[1] = 1;
  std::vector<double> b = Draw(R"(type: "Bernoulli" input: "p" output: "y" arg { name: "seed" f: 3 })",
                               {F32({100002}, p)});
  ASSERT_EQ(b.size(), p.size());
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[1], 1);
  double ones = 0;
  for (size_t i = 2; i < b.size(); ++i) ones += b[i];
  EXPECT_NEAR(ones / 100000, 0.3, 0.01);
  // An int32 output by `dtype`.
  auto y = testing::RunSingleOp(
      testing::ParseOp(R"(type: "Bernoulli" input: "p" output: "y" arg { name: "dtype" i: 6 } arg { name: "seed" f: 3 })"),
      {F32({2}, {1, 0})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].dtype(), DataType::kInt32);
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{1, 0}));
}

TEST(Random, BadAttributesAreErrors) {
  auto y = testing::RunSingleOp(
      testing::ParseOp(R"(type: "RandomUniform" output: "y" arg { name: "shape" ints: 2 } arg { name: "dtype" i: 7 })"), {});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("output dtype int64"), std::string::npos) << y.status();
  y = testing::RunSingleOp(testing::ParseOp(R"(type: "RandomNormal" output: "y" arg { name: "shape" ints: -1 })"), {});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("negative dim"), std::string::npos) << y.status();
}

}  // namespace
}  // namespace loom
