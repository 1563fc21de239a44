// Extended elementwise kernels (comparisons, logic, Where, unary math,
// IsNaN/IsInf, activations, Mod, BitShift) against naive references on
// random inputs, plus hand-computed values and error cases.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

// Numpy broadcast of two shapes (the test's own, independent of the plugin's).
Shape BroadcastOf(const Shape& a, const Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Flat index into `in` of output element `flat` of the broadcast shape `out`.
int64_t SourceIndex(const Shape& in, const Shape& out, int64_t flat) {
  int64_t idx = 0, stride = 1;
  for (size_t k = 0; k < out.size(); ++k) {
    const size_t o = out.size() - 1 - k;
    const int64_t coord = flat % out[o];
    flat /= out[o];
    if (k < in.size()) {
      const size_t i = in.size() - 1 - k;
      if (in[i] != 1) idx += coord * stride;
      stride *= in[i];
    }
  }
  return idx;
}

// out[i] = f(a[.], b[.]) over the broadcast shape, as `out_dt`.
Tensor BinaryRef(const Tensor& a, const Tensor& b, DataType out_dt, const std::function<double(double, double)>& f) {
  const Shape out = BroadcastOf(a.dims(), b.dims());
  Tensor y = Tensor::Zeros(out_dt, out);
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    SetElement(y, i, f(a.ElementAsDouble(SourceIndex(a.dims(), out, i)),
                       b.ElementAsDouble(SourceIndex(b.dims(), out, i))));
  }
  return y;
}

// Random values rounded to integers (so that ties and equality occur for floats too).
Tensor IntegerValued(DataType dt, const Shape& shape, uint32_t seed, double lo, double hi) {
  Tensor t = RandomTensor(dt, shape, seed, lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) SetElement(t, i, std::round(t.ElementAsDouble(i)));
  return t;
}

OperatorDef Op(const std::string& type, int inputs, const std::string& attrs = "") {
  std::string text = "type: \"" + type + "\"";
  for (int i = 0; i < inputs; ++i) text += " input: \"in" + std::to_string(i) + "\"";
  return ParseOp(text + " output: \"out\" " + attrs);
}

const std::vector<std::pair<Shape, Shape>> kPairs = {
    {{2, 3, 4}, {3, 1}}, {{}, {2, 2}}, {{5}, {}}, {{0, 3}, {1, 3}}, {{7}, {7}}, {{4, 1, 3}, {1, 5, 1}}, {{}, {}}};

// ---- Comparisons and logic --------------------------------------------------

struct CmpCase {
  std::string op;
  std::function<bool(double, double)> ref;
};

class CompareTest : public ::testing::TestWithParam<CmpCase> {};

TEST_P(CompareTest, MatchesReference) {
  const CmpCase& c = GetParam();
  std::vector<DataType> dtypes = {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kInt8,
                                  DataType::kUInt8,   DataType::kInt32,   DataType::kInt64};
  if (c.op == "Equal") dtypes.push_back(DataType::kBool);
  uint32_t seed = 1;
  for (DataType dt : dtypes) {
    const bool is_unsigned = dt == DataType::kUInt8 || dt == DataType::kBool;
    for (const auto& [sa, sb] : kPairs) {
      Tensor a = IntegerValued(dt, sa, seed++, is_unsigned ? 0 : -3, 3);
      Tensor b = IntegerValued(dt, sb, seed++, is_unsigned ? 0 : -3, 3);
      auto out = RunSingleOp(Op(c.op, 2), {a, b});
      ASSERT_TRUE(out.ok()) << c.op << ": " << out.status();
      EXPECT_TRUE(AllClose((*out)[0], BinaryRef(a, b, DataType::kBool, c.ref), 0, 0))
          << c.op << " " << DataTypeName(dt) << ShapeToString(sa) << ShapeToString(sb);
    }
  }
  ExpectInferredShapes(Op(c.op, 2), {RandomTensor(DataType::kFloat32, {2, 1, 3}, 1), RandomTensor(DataType::kFloat32, {4, 1}, 2)});
}

