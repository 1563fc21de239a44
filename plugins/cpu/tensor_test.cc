// Tensor-family kernels (shape and data movement, Cast) against naive
// references on random inputs, for every dtype, with negative axes,
// zero-size dims and rank 0; known values; error cases.
//
// Every op runs twice (see Run): with its inputs as external inputs, and
// with them as initializers, whose values the schemas' inference can read;
// the second run also checks that the inferred output shapes and dtypes are
// the actual ones.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/api/loom_sdk.h"
#include "core/net.h"
#include "core/proto_io.h"
#include "testing/op_runner.h"
#include "plugins/cpu/kernel_test_util.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

using namespace kernel_test;  // NOLINT

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

Tensor I32(std::vector<int32_t> v) { return Tensor::FromVector<int32_t>({static_cast<int64_t>(v.size())}, v); }

// Runs `op` with its inputs as external inputs (RunSingleOp), then again
// with them as initializers (constants at planning). Both runs must agree:
// both fail, or both give the same outputs, and in the second every output's
// inferred shape and dtype must be present and equal the actual ones.
absl::StatusOr<std::vector<Tensor>> RunOp(const OperatorDef& op, const std::vector<Tensor>& inputs) {
  auto plain = RunSingleOp(op, inputs);

  Workspace ws;
  NetDef net;
  net.set_name("constant_inputs");
  *net.add_op() = op;
  for (int i = 0; i < op.input_size(); ++i) {
    if (!op.input(i).empty()) ws.SetBlob(op.input(i), inputs[i]);  // in ws, not external: an initializer
  }
  for (const std::string& o : op.output()) {
    if (!o.empty()) net.add_external_output(o);
  }
  absl::Status s;
  auto n = Net::Create(net, &ws, CpuRegistry());
  s = n.ok() ? (*n)->Run() : n.status();
  if (!plain.ok() || !s.ok()) {
    EXPECT_EQ(plain.ok(), s.ok()) << op.ShortDebugString() << "\nexternal inputs: " << plain.status()
                                  << "\nconstant inputs: " << s;
    return plain.ok() ? absl::StatusOr<std::vector<Tensor>>(s) : plain;
  }
  const PlanStep& step = (*n)->last_plan()->steps()[0];
  for (int k = 0; k < op.output_size(); ++k) {
    if (op.output(k).empty()) continue;
    const Tensor& actual = *ws.GetBlob(op.output(k));
    EXPECT_TRUE(SameTensor(actual, (*plain)[k])) << op.ShortDebugString() << " output " << k;
    EXPECT_EQ(step.ctx.output_dtypes[k], actual.dtype()) << op.ShortDebugString() << " output " << k;
    if (!step.inferred_shapes[k]) {
      ADD_FAILURE() << op.ShortDebugString() << ": no shape inferred for output " << k << " with constant inputs";
    } else {
      EXPECT_EQ(ShapeToString(*step.inferred_shapes[k]), ShapeToString(actual.dims()))
          << op.ShortDebugString() << ": inferred shape of output " << k;
    }
  }
  return plain;
}

// Expects `op` to fail with a message containing every one of `parts`.
void ExpectError(const OperatorDef& op, const std::vector<Tensor>& inputs, const std::vector<std::string>& parts) {
  auto out = RunOp(op, inputs);
  ASSERT_FALSE(out.ok()) << op.ShortDebugString();
  for (const std::string& p : parts) {
    EXPECT_NE(out.status().message().find(p), std::string::npos) << "'" << p << "' not in: " << out.status();
  }
}

// ---- Naive references: element copies by multi-index -----------------------

// A tensor of `dims` whose element at multi-index o is the element of
// srcs[map(o).first] at multi-index map(o).second.
Tensor Gathered(const std::vector<Tensor>& srcs, const Shape& dims,
                const std::function<std::pair<int, Shape>(const Shape&)>& map) {
  Tensor out = Tensor::Zeros(srcs[0].dtype(), dims);
  const size_t es = DataTypeSize(out.dtype());
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    auto [s, idx] = map(Unravel(i, dims));
    std::memcpy(out.data<char>() + i * es, srcs[s].data<char>() + Ravel(idx, srcs[s].dims()) * es, es);
  }
  return out;
}

// The same bytes with other dims.
Tensor WithDims(const Tensor& t, const Shape& dims) {
  Tensor out = Tensor::Zeros(t.dtype(), dims);
  if (t.nbytes() > 0) std::memcpy(out.raw_data(), t.raw_data(), t.nbytes());
  return out;
}

std::string Ints(const std::string& name, const std::vector<int64_t>& v) {
  std::string s = "arg { name: \"" + name + "\"";
  for (int64_t x : v) s += " ints: " + std::to_string(x);
  return s + " }";
}
std::string Int(const std::string& name, int64_t v) {
  return "arg { name: \"" + name + "\" i: " + std::to_string(v) + " }";
}

// ---- Reshape ------------------------------------------------------------------
// Shape folds when the plan is built for its input's shape: the Gather /
// Unsqueeze / Concat chain an exporter builds on it folds too, and the
// Reshape it feeds gets a static output shape. Plans are per input
// signature and share their blobs, so running the first shape again after
// another must bring back the first plan's values (a stale "r" would
// reshape [2, 3, 4] to [4, 6]).
TEST(Shape, FoldsAtPlanTimeForEachPlansInputShape) {
  Workspace ws;
  ws.SetBlob("i0", Tensor::FromVector<int64_t>({}, {0}));
  ws.SetBlob("axes", Tensor::FromVector<int64_t>({1}, {0}));
  ws.SetBlob("minus1", Tensor::FromVector<int64_t>({1}, {-1}));
  absl::StatusOr<NetDef> def = ParseNetDefText(R"(name: "n" external_input: "x" external_output: "y"
      external_output: "mid"
      op { type: "Shape" input: "x" output: "s" }
      op { type: "Shape" input: "x" output: "mid" arg { name: "start" i: 1 } arg { name: "end" i: -1 } }
      op { type: "Gather" input: "s" input: "i0" output: "n" }
      op { type: "Unsqueeze" input: "n" input: "axes" output: "n1" }
      op { type: "Concat" input: "n1" input: "minus1" output: "r" arg { name: "axis" i: 0 } }
      op { type: "Reshape" input: "x" input: "r" output: "y" })");
  ASSERT_TRUE(def.ok()) << def.status();
  auto net = Net::Create(*def, &ws, CpuRegistry());
  ASSERT_TRUE(net.ok()) << net.status();
  for (const Shape& xs : {Shape{2, 3, 4}, Shape{4, 3, 1}, Shape{2, 3, 4}, Shape{4, 3, 1}}) {
    ws.SetBlob("x", Tensor::Zeros(DataType::kFloat32, xs));
    ASSERT_TRUE((*net)->Run().ok());
    const Plan& plan = *(*net)->last_plan();
    for (int k : {0, 2, 3, 4}) EXPECT_TRUE(plan.steps()[k].folded) << "step " << k << " for x " << ShapeToString(xs);
    EXPECT_FALSE(plan.steps()[1].folded) << "an external output is written on every run";
    EXPECT_FALSE(plan.steps()[5].folded) << "Reshape reads x";
    ASSERT_TRUE(plan.steps()[5].inferred_shapes[0].has_value());
    EXPECT_EQ(*plan.steps()[5].inferred_shapes[0], (Shape{xs[0], xs[1] * xs[2]}));
    EXPECT_EQ(ws.GetBlob("y")->dims(), (Shape{xs[0], xs[1] * xs[2]})) << "x " << ShapeToString(xs);
    EXPECT_TRUE(SameTensor(*ws.GetBlob("mid"), Tensor::FromVector<int64_t>({1}, {3})));
    EXPECT_EQ(plan.signature_values().size(), 4u) << "s, n, n1 and r";
    for (const char* name : {"s", "n", "n1", "r", "mid"}) {
      EXPECT_EQ(plan.constants().count(name), 0u) << name << " holds for this plan only, not for nested nets";
    }
  }
  EXPECT_EQ((*net)->plans_built(), 2);
}

