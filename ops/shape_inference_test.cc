// The standard schemas' dtype and shape inference (ops/), run through the
// planner's passes BindTypes and InferOutputs (core/plan_passes.h) on
// one-op nets, against hand-computed shapes: broadcasting, negative axes,
// zero-size dims, rank 0, window geometry and Reshape's 0 / -1.
#include <optional>
#include <string>
#include <vector>

#include "core/plan_passes.h"

#include "core/api/loom_sdk.h"
#include "core/plugin_loader.h"
#include "core/proto_io.h"
#include "gtest/gtest.h"
#include "ops/std_ops.h"

namespace {

// CheckNet wants a kernel on the op's device; these do nothing (only the
// schemas' inference runs here).
class Nothing {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo&) { return loom::sdk::Status::Ok(); }
  loom::sdk::Status Compute(loom::sdk::KernelContext&) { return loom::sdk::Status::Ok(); }
};

}  // namespace

LOOM_DEFINE_PLUGIN_INIT(ShapeTestKernelsInit, "shape_test_kernels", "1.0", reg) {
  for (const char* op : {"Add", "Mul", "Where", "Less", "Concat", "Gather", "Softmax", "Squeeze", "Unsqueeze",
                         "ReduceSum", "ReduceMax", "ReduceMean", "ReduceProd", "ArgMax", "Split", "Transpose", "Relu",
                         "MatMul", "Gemm", "Reshape", "Shape", "Size", "Conv", "ConvTranspose", "MaxPool",
                         "AveragePool", "LpPool", "GlobalAveragePool", "OneHot", "Upsample", "Resize", "Pad",
                         "DepthToSpace", "SpaceToDepth", "GatherND"}) {
    LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<Nothing>(op));
  }
  return loom::sdk::Status::Ok();
}

namespace loom {
namespace {

struct Out {
  DataType dtype = DataType::kUndefined;
  std::optional<Shape> shape;
};

Tensor Floats(const Shape& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return Tensor::FromVector<float>(dims, std::vector<float>(n, 0.0f));
}
Tensor Ints(const std::vector<int64_t>& values) {
  return Tensor::FromVector<int64_t>({static_cast<int64_t>(values.size())}, values);
}
Tensor IntsShaped(const Shape& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return Tensor::FromVector<int64_t>(dims, std::vector<int64_t>(n, 0));
}
Tensor Bools(const Shape& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return Tensor::FromVector<bool>(dims, std::vector<bool>(n, false));
}

class ShapeInferenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterBuiltinPlugin(&registry_, &LoomStdOpsInit, "<built-in>").ok());
    ASSERT_TRUE(RegisterBuiltinPlugin(&registry_, &ShapeTestKernelsInit, "<test>").ok());
  }

  // A net input (shape known, not constant).
  void In(const std::string& name, Tensor t) {
    ws_.SetBlob(name, std::move(t));
    externals_.push_back(name);
  }
  // An initializer (constant).
  void Const(const std::string& name, Tensor t) { ws_.SetBlob(name, std::move(t)); }

  // Runs BindTypes and InferOutputs on the net's only op, `op` (the body of
  // an OperatorDef in text form).
  absl::StatusOr<std::vector<Out>> Infer(const std::string& op) {
    std::string text = "name: \"n\"";
    for (const std::string& e : externals_) text += " external_input: \"" + e + "\"";
    text += " op { name: \"o\" " + op + " }";
    absl::StatusOr<NetDef> def = ParseNetDefText(text);
    if (!def.ok()) return def.status();
    auto checked = CheckNet(*def, registry_, ws_);
    if (!checked.ok()) return checked.status();
    net_ = *std::move(checked);
    PlannerState state;
    absl::Status s = InitPlannerState(*net_, registry_, &ws_, 1, &state);
    if (!s.ok()) return s;
    LoomInferenceContext ictx;
    std::map<std::string, DataType> bindings;
    s = BindTypes(net_->ops[0], state, &ictx, &bindings);
    if (!s.ok()) return s;
    s = InferOutputs(net_->ops[0], &ictx, &bindings);
    if (!s.ok()) return s;
    std::vector<Out> outs(ictx.output_dtypes.size());
    for (size_t i = 0; i < outs.size(); ++i) {
      outs[i].dtype = ictx.output_dtypes[i];
      if (i < ictx.output_shapes.size()) outs[i].shape = ictx.output_shapes[i];
    }
    return outs;
  }

  // Output `i`'s shape; fails the test when inference fails or leaves it unknown.
  Shape ShapeOf(const std::string& op, size_t i = 0) {
    auto outs = Infer(op);
    EXPECT_TRUE(outs.ok()) << op << ": " << outs.status();
    if (!outs.ok() || i >= outs->size()) return {-999};
    EXPECT_TRUE((*outs)[i].shape.has_value()) << op << ": output " << i << " shape unknown";
    return (*outs)[i].shape.value_or(Shape{-999});
  }
  DataType DTypeOf(const std::string& op, size_t i = 0) {
    auto outs = Infer(op);
    EXPECT_TRUE(outs.ok()) << op << ": " << outs.status();
    return outs.ok() && i < outs->size() ? (*outs)[i].dtype : DataType::kUndefined;
  }
  std::string ErrorOf(const std::string& op) {
    auto outs = Infer(op);
    EXPECT_FALSE(outs.ok()) << op << " should fail";
    return outs.ok() ? "" : std::string(outs.status().message());
  }

  Registry registry_;
  Workspace ws_;
  std::vector<std::string> externals_;
  std::unique_ptr<CheckedNet> net_;
};

