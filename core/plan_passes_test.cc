// Each planner pass on its own (core/plan_passes.h), with a small op set the
// test registers through the C ABI: type binding, output inference, kernel
// selection and creation, the kernel's prepare, and tensor placement.
#include "core/plan_passes.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/api/loom_sdk.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "core/proto_io.h"
#include "gtest/gtest.h"

namespace {

// What the last PScale prepare saw.
struct Seen {
  int calls = 0;
  LoomDataType x_dtype = LOOM_DTYPE_UNDEFINED;
  bool x_shape_known = false;
  std::vector<int64_t> x_shape, y_shape;
  bool w_constant = false;
  float w_value = 0;
  int threads = 0;
  std::string device;
  LoomFpMathMode fpmath_mode = LOOM_FPMATH_MODE_STRICT;
} g_seen;

// Y = X * W[0] (W a one-element tensor); Prepare records what it is told and
// refuses a rank-3 X.
class PScale {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo&) { return loom::sdk::Status::Ok(); }
  loom::sdk::Status Prepare(const loom::sdk::PrepareContext& ctx) {
    ++g_seen.calls;
    g_seen.x_dtype = ctx.InputDType(0);
    g_seen.x_shape_known = ctx.InputShape(0, &g_seen.x_shape);
    if (!ctx.OutputShape(0, &g_seen.y_shape)) g_seen.y_shape.clear();
    loom::sdk::Tensor w = ctx.InputConstant(1);
    g_seen.w_constant = w.present();
    if (w.present()) g_seen.w_value = w.data<float>()[0];
    g_seen.threads = ctx.num_threads();
    g_seen.device = ctx.device();
    g_seen.fpmath_mode = ctx.fpmath_mode();
    if (g_seen.x_shape_known && g_seen.x_shape.size() == 3) return loom::sdk::InvalidArgument("X must not be rank 3");
    return loom::sdk::Status::Ok();
  }
  loom::sdk::Status Compute(loom::sdk::KernelContext&) { return loom::sdk::Status::Ok(); }
};

class Nothing {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo&) { return loom::sdk::Status::Ok(); }
  loom::sdk::Status Compute(loom::sdk::KernelContext&) { return loom::sdk::Status::Ok(); }
};

// Y = X (the test's stand-in for ONNX Identity, whose schema here says it
// folds; PCopy runs the same kernel under a schema that does not).
class Copy {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo&) { return loom::sdk::Status::Ok(); }
  loom::sdk::Status Compute(loom::sdk::KernelContext& ctx) {
    loom::sdk::Tensor x = ctx.Input(0), y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, x.dtype(), x.shape(), &y));
    std::memcpy(y.raw_data(), x.raw_data(), static_cast<size_t>(x.num_elements()) * sizeof(float));
    ++copies;
    return loom::sdk::Status::Ok();
  }
  static inline int copies = 0;
};

// Y = the dims of X as int64 (a stand-in for ONNX Shape: reads only dims).
class Dims {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo&) { return loom::sdk::Status::Ok(); }
  loom::sdk::Status Compute(loom::sdk::KernelContext& ctx) {
    loom::sdk::Tensor x = ctx.Input(0), y;
    const std::vector<int64_t> d = x.shape();
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_INT64, {static_cast<int64_t>(d.size())}, &y));
    for (size_t i = 0; i < d.size(); ++i) y.data<int64_t>()[i] = d[i];
    data_was_null = x.raw_data() == nullptr;
    ++runs;
    return loom::sdk::Status::Ok();
  }
  static inline int runs = 0;
  static inline bool data_was_null = false;
};

// Same shape as the input.
loom::sdk::Status SameShape(loom::sdk::InferenceContext& ctx) {
  std::vector<int64_t> s;
  if (ctx.InputShape(0, &s)) ctx.SetOutputShape(0, s);
  return loom::sdk::Status::Ok();
}

}  // namespace