INSTANTIATE_TEST_SUITE_P(
    Ops, CompareTest,
    ::testing::Values(CmpCase{"Equal", [](double a, double b) { return a == b; }},
                      CmpCase{"Less", [](double a, double b) { return a < b; }},
                      CmpCase{"Greater", [](double a, double b) { return a > b; }},
                      CmpCase{"LessOrEqual", [](double a, double b) { return a <= b; }},
                      CmpCase{"GreaterOrEqual", [](double a, double b) { return a >= b; }}),
    [](const ::testing::TestParamInfo<CmpCase>& i) { return i.param.op; });

// And/Or/Xor take bool only.
TEST(LogicTest, BoolMatchesReference) {
  uint32_t seed = 100;
  for (const char* op : {"And", "Or", "Xor"}) {
    for (const auto& [sa, sb] : kPairs) {
      Tensor a = RandomTensor(DataType::kBool, sa, seed++), b = RandomTensor(DataType::kBool, sb, seed++);
      auto out = RunSingleOp(Op(op, 2), {a, b});
      ASSERT_TRUE(out.ok()) << op << ": " << out.status();
      const std::string o = op;
      auto ref = [o](double x, double y) -> double {
        const bool p = x != 0, q = y != 0;
        return o == "And" ? (p && q) : o == "Or" ? (p || q) : (p != q);
      };
      EXPECT_TRUE(AllClose((*out)[0], BinaryRef(a, b, DataType::kBool, ref), 0, 0)) << op << ShapeToString(sa);
    }
  }
}

TEST(LogicTest, Not) {
  for (Shape shape : {Shape{3, 4}, Shape{}, Shape{0, 2}}) {
    Tensor x = RandomTensor(DataType::kBool, shape, 7);
    auto out = RunSingleOp(Op("Not", 1), {x});
    ASSERT_TRUE(out.ok()) << out.status();
    Tensor e = Tensor::Zeros(DataType::kBool, shape);
    for (int64_t i = 0; i < x.num_elements(); ++i) e.data<bool>()[i] = !x.data<bool>()[i];
    EXPECT_TRUE(AllClose((*out)[0], e, 0, 0));
  }
}

TEST(CompareTest, KnownValues) {
  Tensor a = Tensor::FromVector<float>({4}, {1, 2, std::nanf(""), -1});
  Tensor b = Tensor::FromVector<float>({4}, {1, 3, std::nanf(""), -2});
  auto eq = RunSingleOp(Op("Equal", 2), {a, b});
  auto lt = RunSingleOp(Op("Less", 2), {a, b});
  auto ge = RunSingleOp(Op("GreaterOrEqual", 2), {a, b});
  ASSERT_TRUE(eq.ok() && lt.ok() && ge.ok());
  EXPECT_TRUE(AllClose((*eq)[0], Tensor::FromVector<bool>({4}, {true, false, false, false}), 0, 0));
  EXPECT_TRUE(AllClose((*lt)[0], Tensor::FromVector<bool>({4}, {false, true, false, false}), 0, 0));
  EXPECT_TRUE(AllClose((*ge)[0], Tensor::FromVector<bool>({4}, {true, false, false, true}), 0, 0));
}

TEST(CompareTest, Errors) {
  EXPECT_FALSE(RunSingleOp(Op("Equal", 2), {RandomTensor(DataType::kFloat32, {2, 3}, 1),
                                             RandomTensor(DataType::kFloat32, {4}, 2)}).ok());
  EXPECT_FALSE(RunSingleOp(Op("Less", 2), {RandomTensor(DataType::kFloat32, {3}, 1),
                                            RandomTensor(DataType::kInt32, {3}, 2)}).ok());
  EXPECT_FALSE(RunSingleOp(Op("And", 2), {RandomTensor(DataType::kBool, {3}, 1),
                                           RandomTensor(DataType::kBool, {2}, 2)}).ok());
  // Logical ops take bool only.
  EXPECT_FALSE(RunSingleOp(Op("Or", 2), {RandomTensor(DataType::kInt32, {3}, 1),
                                          RandomTensor(DataType::kInt32, {3}, 2)}).ok());
}

// ---- Where --------------------------------------------------------------------