// ---- broadcasting ------------------------------------------------------------
TEST_F(ShapeInferenceTest, AddBroadcastsDifferentRanksAndOnes) {
  In("a", Floats({2, 3, 4}));
  In("b", Floats({3, 1}));
  EXPECT_EQ(ShapeOf(R"(type: "Add" input: "a" input: "b" output: "c")"), (Shape{2, 3, 4}));
  EXPECT_EQ(ShapeOf(R"(type: "Add" input: "b" input: "a" output: "c")"), (Shape{2, 3, 4}));
}

TEST_F(ShapeInferenceTest, MulBroadcastsOnesOnBothSides) {
  In("a", Floats({5, 1, 3}));
  In("b", Floats({4, 1}));
  EXPECT_EQ(ShapeOf(R"(type: "Mul" input: "a" input: "b" output: "c")"), (Shape{5, 4, 3}));
}

TEST_F(ShapeInferenceTest, WhereBroadcastsAllThreeAndTakesXsDtype) {
  In("cond", Bools({1, 4}));
  In("x", Floats({3, 1}));
  In("y", Floats({}));
  auto outs = Infer(R"(type: "Where" input: "cond" input: "x" input: "y" output: "z")");
  ASSERT_TRUE(outs.ok()) << outs.status();
  EXPECT_EQ((*outs)[0].dtype, DataType::kFloat32);
  EXPECT_EQ((*outs)[0].shape, (Shape{3, 4}));
}

TEST_F(ShapeInferenceTest, ComparisonIsBoolWithTheBroadcastShape) {
  In("a", Floats({2, 1}));
  In("b", Floats({1, 3}));
  auto outs = Infer(R"(type: "Less" input: "a" input: "b" output: "c")");
  ASSERT_TRUE(outs.ok()) << outs.status();
  EXPECT_EQ((*outs)[0].dtype, DataType::kBool);
  EXPECT_EQ((*outs)[0].shape, (Shape{2, 3}));
}

TEST_F(ShapeInferenceTest, BroadcastMismatchNamesTheOpAndTheShapes) {
  In("a", Floats({2, 3}));
  In("b", Floats({4}));
  const std::string e = ErrorOf(R"(type: "Add" input: "a" input: "b" output: "c")");
  EXPECT_NE(e.find("(Add)"), std::string::npos) << e;
  EXPECT_NE(e.find("[4]"), std::string::npos) << e;
  EXPECT_NE(e.find("[2, 3]"), std::string::npos) << e;
}