LOOM_DEFINE_PLUGIN_INIT(PassTestOpsInit, "pass_test_ops", "1.0", reg) {
  loom::sdk::SchemaBuilder scale("PScale");
  scale.Input("X", "T").Input("W", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE})
      .Infer(&loom::sdk::internal::InferTrampoline<SameShape>);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(scale));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<PScale>("PScale", {"CPU", "", 0, {{"T", {LOOM_DTYPE_FLOAT}}}}));
  loom::sdk::SchemaBuilder identity("Identity");
  identity.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT})
      .Infer(&loom::sdk::internal::InferTrampoline<SameShape>).Fold(LOOM_FOLD_CONSTANT_INPUTS);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(identity));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<Copy>("Identity"));
  loom::sdk::SchemaBuilder pcopy("PCopy");  // Identity's kernel, no fold
  pcopy.Input("X", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT})
      .Infer(&loom::sdk::internal::InferTrampoline<SameShape>);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(pcopy));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<Copy>("PCopy"));
  loom::sdk::SchemaBuilder dims("PDims");
  dims.Input("X", "T").Output("D", "tensor(int64)").TypeConstraint("T", {LOOM_DTYPE_FLOAT}).Fold(LOOM_FOLD_INPUT_SHAPES);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(dims));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<Dims>("PDims"));
  loom::sdk::SchemaBuilder size("PSize");  // fixed output dtype, no shape inference
  size.Input("X", "T").Output("N", "tensor(int64)").TypeConstraint("T", {LOOM_DTYPE_FLOAT});
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(size));
  return reg.Kernel<Nothing>("PSize");
}

namespace loom {
namespace {

class PassesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterBuiltinPlugin(&registry_, &PassTestOpsInit, "<test>").ok());
    g_seen = Seen();
  }
  // Checks `text` (a NetDef) against ws_ and starts a planner state.
  void Check(const std::string& text) {
    absl::StatusOr<NetDef> def = ParseNetDefText(text);
    ASSERT_TRUE(def.ok()) << def.status();
    auto checked = CheckNet(*def, registry_, ws_);
    ASSERT_TRUE(checked.ok()) << checked.status();
    net_ = *std::move(checked);
    ASSERT_TRUE(InitPlannerState(*net_, registry_, &ws_, 3, &state_).ok());
  }
  Registry registry_;
  Workspace ws_;
  std::unique_ptr<CheckedNet> net_;
  PlannerState state_;
};

TEST_F(PassesTest, BindTypesBindsConstraintsAndMarksConstants) {
  ws_.SetBlob("x", Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  ws_.SetBlob("w", Tensor::FromVector<float>({1}, {2}));
  Check(R"(name: "n" external_input: "x" op { type: "PScale" input: "x" input: "w" output: "y" })");
  LoomInferenceContext ictx;
  std::map<std::string, DataType> bindings;
  ASSERT_TRUE(BindTypes(net_->ops[0], state_, &ictx, &bindings).ok());
  EXPECT_EQ(bindings.at("T"), DataType::kFloat32);
  ASSERT_EQ(ictx.input_dtypes.size(), 2u);
  ASSERT_NE(ictx.input_shapes[0], nullptr);
  EXPECT_EQ(*ictx.input_shapes[0], (Shape{2, 3}));
  EXPECT_EQ(ictx.input_constants[0], nullptr) << "an external input is not constant";
  EXPECT_EQ(ictx.input_constants[1], ws_.GetBlob("w")) << "an initializer is";
}

TEST_F(PassesTest, BindTypesNamesTheOpInputAndConstraint) {
  ws_.SetBlob("x", Tensor::FromVector<float>({1}, {1}));
  ws_.SetBlob("w", Tensor::FromVector<double>({1}, {2}));
  Check(R"(name: "n" external_input: "x" op { name: "s" type: "PScale" input: "x" input: "w" output: "y" })");
  LoomInferenceContext ictx;
  std::map<std::string, DataType> bindings;
  absl::Status s = BindTypes(net_->ops[0], state_, &ictx, &bindings);
  EXPECT_EQ(s.message(), "op #0 's' (PScale): input 1 'w' is float64 but type constraint T is already bound to "
                         "float32 by an earlier input");
}

TEST_F(PassesTest, InferOutputsUsesFixedTypesBindingsAndTheSchema) {
  ws_.SetBlob("x", Tensor::FromVector<float>({4}, {1, 2, 3, 4}));
  ws_.SetBlob("w", Tensor::FromVector<float>({1}, {2}));
  Check(R"(name: "n" external_input: "x" op { type: "PScale" input: "x" input: "w" output: "y" }
           op { type: "PSize" input: "y" output: "k" })");
  for (int i = 0; i < 2; ++i) {
    LoomInferenceContext ictx;
    std::map<std::string, DataType> bindings;
    ASSERT_TRUE(BindTypes(net_->ops[i], state_, &ictx, &bindings).ok());
    ASSERT_TRUE(InferOutputs(net_->ops[i], &ictx, &bindings).ok());
    if (i == 0) {
      EXPECT_EQ(ictx.output_dtypes[0], DataType::kFloat32);
      ASSERT_TRUE(ictx.output_shapes[0].has_value());
      EXPECT_EQ(*ictx.output_shapes[0], (Shape{4}));
    } else {
      EXPECT_EQ(ictx.output_dtypes[0], DataType::kInt64);
      EXPECT_FALSE(ictx.output_shapes[0].has_value()) << "PSize has no shape inference";
    }
    PlanStep step;
    ASSERT_TRUE(CreateKernel(net_->ops[i], registry_, bindings, &step).ok());
    PlaceTensors(net_->ops[i], &ictx, &state_, &step);
    step.kernel->destroy(step.state);
  }
  EXPECT_EQ(state_.dtypes.at("k"), DataType::kInt64);
  EXPECT_EQ(state_.shapes.count("k"), 0u);
  EXPECT_EQ(state_.shapes.at("y"), (Shape{4}));
}

TEST_F(PassesTest, CreateKernelNamesTheOpAndTheKernelsThatExist) {
  ws_.SetBlob("x", Tensor::FromVector<double>({1}, {1}));
  ws_.SetBlob("w", Tensor::FromVector<double>({1}, {2}));
  Check(R"(name: "n" external_input: "x" op { name: "d" type: "PScale" input: "x" input: "w" output: "y" })");
  LoomInferenceContext ictx;
  std::map<std::string, DataType> bindings;
  ASSERT_TRUE(BindTypes(net_->ops[0], state_, &ictx, &bindings).ok());
  PlanStep step;
  absl::Status s = CreateKernel(net_->ops[0], registry_, bindings, &step);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("op #0 'd' (PScale): no kernel for op 'PScale' on device CPU with dtypes {T=float64}"),
            std::string::npos) << s;
}

