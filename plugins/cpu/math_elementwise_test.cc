// Elementwise kernels against naive references on random inputs.
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "core/api/loom_sdk.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

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
    SetElement(y, i, f(a.ElementAsDouble(index(a, i)), b.ElementAsDouble(index(b, i))));
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
      {{300, 400}, {400}, {300, 400}},    {{}, {}, {}},                      {{5}, {}, {5}},
      {{2, 3, 4, 5}, {1, 3, 1, 1}, {2, 3, 4, 5}},  {{3, 1, 1}, {1, 4, 5}, {3, 4, 5}},
      {{1, 1}, {2, 3}, {2, 3}},           {{2, 1, 3}, {0, 1}, {2, 0, 3}},    {{100000}, {1}, {100000}},
      {{}, {70000}, {70000}},             {{2, 70000}, {2, 1}, {2, 70000}}, {{64, 1, 600}, {1, 7, 600}, {64, 7, 600}}};
  for (const auto& [name, f] : ops) {
    for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kInt32, DataType::kInt64, DataType::kInt8,
                        DataType::kUInt8}) {
      for (const auto& [sa, sb, so] : shapes) {
        bool integer = dt != DataType::kFloat32 && dt != DataType::kFloat64;
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

// Integer overflow wraps around (two's complement, as numpy and ONNX
// Runtime), without undefined behaviour (UBSan checks it under
// scripts/sanitize.sh asan).
TEST(BinaryTest, IntegerOverflowWrapsAround) {
  const int32_t kMax = std::numeric_limits<int32_t>::max(), kMin = std::numeric_limits<int32_t>::min();
  Tensor a = Tensor::FromVector<int32_t>({3}, {kMax, kMin, 65536});
  Tensor b = Tensor::FromVector<int32_t>({3}, {1, -1, 65536});
  auto add = testing::RunSingleOp(testing::ParseOp(R"(type: "Add" input: "a" input: "b" output: "c")"), {a, b});
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_TRUE(testing::AllClose((*add)[0], Tensor::FromVector<int32_t>({3}, {kMin, kMax, 131072}), 0, 0));
  auto mul = testing::RunSingleOp(testing::ParseOp(R"(type: "Mul" input: "a" input: "b" output: "c")"), {a, b});
  ASSERT_TRUE(mul.ok()) << mul.status();
  EXPECT_TRUE(testing::AllClose((*mul)[0], Tensor::FromVector<int32_t>({3}, {kMax, kMin, 0}), 0, 0));
  auto neg = testing::RunSingleOp(testing::ParseOp(R"(type: "Neg" input: "a" output: "c")"), {a});
  ASSERT_TRUE(neg.ok()) << neg.status();
  EXPECT_TRUE(testing::AllClose((*neg)[0], Tensor::FromVector<int32_t>({3}, {-kMax, kMin, -65536}), 0, 0));
  Tensor i16 = Tensor::FromVector<int16_t>({1}, {-32768});
  auto mul16 = testing::RunSingleOp(testing::ParseOp(R"(type: "Mul" input: "a" input: "b" output: "c")"), {i16, i16});
  ASSERT_TRUE(mul16.ok()) << mul16.status();
  EXPECT_TRUE(testing::AllClose((*mul16)[0], Tensor::FromVector<int16_t>({1}, {0}), 0, 0));
}

TEST(BinaryTest, IncompatibleShapesAreAnError) {
  for (std::string op : {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean"}) {
    auto out = RunSingleOp(ParseOp("type: \"" + op + "\" name: \"bad\" input: \"a\" input: \"b\" output: \"c\""),
                           {RandomTensor(DataType::kFloat32, {2, 3}, 1), RandomTensor(DataType::kFloat32, {4}, 2)});
    ASSERT_FALSE(out.ok()) << op;
    EXPECT_NE(out.status().message().find(op), std::string::npos) << out.status();
    EXPECT_NE(out.status().message().find("'bad'"), std::string::npos) << out.status();
    EXPECT_NE(out.status().message().find("[2, 3]"), std::string::npos) << out.status();
  }
  // PRelu: the slope must broadcast to X itself, not to a larger shape.
  auto prelu = RunSingleOp(ParseOp(R"(type: "PRelu" input: "x" input: "s" output: "y")"),
                           {RandomTensor(DataType::kFloat32, {2, 1}, 1), RandomTensor(DataType::kFloat32, {2, 3}, 2)});
  ASSERT_FALSE(prelu.ok());
  EXPECT_NE(prelu.status().message().find("PRelu"), std::string::npos) << prelu.status();
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

TEST(UnaryTest, IntegerAndHalfDtypes) {
  const std::vector<std::pair<std::string, std::function<double(double)>>> int_ops = {
      {"Relu", [](double x) { return x > 0 ? x : 0; }},
      {"Neg", [](double x) { return -x; }},
      {"Abs", [](double x) { return std::fabs(x); }}};
  for (const auto& [op, f] : int_ops) {
    for (DataType dt : {DataType::kInt8, DataType::kInt32, DataType::kInt64}) {
      for (Shape shape : {Shape{3, 7}, Shape{}, Shape{0}, Shape{50000}}) {
        Tensor x = RandomTensor(dt, shape, 4, -100, 100);
        auto out = RunSingleOp(ParseOp("type: \"" + op + "\" input: \"x\" output: \"y\""), {x});
        ASSERT_TRUE(out.ok()) << op << ": " << out.status();
        EXPECT_TRUE(AllClose((*out)[0], Map(x, f), 0, 0)) << op << " " << DataTypeName(dt) << ShapeToString(shape);
      }
    }
  }
  Tensor h = RandomTensor(DataType::kFloat16, {40}, 4, -3, 3);
  for (const auto& [op, f] : std::vector<std::pair<std::string, std::function<double(double)>>>{
           {"Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }}, {"Tanh", [](double x) { return std::tanh(x); }},
           {"Exp", [](double x) { return std::exp(x); }}, {"Abs", [](double x) { return std::fabs(x); }}}) {
    auto out = RunSingleOp(ParseOp("type: \"" + op + "\" input: \"x\" output: \"y\""), {h});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_TRUE(AllClose((*out)[0], Map(h, f), 2e-3, 1e-3)) << op;
  }
}

TEST(UnaryTest, ExtremeInputsStayFinite) {
  Tensor x = Tensor::FromVector<float>({4}, {-100, -30, 30, 100});
  auto sig = RunSingleOp(ParseOp(R"(type: "Sigmoid" input: "x" output: "y")"), {x});
  ASSERT_TRUE(sig.ok()) << sig.status();
  EXPECT_TRUE(AllClose((*sig)[0], Map(x, [](double v) { return 1 / (1 + std::exp(-v)); }), 1e-6, 1e-30));
  auto sp = RunSingleOp(ParseOp(R"(type: "Softplus" input: "x" output: "y")"), {x});
  ASSERT_TRUE(sp.ok()) << sp.status();
  EXPECT_TRUE(AllClose((*sp)[0], Map(x, [](double v) { return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)); }),
                       1e-6, 1e-30));
}

// float32 Exp, Log, Tanh, Erf and Sigmoid run on glibc's vector math
// (vector_math.h) 8 lanes at a time, the rest in libm: zeros, negatives,
// infinities, NaN, denormals and overflow give what libm gives, in the
// vector lanes (the first 16 values) and the scalar tail (the last 3).
TEST(UnaryTest, Float32SpecialValuesMatchLibm) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> v = {0.0f, -0.0f, -1.0f, inf, -inf, nan, 1e-40f, 88.8f,
                                -104.0f, 1.0f, 1.0001f, 0.5f, 20.0f, -20.0f, 3.0f, 1e30f, nan, -2.0f, 7.5f};
  Tensor x = Tensor::FromVector<float>({static_cast<int64_t>(v.size())}, v);
  const std::vector<std::pair<std::string, std::function<float(float)>>> ops = {
      {"Exp", [](float a) { return std::exp(a); }},
      {"Log", [](float a) { return std::log(a); }},
      {"Tanh", [](float a) { return std::tanh(a); }},
      {"Erf", [](float a) { return std::erf(a); }},
      {"Sigmoid", [](float a) { return static_cast<float>(1 / (1 + std::exp(-static_cast<double>(a)))); }}};
  for (const auto& [op, f] : ops) {
    auto out = RunSingleOp(ParseOp("type: \"" + op + "\" input: \"x\" output: \"y\""), {x});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    const float* y = (*out)[0].data<float>();
    for (size_t i = 0; i < v.size(); ++i) {
      const float want = f(v[i]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(y[i])) << op << "(" << v[i] << ") = " << y[i];
      } else if (std::isinf(want) || want == 0.0f) {
        EXPECT_EQ(y[i], want) << op << "(" << v[i] << ")";
      } else {
        EXPECT_NEAR(y[i], want, 1e-6 * std::abs(want) + 1e-30) << op << "(" << v[i] << ")";
      }
    }
  }
}

TEST(BinaryTest, IntegerDivisionEdgeCases) {
  auto out = RunSingleOp(ParseOp(R"(type: "Div" input: "a" input: "b" output: "c")"),
                         {Tensor::FromVector<int32_t>({4}, {std::numeric_limits<int32_t>::min(), 7, -7, 5}),
                          Tensor::FromVector<int32_t>({4}, {-1, -2, 2, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  const int32_t* c = (*out)[0].data<int32_t>();
  EXPECT_EQ(c[0], std::numeric_limits<int32_t>::min());  // wraps instead of trapping
  EXPECT_EQ(c[1], -3);
  EXPECT_EQ(c[2], -3);
  EXPECT_EQ(c[3], 0);
  auto out64 = RunSingleOp(ParseOp(R"(type: "Div" input: "a" input: "b" output: "c")"),
                           {Tensor::FromVector<int64_t>({1}, {std::numeric_limits<int64_t>::min()}),
                            Tensor::FromVector<int64_t>({}, {-1})});
  ASSERT_TRUE(out64.ok()) << out64.status();
  EXPECT_EQ((*out64)[0].data<int64_t>()[0], std::numeric_limits<int64_t>::min());
}

TEST(BinaryTest, IntegerPReluWrapsAndPowWithFloatExponentSaturates) {
  // PRelu on int32: X * slope wraps like Mul (-2^31 * -2^31 = 2^62 = 0 mod 2^32).
  auto prelu = RunSingleOp(ParseOp(R"(type: "PRelu" input: "x" input: "s" output: "y")"),
                           {Tensor::FromVector<int32_t>({3}, {std::numeric_limits<int32_t>::min(), -3, 5}),
                            Tensor::FromVector<int32_t>({3}, {std::numeric_limits<int32_t>::min(), 2, 7})});
  ASSERT_TRUE(prelu.ok()) << prelu.status();
  EXPECT_TRUE(AllClose((*prelu)[0], Tensor::FromVector<int32_t>({3}, {0, -6, 5}), 0, 0));
  // int64 ^ double: 2^100 and (-2)^101 clamp to int64's range, 2^0.5
  // truncates to 1, (-8)^0.5 = NaN gives 0.
  auto pow = RunSingleOp(ParseOp(R"(type: "Pow" input: "x" input: "y" output: "z")"),
                         {Tensor::FromVector<int64_t>({4}, {2, -2, 2, -8}),
                          Tensor::FromVector<double>({4}, {100, 101, 0.5, 0.5})});
  ASSERT_TRUE(pow.ok()) << pow.status();
  EXPECT_TRUE(SameTensor((*pow)[0], Tensor::FromVector<int64_t>({4}, {std::numeric_limits<int64_t>::max(),
                                                                      std::numeric_limits<int64_t>::min(), 1, 0})));
}

TEST(PowTest, MixedDtypesMatchReference) {
  auto pow_ref = [](double a, double b) { return std::pow(a, b); };
  const OperatorDef op = ParseOp(R"(type: "Pow" input: "x" input: "y" output: "z")");
  struct Case { DataType xt, yt; Shape xs, ys, zs; double xlo, xhi, ylo, yhi; double rtol; };
  for (const Case& c : {Case{DataType::kFloat32, DataType::kFloat32, {2, 3, 4}, {3, 1}, {2, 3, 4}, 0.1, 3, -2, 2, 1e-5},
                        Case{DataType::kFloat64, DataType::kFloat32, {5}, {}, {5}, 0.1, 3, -2, 2, 1e-12},
                        Case{DataType::kFloat32, DataType::kInt64, {4, 1}, {1, 5}, {4, 5}, -3, 3, 0, 4, 1e-6},
                        Case{DataType::kFloat32, DataType::kUInt8, {6}, {6}, {6}, -3, 3, 0, 4, 1e-6},
                        Case{DataType::kFloat16, DataType::kFloat32, {7}, {7}, {7}, 0.5, 2, -1, 2, 2e-3},
                        Case{DataType::kFloat32, DataType::kFloat32, {100000}, {}, {100000}, 0.1, 3, 1.5, 1.5, 1e-5},
                        Case{DataType::kInt64, DataType::kFloat64, {5}, {5}, {5}, 1, 9, 0, 3, 0}}) {
    Tensor x = RandomTensor(c.xt, c.xs, 1, c.xlo, c.xhi), y = RandomTensor(c.yt, c.ys, 2, c.ylo, c.yhi);
    if (c.xt == DataType::kInt64) y = Tensor::FromVector<double>({5}, {0, 1, 2, 3, 2});  // exact integer results
    auto out = RunSingleOp(op, {x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(AllClose((*out)[0], BroadcastRef(x, y, c.zs, pow_ref), c.rtol, 1e-6))
        << DataTypeName(c.xt) << "^" << DataTypeName(c.yt) << ShapeToString(c.xs) << ShapeToString(c.ys);
  }
}

TEST(PowTest, IntegerPowerIsExactAndScalarExponentsFastPaths) {
  const OperatorDef op = ParseOp(R"(type: "Pow" input: "x" input: "y" output: "z")");
  // 3^39 = 4052555153018976267 does not fit a double's 53-bit mantissa.
  auto big = RunSingleOp(op, {Tensor::FromVector<int64_t>({3}, {3, -2, 2}), Tensor::FromVector<int64_t>({3}, {39, 3, -1})});
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ((*big)[0].data<int64_t>()[0], 4052555153018976267LL);
  EXPECT_EQ((*big)[0].data<int64_t>()[1], -8);
  EXPECT_EQ((*big)[0].data<int64_t>()[2], 0);  // 1 / 2 truncates
  auto i32 = RunSingleOp(op, {Tensor::FromVector<int32_t>({2}, {-1, 1}), Tensor::FromVector<int32_t>({2}, {-3, -5})});
  ASSERT_TRUE(i32.ok()) << i32.status();
  EXPECT_EQ((*i32)[0].data<int32_t>()[0], -1);
  EXPECT_EQ((*i32)[0].data<int32_t>()[1], 1);
  // Exponents 2 and 1 (the multiply and copy paths) against std::pow.
  Tensor x = RandomTensor(DataType::kFloat32, {3, 50}, 3, -4, 4);
  for (float e : {2.0f, 1.0f, 3.0f}) {
    Tensor y = Tensor::FromVector<float>({}, {e});
    auto out = RunSingleOp(op, {x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(AllClose((*out)[0], BroadcastRef(x, y, {3, 50}, [](double a, double b) { return std::pow(a, b); }), 1e-6))
        << "exponent " << e;
  }
  auto int_sq = RunSingleOp(op, {Tensor::FromVector<int32_t>({2}, {-7, 65536}), Tensor::FromVector<int64_t>({}, {2})});
  ASSERT_TRUE(int_sq.ok()) << int_sq.status();
  EXPECT_EQ((*int_sq)[0].data<int32_t>()[0], 49);
  EXPECT_EQ((*int_sq)[0].data<int32_t>()[1], 0);  // 2^32 wraps to 0 in int32
}

TEST(VariadicTest, DtypesNanAndShapes) {
  const std::vector<std::pair<std::string, std::function<double(double, double)>>> ops = {
      {"Max", [](double x, double y) { return std::max(x, y); }},
      {"Min", [](double x, double y) { return std::min(x, y); }},
      {"Sum", [](double x, double y) { return x + y; }}};
  for (const auto& [op, f] : ops) {
    for (DataType dt : {DataType::kFloat64, DataType::kInt32, DataType::kInt64}) {
      Tensor a = RandomTensor(dt, {}, 1, -50, 50), b = RandomTensor(dt, {5}, 2, -50, 50),
             c = RandomTensor(dt, {2, 1}, 3, -50, 50), d = RandomTensor(dt, {2, 5}, 4, -50, 50);
      auto out = RunSingleOp(ParseOp("type: \"" + op + "\" input: \"a\" input: \"b\" input: \"c\" input: \"d\" output: \"y\""),
                             {a, b, c, d});
      ASSERT_TRUE(out.ok()) << op << ": " << out.status();
      Tensor ref = BroadcastRef(BroadcastRef(BroadcastRef(a, b, {5}, f), c, {2, 5}, f), d, {2, 5}, f);
      EXPECT_TRUE(AllClose((*out)[0], ref, 1e-12, 0)) << op << " " << DataTypeName(dt);
    }
  }
  // Large inputs: the parallel broadcast paths.
  Tensor big_a = RandomTensor(DataType::kFloat32, {300, 200}, 5), big_b = RandomTensor(DataType::kFloat32, {300, 1}, 6);
  auto mean = RunSingleOp(ParseOp(R"(type: "Mean" input: "a" input: "b" output: "y")"), {big_a, big_b});
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_TRUE(AllClose((*mean)[0], BroadcastRef(big_a, big_b, {300, 200}, [](double x, double y) { return (x + y) / 2; })));
  // NaN wins in Max and Min, whichever side it is on.
  Tensor n1 = Tensor::FromVector<float>({3}, {NAN, 1, 2}), n2 = Tensor::FromVector<float>({3}, {0, NAN, 5});
  for (const char* op : {"Max", "Min"}) {
    auto out = RunSingleOp(ParseOp(std::string("type: \"") + op + "\" input: \"a\" input: \"b\" output: \"y\""), {n1, n2});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(std::isnan((*out)[0].data<float>()[0])) << op;
    EXPECT_TRUE(std::isnan((*out)[0].data<float>()[1])) << op;
    EXPECT_EQ((*out)[0].data<float>()[2], std::string(op) == "Max" ? 5.0f : 2.0f) << op;
  }
}

TEST(ClipTest, MinAboveMaxIntegersAndLargeInputs) {
  // ONNX: when min > max every element becomes max.
  auto out = RunSingleOp(ParseOp(R"(type: "Clip" input: "x" input: "lo" input: "hi" output: "y")"),
                         {Tensor::FromVector<float>({3}, {-5, 0, 5}), Tensor::FromVector<float>({}, {2}),
                          Tensor::FromVector<float>({}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({3}, {1, 1, 1})));
  Tensor x8 = RandomTensor(DataType::kInt8, {50}, 3, -100, 100);
  out = RunSingleOp(ParseOp(R"(type: "Clip" input: "x" input: "lo" input: "hi" output: "y")"),
                    {x8, Tensor::FromVector<int8_t>({}, {-10}), Tensor::FromVector<int8_t>({}, {20})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Map(x8, [](double v) { return std::min(20.0, std::max(-10.0, v)); }), 0, 0));
  Tensor big = RandomTensor(DataType::kFloat64, {100000}, 4, -2, 2);
  out = RunSingleOp(ParseOp(R"(type: "Clip" input: "x" output: "y" arg { name: "min" f: -0.5 })"), {big});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Map(big, [](double v) { return std::max(-0.5, v); }), 0, 0));
  // Bounds must be single elements.
  auto bad = RunSingleOp(ParseOp(R"(type: "Clip" name: "c" input: "x" input: "lo" output: "y")"),
                         {big, Tensor::FromVector<double>({2}, {0, 1})});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Clip"), std::string::npos) << bad.status();
}

TEST(ClipTest, FloatAttributesOnIntegersSaturate) {
  // The opset-6 float bounds on integer inputs: truncated and clamped to the
  // dtype's range. uint32 with min -1.45 (0) and max inf (2^32 - 1): no change.
  Tensor x = Tensor::Zeros(DataType::kUInt32, {3});
  const uint32_t values[3] = {0, 5, 4000000000u};
  std::memcpy(x.data<uint32_t>(), values, sizeof(values));
  auto u = RunSingleOp(ParseOp(R"(type: "Clip" input: "x" output: "y" arg { name: "min" f: -1.45 } arg { name: "max" f: inf })"),
                       {x});
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_TRUE(SameTensor((*u)[0], x));
  // int32 with min -inf (INT32_MIN) and max 2.7 (2).
  auto i = RunSingleOp(ParseOp(R"(type: "Clip" input: "x" output: "y" arg { name: "min" f: -inf } arg { name: "max" f: 2.7 })"),
                       {Tensor::FromVector<int32_t>({3}, {std::numeric_limits<int32_t>::min(), 1, 3})});
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_TRUE(SameTensor((*i)[0], Tensor::FromVector<int32_t>({3}, {std::numeric_limits<int32_t>::min(), 1, 2})));
}

// Softmax / LogSoftmax reference over any axis of a 3-D double tensor.
Tensor SoftmaxRef(const Tensor& x, int axis, bool log) {
  Tensor y = Tensor::Zeros(x.dtype(), x.dims());
  const int64_t d1 = x.dim(1), d2 = x.dim(2);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    int64_t idx[3] = {i / (d1 * d2), (i / d2) % d1, i % d2};
    double mx = -INFINITY;
    for (int pass = 0; pass < 2; ++pass) {
      double sum = 0;
      for (int64_t k = 0; k < x.dim(axis); ++k) {
        int64_t j[3] = {idx[0], idx[1], idx[2]};
        j[axis] = k;
        double v = x.ElementAsDouble((j[0] * d1 + j[1]) * d2 + j[2]);
        if (pass == 0) mx = std::max(mx, v); else sum += std::exp(v - mx);
      }
      if (pass == 1) {
        double v = x.ElementAsDouble(i) - mx;
        SetElement(y, i, log ? v - std::log(sum) : std::exp(v) / sum);
      }
    }
  }
  return y;
}

TEST(SoftmaxTest, StridedLargeHalfStableAndEmpty) {
  // Strided axis with more than one block of lanes, and the parallel paths.
  for (const auto& [shape, axis] : std::vector<std::pair<Shape, int>>{{{3, 4, 300}, 1}, {{300, 200, 1}, 1},
                                                                      {{2, 500, 70}, 0}, {{40, 30, 50}, 2}}) {
    Tensor x = RandomTensor(DataType::kFloat32, shape, 7, -6, 6);
    for (bool log : {false, true}) {
      auto out = RunSingleOp(ParseOp(std::string("type: \"") + (log ? "LogSoftmax" : "Softmax") +
                                     "\" input: \"x\" output: \"y\" arg { name: \"axis\" i: " + std::to_string(axis) + " }"),
                             {x});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(AllClose((*out)[0], SoftmaxRef(x, axis, log), 1e-5, 1e-6)) << ShapeToString(shape) << " axis " << axis;
    }
  }
  Tensor h = RandomTensor(DataType::kFloat16, {2, 3, 8}, 8, -3, 3);
  auto half = RunSingleOp(ParseOp(R"(type: "Softmax" input: "x" output: "y")"), {h});
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_TRUE(AllClose((*half)[0], SoftmaxRef(h, 2, false), 2e-3, 1e-4));
  // Large equal logits: no overflow.
  auto stable = RunSingleOp(ParseOp(R"(type: "LogSoftmax" input: "x" output: "y")"),
                            {Tensor::FromVector<float>({2}, {1000, 1000})});
  ASSERT_TRUE(stable.ok()) << stable.status();
  EXPECT_TRUE(AllClose((*stable)[0], Tensor::FromVector<float>({2}, {-0.69314718f, -0.69314718f})));
  auto empty = RunSingleOp(ParseOp(R"(type: "Softmax" input: "x" output: "y" arg { name: "axis" i: 0 })"),
                           {Tensor::Zeros(DataType::kFloat32, {0, 3})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].dims(), (Shape{0, 3}));
}

}  // namespace
}  // namespace loom