// ---- negative axes -------------------------------------------------------------
TEST_F(ShapeInferenceTest, ConcatNegativeAxis) {
  In("a", Floats({2, 3}));
  In("b", Floats({2, 5}));
  EXPECT_EQ(ShapeOf(R"(type: "Concat" input: "a" input: "b" output: "c" arg { name: "axis" i: -1 })"),
            (Shape{2, 8}));
  const std::string e = ErrorOf(R"(type: "Concat" input: "a" input: "b" output: "c" arg { name: "axis" i: -2 })");
  EXPECT_NE(e.find("Concat"), std::string::npos) << e;
  EXPECT_NE(e.find("[2, 5]"), std::string::npos) << e;
}

TEST_F(ShapeInferenceTest, GatherNegativeAxisInsertsTheIndicesShape) {
  In("data", Floats({2, 3, 4}));
  In("idx", IntsShaped({5}));
  In("idx2", IntsShaped({2, 2}));
  EXPECT_EQ(ShapeOf(R"(type: "Gather" input: "data" input: "idx" output: "y" arg { name: "axis" i: -1 })"),
            (Shape{2, 3, 5}));
  EXPECT_EQ(ShapeOf(R"(type: "Gather" input: "data" input: "idx2" output: "y" arg { name: "axis" i: -2 })"),
            (Shape{2, 2, 2, 4}));
}

TEST_F(ShapeInferenceTest, GatherScalarIndicesDropsTheAxis) {
  In("data", Floats({3, 4}));
  In("idx", IntsShaped({}));
  EXPECT_EQ(ShapeOf(R"(type: "Gather" input: "data" input: "idx" output: "y")"), (Shape{4}));
}

TEST_F(ShapeInferenceTest, SoftmaxNegativeAxisKeepsTheShape) {
  In("x", Floats({2, 0, 7}));
  EXPECT_EQ(ShapeOf(R"(type: "Softmax" input: "x" output: "y" arg { name: "axis" i: -2 })"), (Shape{2, 0, 7}));
}

TEST_F(ShapeInferenceTest, SqueezeAndUnsqueezeNegativeAxes) {
  In("x", Floats({3, 1}));
  In("v", Floats({3}));
  Const("last", Ints({-1}));
  Const("ends", Ints({0, -1}));
  EXPECT_EQ(ShapeOf(R"(type: "Squeeze" input: "x" input: "last" output: "y")"), (Shape{3}));
  EXPECT_EQ(ShapeOf(R"(type: "Unsqueeze" input: "x" input: "last" output: "y")"), (Shape{3, 1, 1}));
  EXPECT_EQ(ShapeOf(R"(type: "Unsqueeze" input: "v" input: "ends" output: "y")"), (Shape{1, 3, 1}));
  const std::string e = ErrorOf(R"(type: "Squeeze" input: "v" input: "last" output: "y")");
  EXPECT_NE(e.find("Squeeze"), std::string::npos) << e;
  EXPECT_NE(e.find("is not 1"), std::string::npos) << e;
}

