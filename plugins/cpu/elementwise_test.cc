// Elementwise kernels against naive references on random inputs.
#include <cmath>
#include <functional>
#include <limits>

#include "core/testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using testing::AllClose;
using testing::ParseOp;
using testing::RandomTensor;
using testing::RunSingleOp;

Tensor Map(const Tensor& x, const std::function<double(double)>& f) {
  Tensor y = Tensor::Zeros(x.dtype(), x.dims());
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    double v = f(x.ElementAsDouble(i));
    if (x.dtype() == DataType::kFloat32) y.data<float>()[i] = static_cast<float>(v);
    else if (x.dtype() == DataType::kFloat64) y.data<double>()[i] = v;
    else if (x.dtype() == DataType::kInt32) y.data<int32_t>()[i] = static_cast<int32_t>(v);
    else if (x.dtype() == DataType::kInt64) y.data<int64_t>()[i] = static_cast<int64_t>(v);
  }
  return y;
}

struct UnaryCase {
  std::string op;
  std::string attrs;
  std::function<double(double)> ref;
  double lo, hi;
};

class UnaryTest : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryTest, MatchesReference) {
  const UnaryCase& c = GetParam();
  OperatorDef op = ParseOp("type: \"" + c.op + "\" input: \"x\" output: \"y\" " + c.attrs);
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64}) {
    for (Shape shape : {Shape{2, 3, 5}, Shape{}, Shape{0, 4}, Shape{100000}}) {
      Tensor x = RandomTensor(dt, shape, 3, c.lo, c.hi);
      auto out = RunSingleOp(op, {x});
      ASSERT_TRUE(out.ok()) << c.op << ": " << out.status();
      EXPECT_TRUE(AllClose((*out)[0], Map(x, c.ref), 1e-5, 1e-6)) << c.op << " " << DataTypeName(dt) << ShapeToString(shape);
    }
  }
}

double Sig(double x) { return 1 / (1 + std::exp(-x)); }

INSTANTIATE_TEST_SUITE_P(
    Ops, UnaryTest,
    ::testing::Values(
        UnaryCase{"Relu", "", [](double x) { return x > 0 ? x : 0; }, -2, 2},
        UnaryCase{"LeakyRelu", "arg { name: \"alpha\" f: 0.1 }", [](double x) { return x < 0 ? 0.1f * x : x; }, -2, 2},
        UnaryCase{"LeakyRelu", "", [](double x) { return x < 0 ? 0.01f * x : x; }, -2, 2},
        UnaryCase{"Sigmoid", "", Sig, -8, 8},
        UnaryCase{"HardSigmoid", "", [](double x) { return std::max(0.0, std::min(1.0, 0.2f * x + 0.5f)); }, -4, 4},
        UnaryCase{"Tanh", "", [](double x) { return std::tanh(x); }, -3, 3},
        UnaryCase{"Elu", "arg { name: \"alpha\" f: 2 }", [](double x) { return x < 0 ? 2 * (std::exp(x) - 1) : x; }, -3, 3},
        UnaryCase{"Selu", "", [](double x) { return 1.05070102214813232421875 * (x <= 0 ? 1.67326319217681884765625 * (std::exp(x) - 1) : x); }, -3, 3},
        UnaryCase{"Softplus", "", [](double x) { return std::log(std::exp(x) + 1); }, -5, 5},
        UnaryCase{"Softsign", "", [](double x) { return x / (1 + std::fabs(x)); }, -5, 5},
        UnaryCase{"Exp", "", [](double x) { return std::exp(x); }, -5, 5},
        UnaryCase{"Log", "", [](double x) { return std::log(x); }, 0.01, 5},
        UnaryCase{"Sqrt", "", [](double x) { return std::sqrt(x); }, 0, 5},
        UnaryCase{"Reciprocal", "", [](double x) { return 1 / x; }, 0.5, 5},
        UnaryCase{"Neg", "", [](double x) { return -x; }, -5, 5},
        UnaryCase{"Abs", "", [](double x) { return std::fabs(x); }, -5, 5},
        UnaryCase{"Floor", "", [](double x) { return std::floor(x); }, -5, 5},
        UnaryCase{"Ceil", "", [](double x) { return std::ceil(x); }, -5, 5},
        UnaryCase{"Erf", "", [](double x) { return std::erf(x); }, -3, 3}),
    [](const ::testing::TestParamInfo<UnaryCase>& info) { return info.param.op + std::to_string(info.index); });