TEST(WhereTest, MatchesReference) {
  const std::vector<std::vector<Shape>> cases = {
      {{2, 3, 4}, {3, 4}, {2, 1, 1}}, {{}, {2, 2}, {}}, {{3, 1}, {1, 4}, {}}, {{0, 3}, {3}, {1, 3}},
      {{5}, {5}, {5}},                {{}, {}, {}},    {{2, 1, 3, 1}, {4, 1, 1}, {1, 1, 5}}};
  uint32_t seed = 200;
  for (DataType dt : {DataType::kFloat32, DataType::kInt64, DataType::kFloat16, DataType::kBool, DataType::kInt8}) {
    for (const auto& s : cases) {
      Tensor c = RandomTensor(DataType::kBool, s[0], seed++);
      Tensor x = RandomTensor(dt, s[1], seed++, -5, 5), y = RandomTensor(dt, s[2], seed++, -5, 5);
      auto out = RunSingleOp(Op("Where", 3), {c, x, y});
      ASSERT_TRUE(out.ok()) << out.status();
      const Shape shape = BroadcastOf(s[0], BroadcastOf(s[1], s[2]));
      Tensor e = Tensor::Zeros(dt, shape);
      for (int64_t i = 0; i < e.num_elements(); ++i) {
        const bool cv = c.data<bool>()[SourceIndex(s[0], shape, i)];
        SetElement(e, i, cv ? x.ElementAsDouble(SourceIndex(s[1], shape, i))
                            : y.ElementAsDouble(SourceIndex(s[2], shape, i)));
      }
      EXPECT_TRUE(AllClose((*out)[0], e, 0, 0)) << DataTypeName(dt) << ShapeToString(shape);
    }
  }
  ExpectInferredShapes(Op("Where", 3), {RandomTensor(DataType::kBool, {2, 1}, 1),
                                        RandomTensor(DataType::kInt32, {3}, 2), RandomTensor(DataType::kInt32, {}, 3)});
}

TEST(WhereTest, KnownValuesAndErrors) {
  Tensor c = Tensor::FromVector<bool>({2, 2}, {true, false, true, true});
  Tensor x = Tensor::FromVector<int64_t>({2, 2}, {1, 2, 3, 4});
  Tensor y = Tensor::FromVector<int64_t>({2}, {9, 8});
  auto out = RunSingleOp(Op("Where", 3), {c, x, y});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<int64_t>({2, 2}, {1, 8, 3, 4}), 0, 0));
  EXPECT_FALSE(RunSingleOp(Op("Where", 3), {c, x, Tensor::FromVector<int64_t>({3}, {1, 2, 3})}).ok());
  EXPECT_FALSE(RunSingleOp(Op("Where", 3), {Tensor::FromVector<bool>({3}, {true, true, false}), x, y}).ok());
}

// ---- Unary ----------------------------------------------------------------------

struct UnaryCase {
  std::string op;
  std::string attrs;
  std::function<double(double)> ref;
  double lo, hi;
  std::string name;
};

class UnaryTest : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryTest, MatchesReference) {
  const UnaryCase& c = GetParam();
  OperatorDef op = Op(c.op, 1, c.attrs);
  std::vector<DataType> dtypes = {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16};
  if (c.op == "Celu") dtypes = {DataType::kFloat32};  // ONNX Celu is float32 only
  for (DataType dt : dtypes) {
    for (Shape shape : {Shape{2, 3, 5}, Shape{}, Shape{0, 4}, Shape{50000}}) {
      Tensor x = RandomTensor(dt, shape, 3, c.lo, c.hi);
      auto out = RunSingleOp(op, {x});
      ASSERT_TRUE(out.ok()) << c.op << ": " << out.status();
      // float16 results are the float computation rounded once to half.
      const double tol = dt == DataType::kFloat16 ? 2e-3 : 1e-5;
      EXPECT_TRUE(AllClose((*out)[0], Map(x, c.ref), tol, tol * 0.1)) << c.op << " " << DataTypeName(dt) << ShapeToString(shape);
    }
  }
}

double Softplus(double x) { return std::log1p(std::exp(x)); }