TEST_F(ShapeInferenceTest, ReduceSumNegativeAxesWithAndWithoutKeepdims) {
  In("x", Floats({2, 3, 4}));
  Const("last", Ints({-1}));
  Const("first_last", Ints({0, -1}));
  EXPECT_EQ(ShapeOf(R"(type: "ReduceSum" input: "x" input: "last" output: "y")"), (Shape{2, 3, 1}));
  EXPECT_EQ(ShapeOf(R"(type: "ReduceSum" input: "x" input: "last" output: "y" arg { name: "keepdims" i: 0 })"),
            (Shape{2, 3}));
  EXPECT_EQ(
      ShapeOf(R"(type: "ReduceSum" input: "x" input: "first_last" output: "y" arg { name: "keepdims" i: 0 })"),
      (Shape{3}));
  EXPECT_EQ(ShapeOf(R"(type: "ReduceMax" input: "x" output: "y" arg { name: "keepdims" i: 0 })"), (Shape{}));
  EXPECT_EQ(ShapeOf(R"(type: "ReduceMean" input: "x" output: "y")"), (Shape{1, 1, 1}));
  const std::string e = ErrorOf(
      R"(type: "ReduceProd" input: "x" output: "y" arg { name: "axes" ints: -4 })");
  EXPECT_NE(e.find("ReduceProd"), std::string::npos) << e;
  EXPECT_NE(e.find("out of range for rank 3"), std::string::npos) << e;
}

TEST_F(ShapeInferenceTest, ArgMaxNegativeAxisIsInt64) {
  In("x", Floats({2, 3, 4}));
  auto outs = Infer(R"(type: "ArgMax" input: "x" output: "y" arg { name: "axis" i: -2 } arg { name: "keepdims" i: 0 })");
  ASSERT_TRUE(outs.ok()) << outs.status();
  EXPECT_EQ((*outs)[0].dtype, DataType::kInt64);
  EXPECT_EQ((*outs)[0].shape, (Shape{2, 4}));
}

TEST_F(ShapeInferenceTest, SplitNegativeAxisEqualAndGivenSizes) {
  In("x", Floats({2, 7}));
  Const("sizes", Ints({2, 5}));
  EXPECT_EQ(ShapeOf(R"(type: "Split" input: "x" output: "a" output: "b" output: "c" arg { name: "axis" i: -1 })", 0),
            (Shape{2, 3}));
  EXPECT_EQ(ShapeOf(R"(type: "Split" input: "x" output: "a" output: "b" output: "c" arg { name: "axis" i: -1 })", 2),
            (Shape{2, 1}));
  EXPECT_EQ(ShapeOf(R"(type: "Split" input: "x" input: "sizes" output: "a" output: "b" arg { name: "axis" i: -1 })", 1),
            (Shape{2, 5}));
}

TEST_F(ShapeInferenceTest, TransposePermWithNegativeEntriesAndDefault) {
  In("x", Floats({2, 3, 4}));
  EXPECT_EQ(ShapeOf(R"(type: "Transpose" input: "x" output: "y" arg { name: "perm" ints: 2 ints: 0 ints: 1 })"),
            (Shape{4, 2, 3}));
  EXPECT_EQ(ShapeOf(R"(type: "Transpose" input: "x" output: "y" arg { name: "perm" ints: -2 ints: -1 ints: 0 })"),
            (Shape{3, 4, 2}));
  EXPECT_EQ(ShapeOf(R"(type: "Transpose" input: "x" output: "y")"), (Shape{4, 3, 2}));
  const std::string e = ErrorOf(R"(type: "Transpose" input: "x" output: "y" arg { name: "perm" ints: 0 ints: -3 })");
  EXPECT_NE(e.find("Transpose"), std::string::npos) << e;
}

// ---- zero-size dims -----------------------------------------------------------
TEST_F(ShapeInferenceTest, ZeroDimsFlowThroughElementwiseAndConcat) {
  In("e", Floats({0, 3}));
  In("r", Floats({1, 3}));
  In("f", Floats({2, 3}));
  EXPECT_EQ(ShapeOf(R"(type: "Relu" input: "e" output: "y")"), (Shape{0, 3}));
  EXPECT_EQ(ShapeOf(R"(type: "Add" input: "e" input: "r" output: "y")"), (Shape{0, 3}));
  EXPECT_EQ(ShapeOf(R"(type: "Concat" input: "e" input: "f" output: "y" arg { name: "axis" i: 0 })"), (Shape{2, 3}));
  EXPECT_EQ(ShapeOf(R"(type: "Concat" input: "e" input: "e" output: "y" arg { name: "axis" i: 1 })"), (Shape{0, 6}));
}