// Naive broadcasting reference for binary ops.
Tensor BroadcastRef(const Tensor& a, const Tensor& b, const Shape& out, const std::function<double(double, double)>& f) {
  Tensor y = Tensor::Zeros(a.dtype(), out);
  auto index = [&](const Tensor& t, int64_t flat) {
    int64_t off = 0, stride = 1;
    int64_t rem = flat;
    std::vector<int64_t> idx(out.size());
    for (int64_t d = static_cast<int64_t>(out.size()) - 1; d >= 0; --d) {
      idx[d] = rem % out[d];
      rem /= out[d];
    }
    for (int64_t k = 0; k < static_cast<int64_t>(t.rank()); ++k) {
      int64_t d = static_cast<int64_t>(t.rank()) - 1 - k;
      int64_t o = static_cast<int64_t>(out.size()) - 1 - k;
      off += (t.dim(d) == 1 ? 0 : idx[o]) * stride;
      stride *= t.dim(d);
    }
    return off;
  };
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    double v = f(a.ElementAsDouble(index(a, i)), b.ElementAsDouble(index(b, i)));
    if (y.dtype() == DataType::kFloat32) y.data<float>()[i] = static_cast<float>(v);
    else if (y.dtype() == DataType::kFloat64) y.data<double>()[i] = v;
    else if (y.dtype() == DataType::kInt32) y.data<int32_t>()[i] = static_cast<int32_t>(v);
    else y.data<int64_t>()[i] = static_cast<int64_t>(v);
  }
  return y;
}

TEST(BinaryTest, BroadcastingMatchesReference) {
  const std::vector<std::pair<std::string, std::function<double(double, double)>>> ops = {
      {"Add", [](double a, double b) { return a + b; }},
      {"Sub", [](double a, double b) { return a - b; }},
      {"Mul", [](double a, double b) { return a * b; }},
      {"Div", [](double a, double b) { return a / b; }}};
  const std::vector<std::tuple<Shape, Shape, Shape>> shapes = {
      {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {3, 1}, {2, 3, 4}}, {{1}, {2, 3}, {2, 3}},
      {{}, {5}, {5}},                     {{4, 1, 5}, {1, 3, 1}, {4, 3, 5}}, {{0, 3}, {3}, {0, 3}},
      {{300, 400}, {400}, {300, 400}}};
  for (const auto& [name, f] : ops) {
    for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kInt32, DataType::kInt64}) {
      for (const auto& [sa, sb, so] : shapes) {
        bool integer = dt == DataType::kInt32 || dt == DataType::kInt64;
        Tensor a = RandomTensor(dt, sa, 1, -20, 20);
        Tensor b = RandomTensor(dt, sb, 2, 1, 9);  // positive: no division by zero
        auto out = RunSingleOp(ParseOp("type: \"" + name + "\" input: \"a\" input: \"b\" output: \"c\""), {a, b});
        ASSERT_TRUE(out.ok()) << name << ": " << out.status();
        auto ref = f;
        if (integer && name == "Div") ref = [](double x, double y) { return std::trunc(x / y); };
        EXPECT_TRUE(AllClose((*out)[0], BroadcastRef(a, b, so, ref), 1e-6, 1e-6))
            << name << " " << DataTypeName(dt) << ShapeToString(sa) << ShapeToString(sb);
      }
    }
  }
}

TEST(BinaryTest, IncompatibleShapesAreAnError) {
  auto out = RunSingleOp(ParseOp(R"(type: "Add" name: "bad" input: "a" input: "b" output: "c")"),
                         {RandomTensor(DataType::kFloat32, {2, 3}, 1), RandomTensor(DataType::kFloat32, {4}, 2)});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("'bad'"), std::string::npos) << out.status();
  EXPECT_NE(out.status().message().find("[2, 3]"), std::string::npos) << out.status();
}

TEST(BinaryTest, PReluPowAndIntegerDivByZero) {
  Tensor x = RandomTensor(DataType::kFloat32, {2, 3, 4}, 5, -2, 2);
  Tensor slope = RandomTensor(DataType::kFloat32, {3, 1}, 6, 0, 1);
  auto out = RunSingleOp(ParseOp(R"(type: "PRelu" input: "x" input: "s" output: "y")"), {x, slope});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], BroadcastRef(x, slope, {2, 3, 4}, [](double a, double s) { return a < 0 ? a * s : a; })));
  Tensor base = RandomTensor(DataType::kFloat32, {3, 4}, 7, 0.5, 3);
  Tensor e = Tensor::FromVector<int64_t>({4}, {0, 1, 2, 3});
  out = RunSingleOp(ParseOp(R"(type: "Pow" input: "x" input: "e" output: "z")"), {base, e});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], BroadcastRef(base, e, {3, 4}, [](double a, double b) { return std::pow(a, b); }), 1e-5));
  out = RunSingleOp(ParseOp(R"(type: "Div" input: "a" input: "b" output: "c")"),
                    {Tensor::FromVector<int32_t>({2}, {7, -7}), Tensor::FromVector<int32_t>({2}, {2, 0})});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 3);  // truncation, and no crash on / 0
}