TEST(Reshape, AllDtypesMatchReference) {
  const OperatorDef op = ParseOp(R"(type: "Reshape" name: "r" input: "x" input: "s" output: "y")");
  struct Case { Shape in; std::vector<int64_t> shape; Shape want; };
  const std::vector<Case> cases = {
      {{2, 3, 4}, {4, 6}, {4, 6}},          {{2, 3, 4}, {0, -1}, {2, 12}},    {{2, 3, 4}, {-1}, {24}},
      {{2, 3, 4}, {2, 0, 4}, {2, 3, 4}},    {{2, 3, 4}, {1, -1, 1, 2}, {1, 12, 1, 2}},
      {{}, {}, {}},                          {{1, 1}, {}, {}},                 {{}, {-1}, {1}},
      {{}, {1, 1, 1}, {1, 1, 1}},            {{0, 3}, {3, 0, -1}, {3, 3, 0}}, {{4, 0}, {0, 0}, {4, 0}}};
  for (DataType dt : AllTypes()) {
    for (const Case& c : cases) {
      Tensor x = RandomTensor(dt, c.in, 1, -100, 100);
      auto out = RunOp(op, {x, I64(c.shape)});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(SameTensor((*out)[0], WithDims(x, c.want))) << DataTypeName(dt) << ShapeToString(c.in);
    }
  }
}