TEST_F(ShapeInferenceTest, MatMulWithZeroKOrZeroM) {
  In("m0", Floats({0, 4}));
  In("b", Floats({4, 5}));
  In("k0a", Floats({2, 0}));
  In("k0b", Floats({0, 3}));
  EXPECT_EQ(ShapeOf(R"(type: "MatMul" input: "m0" input: "b" output: "y")"), (Shape{0, 5}));
  EXPECT_EQ(ShapeOf(R"(type: "MatMul" input: "k0a" input: "k0b" output: "y")"), (Shape{2, 3}));
}

TEST_F(ShapeInferenceTest, MatMulBatchBroadcastAndVectors) {
  In("a", Floats({2, 1, 3, 4}));
  In("b", Floats({5, 4, 6}));
  In("v", Floats({4}));
  In("m", Floats({3, 4}));
  EXPECT_EQ(ShapeOf(R"(type: "MatMul" input: "a" input: "b" output: "y")"), (Shape{2, 5, 3, 6}));
  EXPECT_EQ(ShapeOf(R"(type: "MatMul" input: "v" input: "b" output: "y")"), (Shape{5, 6}));
  EXPECT_EQ(ShapeOf(R"(type: "MatMul" input: "m" input: "v" output: "y")"), (Shape{3}));
}

TEST_F(ShapeInferenceTest, GemmWithZeroKOrZeroMAndTranspose) {
  In("a_k0", Floats({3, 0}));
  In("b_k0", Floats({0, 5}));
  In("a_m0", Floats({0, 4}));
  In("b", Floats({4, 2}));
  In("at", Floats({4, 3}));
  EXPECT_EQ(ShapeOf(R"(type: "Gemm" input: "a_k0" input: "b_k0" output: "y")"), (Shape{3, 5}));
  EXPECT_EQ(ShapeOf(R"(type: "Gemm" input: "a_m0" input: "b" output: "y")"), (Shape{0, 2}));
  EXPECT_EQ(ShapeOf(R"(type: "Gemm" input: "at" input: "b" output: "y" arg { name: "transA" i: 1 })"),
            (Shape{3, 2}));
}

TEST_F(ShapeInferenceTest, ReshapeZeroCopiesTheDimAndMinusOneIsInferred) {
  In("x", Floats({2, 3, 4}));
  In("z", Floats({0, 3}));
  Const("copy_rest", Ints({0, -1}));
  Const("copy_two", Ints({0, 0, 2, 2}));
  Const("flat", Ints({-1}));
  Const("four_rest", Ints({4, -1}));
  Const("rest_three", Ints({-1, 3}));
  Const("zero_four", Ints({0, 4}));
  Const("bad", Ints({5, -1}));
  EXPECT_EQ(ShapeOf(R"(type: "Reshape" input: "x" input: "copy_rest" output: "y")"), (Shape{2, 12}));
  EXPECT_EQ(ShapeOf(R"(type: "Reshape" input: "x" input: "copy_two" output: "y")"), (Shape{2, 3, 2, 2}));
  EXPECT_EQ(ShapeOf(R"(type: "Reshape" input: "x" input: "flat" output: "y")"), (Shape{24}));
  EXPECT_EQ(ShapeOf(R"(type: "Reshape" input: "x" input: "four_rest" output: "y")"), (Shape{4, 6}));
  EXPECT_EQ(ShapeOf(R"(type: "Reshape" input: "z" input: "rest_three" output: "y")"), (Shape{0, 3}));
  EXPECT_EQ(ShapeOf(R"(type: "Reshape" input: "z" input: "zero_four" output: "y" arg { name: "allowzero" i: 1 })"),
            (Shape{0, 4}));
  const std::string e = ErrorOf(R"(type: "Reshape" input: "x" input: "bad" output: "y")");
  EXPECT_NE(e.find("Reshape"), std::string::npos) << e;
  EXPECT_NE(e.find("[5, -1]"), std::string::npos) << e;
}

