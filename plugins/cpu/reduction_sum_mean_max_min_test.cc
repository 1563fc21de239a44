// ReduceSum / ReduceMean / ReduceMax / ReduceMin against a naive reference.
#include <cmath>
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

bool IsInteger(DataType dt) {
  return dt == DataType::kInt8 || dt == DataType::kUInt8 || dt == DataType::kInt32 || dt == DataType::kInt64;
}

// The reduction written out with plain loops: every input element is folded
// into the output element its kept coordinates name.
Tensor ReduceRef(const std::string& op, const Tensor& x, std::vector<int64_t> axes, bool keepdims) {
  const int64_t rank = static_cast<int64_t>(x.rank());
  const Reduction r = ReductionOf(x.dims(), axes, keepdims);
  const std::vector<bool>& red = r.red;
  const Shape& out_shape = r.out;
  const int64_t n_out = NumElements(r.kept);
  const double init = op == "ReduceMax" ? -INFINITY : op == "ReduceMin" ? INFINITY : 0.0;
  std::vector<double> acc(n_out, init);
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const int64_t o = r.OutIndex(i, x.dims());
    const double v = x.ElementAsDouble(i);
    if (op == "ReduceMax") acc[o] = (std::isnan(v) || std::isnan(acc[o])) ? NAN : std::max(acc[o], v);
    else if (op == "ReduceMin") acc[o] = (std::isnan(v) || std::isnan(acc[o])) ? NAN : std::min(acc[o], v);
    else acc[o] += v;
  }
  int64_t per_output = 1;
  for (int64_t d = 0; d < rank; ++d) per_output *= red[d] ? x.dim(d) : 1;
  Tensor y = Tensor::Zeros(x.dtype(), out_shape);
  for (int64_t o = 0; o < n_out; ++o) {
    double v = acc[o];
    if (op == "ReduceMean") v = IsInteger(x.dtype()) ? (per_output ? std::trunc(v / per_output) : 0) : v / per_output;
    SetElement(y, o, v);
  }
  return y;
}

// How the op gets its axes.
enum class AxesForm { kAttribute, kInput };

absl::StatusOr<std::vector<Tensor>> RunReduce(const std::string& op, const Tensor& x, const std::vector<int64_t>& axes,
                                              bool keepdims, AxesForm form, bool noop = false) {
  std::string text = "type: \"" + op + "\" name: \"r\" input: \"x\"";
  std::vector<Tensor> inputs = {x};
  if (form == AxesForm::kInput) {
    text += " input: \"axes\"";
    inputs.push_back(Tensor::FromVector<int64_t>({static_cast<int64_t>(axes.size())}, axes));
  }
  text += " output: \"y\" arg { name: \"keepdims\" i: " + std::to_string(keepdims ? 1 : 0) + " }";
  if (noop) text += " arg { name: \"noop_with_empty_axes\" i: 1 }";
  if (form == AxesForm::kAttribute && !axes.empty()) text += " arg { name: \"axes\"" + IntsText(axes) + " }";
  return RunSingleOp(ParseOp(text), inputs);
}

const char* const kOps[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"};

TEST(ReduceTest, KnownValues) {
  Tensor x = Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4});
  auto sum = RunReduce("ReduceSum", x, {0}, false, AxesForm::kInput);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_TRUE(AllClose((*sum)[0], Tensor::FromVector<float>({2}, {4, 6})));
  auto mean = RunReduce("ReduceMean", x, {1}, true, AxesForm::kAttribute);
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_TRUE(AllClose((*mean)[0], Tensor::FromVector<float>({2, 1}, {1.5f, 3.5f})));
  auto mx = RunReduce("ReduceMax", x, {}, false, AxesForm::kAttribute);
  ASSERT_TRUE(mx.ok()) << mx.status();
  EXPECT_TRUE(AllClose((*mx)[0], Tensor::FromVector<float>({}, {4})));
  auto mn = RunReduce("ReduceMin", x, {-1}, true, AxesForm::kInput);
  ASSERT_TRUE(mn.ok()) << mn.status();
  EXPECT_TRUE(AllClose((*mn)[0], Tensor::FromVector<float>({2, 1}, {1, 3})));
  // Integer mean truncates toward zero.
  auto imean = RunReduce("ReduceMean", Tensor::FromVector<int32_t>({3}, {-3, -2, 0}), {}, false, AxesForm::kInput);
  ASSERT_TRUE(imean.ok()) << imean.status();
  EXPECT_EQ((*imean)[0].data<int32_t>()[0], -1);
}

