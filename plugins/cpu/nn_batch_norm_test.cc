// BatchNormalization (oneDNN inference; loops in training mode) against a
// naive reference.
#include <cmath>
#include <string>
#include <vector>

#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

const char kBnInputs[] =
    "input: \"X\" input: \"scale\" input: \"B\" input: \"mean\" input: \"var\" output: \"Y\" ";

OperatorDef BnOp(const std::string& attrs = "") {
  return ParseOp(std::string("type: \"BatchNormalization\" name: \"bn\" ") + kBnInputs + attrs);
}

// Y = (X - mean) / sqrt(var + eps) * scale + B per channel (dim 1).
Tensor BnRef(const Tensor& x, const Tensor& scale, const Tensor& b, const Tensor& mean, const Tensor& var, double eps) {
  Tensor y = Tensor::Zeros(DataType::kFloat32, x.dims());
  const int64_t N = x.dim(0), C = x.dim(1), S = N * C != 0 ? x.num_elements() / (N * C) : 0;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      const double inv = 1.0 / std::sqrt(double(var.data<float>()[c]) + eps);
      for (int64_t s = 0; s < S; ++s) {
        const int64_t i = (n * C + c) * S + s;
        y.data<float>()[i] = static_cast<float>((x.data<float>()[i] - mean.data<float>()[c]) * inv * scale.data<float>()[c] +
                                                b.data<float>()[c]);
      }
    }
  }
  return y;
}

TEST(BatchNormTest, MatchesReference) {
  uint32_t seed = 1;
  for (const Shape& xs : {Shape{2, 3, 4, 5}, Shape{4, 3}, Shape{2, 5, 7}, Shape{1, 2, 3, 2, 4}, Shape{1, 2, 2, 1, 2, 3},
                          Shape{8, 32, 28, 28}, Shape{0, 3, 4}}) {
    for (const auto& [attrs, eps] : std::vector<std::pair<std::string, double>>{
             {"", 1e-5}, {"arg { name: \"epsilon\" f: 0.01 } arg { name: \"momentum\" f: 0.5 }", 0.01f}}) {
      const int64_t C = xs[1];
      Tensor x = RandomTensor(DataType::kFloat32, xs, seed++, -3, 3);
      Tensor scale = RandomTensor(DataType::kFloat32, {C}, seed++, -2, 2), b = RandomTensor(DataType::kFloat32, {C}, seed++);
      Tensor mean = RandomTensor(DataType::kFloat32, {C}, seed++), var = RandomTensor(DataType::kFloat32, {C}, seed++, 0.0, 2);
      auto out = RunSingleOp(BnOp(attrs), {x, scale, b, mean, var});
      ASSERT_TRUE(out.ok()) << ShapeToString(xs) << ": " << out.status();
      EXPECT_TRUE(AllClose((*out)[0], BnRef(x, scale, b, mean, var, eps), 1e-5, 1e-5)) << ShapeToString(xs) << " " << attrs;
    }
  }
}

TEST(BatchNormTest, KnownValues) {
  // Channel 0: (x - 1) / sqrt(3 + 1) * 2 + 0.5; channel 1: (x + 1) / sqrt(0 + 1) * -1 + 0.
  Tensor x = Tensor::FromVector<float>({1, 2, 2}, {1, 5, -1, 3});
  auto out = RunSingleOp(BnOp("arg { name: \"epsilon\" f: 1 }"),
                         {x, Tensor::FromVector<float>({2}, {2, -1}), Tensor::FromVector<float>({2}, {0.5f, 0}),
                          Tensor::FromVector<float>({2}, {1, -1}), Tensor::FromVector<float>({2}, {3, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({1, 2, 2}, {0.5f, 4.5f, 0, -4})));
}

TEST(BatchNormTest, Errors) {
  Tensor x = RandomTensor(DataType::kFloat32, {2, 3, 4}, 1), c3 = RandomTensor(DataType::kFloat32, {3}, 2, 0.1, 1);
  // input_var with 4 channels for C = 3.
  auto out = RunSingleOp(BnOp(), {x, c3, c3, c3, RandomTensor(DataType::kFloat32, {4}, 3)});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(out.status().message()).find("BatchNormalization"), std::string::npos) << out.status();
  EXPECT_NE(std::string(out.status().message()).find("input_var"), std::string::npos) << out.status();
  // scale of shape [3, 1] instead of [3].
  out = RunSingleOp(BnOp(), {x, RandomTensor(DataType::kFloat32, {3, 1}, 4), c3, c3, c3});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string(out.status().message()).find("scale"), std::string::npos) << out.status();
  // X of rank 1.
  out = RunSingleOp(BnOp(), {RandomTensor(DataType::kFloat32, {3}, 5), c3, c3, c3, c3});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string(out.status().message()).find("input X"), std::string::npos) << out.status();
  // running_mean requested outside training mode.
  OperatorDef with_running = BnOp();
  with_running.add_output("running_mean");
  out = RunSingleOp(with_running, {x, c3, c3, c3, c3});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  // saved_var (output 4) requested outside training mode.
  OperatorDef with_saved = BnOp();
  for (const char* o : {"", "", "", "saved_var"}) with_saved.add_output(o);
  out = RunSingleOp(with_saved, {x, c3, c3, c3, c3});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string(out.status().message()).find("saved_var"), std::string::npos) << out.status();
}