TEST(Reshape, AllowZero) {
  const Tensor x = RandomTensor(DataType::kFloat32, {0, 3}, 2);
  const OperatorDef copy = ParseOp(R"(type: "Reshape" input: "x" input: "s" output: "y")");
  const OperatorDef zero = ParseOp(R"(type: "Reshape" input: "x" input: "s" output: "y" )" + Int("allowzero", 1));
  // allowzero = 0: the 0 copies dim 1 (3), and [3, 3] has 9 elements, not 0.
  ExpectError(copy, {x, I64({3, 0})}, {"Reshape", "'shape'"});
  auto out = RunOp(zero, {x, I64({3, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dims(), (Shape{3, 0}));
}

TEST(Reshape, Errors) {
  const OperatorDef op = ParseOp(R"(type: "Reshape" name: "r" input: "x" input: "s" output: "y")");
  const Tensor x = RandomTensor(DataType::kFloat32, {2, 3}, 3);
  ExpectError(op, {x, I64({4, 2})}, {"Reshape", "'shape'", "[4, 2]", "[2, 3]"});
  ExpectError(op, {x, I64({-1, -1})}, {"more than one -1"});
  ExpectError(op, {x, I64({-2, -3})}, {"negative"});
  ExpectError(op, {x, I64({2, 3, 0})}, {"0 copies"});
  ExpectError(op, {x, I64({0, 5, -1})}, {"-1"});
}

TEST(Reshape, ElementCountPastInt64) {
  // 2^32 * 2^32 = 2^64 overflows: an error, not a wrapped count. With a 0 dim
  // (allowzero) the count is 0 whatever the other dims: [0, 2^40, 2^40] holds
  // the 0 elements of a [0, 3].
  const OperatorDef op = ParseOp(R"(type: "Reshape" name: "r" input: "x" input: "s" output: "y")");
  const int64_t k32 = int64_t{1} << 32, k40 = int64_t{1} << 40;
  ExpectError(op, {RandomTensor(DataType::kFloat32, {2, 3}, 3), I64({k32, k32})},
              {"Reshape", "'shape'", "[4294967296, 4294967296]", "overflows int64"});
  auto out = RunOp(ParseOp(R"(type: "Reshape" input: "x" input: "s" output: "y" )" + Int("allowzero", 1)),
                   {RandomTensor(DataType::kFloat32, {0, 3}, 2), I64({0, k40, k40})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dims(), (Shape{0, k40, k40}));
}

// ---- Flatten --------------------------------------------------------------------
TEST(Flatten, AllAxes) {
  const Tensor x = RandomTensor(DataType::kInt16, {2, 3, 4, 5}, 4, -100, 100);
  const std::vector<Shape> want = {{1, 120}, {2, 60}, {6, 20}, {24, 5}, {120, 1}};
  for (int64_t axis = -4; axis <= 4; ++axis) {
    auto out = RunOp(ParseOp(R"(type: "Flatten" input: "x" output: "y" )" + Int("axis", axis)), {x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(SameTensor((*out)[0], WithDims(x, want[axis < 0 ? axis + 4 : axis]))) << axis;
  }
  auto dflt = RunOp(ParseOp(R"(type: "Flatten" input: "x" output: "y")"), {x});
  ASSERT_TRUE(dflt.ok());
  EXPECT_EQ((*dflt)[0].dims(), (Shape{2, 60}));
}

TEST(Flatten, ScalarZeroSizeAndErrors) {
  const Tensor s = RandomTensor(DataType::kFloat64, {}, 5);
  auto out = RunOp(ParseOp(R"(type: "Flatten" input: "x" output: "y" )" + Int("axis", 0)), {s});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], WithDims(s, {1, 1})));
  auto z = RunOp(ParseOp(R"(type: "Flatten" input: "x" output: "y")"), {RandomTensor(DataType::kFloat32, {2, 0, 3}, 6)});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].dims(), (Shape{2, 0}));
  ExpectError(ParseOp(R"(type: "Flatten" input: "x" output: "y" )" + Int("axis", 4)),
              {RandomTensor(DataType::kFloat32, {2, 3, 4}, 7)}, {"Flatten", "axis 4"});
}

// ---- Squeeze / Unsqueeze -----------------------------------------------------------
TEST(Squeeze, AxesInputAttributeAndAll) {
  const OperatorDef in_form = ParseOp(R"(type: "Squeeze" input: "x" input: "axes" output: "y")");
  const OperatorDef no_axes = ParseOp(R"(type: "Squeeze" input: "x" output: "y")");
  for (DataType dt : AllTypes()) {
    const Tensor x = RandomTensor(dt, {1, 3, 1, 2}, 8, -100, 100);
    auto all = RunOp(no_axes, {x});
    ASSERT_TRUE(all.ok()) << all.status();
    EXPECT_TRUE(SameTensor((*all)[0], WithDims(x, {3, 2})));
    auto two = RunOp(in_form, {x, I64({0, -2})});
    ASSERT_TRUE(two.ok()) << two.status();
    EXPECT_TRUE(SameTensor((*two)[0], WithDims(x, {3, 2})));
    auto one = RunOp(in_form, {x, I64({2})});
    ASSERT_TRUE(one.ok()) << one.status();
    EXPECT_TRUE(SameTensor((*one)[0], WithDims(x, {1, 3, 2})));
    auto attr = RunOp(ParseOp(R"(type: "Squeeze" input: "x" output: "y" )" + Ints("axes", {-4})), {x});
    ASSERT_TRUE(attr.ok()) << attr.status();
    EXPECT_TRUE(SameTensor((*attr)[0], WithDims(x, {3, 1, 2})));
  }
  // To rank 0, and a zero-size dim that stays.
  auto scalar = RunOp(no_axes, {RandomTensor(DataType::kFloat32, {1, 1}, 9)});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ((*scalar)[0].dims(), Shape{});
  auto zero = RunOp(no_axes, {RandomTensor(DataType::kFloat32, {1, 0}, 9)});
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ((*zero)[0].dims(), Shape{0});
}

TEST(Squeeze, Errors) {
  const OperatorDef op = ParseOp(R"(type: "Squeeze" name: "sq" input: "x" input: "axes" output: "y")");
  const Tensor x = RandomTensor(DataType::kFloat32, {1, 3}, 10);
  ExpectError(op, {x, I64({1})}, {"Squeeze", "axis 1", "size 3"});
  ExpectError(op, {x, I64({2})}, {"Squeeze", "axis 2", "out of range"});
  ExpectError(op, {x, I64({-3})}, {"out of range"});
}

TEST(Unsqueeze, AxesInputAttributeScalar) {
  const OperatorDef op = ParseOp(R"(type: "Unsqueeze" input: "x" input: "axes" output: "y")");
  struct Case { Shape in; std::vector<int64_t> axes; Shape want; };
  const std::vector<Case> cases = {{{}, {0}, {1}},           {{}, {0, -1}, {1, 1}},        {{3, 4}, {0, -1}, {1, 3, 4, 1}},
                                   {{3, 4}, {1}, {3, 1, 4}}, {{3, 4}, {-2}, {3, 1, 4}},    {{3, 4}, {3, 0}, {1, 3, 4, 1}},
                                   {{0, 2}, {1}, {0, 1, 2}}, {{2}, {0, 2, 3}, {1, 2, 1, 1}}};
  for (DataType dt : AllTypes()) {
    for (const Case& c : cases) {
      const Tensor x = RandomTensor(dt, c.in, 11, -100, 100);
      auto out = RunOp(op, {x, I64(c.axes)});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(SameTensor((*out)[0], WithDims(x, c.want))) << ShapeToString(c.in);
    }
  }
  const Tensor x = RandomTensor(DataType::kFloat32, {3}, 12);
  auto attr = RunOp(ParseOp(R"(type: "Unsqueeze" input: "x" output: "y" )" + Ints("axes", {-1, 0})), {x});
  ASSERT_TRUE(attr.ok()) << attr.status();
  EXPECT_TRUE(SameTensor((*attr)[0], WithDims(x, {1, 3, 1})));
}

TEST(Unsqueeze, Errors) {
  const OperatorDef op = ParseOp(R"(type: "Unsqueeze" input: "x" input: "axes" output: "y")");
  const Tensor x = RandomTensor(DataType::kFloat32, {3}, 13);
  ExpectError(op, {x, I64({2})}, {"Unsqueeze", "axis 2", "out of range"});
  ExpectError(op, {x, I64({0, -3})}, {"Unsqueeze", "twice"});
  ExpectError(ParseOp(R"(type: "Unsqueeze" input: "x" output: "y")"), {x}, {"Unsqueeze", "axes"});
}

// ---- Identity / Dropout ----------------------------------------------------------------
TEST(Identity, AllDtypesScalarAndZeroSize) {
  const OperatorDef op = ParseOp(R"(type: "Identity" input: "x" output: "y")");
  for (DataType dt : AllTypes()) {
    for (Shape s : {Shape{2, 3}, Shape{}, Shape{0, 5}}) {
      const Tensor x = RandomTensor(dt, s, 14, -100, 100);
      auto out = RunOp(op, {x});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(SameTensor((*out)[0], x));
    }
  }
}

TEST(Dropout, InferenceIsIdentityWithTrueMask) {
  const OperatorDef op = ParseOp(R"(type: "Dropout" input: "x" input: "r" input: "t" output: "y" output: "m")");
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kInt32}) {
    for (Shape s : {Shape{4, 5}, Shape{}, Shape{0, 3}}) {
      const Tensor x = RandomTensor(dt, s, 15, -5, 5);
      auto out = RunOp(op, {x, Tensor::FromVector<float>({}, {0.3f}), Tensor::FromVector<bool>({}, {false})});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(SameTensor((*out)[0], x));
      Tensor ones = Tensor::Zeros(DataType::kBool, s);
      for (int64_t i = 0; i < ones.num_elements(); ++i) ones.data<bool>()[i] = true;
      EXPECT_TRUE(SameTensor((*out)[1], ones));
    }
  }
  // Only data; the opset-7 ratio attribute; training with ratio 0 drops nothing.
  const Tensor x = RandomTensor(DataType::kFloat32, {3}, 16);
  auto plain = RunOp(ParseOp(R"(type: "Dropout" input: "x" output: "y")"), {x});
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_TRUE(SameTensor((*plain)[0], x));
  auto attr = RunOp(ParseOp(R"(type: "Dropout" input: "x" output: "y" arg { name: "ratio" f: 0.2 })"), {x});
  ASSERT_TRUE(attr.ok()) << attr.status();
  auto zero = RunOp(op, {x, Tensor::FromVector<float>({}, {0.0f}), Tensor::FromVector<bool>({}, {true})});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_TRUE(SameTensor((*zero)[0], x));
}

// Training mode: kept elements scaled by 1 / (1 - ratio), the rest 0, the
// mask saying which; the same seed draws the same masks in a new net; a
// non-float dtype is refused.
TEST(Dropout, TrainingModeDropsAndScales) {
  const Tensor x = RandomTensor(DataType::kFloat32, {64}, 17, 0.5, 1.5);
  const OperatorDef op = ParseOp(R"(type: "Dropout" name: "d" input: "x" input: "r" input: "t" output: "y"
      output: "mask" arg { name: "seed" i: 3 })");
  const std::vector<Tensor> in = {x, Tensor::FromVector<float>({}, {0.5f}), Tensor::FromVector<bool>({}, {true})};
  auto out = RunSingleOp(op, in);
  ASSERT_TRUE(out.ok()) << out.status();
  int kept = 0;
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const bool m = (*out)[1].data<bool>()[i];
    kept += m;
    EXPECT_FLOAT_EQ((*out)[0].data<float>()[i], m ? x.data<float>()[i] * 2.0f : 0.0f) << i;
  }
  EXPECT_GT(kept, 16);  // Binomial(64, 0.5): 16 < kept < 48 but for a 1e-4 chance
  EXPECT_LT(kept, 48);
  auto again = RunSingleOp(op, in);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(SameTensor((*again)[1], (*out)[1]));
  auto ints = RunSingleOp(op, {Tensor::FromVector<int32_t>({2}, {1, 2}), in[1], in[2]});
  ASSERT_FALSE(ints.ok());
  EXPECT_EQ(ints.status().code(), absl::StatusCode::kUnimplemented) << ints.status();
  ExpectError(ParseOp(R"(type: "Dropout" input: "x" input: "r" output: "y")"),
              {x, Tensor::FromVector<float>({2}, {0.1f, 0.2f})}, {"Dropout", "'ratio'"});
  ExpectError(op, {x, Tensor::FromVector<float>({}, {1.0f}), in[2]}, {"Dropout", "[0, 1)"});
}