TEST(ReduceTest, AxesKeepdimsAndDtypesMatchReference) {
  const std::vector<std::vector<int64_t>> axes_sets = {{},     {0},    {1},     {2},     {-1},
                                                       {0, 2}, {1, 2}, {-3, 1}, {2, 0, 1}};
  for (const char* op : kOps) {
    for (DataType dt : {DataType::kFloat32, DataType::kFloat64, DataType::kInt32, DataType::kInt64, DataType::kInt8,
                        DataType::kUInt8}) {
      const double lo = dt == DataType::kUInt8 ? 0 : -20, hi = 20;
      Tensor x = RandomTensor(dt, {3, 4, 5}, 11, lo, hi);
      for (const auto& axes : axes_sets) {
        for (bool keepdims : {false, true}) {
          for (AxesForm form : {AxesForm::kAttribute, AxesForm::kInput}) {
            auto out = RunReduce(op, x, axes, keepdims, form);
            ASSERT_TRUE(out.ok()) << op << ": " << out.status();
            EXPECT_TRUE(AllClose((*out)[0], ReduceRef(op, x, axes, keepdims), 1e-6, 1e-6))
                << op << " " << DataTypeName(dt) << " axes" << IntsText(axes) << " keepdims " << keepdims
                << " form " << static_cast<int>(form);
          }
        }
      }
    }
  }
}

// Large enough for the OpenMP paths: many outputs, few outputs with the
// reduced range split across threads, inner dims kept and reduced.
TEST(ReduceTest, LargeShapesMatchReference) {
  struct Case { Shape shape; std::vector<int64_t> axes; };
  const std::vector<Case> cases = {
      {{64, 1000}, {1}},        {{1000, 64}, {0}},  {{3, 50000}, {1}},         {{200000}, {}},
      {{50000, 3}, {0}},        {{8, 300, 40}, {0, 2}}, {{8, 300, 40}, {1}}, {{4, 2, 3, 5000}, {0, 2}},
      {{2, 70000, 2}, {0, 1}},  {{1, 600, 1, 200}, {1}}};
  for (const char* op : kOps) {
    for (DataType dt : {DataType::kFloat32, DataType::kInt64}) {
      for (const Case& c : cases) {
        Tensor x = RandomTensor(dt, c.shape, 5, -10, 10);
        auto out = RunReduce(op, x, c.axes, true, AxesForm::kInput);
        ASSERT_TRUE(out.ok()) << op << ": " << out.status();
        EXPECT_TRUE(AllClose((*out)[0], ReduceRef(op, x, c.axes, true), 1e-5, 1e-5))
            << op << " " << DataTypeName(dt) << ShapeToString(c.shape) << " axes" << IntsText(c.axes);
      }
    }
  }
}

TEST(ReduceTest, EmptyAxesNoopRankZeroAndSizeOneDims) {
  Tensor x = RandomTensor(DataType::kFloat32, {2, 3}, 3);
  for (const char* op : kOps) {
    // noop_with_empty_axes with empty axes, as an empty input or no axes at all: a copy.
    for (AxesForm form : {AxesForm::kAttribute, AxesForm::kInput}) {
      auto out = RunReduce(op, x, {}, true, form, /*noop=*/true);
      ASSERT_TRUE(out.ok()) << op << ": " << out.status();
      EXPECT_TRUE(AllClose((*out)[0], x)) << op;
    }
    // Rank 0: reducing everything gives the value itself.
    Tensor s = Tensor::FromVector<double>({}, {-2.5});
    auto out = RunReduce(op, s, {}, true, AxesForm::kAttribute);
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_TRUE(AllClose((*out)[0], s)) << op;
    // Size-1 dims, reduced or not.
    Tensor t = RandomTensor(DataType::kFloat32, {1, 4, 1, 3}, 8);
    for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{0}, {2}, {0, 2}, {1, 2}, {3, 0}}) {
      for (bool keepdims : {false, true}) {
        auto r = RunReduce(op, t, axes, keepdims, AxesForm::kInput);
        ASSERT_TRUE(r.ok()) << op << ": " << r.status();
        EXPECT_TRUE(AllClose((*r)[0], ReduceRef(op, t, axes, keepdims))) << op << IntsText(axes) << " " << keepdims;
      }
    }
  }
}