TEST(VariadicTest, MaxMinSumMeanBroadcast) {
  Tensor a = RandomTensor(DataType::kFloat32, {2, 3}, 1), b = RandomTensor(DataType::kFloat32, {3}, 2),
         c = RandomTensor(DataType::kFloat32, {2, 1}, 3);
  auto max2 = [](double x, double y) { return std::max(x, y); };
  auto min2 = [](double x, double y) { return std::min(x, y); };
  auto add2 = [](double x, double y) { return x + y; };
  struct Case { std::string op; std::function<double(double, double)> f; bool mean; };
  for (const Case& k : {Case{"Max", max2, false}, Case{"Min", min2, false}, Case{"Sum", add2, false}, Case{"Mean", add2, true}}) {
    auto out = RunSingleOp(ParseOp("type: \"" + k.op + "\" input: \"a\" input: \"b\" input: \"c\" output: \"y\""), {a, b, c});
    ASSERT_TRUE(out.ok()) << k.op << out.status();
    Tensor ref = BroadcastRef(BroadcastRef(a, b, {2, 3}, k.f), c, {2, 3}, k.f);
    if (k.mean) ref = Map(ref, [](double v) { return v / 3; });
    EXPECT_TRUE(AllClose((*out)[0], ref)) << k.op;
  }
  auto one = RunSingleOp(ParseOp(R"(type: "Max" input: "a" output: "y")"), {a});
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(AllClose((*one)[0], a));
}

TEST(ClipTest, InputsAttributesAndDefaults) {
  Tensor x = Tensor::FromVector<float>({5}, {-3, -1, 0, 1, 3});
  auto out = RunSingleOp(ParseOp(R"(type: "Clip" input: "x" input: "lo" input: "hi" output: "y")"),
                         {x, Tensor::FromVector<float>({}, {-1.5f}), Tensor::FromVector<float>({}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({5}, {-1.5f, -1, 0, 1, 2})));
  out = RunSingleOp(ParseOp(R"(type: "Clip" input: "x" input: "" input: "hi" output: "y")"), {x, Tensor(), Tensor::FromVector<float>({}, {0.5f})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({5}, {-3, -1, 0, 0.5f, 0.5f})));
  out = RunSingleOp(ParseOp(R"(type: "Clip" input: "x" output: "y" arg { name: "min" f: -2 } arg { name: "max" f: 0 })"), {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({5}, {-2, -1, 0, 0, 0})));
  out = RunSingleOp(ParseOp(R"(type: "Clip" input: "x" input: "lo" output: "y")"),
                    {Tensor::FromVector<int64_t>({3}, {-5, 0, 5}), Tensor::FromVector<int64_t>({}, {-1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<int64_t>()[0], -1);
}

TEST(SoftmaxTest, KnownValuesAxesAndReference) {
  auto out = RunSingleOp(ParseOp(R"(type: "Softmax" input: "x" output: "y")"), {Tensor::FromVector<float>({3}, {1, 2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({3}, {0.09003057f, 0.24472847f, 0.66524096f}), 1e-6));
  Tensor x = RandomTensor(DataType::kFloat64, {2, 3, 4}, 9, -5, 5);
  for (int axis : {0, 1, 2, -1, -2}) {
    for (bool log : {false, true}) {
      auto r = RunSingleOp(ParseOp(std::string("type: \"") + (log ? "LogSoftmax" : "Softmax") +
                                   "\" input: \"x\" output: \"y\" arg { name: \"axis\" i: " + std::to_string(axis) + " }"),
                           {x});
      ASSERT_TRUE(r.ok()) << r.status();
      int a = axis < 0 ? axis + 3 : axis;
      Tensor ref = Tensor::Zeros(DataType::kFloat64, {2, 3, 4});
      for (int64_t i = 0; i < 24; ++i) {
        int64_t idx[3] = {i / 12, (i / 4) % 3, i % 4};
        double sum = 0;
        for (int64_t k = 0; k < x.dim(a); ++k) {
          int64_t j[3] = {idx[0], idx[1], idx[2]};
          j[a] = k;
          sum += std::exp(x.data<double>()[j[0] * 12 + j[1] * 4 + j[2]]);
        }
        double v = x.data<double>()[i];
        ref.data<double>()[i] = log ? v - std::log(sum) : std::exp(v) / sum;
      }
      EXPECT_TRUE(AllClose((*r)[0], ref, 1e-9, 1e-12)) << "axis " << axis << " log " << log;
    }
  }
  auto bad = RunSingleOp(ParseOp(R"(type: "Softmax" input: "x" output: "y" arg { name: "axis" i: 3 })"), {x});
  EXPECT_FALSE(bad.ok());
}

TEST(ElementwiseTest, Float16ComputesThroughFloat) {
  Tensor x = RandomTensor(DataType::kFloat16, {7}, 4, -3, 3);
  auto out = RunSingleOp(ParseOp(R"(type: "Relu" input: "x" output: "y")"), {x});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 7; ++i) EXPECT_EQ((*out)[0].ElementAsDouble(i), std::max(0.0, x.ElementAsDouble(i)));
}

}  // namespace
}  // namespace loom