TEST_F(PassesTest, PrepareGetsDtypesShapesConstantsThreadsAndDevice) {
  ws_.SetBlob("x", Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4}));
  ws_.SetBlob("w", Tensor::FromVector<float>({1}, {2.5f}));
  Check(R"(name: "n" external_input: "x" op { type: "PScale" input: "x" input: "w" output: "y" })");
  LoomInferenceContext ictx;
  std::map<std::string, DataType> bindings;
  ASSERT_TRUE(BindTypes(net_->ops[0], state_, &ictx, &bindings).ok());
  ASSERT_TRUE(InferOutputs(net_->ops[0], &ictx, &bindings).ok());
  PlanStep step;
  ASSERT_TRUE(CreateKernel(net_->ops[0], registry_, bindings, &step).ok());
  ASSERT_NE(step.kernel->prepare, nullptr) << "the SDK registers Prepare when the class has one";
  ASSERT_TRUE(PrepareKernel(net_->ops[0], ictx, 3, nullptr, &step).ok());
  step.kernel->destroy(step.state);
  EXPECT_EQ(g_seen.calls, 1);
  EXPECT_EQ(g_seen.x_dtype, LOOM_DTYPE_FLOAT);
  EXPECT_TRUE(g_seen.x_shape_known);
  EXPECT_EQ(g_seen.x_shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(g_seen.y_shape, (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(g_seen.w_constant);
  EXPECT_FLOAT_EQ(g_seen.w_value, 2.5f);
  EXPECT_EQ(g_seen.threads, 3);
  EXPECT_EQ(g_seen.device, "CPU");
  EXPECT_EQ(g_seen.fpmath_mode, LOOM_FPMATH_MODE_STRICT);
}

// The net's fpmath_mode reaches prepare (BuildPlan -> PrepareKernel ->
// Prepare_FpMathMode) and the kernel context that nested nets inherit.
TEST_F(PassesTest, PrepareAndTheKernelContextGetTheFpMathMode) {
  ws_.SetBlob("x", Tensor::FromVector<float>({2}, {1, 2}));
  ws_.SetBlob("w", Tensor::FromVector<float>({1}, {2.5f}));
  Check(R"(name: "n" external_input: "x" op { type: "PScale" input: "x" input: "w" output: "y" })");
  auto plan = BuildPlan(*net_, registry_, &ws_, 1, nullptr, nullptr, nullptr, FpMathMode::kBf16);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(g_seen.fpmath_mode, LOOM_FPMATH_MODE_BF16);
  EXPECT_EQ((*plan)->steps()[0].ctx.fpmath_mode, LOOM_FPMATH_MODE_BF16);
  plan = BuildPlan(*net_, registry_, &ws_, 1);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(g_seen.fpmath_mode, LOOM_FPMATH_MODE_STRICT);
  EXPECT_EQ((*plan)->steps()[0].ctx.fpmath_mode, LOOM_FPMATH_MODE_STRICT);
}

TEST(FpMathMode, ParsesOneDnnsNames) {
  EXPECT_EQ(*ParseFpMathMode("strict"), FpMathMode::kStrict);
  EXPECT_EQ(*ParseFpMathMode("bf16"), FpMathMode::kBf16);
  absl::StatusOr<FpMathMode> bad = ParseFpMathMode("BF16");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "fpmath_mode must be \"strict\" or \"bf16\"; found \"BF16\"");
  EXPECT_STREQ(FpMathModeName(FpMathMode::kBf16), "bf16");
}

TEST_F(PassesTest, PrepareErrorsSurfaceAtPlanTimeNamingTheOp) {
  ws_.SetBlob("x", Tensor::FromVector<float>({1, 1, 2}, {1, 2}));
  ws_.SetBlob("w", Tensor::FromVector<float>({1}, {2}));
  absl::StatusOr<NetDef> def = ParseNetDefText(R"(name: "n" external_input: "x"
      op { name: "s3" type: "PScale" input: "x" input: "w" output: "y" })");
  ASSERT_TRUE(def.ok()) << def.status();
  auto checked = CheckNet(*def, registry_, ws_);
  ASSERT_TRUE(checked.ok());
  auto plan = BuildPlan(**checked, registry_, &ws_, 1);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(), "op #0 's3' (PScale): prepare: X must not be rank 3");
}