INSTANTIATE_TEST_SUITE_P(
    Ops, UnaryTest,
    ::testing::Values(
        UnaryCase{"Sign", "", [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }, -3, 3, "Sign"},
        UnaryCase{"Sin", "", [](double x) { return std::sin(x); }, -6, 6, "Sin"},
        UnaryCase{"Cos", "", [](double x) { return std::cos(x); }, -6, 6, "Cos"},
        UnaryCase{"Tan", "", [](double x) { return std::tan(x); }, -1.2, 1.2, "Tan"},
        UnaryCase{"Asin", "", [](double x) { return std::asin(x); }, -0.99, 0.99, "Asin"},
        UnaryCase{"Acos", "", [](double x) { return std::acos(x); }, -0.99, 0.99, "Acos"},
        UnaryCase{"Atan", "", [](double x) { return std::atan(x); }, -5, 5, "Atan"},
        UnaryCase{"Sinh", "", [](double x) { return std::sinh(x); }, -3, 3, "Sinh"},
        UnaryCase{"Cosh", "", [](double x) { return std::cosh(x); }, -3, 3, "Cosh"},
        UnaryCase{"Asinh", "", [](double x) { return std::asinh(x); }, -5, 5, "Asinh"},
        UnaryCase{"Acosh", "", [](double x) { return std::acosh(x); }, 1, 6, "Acosh"},
        UnaryCase{"Atanh", "", [](double x) { return std::atanh(x); }, -0.9, 0.9, "Atanh"},
        UnaryCase{"Round", "", [](double x) { return std::nearbyint(x); }, -5, 5, "Round"},
        UnaryCase{"HardSwish", "", [](double x) { return x * std::max(0.0, std::min(1.0, x / 6 + 0.5)); }, -5, 5,
                  "HardSwish"},
        UnaryCase{"Mish", "", [](double x) { return x * std::tanh(Softplus(x)); }, -5, 5, "Mish"},
        UnaryCase{"Celu", "arg { name: \"alpha\" f: 2 }",
                  [](double x) { return std::max(0.0, x) + std::min(0.0, 2 * (std::exp(x / 2) - 1)); }, -4, 4, "Celu"},
        UnaryCase{"ThresholdedRelu", "arg { name: \"alpha\" f: 0.5 }", [](double x) { return x > 0.5 ? x : 0; }, -2,
                  2, "ThresholdedRelu"},
        UnaryCase{"ThresholdedRelu", "", [](double x) { return x > 1 ? x : 0; }, -2, 2, "ThresholdedReluDefault"},
        UnaryCase{"Gelu", "", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, -4, 4, "Gelu"},
        UnaryCase{"Gelu", "arg { name: \"approximate\" s: \"tanh\" }",
                  [](double x) {
                    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
                  },
                  -4, 4, "GeluTanh"},
        UnaryCase{"Shrink", "arg { name: \"bias\" f: 0.5 } arg { name: \"lambd\" f: 1 }",
                  [](double x) { return x < -1 ? x + 0.5 : (x > 1 ? x - 0.5 : 0); }, -3, 3, "Shrink"},
        UnaryCase{"Shrink", "", [](double x) { return x < -0.5 ? x : (x > 0.5 ? x : 0); }, -3, 3, "ShrinkDefault"}),
    [](const ::testing::TestParamInfo<UnaryCase>& i) { return i.param.name; });