// ---- rank 0 --------------------------------------------------------------------
TEST_F(ShapeInferenceTest, ScalarsThroughElementwiseOps) {
  In("s", Floats({}));
  In("v", Floats({2}));
  EXPECT_EQ(ShapeOf(R"(type: "Relu" input: "s" output: "y")"), (Shape{}));
  EXPECT_EQ(ShapeOf(R"(type: "Add" input: "s" input: "s" output: "y")"), (Shape{}));
  EXPECT_EQ(ShapeOf(R"(type: "Mul" input: "s" input: "v" output: "y")"), (Shape{2}));
}

TEST_F(ShapeInferenceTest, ReshapeToAndFromScalars) {
  In("one", Floats({1, 1}));
  In("s", Floats({}));
  Const("empty", Tensor::FromVector<int64_t>({0}, {}));
  Const("flat", Ints({-1}));
  EXPECT_EQ(ShapeOf(R"(type: "Reshape" input: "one" input: "empty" output: "y")"), (Shape{}));
  EXPECT_EQ(ShapeOf(R"(type: "Reshape" input: "s" input: "flat" output: "y")"), (Shape{1}));
  Const("zero", Ints({0}));
  EXPECT_EQ(ShapeOf(R"(type: "Unsqueeze" input: "s" input: "zero" output: "y")"), (Shape{1}));
}

TEST_F(ShapeInferenceTest, ShapeAndSizeOutputs) {
  In("x", Floats({2, 3, 4}));
  In("s", Floats({}));
  auto shape = Infer(R"(type: "Shape" input: "x" output: "y")");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ((*shape)[0].dtype, DataType::kInt64);
  EXPECT_EQ((*shape)[0].shape, (Shape{3}));
  EXPECT_EQ(ShapeOf(R"(type: "Shape" input: "x" output: "y" arg { name: "start" i: -2 })"), (Shape{2}));
  EXPECT_EQ(ShapeOf(R"(type: "Shape" input: "x" output: "y" arg { name: "start" i: 1 } arg { name: "end" i: -1 })"),
            (Shape{1}));
  EXPECT_EQ(ShapeOf(R"(type: "Shape" input: "s" output: "y")"), (Shape{0}));
  auto size = Infer(R"(type: "Size" input: "x" output: "y")");
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ((*size)[0].dtype, DataType::kInt64);
  EXPECT_EQ((*size)[0].shape, (Shape{}));
}

// ---- windows -------------------------------------------------------------------
TEST_F(ShapeInferenceTest, ConvPadsAndStrides) {
  In("x", Floats({1, 3, 32, 32}));
  In("w", Floats({8, 3, 3, 3}));
  // floor((32 + 1 + 1 - 3) / 2) + 1 = 16
  EXPECT_EQ(ShapeOf(R"(type: "Conv" input: "x" input: "w" output: "y"
                       arg { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 }
                       arg { name: "strides" ints: 2 ints: 2 })"),
            (Shape{1, 8, 16, 16}));
  // Asymmetric pads: H 32 + 0 + 2 - 3 + 1 = 32, W 32 - 3 + 1 = 30.
  EXPECT_EQ(ShapeOf(R"(type: "Conv" input: "x" input: "w" output: "y"
                       arg { name: "pads" ints: 0 ints: 0 ints: 2 ints: 0 })"),
            (Shape{1, 8, 32, 30}));
}