// ---- Shape / Constant --------------------------------------------------------------------
TEST(Shape, StartEndAndScalar) {
  const Tensor x = RandomTensor(DataType::kBool, {2, 3, 4}, 18);
  struct Case { std::string attrs; std::vector<int64_t> want; };
  const std::vector<Case> cases = {{"", {2, 3, 4}},
                                   {Int("start", 1), {3, 4}},
                                   {Int("end", -1), {2, 3}},
                                   {Int("start", -2) + Int("end", 10), {3, 4}},
                                   {Int("start", -10) + Int("end", 1), {2}},
                                   {Int("start", 2) + Int("end", 1), {}}};
  for (const Case& c : cases) {
    auto out = RunOp(ParseOp(R"(type: "Shape" input: "x" output: "y" )" + c.attrs), {x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(SameTensor((*out)[0], I64(c.want))) << c.attrs;
  }
  auto scalar = RunOp(ParseOp(R"(type: "Shape" input: "x" output: "y")"), {RandomTensor(DataType::kInt8, {}, 19)});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_TRUE(SameTensor((*scalar)[0], I64({})));
  auto zero = RunOp(ParseOp(R"(type: "Shape" input: "x" output: "y")"), {RandomTensor(DataType::kInt8, {0, 7}, 19)});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_TRUE(SameTensor((*zero)[0], I64({0, 7})));
}

TEST(Constant, EveryValueAttribute) {
  auto run = [](const std::string& arg) { return RunOp(ParseOp(R"(type: "Constant" output: "y" )" + arg), {}); };
  auto t = run(R"(arg { name: "value" t { dims: 2 dims: 2 data_type: 7 int64_data: [1, -2, 3, 4] } })");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(SameTensor((*t)[0], Tensor::FromVector<int64_t>({2, 2}, {1, -2, 3, 4})));
  // float16 bits through int32_data: 1.5 = 0x3E00, -2 = 0xC000.
  auto h = run(R"(arg { name: "value" t { dims: 2 data_type: 10 int32_data: [15872, 49152] } })");
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_EQ((*h)[0].dtype(), DataType::kFloat16);
  EXPECT_EQ((*h)[0].ElementAsDouble(0), 1.5);
  EXPECT_EQ((*h)[0].ElementAsDouble(1), -2.0);
  auto scalar = run(R"(arg { name: "value" t { data_type: 1 float_data: 2.5 } })");
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_TRUE(SameTensor((*scalar)[0], Tensor::FromVector<float>({}, {2.5f})));
  auto f = run(R"(arg { name: "value_float" f: 0.25 })");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(SameTensor((*f)[0], Tensor::FromVector<float>({}, {0.25f})));
  auto fs = run(R"(arg { name: "value_floats" floats: [1, 2, 3] })");
  ASSERT_TRUE(fs.ok()) << fs.status();
  EXPECT_TRUE(SameTensor((*fs)[0], Tensor::FromVector<float>({3}, {1, 2, 3})));
  auto i = run(Int("value_int", -7));
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_TRUE(SameTensor((*i)[0], Tensor::FromVector<int64_t>({}, {-7})));
  auto is = run(Ints("value_ints", {5, 6}));
  ASSERT_TRUE(is.ok()) << is.status();
  EXPECT_TRUE(SameTensor((*is)[0], I64({5, 6})));
  auto empty = run(R"(arg { name: "value" t { dims: 0 data_type: 1 } })");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].dims(), Shape{0});
}

TEST(Constant, Errors) {
  ExpectError(ParseOp(R"(type: "Constant" output: "y")"), {}, {"Constant", "exactly one"});
  ExpectError(ParseOp(R"(type: "Constant" output: "y" arg { name: "value_float" f: 1 } )" + Int("value_int", 1)), {},
              {"Constant", "exactly one"});
  ExpectError(ParseOp(R"(type: "Constant" output: "y" arg { name: "value_string" s: "a" })"), {}, {"string"});
}

// ---- Concat ------------------------------------------------------------------------------
TEST(Concat, AllDtypesAxesAndZeroSize) {
  const std::string op3 = R"(type: "Concat" input: "a" input: "b" input: "c" output: "y" )";
  for (DataType dt : AllTypes()) {
    for (int64_t axis = -3; axis < 3; ++axis) {
      const int64_t a = axis < 0 ? axis + 3 : axis;
      Shape sa{2, 3, 4}, sb = sa, sc = sa;
      sb[a] = 1;
      sc[a] = 0;  // a zero-size input
      const std::vector<Tensor> in = {RandomTensor(dt, sa, 20, -100, 100), RandomTensor(dt, sb, 21, -100, 100),
                                      RandomTensor(dt, sc, 22, -100, 100)};
      auto out = RunOp(ParseOp(op3 + Int("axis", axis)), in);
      ASSERT_TRUE(out.ok()) << out.status();
      Shape want = sa;
      want[a] = sa[a] + sb[a];
      Tensor ref = Gathered(in, want, [&](const Shape& o) {
        Shape idx = o;
        if (o[a] < sa[a]) return std::make_pair(0, idx);
        idx[a] -= sa[a];
        return std::make_pair(1, idx);
      });
      EXPECT_TRUE(SameTensor((*out)[0], ref)) << DataTypeName(dt) << " axis " << axis;
    }
  }
  // One input; all inputs empty.
  const Tensor x = RandomTensor(DataType::kFloat32, {2, 2}, 23);
  auto one = RunOp(ParseOp(R"(type: "Concat" input: "a" output: "y" )" + Int("axis", -1)), {x});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_TRUE(SameTensor((*one)[0], x));
  const Tensor e = RandomTensor(DataType::kFloat32, {0, 2}, 24);
  auto empty = RunOp(ParseOp(R"(type: "Concat" input: "a" input: "b" output: "y" )" + Int("axis", 0)), {e, e});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].dims(), (Shape{0, 2}));
}

TEST(Concat, Errors) {
  const OperatorDef op = ParseOp(R"(type: "Concat" name: "cat" input: "a" input: "b" output: "y" )" + Int("axis", 1));
  const Tensor a = RandomTensor(DataType::kFloat32, {2, 3}, 25);
  ExpectError(op, {a, RandomTensor(DataType::kFloat32, {3, 3}, 26)}, {"Concat", "input 1", "[3, 3]"});
  ExpectError(op, {a, RandomTensor(DataType::kFloat32, {2, 3, 1}, 26)}, {"Concat", "input 1"});
  ExpectError(ParseOp(R"(type: "Concat" input: "a" output: "y" )" + Int("axis", 2)), {a}, {"Concat", "axis 2"});
  ExpectError(ParseOp(R"(type: "Concat" input: "a" output: "y" )" + Int("axis", 0)),
              {RandomTensor(DataType::kFloat32, {}, 27)}, {"Concat", "rank 0"});
  ExpectError(op, {a, RandomTensor(DataType::kFloat64, {2, 3}, 26)}, {"float64"});  // one dtype for T
}