// Training mode: batch statistics (population variance over N and the
// spatial dims) normalize X; running averages blend them with the inputs
// (the population variance, ONNX's rule, or with running_var_unbiased the
// unbiased one, m / (m - 1), PyTorch's); saved_mean and saved_var are the
// batch statistics.
TEST(BatchNormTest, TrainingModeUsesBatchStatistics) {
  const Shape xs = {3, 2, 5};
  const int64_t N = 3, C = 2, S = 5;
  Tensor x = RandomTensor(DataType::kFloat32, xs, 21, -2, 2);
  Tensor scale = RandomTensor(DataType::kFloat32, {C}, 22), b = RandomTensor(DataType::kFloat32, {C}, 23);
  Tensor mean = RandomTensor(DataType::kFloat32, {C}, 24), var = RandomTensor(DataType::kFloat32, {C}, 25, 0.1, 1);
  for (const bool unbiased : {false, true}) {
    OperatorDef op = BnOp(std::string("arg { name: \"training_mode\" i: 1 } arg { name: \"momentum\" f: 0.8 }") +
                          (unbiased ? " arg { name: \"running_var_unbiased\" i: 1 }" : ""));
    op.add_output("running_mean");
    op.add_output("running_var");
    op.add_output("saved_mean");
    op.add_output("saved_var");
    auto out = RunSingleOp(op, {x, scale, b, mean, var});
    ASSERT_TRUE(out.ok()) << out.status();
    Tensor bm = Tensor::Zeros(DataType::kFloat32, {C}), bv = Tensor::Zeros(DataType::kFloat32, {C});
    Tensor rm = Tensor::Zeros(DataType::kFloat32, {C}), rv = Tensor::Zeros(DataType::kFloat32, {C});
    for (int64_t c = 0; c < C; ++c) {
      double sum = 0, sq = 0;
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t s = 0; s < S; ++s) sum += x.data<float>()[(n * C + c) * S + s];
      }
      double m = sum / (N * S);
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t s = 0; s < S; ++s) sq += std::pow(x.data<float>()[(n * C + c) * S + s] - m, 2);
      }
      bm.data<float>()[c] = static_cast<float>(m);
      bv.data<float>()[c] = static_cast<float>(sq / (N * S));
      rm.data<float>()[c] = static_cast<float>(mean.data<float>()[c] * 0.8 + m * 0.2);
      rv.data<float>()[c] = static_cast<float>(var.data<float>()[c] * 0.8 + sq / (unbiased ? N * S - 1 : N * S) * 0.2);
    }
    EXPECT_TRUE(AllClose((*out)[0], BnRef(x, scale, b, bm, bv, 1e-5), 1e-5, 1e-5));
    EXPECT_TRUE(AllClose((*out)[1], rm, 1e-5, 1e-6));
    EXPECT_TRUE(AllClose((*out)[2], rv, 1e-5, 1e-6));
    EXPECT_TRUE(AllClose((*out)[3], bm, 1e-5, 1e-6));
    EXPECT_TRUE(AllClose((*out)[4], bv, 1e-5, 1e-6));
  }
}

}  // namespace
}  // namespace loom