// A foldable op whose inputs are all constant runs at plan time and its
// output is a constant for the ops after it; one with a non-constant input
// is not folded.
TEST_F(PassesTest, FoldsDataMovementOfConstantsAtPlanTime) {
  ws_.SetBlob("x", Tensor::FromVector<float>({2}, {1, 2}));
  ws_.SetBlob("w", Tensor::FromVector<float>({1}, {2.5f}));
  Check(R"(name: "n" external_input: "x"
           op { type: "Identity" input: "w" output: "w1" }
           op { type: "PScale" input: "x" input: "w1" output: "y" })");
  Copy::copies = 0;
  auto plan = BuildPlan(*net_, registry_, &ws_, 1);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Copy::copies, 1) << "Identity of an initializer runs when the plan is built";
  EXPECT_TRUE(g_seen.w_constant) << "so PScale's prepare gets w1 as a constant";
  EXPECT_FLOAT_EQ(g_seen.w_value, 2.5f);
  EXPECT_EQ((*plan)->constants().count("w1"), 1u);

  Check(R"(name: "n" external_input: "x"
           op { type: "Identity" input: "x" output: "x1" }
           op { type: "PScale" input: "w" input: "x1" output: "y" })");
  Copy::copies = 0;
  plan = BuildPlan(*net_, registry_, &ws_, 1);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Copy::copies, 0) << "an op reading an external input is not folded";
  EXPECT_FALSE(g_seen.w_constant);
  EXPECT_EQ((*plan)->constants().count("x1"), 0u);
}