TEST(Concat, AxisSumPastInt64) {
  // Empty inputs [0, 2^63 - 1] and [0, 1]: the axis-1 sum overflows int64.
  const OperatorDef op = ParseOp(R"(type: "Concat" name: "cat" input: "a" input: "b" output: "y" )" + Int("axis", 1));
  ExpectError(op,
              {Tensor::Zeros(DataType::kFloat32, {0, std::numeric_limits<int64_t>::max()}),
               Tensor::Zeros(DataType::kFloat32, {0, 1})},
              {"Concat", "axis 1", "overflows int64"});
}

// ---- Split -----------------------------------------------------------------------------
// Checks outputs against slices of x along axis with the given sizes.
void ExpectSplit(const std::vector<Tensor>& out, const Tensor& x, int64_t axis, const std::vector<int64_t>& sizes) {
  ASSERT_EQ(out.size(), sizes.size());
  int64_t at = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape s = x.dims();
    s[axis] = sizes[i];
    Tensor ref = Gathered({x}, s, [&](const Shape& o) {
      Shape idx = o;
      idx[axis] += at;
      return std::make_pair(0, idx);
    });
    EXPECT_TRUE(SameTensor(out[i], ref)) << "output " << i;
    at += sizes[i];
  }
}

TEST(Split, InputAttributeEqualAndUneven) {
  const std::string three = R"(type: "Split" input: "x" input: "s" output: "a" output: "b" output: "c" )";
  for (DataType dt : AllTypes()) {
    const Tensor x = RandomTensor(dt, {6, 4}, 28, -100, 100);
    auto eq = RunOp(ParseOp(R"(type: "Split" input: "x" output: "a" output: "b" output: "c")"), {x});
    ASSERT_TRUE(eq.ok()) << eq.status();
    ExpectSplit(*eq, x, 0, {2, 2, 2});
    auto in = RunOp(ParseOp(three), {x, I64({1, 2, 3})});
    ASSERT_TRUE(in.ok()) << in.status();
    ExpectSplit(*in, x, 0, {1, 2, 3});
    auto neg = RunOp(ParseOp(three + Int("axis", -1)), {x, I64({1, 0, 3})});
    ASSERT_TRUE(neg.ok()) << neg.status();
    ExpectSplit(*neg, x, 1, {1, 0, 3});
  }
  const Tensor x = RandomTensor(DataType::kFloat32, {3, 7}, 29);
  auto attr = RunOp(ParseOp(R"(type: "Split" input: "x" output: "a" output: "b" )" + Int("axis", 1) + Ints("split", {5, 2})), {x});
  ASSERT_TRUE(attr.ok()) << attr.status();
  ExpectSplit(*attr, x, 1, {5, 2});
  // Opset 18: num_outputs with an uneven dim: ceil(7 / 3) = 3, the last one smaller.
  auto uneven = RunOp(ParseOp(R"(type: "Split" input: "x" output: "a" output: "b" output: "c" )" + Int("axis", 1) +
                            Int("num_outputs", 3)), {x});
  ASSERT_TRUE(uneven.ok()) << uneven.status();
  ExpectSplit(*uneven, x, 1, {3, 3, 1});
  // A zero-size input.
  const Tensor z = RandomTensor(DataType::kFloat32, {0, 4}, 30);
  auto zero = RunOp(ParseOp(R"(type: "Split" input: "x" output: "a" output: "b" )" + Int("axis", 1)), {z});
  ASSERT_TRUE(zero.ok()) << zero.status();
  ExpectSplit(*zero, z, 1, {2, 2});
}

TEST(Split, Errors) {
  const Tensor x = RandomTensor(DataType::kFloat32, {6, 4}, 31);
  const OperatorDef op = ParseOp(R"(type: "Split" name: "sp" input: "x" input: "s" output: "a" output: "b")");
  ExpectError(op, {x, I64({1, 2})}, {"Split", "[1, 2]", "6"});
  ExpectError(op, {x, I64({1, 2, 3})}, {"Split"});
  ExpectError(op, {x, I64({7, -1})}, {"Split"});
  ExpectError(ParseOp(R"(type: "Split" input: "x" output: "a" output: "b" )" + Int("num_outputs", 3)), {x},
              {"num_outputs"});
  ExpectError(ParseOp(R"(type: "Split" input: "x" output: "a" output: "b" )" + Int("axis", 2)), {x}, {"axis 2"});
}

TEST(Split, SizesWhoseSumOverflows) {
  // (2^63 - 1) + (2^63 - 1) + 8 wraps to 6, dim 0 of x: still an error.
  const int64_t max = std::numeric_limits<int64_t>::max();
  ExpectError(ParseOp(R"(type: "Split" name: "sp" input: "x" input: "s" output: "a" output: "b" output: "c")"),
              {RandomTensor(DataType::kFloat32, {6, 4}, 31), I64({max, max, 8})},
              {"Split", "9223372036854775807", "summing to dim 6"});
}

// ---- Slice ---------------------------------------------------------------------------------
// The indices data[start:end:step] visits on a dim of size d, walked one by
// one, with the clamping the ONNX Slice-13 text gives (for negative steps a
// start before the first element clamps to 0, where Python would give an
// empty range; ONNX Runtime follows the ONNX text).
std::vector<int64_t> SliceIndices(int64_t d, int64_t start, int64_t end, int64_t step) {
  std::vector<int64_t> idx;
  if (d == 0) return idx;
  if (start < 0) start += d;
  if (end < 0) end += d;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, d);
    end = std::clamp<int64_t>(end, 0, d);
    for (int64_t i = start; i < end; i = end - i > step ? i + step : end) idx.push_back(i);
  } else {
    start = std::clamp<int64_t>(start, 0, d - 1);
    end = std::clamp<int64_t>(end, -1, d - 1);
    const int64_t back = step == kMin ? kMax : -step;
    for (int64_t i = start; i > end; i = i - end > back ? i - back : end) idx.push_back(i);
  }
  return idx;
}

struct SliceCase {
  Shape in;
  std::vector<int64_t> starts, ends, axes, steps;  // empty axes/steps: the input is absent
};

Tensor SliceRef(const Tensor& x, const SliceCase& c) {
  std::vector<std::vector<int64_t>> pick(x.rank());
  for (size_t d = 0; d < x.rank(); ++d) {
    for (int64_t i = 0; i < x.dim(d); ++i) pick[d].push_back(i);
  }
  for (size_t k = 0; k < c.starts.size(); ++k) {
    int64_t a = c.axes.empty() ? static_cast<int64_t>(k) : c.axes[k];
    if (a < 0) a += static_cast<int64_t>(x.rank());
    pick[a] = SliceIndices(x.dim(a), c.starts[k], c.ends[k], c.steps.empty() ? 1 : c.steps[k]);
  }
  Shape dims;
  for (const auto& p : pick) dims.push_back(static_cast<int64_t>(p.size()));
  return Gathered({x}, dims, [&](const Shape& o) {
    Shape idx(o.size());
    for (size_t d = 0; d < o.size(); ++d) idx[d] = pick[d][o[d]];
    return std::make_pair(0, idx);
  });
}