TEST_F(ShapeInferenceTest, ConvDilationsAutoPadAndGroups) {
  In("x", Floats({1, 1, 10, 10}));
  In("w", Floats({4, 1, 3, 3}));
  In("x7", Floats({1, 1, 7, 7}));
  In("g", Floats({2, 4, 10}));
  In("wg", Floats({6, 2, 3}));
  // Dilation 2: effective kernel 5, 10 - 5 + 1 = 6.
  EXPECT_EQ(ShapeOf(R"(type: "Conv" input: "x" input: "w" output: "y" arg { name: "dilations" ints: 2 ints: 2 })"),
            (Shape{1, 4, 6, 6}));
  // SAME_UPPER: ceil(7 / 2) = 4; VALID: floor((7 - 3) / 2) + 1 = 3.
  EXPECT_EQ(ShapeOf(R"(type: "Conv" input: "x7" input: "w" output: "y" arg { name: "auto_pad" s: "SAME_UPPER" }
                       arg { name: "strides" ints: 2 ints: 2 })"),
            (Shape{1, 4, 4, 4}));
  EXPECT_EQ(ShapeOf(R"(type: "Conv" input: "x7" input: "w" output: "y" arg { name: "auto_pad" s: "VALID" }
                       arg { name: "strides" ints: 2 ints: 2 })"),
            (Shape{1, 4, 3, 3}));
  EXPECT_EQ(ShapeOf(R"(type: "Conv" input: "g" input: "wg" output: "y" arg { name: "group" i: 2 })"),
            (Shape{2, 6, 8}));
}

TEST_F(ShapeInferenceTest, ConvTransposeStrides) {
  In("x", Floats({1, 2, 3, 3}));
  In("w", Floats({2, 4, 3, 3}));
  // 2 * (3 - 1) + 3 = 7
  EXPECT_EQ(ShapeOf(R"(type: "ConvTranspose" input: "x" input: "w" output: "y" arg { name: "strides" ints: 2 ints: 2 })"),
            (Shape{1, 4, 7, 7}));
}

TEST_F(ShapeInferenceTest, PoolOutputSizes) {
  In("x", Floats({1, 3, 5, 5}));
  In("x4", Floats({1, 1, 4, 4}));
  const std::string max = R"(type: "MaxPool" input: "x" output: "y" output: "i"
                             arg { name: "kernel_shape" ints: 2 ints: 2 } arg { name: "strides" ints: 2 ints: 2 })";
  // floor((5 - 2) / 2) + 1 = 2; with ceil_mode ceil(3 / 2) + 1 = 3.
  auto outs = Infer(max);
  ASSERT_TRUE(outs.ok()) << outs.status();
  EXPECT_EQ((*outs)[0].shape, (Shape{1, 3, 2, 2}));
  EXPECT_EQ((*outs)[1].shape, (Shape{1, 3, 2, 2}));
  EXPECT_EQ((*outs)[1].dtype, DataType::kInt64);
  EXPECT_EQ(ShapeOf(max + R"( arg { name: "ceil_mode" i: 1 })"), (Shape{1, 3, 3, 3}));
  EXPECT_EQ(ShapeOf(R"(type: "AveragePool" input: "x4" output: "y" arg { name: "kernel_shape" ints: 3 ints: 3 }
                       arg { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 })"),
            (Shape{1, 1, 4, 4}));
  EXPECT_EQ(ShapeOf(R"(type: "LpPool" input: "x" output: "y" arg { name: "kernel_shape" ints: 3 ints: 2 })"),
            (Shape{1, 3, 3, 4}));
  EXPECT_EQ(ShapeOf(R"(type: "GlobalAveragePool" input: "x" output: "y")"), (Shape{1, 3, 1, 1}));
}