TEST(UnaryTest, KnownValues) {
  auto run = [](const std::string& op, const Tensor& x, const std::string& attrs = "") {
    auto out = RunSingleOp(Op(op, 1, attrs), {x});
    EXPECT_TRUE(out.ok()) << op << ": " << out.status();
    return out.ok() ? (*out)[0] : Tensor();
  };
  // Halves round to even.
  EXPECT_TRUE(AllClose(run("Round", Tensor::FromVector<float>({8}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.3f, -2.7f, 0.f})),
                       Tensor::FromVector<float>({8}, {0, 2, 2, -0.f, -2, 2, -3, 0}), 0, 0));
  EXPECT_TRUE(AllClose(run("Sign", Tensor::FromVector<int32_t>({4}, {-7, 0, 3, -1})),
                       Tensor::FromVector<int32_t>({4}, {-1, 0, 1, -1}), 0, 0));
  EXPECT_TRUE(AllClose(run("Sign", Tensor::FromVector<uint8_t>({3}, {0, 5, 255})),
                       Tensor::FromVector<uint8_t>({3}, {0, 1, 1}), 0, 0));
  // ONNX Shrink example values (lambd 1.5, bias 1.5), as int32 and float.
  EXPECT_TRUE(AllClose(run("Shrink", Tensor::FromVector<int32_t>({5}, {-2, -1, 0, 1, 2}),
                           "arg { name: \"bias\" f: 1.5 } arg { name: \"lambd\" f: 1.5 }"),
                       Tensor::FromVector<int32_t>({5}, {0, 0, 0, 0, 0}), 0, 0));
  EXPECT_TRUE(AllClose(run("Shrink", Tensor::FromVector<float>({5}, {-2, -1, 0, 1, 2}),
                           "arg { name: \"bias\" f: 1.5 } arg { name: \"lambd\" f: 1.5 }"),
                       Tensor::FromVector<float>({5}, {-0.5f, 0, 0, 0, 0.5f}), 0, 0));
  EXPECT_TRUE(AllClose(run("Shrink", Tensor::FromVector<uint8_t>({4}, {0, 1, 2, 5}),
                           "arg { name: \"bias\" f: 1 } arg { name: \"lambd\" f: 1.5 }"),
                       Tensor::FromVector<uint8_t>({4}, {0, 0, 1, 4}), 0, 0));
  // Integer results out of the dtype's range clamp to it: 5 - 1e30 and
  // -5 + 1e30 on int32; 1 - 2 on uint8 gives 0.
  EXPECT_TRUE(AllClose(run("Shrink", Tensor::FromVector<int32_t>({3}, {5, -5, 0}),
                           "arg { name: \"bias\" f: 1e30 } arg { name: \"lambd\" f: 0.5 }"),
                       Tensor::FromVector<int32_t>({3}, {std::numeric_limits<int32_t>::min(),
                                                         std::numeric_limits<int32_t>::max(), 0}), 0, 0));
  EXPECT_TRUE(AllClose(run("Shrink", Tensor::FromVector<uint8_t>({2}, {1, 0}),
                           "arg { name: \"bias\" f: 2 } arg { name: \"lambd\" f: 0.5 }"),
                       Tensor::FromVector<uint8_t>({2}, {0, 0}), 0, 0));
  EXPECT_TRUE(AllClose(run("HardSwish", Tensor::FromVector<float>({4}, {-4, -3, 0, 3})),
                       Tensor::FromVector<float>({4}, {0, 0, 0, 3}), 0, 0));
  EXPECT_FALSE(RunSingleOp(Op("Gelu", 1, "arg { name: \"approximate\" s: \"erf\" }"),
                           {Tensor::FromVector<float>({1}, {1})}).ok());
  EXPECT_FALSE(RunSingleOp(Op("Sin", 1), {Tensor::FromVector<int32_t>({1}, {1})}).ok());
}