TEST(Slice, MatchesReference) {
  const std::vector<SliceCase> cases = {
      {{5, 6, 7}, {1}, {4}, {}, {}},
      {{5, 6, 7}, {0, -1}, {kMax, -kMax}, {2, 1}, {2, -1}},  // axis 1 reversed
      {{5, 6, 7}, {-1}, {kMin}, {0}, {-2}},
      {{5, 6, 7}, {10}, {20}, {}, {}},                        // empty
      {{5, 6, 7}, {-100}, {100}, {-1}, {3}},                  // clamped
      {{5, 6, 7}, {100, 2}, {0, 5}, {0, -2}, {-1, 2}},        // start past the end, walking back
      {{5, 6, 7}, {1, 1, 1}, {-1, -1, -1}, {}, {kMax, 2, -1}},  // huge step; a step of -1 from 1 to -1 (= 6) is empty
      {{5, 6, 7}, {4}, {-kMax}, {-3}, {kMin}},                // one element
      {{4, 0, 3}, {0}, {2}, {0}, {}},                         // zero-size input
      {{8}, {-3}, {kMax}, {}, {}},
      {{8}, {7}, {-9}, {}, {-3}},
      {{6}, {-10}, {kMin}, {}, {-1}},                         // start clamps to 0: one element
      {{0, 3}, {-1}, {kMin}, {0}, {-1}},                      // walking back over a zero-size dim
      {{}, {}, {}, {}, {}},                                   // rank 0, nothing sliced
  };
  const OperatorDef op5 = ParseOp(R"(type: "Slice" input: "x" input: "s" input: "e" input: "a" input: "t" output: "y")");
  for (DataType dt : AllTypes()) {
    for (const SliceCase& c : cases) {
      const Tensor x = RandomTensor(dt, c.in, 32, -100, 100);
      OperatorDef op = op5;
      std::vector<Tensor> in = {x, I64(c.starts), I64(c.ends), I64(c.axes), I64(c.steps)};
      if (c.axes.empty()) op.set_input(3, "");
      if (c.steps.empty()) op.set_input(4, "");
      auto out = RunOp(op, in);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(SameTensor((*out)[0], SliceRef(x, c)))
          << DataTypeName(dt) << " " << ShapeToString(c.in) << " starts " << ShapeToString(c.starts);
    }
  }
}