TEST(ReduceTest, ZeroSizeDims) {
  Tensor x = Tensor::Zeros(DataType::kFloat32, {0, 3});
  // Reducing the empty axis: the identity of each op (NaN for the mean).
  const std::vector<std::pair<std::string, float>> identity = {
      {"ReduceSum", 0.0f}, {"ReduceMean", NAN}, {"ReduceMax", -INFINITY}, {"ReduceMin", INFINITY}};
  for (const auto& [op, value] : identity) {
    auto out = RunReduce(op, x, {0}, false, AxesForm::kInput);
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_TRUE(AllClose((*out)[0], Tensor::FromVector<float>({3}, {value, value, value}))) << op;
    // Reducing the other axis: no outputs.
    auto empty = RunReduce(op, x, {1}, true, AxesForm::kAttribute);
    ASSERT_TRUE(empty.ok()) << op << ": " << empty.status();
    EXPECT_EQ((*empty)[0].dims(), (Shape{0, 1})) << op;
  }
  auto imax = RunReduce("ReduceMax", Tensor::Zeros(DataType::kInt32, {2, 0}), {1}, false, AxesForm::kInput);
  ASSERT_TRUE(imax.ok()) << imax.status();
  EXPECT_EQ((*imax)[0].data<int32_t>()[1], std::numeric_limits<int32_t>::lowest());
}

TEST(ReduceTest, NanPropagatesThroughMaxAndMin) {
  Tensor x = Tensor::FromVector<float>({2, 3}, {1, NAN, 3, 4, 5, 6});
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    auto out = RunReduce(op, x, {1}, false, AxesForm::kInput);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(std::isnan((*out)[0].data<float>()[0])) << op;
    EXPECT_FALSE(std::isnan((*out)[0].data<float>()[1])) << op;
  }
}

TEST(ReduceTest, Float16AccumulatesInFloat) {
  Tensor x = RandomTensor(DataType::kFloat16, {4, 300}, 2, 0, 1);
  for (const char* op : kOps) {
    auto out = RunReduce(op, x, {1}, false, AxesForm::kInput);
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_TRUE(AllClose((*out)[0], ReduceRef(op, x, {1}, false), 1e-3, 1e-3)) << op;
  }
}

TEST(ReduceTest, BadAxesAreErrors) {
  Tensor x = RandomTensor(DataType::kFloat32, {2, 3, 4}, 1);
  for (const char* op : kOps) {
    for (AxesForm form : {AxesForm::kAttribute, AxesForm::kInput}) {
      for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{3}, {-4}, {1, -2}}) {
        auto out = RunReduce(op, x, axes, true, form);
        ASSERT_FALSE(out.ok()) << op << IntsText(axes);
        EXPECT_NE(out.status().message().find(op), std::string::npos) << out.status();
      }
    }
    // A scalar has no axis 0.
    EXPECT_FALSE(RunReduce(op, Tensor::FromVector<float>({}, {1}), {0}, true, AxesForm::kInput).ok()) << op;
  }
  // Axes as input and attribute at once.
  auto both = RunSingleOp(ParseOp(R"(type: "ReduceSum" input: "x" input: "a" output: "y" arg { name: "axes" ints: 0 })"),
                          {x, Tensor::FromVector<int64_t>({1}, {1})});
  EXPECT_FALSE(both.ok());
  // The axes input must be int64.
  auto bad_type = RunSingleOp(ParseOp(R"(type: "ReduceSum" input: "x" input: "a" output: "y")"),
                              {x, Tensor::FromVector<float>({1}, {1})});
  EXPECT_FALSE(bad_type.ok());
}

}  // namespace
}  // namespace loom