TEST(FloatClassTest, IsNaNIsInf) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  Tensor x = Tensor::FromVector<float>({5}, {-inf, 0.f, nan, inf, -1.f});
  auto run = [&](const std::string& op, const std::string& attrs, const Tensor& in) {
    auto out = RunSingleOp(Op(op, 1, attrs), {in});
    EXPECT_TRUE(out.ok()) << op << ": " << out.status();
    return out.ok() ? (*out)[0] : Tensor();
  };
  EXPECT_TRUE(AllClose(run("IsNaN", "", x), Tensor::FromVector<bool>({5}, {0, 0, 1, 0, 0}), 0, 0));
  EXPECT_TRUE(AllClose(run("IsInf", "", x), Tensor::FromVector<bool>({5}, {1, 0, 0, 1, 0}), 0, 0));
  EXPECT_TRUE(AllClose(run("IsInf", "arg { name: \"detect_negative\" i: 0 }", x),
                       Tensor::FromVector<bool>({5}, {0, 0, 0, 1, 0}), 0, 0));
  EXPECT_TRUE(AllClose(run("IsInf", "arg { name: \"detect_positive\" i: 0 }", x),
                       Tensor::FromVector<bool>({5}, {1, 0, 0, 0, 0}), 0, 0));
  Tensor xd = Tensor::FromVector<double>({3}, {std::nan(""), 1e308 * 10, 2});
  EXPECT_TRUE(AllClose(run("IsNaN", "", xd), Tensor::FromVector<bool>({3}, {1, 0, 0}), 0, 0));
  EXPECT_TRUE(AllClose(run("IsInf", "", xd), Tensor::FromVector<bool>({3}, {0, 1, 0}), 0, 0));
  // float16 and the empty / rank-0 shapes.
  Tensor h = Tensor::Zeros(DataType::kFloat16, {3});
  SetElement(h, 0, inf);
  SetElement(h, 1, nan);
  SetElement(h, 2, 65504);
  EXPECT_TRUE(AllClose(run("IsInf", "", h), Tensor::FromVector<bool>({3}, {1, 0, 0}), 0, 0));
  EXPECT_TRUE(AllClose(run("IsNaN", "", h), Tensor::FromVector<bool>({3}, {0, 1, 0}), 0, 0));
  EXPECT_TRUE(AllClose(run("IsNaN", "", Tensor::Zeros(DataType::kFloat32, {0, 2})), Tensor::Zeros(DataType::kBool, {0, 2}), 0, 0));
  EXPECT_TRUE(AllClose(run("IsInf", "", Tensor::FromVector<float>({}, {inf})), Tensor::FromVector<bool>({}, {true}), 0, 0));
  ExpectInferredShapes(Op("IsNaN", 1), {RandomTensor(DataType::kFloat32, {2, 3}, 1)});
}

// ---- Mod and BitShift -----------------------------------------------------------

// Python-style remainder (sign of the divisor).
double PyMod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

TEST(ModTest, MatchesReference) {
  uint32_t seed = 300;
  for (DataType dt : {DataType::kInt32, DataType::kInt64, DataType::kInt8, DataType::kUInt8}) {
    const bool is_unsigned = dt == DataType::kUInt8;
    for (int fmod : {0, 1}) {
      for (const auto& [sa, sb] : kPairs) {
        Tensor a = RandomTensor(dt, sa, seed++, is_unsigned ? 0 : -50, 50);
        Tensor b = RandomTensor(dt, sb, seed++, is_unsigned ? 1 : -9, 9);
        for (int64_t i = 0; i < b.num_elements(); ++i) {
          if (b.ElementAsDouble(i) == 0) SetElement(b, i, 3);
        }
        auto out = RunSingleOp(Op("Mod", 2, "arg { name: \"fmod\" i: " + std::to_string(fmod) + " }"), {a, b});
        ASSERT_TRUE(out.ok()) << out.status();
        auto ref = [fmod](double x, double y) { return fmod ? std::fmod(x, y) : PyMod(x, y); };
        EXPECT_TRUE(AllClose((*out)[0], BinaryRef(a, b, dt, ref), 0, 0))
            << DataTypeName(dt) << " fmod=" << fmod << ShapeToString(sa) << ShapeToString(sb);
      }
    }
  }
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64}) {
    Tensor a = RandomTensor(dt, {3, 4}, 1, -10, 10), b = RandomTensor(dt, {4}, 2, 0.5, 3);
    auto out = RunSingleOp(Op("Mod", 2, "arg { name: \"fmod\" i: 1 }"), {a, b});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(AllClose((*out)[0], BinaryRef(a, b, dt, [](double x, double y) { return std::fmod(x, y); }), 1e-6, 1e-6));
  }
}