TEST(Slice, Int32IndicesAndOpset1Attributes) {
  const Tensor x = RandomTensor(DataType::kFloat32, {5, 6}, 33);
  const SliceCase c{{5, 6}, {-2, 1}, {0, 6}, {1, 0}, {-1, 2}};
  auto out = RunOp(ParseOp(R"(type: "Slice" input: "x" input: "s" input: "e" input: "a" input: "t" output: "y")"),
                 {x, I32({-2, 1}), I32({0, 6}), I32({1, 0}), I32({-1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], SliceRef(x, c)));
  auto attr = RunOp(ParseOp(R"(type: "Slice" input: "x" output: "y" )" + Ints("starts", {1, -3}) + Ints("ends", {kMax, -1}) +
                          Ints("axes", {0, -1})), {x});
  ASSERT_TRUE(attr.ok()) << attr.status();
  EXPECT_TRUE(SameTensor((*attr)[0], SliceRef(x, {{5, 6}, {1, -3}, {kMax, -1}, {0, 1}, {}})));
}

TEST(Slice, Errors) {
  const Tensor x = RandomTensor(DataType::kFloat32, {5, 6}, 34);
  const OperatorDef op = ParseOp(R"(type: "Slice" name: "sl" input: "x" input: "s" input: "e" input: "a" input: "t" output: "y")");
  ExpectError(op, {x, I64({0}), I64({2}), I64({0}), I64({0})}, {"Slice", "steps"});
  ExpectError(op, {x, I64({0, 0}), I64({2, 2}), I64({1, -1}), I64({1, 1})}, {"Slice", "axis"});
  ExpectError(op, {x, I64({0}), I64({2}), I64({2}), I64({1})}, {"Slice", "axis 2"});
  ExpectError(op, {x, I64({0, 1}), I64({2}), I64({0, 1}), I64({1, 1})}, {"Slice", "same length"});
  ExpectError(ParseOp(R"(type: "Slice" input: "x" output: "y")"), {x}, {"Slice", "starts"});
}

// ---- Transpose ------------------------------------------------------------------------------
TEST(Transpose, AllDtypesPermutations) {
  const std::vector<std::vector<int64_t>> perms = {{}, {0, 1, 2, 3}, {0, 2, 1, 3}, {0, 2, 3, 1}, {3, 1, 0, 2}, {-1, 0, -2, 1}};
  for (DataType dt : AllTypes()) {
    for (Shape s : {Shape{2, 3, 4, 5}, Shape{2, 0, 3, 1}, Shape{1, 33, 1, 70}}) {
      const Tensor x = RandomTensor(dt, s, 35, -100, 100);
      for (const auto& perm : perms) {
        std::vector<int64_t> p = perm.empty() ? std::vector<int64_t>{3, 2, 1, 0} : perm;
        for (int64_t& a : p) a = a < 0 ? a + 4 : a;
        Shape want;
        for (int64_t a : p) want.push_back(s[a]);
        auto out = RunOp(ParseOp(R"(type: "Transpose" input: "x" output: "y" )" + (perm.empty() ? "" : Ints("perm", perm))), {x});
        ASSERT_TRUE(out.ok()) << out.status();
        Tensor ref = Gathered({x}, want, [&](const Shape& o) {
          Shape idx(4);
          for (int k = 0; k < 4; ++k) idx[p[k]] = o[k];
          return std::make_pair(0, idx);
        });
        EXPECT_TRUE(SameTensor((*out)[0], ref)) << DataTypeName(dt) << ShapeToString(s) << " perm " << ShapeToString(perm);
      }
    }
  }
  // A large 2-D case (takes the parallel path), a scalar and 1-D.
  const Tensor big = RandomTensor(DataType::kFloat32, {301, 517}, 36);
  auto out = RunOp(ParseOp(R"(type: "Transpose" input: "x" output: "y")"), {big});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(SameTensor((*out)[0], Gathered({big}, {517, 301}, [](const Shape& o) {
    return std::make_pair(0, Shape{o[1], o[0]});
  })));
  for (Shape s : {Shape{}, Shape{7}}) {
    const Tensor x = RandomTensor(DataType::kInt64, s, 37, -100, 100);
    auto r = RunOp(ParseOp(R"(type: "Transpose" input: "x" output: "y")"), {x});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(SameTensor((*r)[0], x));
  }
}

TEST(Transpose, Errors) {
  const Tensor x = RandomTensor(DataType::kFloat32, {2, 3, 4}, 38);
  ExpectError(ParseOp(R"(type: "Transpose" input: "x" output: "y" )" + Ints("perm", {0, 1})), {x}, {"Transpose", "perm"});
  ExpectError(ParseOp(R"(type: "Transpose" input: "x" output: "y" )" + Ints("perm", {0, 1, 1})), {x}, {"permutation"});
  ExpectError(ParseOp(R"(type: "Transpose" input: "x" output: "y" )" + Ints("perm", {0, 1, 3})), {x}, {"permutation"});
}

// ---- Gather -------------------------------------------------------------------------------
TEST(Gather, AllDtypesAxesIndexShapes) {
  struct Case { int64_t axis; Shape ishape; std::vector<int64_t> idx; };
  const Shape ds{5, 4, 3};
  const std::vector<Case> cases = {{0, {2}, {4, -5}},         {1, {2, 3}, {0, 3, -1, 2, 2, -4}}, {-1, {}, {-1}},
                                   {-2, {1, 1}, {1}},         {2, {0}, {}},                       {0, {3, 2}, {0, 1, 2, 3, 4, -1}}};
  for (DataType dt : AllTypes()) {
    const Tensor x = RandomTensor(dt, ds, 39, -100, 100);
    for (const Case& c : cases) {
      const int64_t a = c.axis < 0 ? c.axis + 3 : c.axis;
      Shape want(ds.begin(), ds.begin() + a);
      want.insert(want.end(), c.ishape.begin(), c.ishape.end());
      want.insert(want.end(), ds.begin() + a + 1, ds.end());
      Tensor ref = Gathered({x}, want, [&](const Shape& o) {
        Shape iidx(o.begin() + a, o.begin() + a + c.ishape.size());
        int64_t v = c.idx[Ravel(iidx, c.ishape)];
        Shape idx(o.begin(), o.begin() + a);
        idx.push_back(v < 0 ? v + ds[a] : v);
        idx.insert(idx.end(), o.begin() + a + c.ishape.size(), o.end());
        return std::make_pair(0, idx);
      });
      const OperatorDef op = ParseOp(R"(type: "Gather" input: "x" input: "i" output: "y" )" + Int("axis", c.axis));
      auto out64 = RunOp(op, {x, Tensor::FromVector<int64_t>(c.ishape, c.idx)});
      ASSERT_TRUE(out64.ok()) << out64.status();
      EXPECT_TRUE(SameTensor((*out64)[0], ref)) << DataTypeName(dt) << " axis " << c.axis;
      auto out32 = RunOp(op, {x, Tensor::FromVector<int32_t>(c.ishape, std::vector<int32_t>(c.idx.begin(), c.idx.end()))});
      ASSERT_TRUE(out32.ok()) << out32.status();
      EXPECT_TRUE(SameTensor((*out32)[0], ref)) << DataTypeName(dt) << " axis " << c.axis << " int32 indices";
    }
  }
  // Known values: rows 2 and 0 of a 3x2 matrix.
  auto out = RunOp(ParseOp(R"(type: "Gather" input: "x" input: "i" output: "y")"),
                 {Tensor::FromVector<float>({3, 2}, {1, 2, 3, 4, 5, 6}), I64({2, 0})});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(SameTensor((*out)[0], Tensor::FromVector<float>({2, 2}, {5, 6, 1, 2})));
}

TEST(Gather, Errors) {
  const Tensor x = RandomTensor(DataType::kFloat32, {3, 2}, 40);
  const OperatorDef op = ParseOp(R"(type: "Gather" name: "g" input: "x" input: "i" output: "y")");
  ExpectError(op, {x, I64({0, 3})}, {"Gather", "'g'", "'indices'", "3", "size 3"});
  ExpectError(op, {x, I32({-4})}, {"Gather", "'indices'", "-4"});
  ExpectError(ParseOp(R"(type: "Gather" input: "x" input: "i" output: "y" )" + Int("axis", 2)), {x, I64({0})},
              {"Gather", "axis 2"});
  ExpectError(op, {RandomTensor(DataType::kFloat32, {}, 41), I64({0})}, {"Gather", "rank 0"});
  ExpectError(op, {x, Tensor::FromVector<float>({1}, {0})}, {"indices"});  // float indices
}

// ---- Cast --------------------------------------------------------------------------------------
Tensor OneValue(DataType dt, double v) {
  Tensor t = Tensor::Zeros(dt, {});
  switch (dt) {
    case DataType::kFloat32: t.data<float>()[0] = static_cast<float>(v); break;
    case DataType::kFloat64: t.data<double>()[0] = v; break;
    case DataType::kFloat16: t.data<uint16_t>()[0] = sdk::Float16::FromFloat(static_cast<float>(v)); break;
    case DataType::kBFloat16: t.data<uint16_t>()[0] = sdk::BFloat16::FromFloat(static_cast<float>(v)); break;
    case DataType::kInt8: t.data<int8_t>()[0] = static_cast<int8_t>(v); break;
    case DataType::kUInt8: t.data<uint8_t>()[0] = static_cast<uint8_t>(v); break;
    case DataType::kInt16: t.data<int16_t>()[0] = static_cast<int16_t>(v); break;
    case DataType::kUInt16: t.data<uint16_t>()[0] = static_cast<uint16_t>(v); break;
    case DataType::kInt32: t.data<int32_t>()[0] = static_cast<int32_t>(v); break;
    case DataType::kUInt32: t.data<uint32_t>()[0] = static_cast<uint32_t>(v); break;
    case DataType::kInt64: t.data<int64_t>()[0] = static_cast<int64_t>(v); break;
    case DataType::kUInt64: t.data<uint64_t>()[0] = static_cast<uint64_t>(v); break;
    case DataType::kBool: t.data<bool>()[0] = v != 0; break;
    default: break;
  }
  return t;
}

OperatorDef CastTo(DataType to) {
  return ParseOp(R"(type: "Cast" name: "c" input: "x" output: "y" )" + Int("to", static_cast<int64_t>(to)));
}

bool IsSigned(DataType dt) {
  return dt != DataType::kUInt8 && dt != DataType::kUInt16 && dt != DataType::kUInt32 && dt != DataType::kUInt64 &&
         dt != DataType::kBool;
}

// Values every dtype holds exactly go through every pair unchanged (bool:
// nonzero is true) and come back with the same bytes.
TEST(Cast, AllPairsKnownValuesRoundTrip) {
  for (DataType from : AllTypes()) {
    std::vector<double> values = {0, 1, 2, 3, 100, 127};
    if (IsSigned(from)) values.insert(values.end(), {-1, -3, -128});
    if (from == DataType::kBool) values = {0, 1};
    for (DataType to : AllTypes()) {
      for (double v : values) {
        const Tensor x = OneValue(from, v);
        auto y = RunOp(CastTo(to), {x});
        ASSERT_TRUE(y.ok()) << y.status();
        const double want = to == DataType::kBool ? (v != 0) : (IsSigned(to) || v >= 0 ? v : std::nan(""));
        if (std::isnan(want)) continue;  // negative into unsigned: see Cast.KnownValues
        EXPECT_EQ((*y)[0].dtype(), to);
        EXPECT_EQ((*y)[0].ElementAsDouble(0), want) << DataTypeName(from) << " " << v << " -> " << DataTypeName(to);
        if (to == DataType::kBool && v != 0 && v != 1) continue;  // not invertible
        auto back = RunOp(CastTo(from), {(*y)[0]});
        ASSERT_TRUE(back.ok()) << back.status();
        EXPECT_TRUE(SameTensor((*back)[0], x)) << DataTypeName(from) << " " << v << " -> " << DataTypeName(to) << " -> back";
      }
    }
  }
}

TEST(Cast, KnownValues) {
  auto cast = [](const Tensor& x, DataType to) {
    auto y = RunOp(CastTo(to), {x});
    EXPECT_TRUE(y.ok()) << y.status();
    return y.ok() ? (*y)[0] : Tensor();
  };
  auto f32 = [](std::vector<float> v) { return Tensor::FromVector<float>({static_cast<int64_t>(v.size())}, v); };
  // Float to integer truncates toward zero; NaN gives 0.
  EXPECT_TRUE(SameTensor(cast(f32({1.5f, -1.5f, 2.99f, -0.5f, NAN}), DataType::kInt32),
                         Tensor::FromVector<int32_t>({5}, {1, -1, 2, 0, 0})));
  EXPECT_TRUE(SameTensor(cast(Tensor::FromVector<double>({1}, {3.9}), DataType::kInt64), I64({3})));
  // float16 / bfloat16 bits: 1.5 = 0x3E00 / 0x3FC0; 65504 is the largest half; 1e6 overflows to inf.
  Tensor h = cast(f32({1.5f, -2.0f, 65504.0f, 1e6f}), DataType::kFloat16);
  ASSERT_EQ(h.dtype(), DataType::kFloat16);
  EXPECT_EQ(h.data<uint16_t>()[0], 0x3E00);
  EXPECT_EQ(h.data<uint16_t>()[1], 0xC000);
  EXPECT_EQ(h.data<uint16_t>()[2], 0x7BFF);
  EXPECT_EQ(h.data<uint16_t>()[3], 0x7C00);
  Tensor b = cast(f32({1.5f}), DataType::kBFloat16);
  EXPECT_EQ(b.data<uint16_t>()[0], 0x3FC0);
  EXPECT_TRUE(SameTensor(cast(h, DataType::kFloat32), f32({1.5f, -2.0f, 65504.0f, INFINITY})));
  EXPECT_TRUE(SameTensor(cast(b, DataType::kFloat16), WithDims(OneValue(DataType::kFloat16, 1.5), {1})));
  // Bool: nonzero (NaN too) is true; true/false are 1/0.
  EXPECT_TRUE(SameTensor(cast(f32({0.0f, 0.5f, -2.0f, NAN, -0.0f}), DataType::kBool),
                         Tensor::FromVector<bool>({5}, {false, true, true, true, false})));
  EXPECT_TRUE(SameTensor(cast(Tensor::FromVector<bool>({2}, {true, false}), DataType::kFloat32), f32({1, 0})));
  EXPECT_TRUE(SameTensor(cast(Tensor::FromVector<bool>({2}, {true, false}), DataType::kInt64), I64({1, 0})));
  // Wrapping as numpy astype does on x86.
  EXPECT_TRUE(SameTensor(cast(Tensor::FromVector<int32_t>({2}, {300, -1}), DataType::kUInt8),
                         Tensor::FromVector<uint8_t>({2}, {44, 255})));
  EXPECT_TRUE(SameTensor(cast(f32({-1.0f, 300.0f}), DataType::kUInt8), Tensor::FromVector<uint8_t>({2}, {255, 44})));
  EXPECT_TRUE(SameTensor(cast(I64({int64_t{1} << 40}), DataType::kFloat32), f32({1099511627776.0f})));
  // Rank 0 and zero-size.
  EXPECT_TRUE(SameTensor(cast(Tensor::FromVector<float>({}, {7.9f}), DataType::kInt8), Tensor::FromVector<int8_t>({}, {7})));
  EXPECT_EQ(cast(RandomTensor(DataType::kFloat32, {0, 3}, 42), DataType::kFloat16).dims(), (Shape{0, 3}));
}

// Random float32 into every dtype against a per-element reference; the
// large case runs the parallel loop.
TEST(Cast, RandomFloatToEveryDtype) {
  for (int64_t n : {1000, 100000}) {
    const Tensor x = RandomTensor(DataType::kFloat32, {n}, 43, -300, 300);
    for (DataType to : AllTypes()) {
      Tensor ref = Tensor::Zeros(to, {n});
      for (int64_t i = 0; i < n; ++i) {
        const float v = x.data<float>()[i];
        const int64_t t = static_cast<int64_t>(std::trunc(v));
        switch (to) {
          case DataType::kFloat32: ref.data<float>()[i] = v; break;
          case DataType::kFloat64: ref.data<double>()[i] = v; break;
          case DataType::kFloat16: ref.data<uint16_t>()[i] = sdk::Float16::FromFloat(v); break;
          case DataType::kBFloat16: ref.data<uint16_t>()[i] = sdk::BFloat16::FromFloat(v); break;
          case DataType::kInt8: ref.data<int8_t>()[i] = static_cast<int8_t>(t); break;
          case DataType::kUInt8: ref.data<uint8_t>()[i] = static_cast<uint8_t>(t); break;
          case DataType::kInt16: ref.data<int16_t>()[i] = static_cast<int16_t>(t); break;
          case DataType::kUInt16: ref.data<uint16_t>()[i] = static_cast<uint16_t>(t); break;
          case DataType::kInt32: ref.data<int32_t>()[i] = static_cast<int32_t>(t); break;
          case DataType::kUInt32: ref.data<uint32_t>()[i] = static_cast<uint32_t>(t); break;
          case DataType::kInt64: ref.data<int64_t>()[i] = t; break;
          case DataType::kUInt64: ref.data<uint64_t>()[i] = static_cast<uint64_t>(t); break;
          case DataType::kBool: ref.data<bool>()[i] = v != 0; break;
          default: break;
        }
      }
      auto y = RunOp(CastTo(to), {x});
      ASSERT_TRUE(y.ok()) << y.status();
      EXPECT_TRUE(SameTensor((*y)[0], ref)) << "float32 -> " << DataTypeName(to) << " n " << n;
    }
  }
}

TEST(Cast, Errors) {
  const Tensor x = RandomTensor(DataType::kFloat32, {2}, 44);
  ExpectError(ParseOp(R"(type: "Cast" input: "x" output: "y" )" + Int("to", 14)), {x}, {"Cast", "'to'", "14"});  // complex64
  ExpectError(ParseOp(R"(type: "Cast" input: "x" output: "y" )" + Int("to", 99)), {x}, {"Cast", "99"});
  ExpectError(ParseOp(R"(type: "Cast" input: "x" output: "y")"), {x}, {"to"});
}

// ---- Inference without constants ----------------------------------------------------------
// A shape input that is not a constant leaves Reshape's output shape unknown
// at planning; the kernel still gets it right.
TEST(Inference, NonConstantShapeInputLeavesShapeUnknown) {
  Workspace ws;
  NetDef net = *ParseNetDefText(R"(
    name: "n" external_input: "x" external_input: "s" external_output: "y"
    op { type: "Reshape" input: "x" input: "s" output: "y" })");
  ws.SetBlob("x", RandomTensor(DataType::kFloat32, {2, 3}, 45));
  ws.SetBlob("s", I64({3, 2}));
  auto n = Net::Create(net, &ws, CpuRegistry());
  ASSERT_TRUE(n.ok()) << n.status();
  ASSERT_TRUE((*n)->Run().ok());
  EXPECT_FALSE((*n)->last_plan()->steps()[0].inferred_shapes[0].has_value());
  EXPECT_EQ(ws.GetBlob("y")->dims(), (Shape{3, 2}));
}

}  // namespace
}  // namespace loom