// ---- values with no int64 shape: errors, never an overflow -----------------------------
TEST_F(ShapeInferenceTest, ConstantDepthAndScalesWithoutAnInt64Dim) {
  In("i", Ints({0, 1}));
  In("x", Floats({2, 3}));
  In("v", Floats({2}));
  Const("depth_nan", Tensor::FromVector<float>({}, {std::nanf("")}));
  Const("depth_2_7", Tensor::FromVector<double>({}, {2.7}));
  Const("scales_inf", Tensor::FromVector<float>({2}, {1, INFINITY}));
  Const("scales_huge", Tensor::FromVector<float>({2}, {1e30f, 1}));
  std::string e = ErrorOf(R"(type: "OneHot" input: "i" input: "depth_nan" input: "v" output: "y")");
  EXPECT_NE(e.find("OneHot"), std::string::npos) << e;
  EXPECT_NE(e.find("'depth'"), std::string::npos) << e;
  EXPECT_NE(e.find("nan"), std::string::npos) << e;
  EXPECT_EQ(ShapeOf(R"(type: "OneHot" input: "i" input: "depth_2_7" input: "v" output: "y")"), (Shape{2, 2}));
  e = ErrorOf(R"(type: "Upsample" input: "x" input: "scales_inf" output: "y")");
  EXPECT_NE(e.find("Upsample"), std::string::npos) << e;
  EXPECT_NE(e.find("input 'scales'"), std::string::npos) << e;
  EXPECT_NE(e.find("inf"), std::string::npos) << e;
  e = ErrorOf(R"(type: "Resize" input: "x" input: "" input: "scales_huge" output: "y")");
  EXPECT_NE(e.find("Resize"), std::string::npos) << e;
  EXPECT_NE(e.find("2^63"), std::string::npos) << e;
}

TEST_F(ShapeInferenceTest, DimsPastInt64AreErrors) {
  In("x", Floats({2, 3}));
  In("x4", Floats({1, 4, 2, 1}));
  In("z", Floats({1, 1, 0, 0}));
  In("c0", Floats({1, 0, 1, 0}));
  In("d", Floats({2, 3}));
  In("idx", IntsShaped({1, 2}));
  Const("pads_max", Ints({0, 1, 0, 9223372036854775807}));
  // Pad: 3 + 1 + (2^63 - 1) on axis 1.
  std::string e = ErrorOf(R"(type: "Pad" input: "x" input: "pads_max" output: "y")");
  EXPECT_NE(e.find("Pad"), std::string::npos) << e;
  EXPECT_NE(e.find("pads"), std::string::npos) << e;
  EXPECT_NE(e.find("9223372036854775807"), std::string::npos) << e;
  // DepthToSpace: H * b = 2 * 2^62; SpaceToDepth: C * b^2 with b^2 past int64.
  e = ErrorOf(R"(type: "DepthToSpace" input: "x4" output: "y" arg { name: "blocksize" i: 4611686018427387904 })");
  EXPECT_NE(e.find("blocksize"), std::string::npos) << e;
  EXPECT_NE(e.find("H * b"), std::string::npos) << e;
  e = ErrorOf(R"(type: "SpaceToDepth" input: "z" output: "y" arg { name: "blocksize" i: 4294967296 })");
  EXPECT_NE(e.find("C * b^2"), std::string::npos) << e;
  // With C = 0 and b^2 past int64, DepthToSpace's C / b^2 is 0.
  EXPECT_EQ(ShapeOf(R"(type: "DepthToSpace" input: "c0" output: "y" arg { name: "blocksize" i: 4294967296 })"),
            (Shape{1, 0, 4294967296, 0}));
  // GatherND: batch_dims 2^63 - 1 plus k = 2 is not computed; the kernel reports it.
  auto g = Infer(R"(type: "GatherND" input: "d" input: "idx" output: "y" arg { name: "batch_dims" i: 9223372036854775807 })");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_FALSE((*g)[0].shape.has_value());
  // Split: sizes whose sum wraps to the dim.
  Const("split_wraps", Ints({9223372036854775807, 9223372036854775807, 5}));
  e = ErrorOf(R"(type: "Split" input: "x" input: "split_wraps" output: "a" output: "b" output: "c" arg { name: "axis" i: 1 })");
  EXPECT_NE(e.find("Split"), std::string::npos) << e;
  EXPECT_NE(e.find("summing to dim 3"), std::string::npos) << e;
}

}  // namespace
}  // namespace loom