// Folding follows the schema's flag, not the op's name: the same kernel
// under a schema without it is not run at plan time. A shape-only fold runs
// when the input's shape is known, on an input without data, and its value
// holds for the signature only.
TEST_F(PassesTest, FoldsWhatTheSchemaSaysFolds) {
  ws_.SetBlob("x", Tensor::FromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  ws_.SetBlob("w", Tensor::FromVector<float>({1}, {2.5f}));
  Check(R"(name: "n" external_input: "x"
           op { type: "PCopy" input: "w" output: "w1" }
           op { type: "PDims" input: "x" output: "d" })");
  Copy::copies = 0;
  Dims::runs = 0;
  auto plan = BuildPlan(*net_, registry_, &ws_, 1);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(Copy::copies, 0) << "PCopy's schema does not fold";
  EXPECT_EQ((*plan)->constants().count("w1"), 0u);
  EXPECT_EQ(Dims::runs, 1) << "PDims folds from x's known shape";
  EXPECT_TRUE(Dims::data_was_null) << "a shape-only fold passes no data";
  EXPECT_EQ((*plan)->constants().count("d"), 0u) << "not for the plan's life: for its signature";
  ASSERT_NE(ws_.GetBlob("d"), nullptr);
  ASSERT_EQ(ws_.GetBlob("d")->num_elements(), 2);
  EXPECT_EQ(ws_.GetBlob("d")->data<int64_t>()[0], 2);
  EXPECT_EQ(ws_.GetBlob("d")->data<int64_t>()[1], 3);
  bool per_signature = false;
  for (const Plan::SignatureValue& v : (*plan)->signature_values()) per_signature |= v.blob == ws_.GetBlob("d");
  EXPECT_TRUE(per_signature) << "x is an input: its shape holds for this signature only";
}

// A folded step is skipped by later runs, its output keeping the value the
// plan computed; one whose output the caller reads (an external output) or
// another op also writes runs every time.
TEST_F(PassesTest, RunsSkipFoldedStepsUnlessTheOutputIsTakenOrRewritten) {
  ws_.SetBlob("x", Tensor::FromVector<float>({2}, {1, 2}));
  ws_.SetBlob("w", Tensor::FromVector<float>({1}, {2.5f}));
  struct Case {
    const char* outputs;  // extra external outputs
    bool folded;
  };
  for (const Case& c : {Case{"", true}, Case{R"(external_output: "w1")", false}}) {
    absl::StatusOr<NetDef> def = ParseNetDefText(absl::StrCat(R"(name: "n" external_input: "x" external_output: "y" )",
                                                              c.outputs, R"(
             op { type: "Identity" input: "w" output: "w1" }
             op { type: "PScale" input: "x" input: "w1" output: "y" })"));
    ASSERT_TRUE(def.ok()) << def.status();
    Copy::copies = 0;
    auto net = Net::Create(*def, &ws_, &registry_);
    ASSERT_TRUE(net.ok()) << net.status();
    auto plan = (*net)->Prepare();
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ((*plan)->steps()[0].folded, c.folded) << c.outputs;
    EXPECT_FALSE((*plan)->steps()[1].folded);
    for (int run = 0; run < 2; ++run) ASSERT_TRUE((*net)->Run().ok());
    EXPECT_EQ(Copy::copies, c.folded ? 1 : 3) << c.outputs;
    EXPECT_FLOAT_EQ(ws_.GetBlob("w1")->data<float>()[0], 2.5f) << "the value the plan computed stays";
  }
  // Written by two ops: not skipped (the second write must not stick).
  Check(R"(name: "n" external_input: "x" external_output: "y"
           op { type: "Identity" input: "w" output: "w1" }
           op { type: "PScale" input: "x" input: "w1" output: "y" }
           op { type: "Identity" input: "x" output: "w1" })");
  auto plan = BuildPlan(*net_, registry_, &ws_, 1);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE((*plan)->steps()[0].folded);
}

// An op may write one of its own inputs only where its schema declares the
// pair in-place; otherwise the kernel would read an input it is resizing.
TEST_F(PassesTest, OutputsMayReuseAnInputOnlyWhereTheSchemaAllows) {
  ws_.SetBlob("x", Tensor::FromVector<float>({2}, {1, 2}));
  ws_.SetBlob("w", Tensor::FromVector<float>({1}, {2}));
  absl::StatusOr<NetDef> def = ParseNetDefText(R"(name: "n" external_input: "x"
      op { name: "s" type: "PScale" input: "x" input: "w" output: "x" })");
  ASSERT_TRUE(def.ok());
  auto checked = CheckNet(*def, registry_, ws_);
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.status().message(),
            "op #0 's' (PScale): output 0 'x' is also input 0; PScale may not write an input in place (its schema "
            "declares no such pair): give the output another name");
}

// A nested net (a body or step net) reading a blob its enclosing net holds
// constant sees it as a constant at prepare, unless its own workspace
// shadows the name or one of its ops writes it.
TEST_F(PassesTest, NestedNetsInheritTheEnclosingNetsConstants) {
  Workspace parent;
  parent.SetBlob("w", Tensor::FromVector<float>({1}, {4.0f}));
  auto run = [&](Workspace* ws, const std::string& text, std::set<std::string> outer) {
    g_seen = Seen();
    absl::StatusOr<NetDef> def = ParseNetDefText(text);
    ASSERT_TRUE(def.ok()) << def.status();
    NetScope scope;
    scope.outer_constants = std::move(outer);
    auto net = Net::Create(*def, ws, &registry_, {}, scope);
    ASSERT_TRUE(net.ok()) << net.status();
    ASSERT_TRUE((*net)->Run().ok());
  };
  const std::string body = R"(name: "body" external_input: "x" external_input: "w"
                              op { type: "PScale" input: "x" input: "w" output: "y" })";
  {
    Workspace child(&parent);
    child.SetBlob("x", Tensor::FromVector<float>({2}, {1, 2}));
    run(&child, body, {"w"});
    EXPECT_TRUE(g_seen.w_constant) << "w is constant in the enclosing net";
    EXPECT_FLOAT_EQ(g_seen.w_value, 4.0f);
    run(&child, body, {});
    EXPECT_FALSE(g_seen.w_constant) << "an external input the enclosing net does not hold constant";
  }
  {
    // A NetDef initializer that no op of the enclosing net reads is still a
    // constant for the nets nested in it.
    Workspace top;
    absl::StatusOr<NetDef> def = ParseNetDefText(R"(name: "top" external_input: "m"
        initializer { name: "v" dims: 1 data_type: 1 float_data: 7 }
        op { type: "PSize" input: "m" output: "k" })");
    ASSERT_TRUE(def.ok()) << def.status();
    top.SetBlob("m", Tensor::FromVector<float>({1}, {0}));
    auto net = Net::Create(*def, &top, &registry_);
    ASSERT_TRUE(net.ok()) << net.status();
    auto plan = (*net)->Prepare();
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ((*plan)->constants().count("v"), 1u);
  }
  {
    // Two levels: the middle net does not read w itself, yet passes it on.
    Workspace middle(&parent);
    absl::StatusOr<NetDef> def = ParseNetDefText(R"(name: "middle" op { type: "PSize" input: "m" output: "k" })");
    ASSERT_TRUE(def.ok());
    middle.SetBlob("m", Tensor::FromVector<float>({1}, {0}));
    NetScope scope;
    scope.outer_constants = {"w"};
    auto mid = Net::Create(*def, &middle, &registry_, {}, scope);
    ASSERT_TRUE(mid.ok()) << mid.status();
    Workspace inner(&middle);
    inner.SetBlob("x", Tensor::FromVector<float>({2}, {1, 2}));
    // What a kernel of the middle net hands a net it nests (Net_Create).
    auto middle_constants = [&]() { return (*mid)->Prepare().value()->steps()[0].ctx.net_constants; };
    ASSERT_NE(middle_constants(), nullptr);
    run(&inner, body, *middle_constants());
    EXPECT_TRUE(g_seen.w_constant) << "constants pass through a net that does not read them";
  }
  {
    Workspace child(&parent);
    child.SetBlob("x", Tensor::FromVector<float>({2}, {1, 2}));
    child.SetBlob("w", Tensor::FromVector<float>({1}, {5.0f}));  // shadows the outer w
    run(&child, body, {"w"});
    EXPECT_FALSE(g_seen.w_constant) << "the child's own w shadows the outer constant";
  }
  {
    Workspace child(&parent);
    child.SetBlob("x", Tensor::FromVector<float>({2}, {1, 2}));
    run(&child, R"(name: "body" external_input: "x" external_input: "w"
                   op { type: "PScale" input: "x" input: "w" output: "y" }
                   op { type: "PScale" input: "y" input: "y" output: "w" })", {"w"});
    EXPECT_FALSE(g_seen.w_constant) << "a blob the nested net writes is not constant";
  }
}

}  // namespace
}  // namespace loom