TEST(ModTest, KnownValuesAndErrors) {
  // ONNX mod_mixed_sign examples.
  Tensor a = Tensor::FromVector<int32_t>({6}, {-4, 7, 5, 4, -7, 8});
  Tensor b = Tensor::FromVector<int32_t>({6}, {2, -3, 8, -2, 3, 5});
  auto py = RunSingleOp(Op("Mod", 2), {a, b});
  ASSERT_TRUE(py.ok()) << py.status();
  EXPECT_TRUE(AllClose((*py)[0], Tensor::FromVector<int32_t>({6}, {0, -2, 5, 0, 2, 3}), 0, 0));
  auto c = RunSingleOp(Op("Mod", 2, "arg { name: \"fmod\" i: 1 }"), {a, b});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(AllClose((*c)[0], Tensor::FromVector<int32_t>({6}, {0, 1, 5, 0, -1, 3}), 0, 0));
  Tensor fa = Tensor::FromVector<float>({3}, {-4.3f, 7.2f, 5.0f}), fb = Tensor::FromVector<float>({3}, {2.1f, -3.4f, 8.0f});
  auto f = RunSingleOp(Op("Mod", 2, "arg { name: \"fmod\" i: 1 }"), {fa, fb});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(AllClose((*f)[0], Tensor::FromVector<float>({3}, {std::fmod(-4.3f, 2.1f), std::fmod(7.2f, -3.4f), 5.0f}), 0, 0));
  // Floats need fmod = 1; integer division by zero gives 0, not a crash.
  EXPECT_FALSE(RunSingleOp(Op("Mod", 2), {fa, fb}).ok());
  auto z = RunSingleOp(Op("Mod", 2), {Tensor::FromVector<int32_t>({2}, {5, std::numeric_limits<int32_t>::min()}),
                                      Tensor::FromVector<int32_t>({2}, {0, -1})});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_TRUE(AllClose((*z)[0], Tensor::FromVector<int32_t>({2}, {0, 0}), 0, 0));
  EXPECT_FALSE(RunSingleOp(Op("Mod", 2), {a, Tensor::FromVector<int32_t>({4}, {1, 2, 3, 4})}).ok());
}

TEST(BitShiftTest, MatchesReferenceAndKnownValues) {
  const std::string left = "arg { name: \"direction\" s: \"LEFT\" }", right = "arg { name: \"direction\" s: \"RIGHT\" }";
  Tensor x = Tensor::FromVector<uint8_t>({3}, {16, 4, 1}), y = Tensor::FromVector<uint8_t>({3}, {1, 2, 3});
  auto r = RunSingleOp(Op("BitShift", 2, right), {x, y});
  auto l = RunSingleOp(Op("BitShift", 2, left), {x, y});
  ASSERT_TRUE(r.ok() && l.ok());
  EXPECT_TRUE(AllClose((*r)[0], Tensor::FromVector<uint8_t>({3}, {8, 1, 0}), 0, 0));
  EXPECT_TRUE(AllClose((*l)[0], Tensor::FromVector<uint8_t>({3}, {32, 16, 8}), 0, 0));
  // Shifting by the width or more gives 0.
  auto big = RunSingleOp(Op("BitShift", 2, left), {Make(DataType::kUInt32, {2}, {1, 7}),
                                                   Make(DataType::kUInt32, {2}, {32, 31})});
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_TRUE(AllClose((*big)[0], Make(DataType::kUInt32, {2}, {0, 2147483648.0}), 0, 0));
  uint32_t seed = 400;
  for (const auto& [sa, sb] : kPairs) {
    Tensor a = RandomTensor(DataType::kUInt32, sa, seed++, 0, 100000), b = RandomTensor(DataType::kUInt32, sb, seed++, 0, 12);
    for (bool is_left : {true, false}) {
      auto out = RunSingleOp(Op("BitShift", 2, is_left ? left : right), {a, b});
      ASSERT_TRUE(out.ok()) << out.status();
      auto ref = [is_left](double p, double q) {
        const uint32_t u = static_cast<uint32_t>(p), s = static_cast<uint32_t>(q);
        return static_cast<double>(is_left ? static_cast<uint32_t>(u << s) : u >> s);
      };
      EXPECT_TRUE(AllClose((*out)[0], BinaryRef(a, b, DataType::kUInt32, ref), 0, 0)) << ShapeToString(sa) << ShapeToString(sb);
    }
  }
  EXPECT_FALSE(RunSingleOp(Op("BitShift", 2, "arg { name: \"direction\" s: \"UP\" }"), {x, y}).ok());
  EXPECT_FALSE(RunSingleOp(Op("BitShift", 2), {x, y}).ok());  // direction is required
}

}  // namespace
}  // namespace loom
