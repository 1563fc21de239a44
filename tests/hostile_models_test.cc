// Hostile but well-formed models (issue 16): each case builds the model in
// the test, checks that it fails with a clear error (the op, the input or
// attribute, the expected and the found) before any huge allocation or
// endless loop, and then runs a good model in the same process to show the
// process stays usable. Limits: core/limits.h, NetOptions (core/net.h).
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/limits.h"
#include "core/net.h"
#include "core/proto_io.h"
#include "testing/op_runner.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "frontend/onnx/onnx_importer.h"
#include "tools/run/run_options.h"

namespace loom {
namespace {

Registry* Reg() { return testing::CpuRegistryWith("plugins/controlflow/libloom_controlflow.so"); }

NetDef ParseNet(const std::string& text) {
  NetDef net;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &net)) << text;
  return net;
}

using Inputs = std::vector<std::pair<std::string, Tensor>>;

// Creates and runs `def` once on `inputs` in a fresh workspace.
absl::Status RunOnce(const NetDef& def, const Inputs& inputs, NetOptions options = {}) {
  Workspace ws;
  for (const auto& [name, t] : inputs) ws.SetBlob(name, t);
  auto net = Net::Create(def, &ws, Reg(), options);
  if (!net.ok()) return net.status();
  return (*net)->Run();
}

// A good model after a hostile one: Relu on a small tensor gives the right values.
void ExpectGoodModelRuns() {
  Workspace ws;
  ws.SetBlob("x", Tensor::FromVector<float>({3}, {-1.f, 2.f, -3.f}));
  auto net = Net::Create(ParseNet(R"pb(name: "good" external_input: "x" external_output: "y"
                                       op { name: "relu" type: "Relu" input: "x" output: "y" })pb"),
                         &ws, Reg());
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  const Tensor* y = ws.GetBlob("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(std::vector<float>(y->data<float>(), y->data<float>() + 3), (std::vector<float>{0.f, 2.f, 0.f}));
}

void ExpectError(const absl::Status& s, absl::StatusCode code, std::initializer_list<const char*> fragments) {
  EXPECT_EQ(s.code(), code) << s;
  for (const char* f : fragments) EXPECT_NE(s.message().find(f), std::string::npos) << "missing '" << f << "' in: " << s;
}

Tensor I64(Shape dims, std::vector<int64_t> v) { return Tensor::FromVector<int64_t>(std::move(dims), v); }

// ---- 1. Declared shapes that would need terabytes ------------------------

TEST(HostileShapes, ExpandToAConstantHugeShapeFailsAtPlanTime) {
  absl::Status s = RunOnce(ParseNet(R"pb(
    name: "expand" external_input: "x" external_output: "y"
    initializer { name: "shape" dims: 3 data_type: 7 int64_data: 1000000 int64_data: 1000000 int64_data: 1000000 }
    op { name: "e" type: "Expand" input: "x" input: "shape" output: "y" })pb"),
                           {{"x", Tensor::FromVector<float>({1}, {1.f})}});
  ExpectError(s, absl::StatusCode::kResourceExhausted,
              {"op #0 'e' (Expand): output 0 'y' (shape inferred at plan time) would be float32[1000000, 1000000, 1000000]",
               "4000000000000000000 bytes (3.5 EiB)", "over the limit max_tensor_bytes = 17179869184 (16 GiB)",
               "NetOptions::max_tensor_bytes", "--max_tensor_bytes"});
  ExpectGoodModelRuns();
}

TEST(HostileShapes, ExpandToARunTimeHugeShapeFailsBeforeAllocating) {
  absl::Status s = RunOnce(ParseNet(R"pb(
    name: "expand" external_input: "x" external_input: "shape" external_output: "y"
    op { name: "e" type: "Expand" input: "x" input: "shape" output: "y" })pb"),
                           {{"x", Tensor::FromVector<float>({1}, {1.f})}, {"shape", I64({2}, {1000000, 1000000})}});
  ExpectError(s, absl::StatusCode::kResourceExhausted,
              {"op #0 'e' (Expand): output 0 'y' would be float32[1000000, 1000000]", "4000000000000 bytes (3.6 TiB)",
               "max_tensor_bytes = 17179869184"});
  ExpectGoodModelRuns();
}

TEST(HostileShapes, ExpandWhoseElementCountOverflowsInt64IsAnError) {
  absl::Status s = RunOnce(ParseNet(R"pb(
    name: "expand" external_input: "x" external_output: "y"
    initializer { name: "shape" dims: 3 data_type: 7 int64_data: 4294967296 int64_data: 4294967296 int64_data: 4294967296 }
    op { name: "e" type: "Expand" input: "x" input: "shape" output: "y" })pb"),
                           {{"x", Tensor::FromVector<float>({1}, {1.f})}});
  ExpectError(s, absl::StatusCode::kInvalidArgument,
              {"op #0 'e' (Expand): output 0 'y'", "[4294967296, 4294967296, 4294967296] overflows int64"});
  ExpectGoodModelRuns();
}

TEST(HostileShapes, ConstantOfShapeHugeFailsAtPlanTimeAndAtRunTime) {
  // Constant shape: inference knows the output shape.
  absl::Status s = RunOnce(ParseNet(R"pb(
    name: "cos" external_output: "y"
    initializer { name: "shape" dims: 2 data_type: 7 int64_data: 100000 int64_data: 100000 }
    op { name: "c" type: "ConstantOfShape" input: "shape" output: "y" })pb"),
                           {});
  ExpectError(s, absl::StatusCode::kResourceExhausted,
              {"op #0 'c' (ConstantOfShape): output 0 'y' (shape inferred at plan time) would be float32[100000, 100000]",
               "40000000000 bytes (37.3 GiB)"});
  // Shape fed at run time: the kernel's ctx.Output refuses it.
  s = RunOnce(ParseNet(R"pb(
    name: "cos" external_input: "shape" external_output: "y"
    op { name: "c" type: "ConstantOfShape" input: "shape" output: "y" })pb"),
              {{"shape", I64({2}, {100000, 100000})}});
  ExpectError(s, absl::StatusCode::kResourceExhausted,
              {"op #0 'c' (ConstantOfShape): output 0 'y' would be float32[100000, 100000]", "max_tensor_bytes"});
  ExpectGoodModelRuns();
}

TEST(HostileShapes, TileWithHugeRepeatsFails) {
  absl::Status s = RunOnce(ParseNet(R"pb(
    name: "tile" external_input: "x" external_input: "repeats" external_output: "y"
    op { name: "t" type: "Tile" input: "x" input: "repeats" output: "y" })pb"),
                           {{"x", Tensor::FromVector<float>({1, 1}, {1.f})}, {"repeats", I64({2}, {1000000, 1000000})}});
  ExpectError(s, absl::StatusCode::kResourceExhausted,
              {"op #0 't' (Tile): output 0 'y' would be float32[1000000, 1000000]", "max_tensor_bytes"});
  // Constant repeats whose product overflows int64.
  s = RunOnce(ParseNet(R"pb(
    name: "tile" external_input: "x" external_output: "y"
    initializer { name: "repeats" dims: 2 data_type: 7 int64_data: 4611686018427387904 int64_data: 4 }
    op { name: "t" type: "Tile" input: "x" input: "repeats" output: "y" })pb"),
              {{"x", Tensor::FromVector<float>({1, 1}, {1.f})}});
  ExpectError(s, absl::StatusCode::kInvalidArgument, {"op #0 't' (Tile): output 0 'y'", "overflows int64"});
  // One dimension times its repeats overflows int64 (2 * 2^62).
  s = RunOnce(ParseNet(R"pb(
    name: "tile" external_input: "x" external_output: "y"
    initializer { name: "repeats" dims: 2 data_type: 7 int64_data: 4611686018427387904 int64_data: 1 }
    op { name: "t" type: "Tile" input: "x" input: "repeats" output: "y" })pb"),
              {{"x", Tensor::FromVector<float>({2, 1}, {1.f, 2.f})}});
  ExpectError(s, absl::StatusCode::kInvalidArgument,
              {"op #0 't' (Tile): inference: Tile: dimension 0 times repeats 4611686018427387904 overflows int64"});
  ExpectGoodModelRuns();
}

TEST(HostileShapes, RangeWithAHugeCountFails) {
  absl::Status s = RunOnce(ParseNet(R"pb(
    name: "range" external_input: "start" external_input: "limit" external_input: "delta" external_output: "y"
    op { name: "r" type: "Range" input: "start" input: "limit" input: "delta" output: "y" })pb"),
                           {{"start", I64({}, {0})}, {"limit", I64({}, {1000000000000})}, {"delta", I64({}, {1})}});
  ExpectError(s, absl::StatusCode::kResourceExhausted,
              {"op #0 'r' (Range): output 0 'y' would be int64[1000000000000]", "8000000000000 bytes (7.3 TiB)"});
  // The widest int64 range: the kernel's own count check refuses it.
  s = RunOnce(ParseNet(R"pb(
    name: "range" external_input: "start" external_input: "limit" external_input: "delta" external_output: "y"
    op { name: "r" type: "Range" input: "start" input: "limit" input: "delta" output: "y" })pb"),
              {{"start", I64({}, {INT64_MIN})}, {"limit", I64({}, {INT64_MAX})}, {"delta", I64({}, {1})}});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("op #0 'r' (Range)"), std::string::npos) << s;
  ExpectGoodModelRuns();
}

TEST(HostileShapes, ResizeWithHugeScalesFails) {
  absl::Status s = RunOnce(ParseNet(R"pb(
    name: "resize" external_input: "x" external_input: "scales" external_output: "y"
    op { name: "rs" type: "Resize" input: "x" input: "" input: "scales" output: "y" })pb"),
                           {{"x", Tensor::FromVector<float>({1, 1, 2, 2}, {1.f, 2.f, 3.f, 4.f})},
                            {"scales", Tensor::FromVector<float>({4}, {1.f, 1.f, 1e6f, 1e6f})}});
  ExpectError(s, absl::StatusCode::kResourceExhausted,
              {"op #0 'rs' (Resize): output 0 'y' would be float32[1, 1, 2000000, 2000000]", "max_tensor_bytes"});
  ExpectGoodModelRuns();
}

TEST(HostileShapes, ReshapeToATerabyteShapeIsRefused) {
  // Reshape keeps the element count, so [1e6, 1e6, 1e6] from one element is
  // refused as a mismatch (by inference or the kernel), never allocated.
  absl::Status s = RunOnce(ParseNet(R"pb(
    name: "reshape" external_input: "x" external_output: "y"
    initializer { name: "shape" dims: 3 data_type: 7 int64_data: 1000000 int64_data: 1000000 int64_data: 1000000 }
    op { name: "r" type: "Reshape" input: "x" input: "shape" output: "y" })pb"),
                           {{"x", Tensor::FromVector<float>({1}, {1.f})}});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("op #0 'r' (Reshape)"), std::string::npos) << s;
  ExpectGoodModelRuns();
}

TEST(HostileShapes, TheCapIsRaisableAndLowerable) {
  NetDef def = ParseNet(R"pb(
    name: "expand" external_input: "x" external_input: "shape" external_output: "y"
    op { name: "e" type: "Expand" input: "x" input: "shape" output: "y" })pb");
  Inputs in = {{"x", Tensor::FromVector<float>({1}, {1.f})}, {"shape", I64({1}, {1000})}};
  NetOptions small;
  small.max_tensor_bytes = 3999;
  ExpectError(RunOnce(def, in, small), absl::StatusCode::kResourceExhausted,
              {"output 0 'y' would be float32[1000]: 4000 bytes", "max_tensor_bytes = 3999"});
  small.max_tensor_bytes = 4000;
  EXPECT_TRUE(RunOnce(def, in, small).ok());
  // Above the default: the cap is the option, not the 16 GiB default.
  NetOptions none;
  none.max_tensor_bytes = 0;  // no cap; overflow is still an error
  in[1].second = I64({3}, {int64_t{1} << 40, int64_t{1} << 40, 1 << 20});
  ExpectError(RunOnce(def, in, none), absl::StatusCode::kInvalidArgument, {"overflows int64"});
  ExpectGoodModelRuns();
}

// ---- 2. Deeply nested If bodies ------------------------------------------

// A net of `depth` nested Ifs: level k's then_branch is level k+1; the
// innermost net and every else_branch is y = Relu(x) (x and cond from the
// top-level workspace, seen through the child workspaces).
NetDef NestedIfs(int depth) {
  NetDef leaf = ParseNet(R"pb(name: "leaf" external_input: "x" external_output: "y"
                              arg { name: "output_dtype.y" s: "float32" }
                              op { name: "relu" type: "Relu" input: "x" output: "y" })pb");
  NetDef net = leaf;
  for (int k = depth - 1; k >= 0; --k) {
    NetDef level = ParseNet(R"pb(external_input: "cond" external_input: "x" external_output: "y"
                                 arg { name: "output_dtype.y" s: "float32" }
                                 op { type: "If" input: "cond" output: "y" })pb");
    level.set_name("level" + std::to_string(k));
    OperatorDef* op = level.mutable_op(0);
    op->set_name("if" + std::to_string(k));
    Argument* then_branch = op->add_arg();
    then_branch->set_name("then_branch");
    *then_branch->mutable_n() = net;
    Argument* else_branch = op->add_arg();
    else_branch->set_name("else_branch");
    *else_branch->mutable_n() = leaf;
    net = level;
  }
  return net;
}

Inputs IfInputs() {
  return {{"cond", Tensor::FromVector<bool>({}, {true})}, {"x", Tensor::FromVector<float>({2}, {-1.f, 5.f})}};
}

TEST(HostileNesting, IfsNestedPastTheLimitFailWithTheDepth) {
  // 70 levels: deeper than protobuf's default recursion limit allows to parse
  // (about 33), so this also checks that the nesting limit, not the parser,
  // is what refuses it. Round-trip through text as a model file would.
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(NestedIfs(70), &text));
  absl::StatusOr<NetDef> def = ParseNetDefText(text);
  ASSERT_TRUE(def.ok()) << def.status();
  absl::Status s = RunOnce(*def, IfInputs());
  ExpectError(s, absl::StatusCode::kResourceExhausted,
              {"op #0 'if63' (If)", "at nesting depth 65 exceeds the limit max_nesting_depth = 64",
               "NetOptions::max_nesting_depth", "--max_nesting_depth"});
  // Raised, the same model runs.
  NetOptions deep;
  deep.max_nesting_depth = 100;
  EXPECT_TRUE(RunOnce(*def, IfInputs(), deep).ok());
  // Lowered, a shallow one fails.
  NetOptions shallow;
  shallow.max_nesting_depth = 3;
  ExpectError(RunOnce(NestedIfs(5), IfInputs(), shallow), absl::StatusCode::kResourceExhausted,
              {"op #0 'if2' (If)", "nesting depth 4 exceeds the limit max_nesting_depth = 3"});
  EXPECT_TRUE(RunOnce(NestedIfs(3), IfInputs(), shallow).ok());
  ExpectGoodModelRuns();
}

TEST(HostileNesting, DeepNetDefsParseFromBinaryFiles) {
  std::string path = ::testing::TempDir() + "/nested70.pb";
  ASSERT_TRUE(WriteNetDef(NestedIfs(70), path).ok());
  absl::StatusOr<NetDef> def = ReadNetDef(path);
  ASSERT_TRUE(def.ok()) << def.status();
  ExpectError(RunOnce(*def, IfInputs()), absl::StatusCode::kResourceExhausted, {"max_nesting_depth = 64"});
  ExpectGoodModelRuns();
}

// An ONNX model of `depth` nested Ifs (then_branch nests, else_branch is
// Relu(x)); x and cond are graph inputs read from the outer scope.
onnx::ModelProto OnnxNestedIfs(int depth) {
  auto float_output = [](onnx::GraphProto* g, const std::string& name) {
    onnx::ValueInfoProto* v = g->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  };
  onnx::GraphProto inner;
  inner.set_name("leaf");
  float_output(&inner, "y" + std::to_string(depth));
  {
    onnx::NodeProto* n = inner.add_node();
    n->set_op_type("Relu");
    n->add_input("x");
    n->add_output("y" + std::to_string(depth));
  }
  for (int k = depth - 1; k >= 0; --k) {
    onnx::GraphProto level;
    level.set_name("level" + std::to_string(k));
    const std::string y = "y" + std::to_string(k);
    float_output(&level, y);
    onnx::NodeProto* n = level.add_node();
    n->set_name("if" + std::to_string(k));
    n->set_op_type("If");
    n->add_input("cond");
    n->add_output(y);
    onnx::AttributeProto* then_branch = n->add_attribute();
    then_branch->set_name("then_branch");
    then_branch->set_type(onnx::AttributeProto::GRAPH);
    *then_branch->mutable_g() = inner;
    onnx::AttributeProto* else_branch = n->add_attribute();
    else_branch->set_name("else_branch");
    else_branch->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* e = else_branch->mutable_g();
    e->set_name("else" + std::to_string(k));
    float_output(e, "e" + std::to_string(k));
    onnx::NodeProto* r = e->add_node();
    r->set_op_type("Relu");
    r->add_input("x");
    r->add_output("e" + std::to_string(k));
    inner = level;
  }
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  *m.mutable_graph() = inner;
  m.mutable_graph()->set_name("nested");
  for (auto [name, type] : {std::pair<const char*, int>{"cond", onnx::TensorProto::BOOL}, {"x", onnx::TensorProto::FLOAT}}) {
    onnx::ValueInfoProto* in = m.mutable_graph()->add_input();
    in->set_name(name);
    in->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  }
  return m;
}

TEST(HostileNesting, DeepOnnxModelsImportAndStopAtTheLimit) {
  // 70 levels of ModelProto > GraphProto > NodeProto > AttributeProto: past
  // protobuf's default recursion limit; the importer parses it and the
  // runtime's limit refuses it by name.
  auto net = onnx_import::ImportOnnxModel(OnnxNestedIfs(70).SerializeAsString());
  ASSERT_TRUE(net.ok()) << net.status();
  ExpectError(RunOnce(*net, IfInputs()), absl::StatusCode::kResourceExhausted,
              {"op #0 'if63' (If)", "at nesting depth 65 exceeds the limit max_nesting_depth = 64"});
  net = onnx_import::ImportOnnxModel(OnnxNestedIfs(4).SerializeAsString());
  ASSERT_TRUE(net.ok()) << net.status();
  EXPECT_TRUE(RunOnce(*net, IfInputs()).ok());
  ExpectGoodModelRuns();
}

// ---- 3. Loops that would run for hours or grow without bound -------------

constexpr char kEndlessLoop[] = R"pb(
  name: "loop" external_input: "M" external_input: "c0" external_input: "s0"
  external_output: "s_final" external_output: "s_all"
  op {
    name: "loop" type: "Loop" input: "M" input: "c0" input: "s0" output: "s_final" output: "s_all"
    arg { name: "body" n {
      name: "body" external_input: "i" external_input: "c_in" external_input: "s_in"
      external_output: "c_out" external_output: "s_out" external_output: "s_scan"
      arg { name: "output_dtype.c_out" s: "bool" }
      arg { name: "output_dtype.s_out" s: "float32" }
      arg { name: "output_dtype.s_scan" s: "float32" }
      op { type: "Identity" input: "c_in" output: "c_out" }
      op { type: "Identity" input: "s_in" output: "s_out" }
      op { type: "Identity" input: "s_in" output: "s_scan" } } }
  })pb";

Inputs LoopInputs(int64_t M, int64_t elements) {
  return {{"M", I64({}, {M})},
          {"c0", Tensor::FromVector<bool>({}, {true})},
          {"s0", Tensor::Zeros(DataType::kFloat32, {elements})}};
}

TEST(HostileLoops, AHugeTripCountStopsAtTheIterationLimit) {
  NetOptions o;
  o.max_loop_iterations = 1000;
  absl::Status s = RunOnce(ParseNet(kEndlessLoop), LoopInputs(int64_t{1} << 62, 1), o);
  ExpectError(s, absl::StatusCode::kResourceExhausted,
              {"op #0 'loop' (Loop)", "has not ended after 1000 iterations", "max_loop_iterations = 1000",
               "input 'M' = 4611686018427387904", "NetOptions::max_loop_iterations", "--max_loop_iterations"});
  // Within the limit it runs; the limit counts per run.
  o.max_loop_iterations = 1000;
  EXPECT_TRUE(RunOnce(ParseNet(kEndlessLoop), LoopInputs(1000, 1), o).ok());
  EXPECT_EQ(NetOptions().max_loop_iterations, 10000000);
  ExpectGoodModelRuns();
}

TEST(HostileLoops, AScanOutputGrowingWithoutBoundHitsTheTensorCap) {
  NetOptions o;
  o.max_tensor_bytes = 100000;  // 25 iterations of 4000 bytes
  absl::Status s = RunOnce(ParseNet(kEndlessLoop), LoopInputs(int64_t{1} << 62, 1000), o);
  ExpectError(s, absl::StatusCode::kResourceExhausted,
              {"op #0 'loop' (Loop)", "scan output 0 would grow past 100000 bytes at iteration 25",
               "max_tensor_bytes = 100000"});
  ExpectGoodModelRuns();
}

// ---- 4. Cycles -----------------------------------------------------------

TEST(HostileCycles, AnOpReadingWhatALaterOpWritesIsRefused) {
  Workspace ws;
  ws.SetBlob("x", Tensor::FromVector<float>({1}, {1.f}));
  auto net = Net::Create(ParseNet(R"pb(name: "cycle" external_input: "x" external_output: "b"
                                       op { name: "first" type: "Add" input: "x" input: "b" output: "a" }
                                       op { name: "second" type: "Relu" input: "a" output: "b" })pb"),
                         &ws, Reg());
  ExpectError(net.status(), absl::StatusCode::kInvalidArgument,
              {"op #0 'first' (Add): input 1 'b' is not produced by an earlier op, not an external input, and not in "
               "the workspace"});
  // An op reading its own output.
  net = Net::Create(ParseNet(R"pb(name: "self" external_output: "a"
                                  op { name: "self" type: "Relu" input: "a" output: "a" })pb"),
                    &ws, Reg());
  ExpectError(net.status(), absl::StatusCode::kInvalidArgument, {"op #0 'self' (Relu): input 0 'a' is not produced"});
  ExpectGoodModelRuns();
}

onnx::ModelProto OnnxModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  onnx::ValueInfoProto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  return m;
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& name, const std::string& type,
                         std::vector<std::string> ins, std::vector<std::string> outs) {
  onnx::NodeProto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(type);
  for (const auto& i : ins) n->add_input(i);
  for (const auto& o : outs) n->add_output(o);
  return n;
}

TEST(HostileCycles, OnnxNodeCyclesAreRefusedByTheImporter) {
  onnx::ModelProto m = OnnxModel();
  AddNode(m.mutable_graph(), "a", "Add", {"x", "d"}, {"c"});
  AddNode(m.mutable_graph(), "b", "Relu", {"c"}, {"d"});
  m.mutable_graph()->add_output()->set_name("d");
  auto net = onnx_import::ImportOnnxModel(m.SerializeAsString());
  ExpectError(net.status(), absl::StatusCode::kInvalidArgument,
              {"node #0 'a' (Add): input 'd' is produced by a later node, #1 'b' (Relu)", "topological order",
               "cycle"});
  onnx::ModelProto self = OnnxModel();
  AddNode(self.mutable_graph(), "s", "Relu", {"y"}, {"y"});
  self.mutable_graph()->add_output()->set_name("y");
  net = onnx_import::ImportOnnxModel(self.SerializeAsString());
  ExpectError(net.status(), absl::StatusCode::kInvalidArgument, {"node #0 's' (Relu): input 'y' is produced by this node itself"});
  // A well-formed ONNX model still imports and runs.
  onnx::ModelProto good = OnnxModel();
  AddNode(good.mutable_graph(), "r", "Relu", {"x"}, {"y"});
  good.mutable_graph()->add_output()->set_name("y");
  net = onnx_import::ImportOnnxModel(good.SerializeAsString());
  ASSERT_TRUE(net.ok()) << net.status();
  EXPECT_TRUE(RunOnce(*net, {{"x", Tensor::FromVector<float>({2}, {-1.f, 1.f})}}).ok());
  ExpectGoodModelRuns();
}

// ---- 5. TensorProtos whose data does not match their shape ----------------

TEST(HostileTensors, RawDataShorterOrLongerThanTheShapeIsRefused) {
  TensorProto p;
  p.set_name("w");
  p.set_data_type(1);
  p.add_dims(1000000);
  p.add_dims(1000000);
  p.set_raw_data(std::string(4, '\0'));
  ExpectError(TensorFromProto(p).status(), absl::StatusCode::kInvalidArgument,
              {"tensor 'w': raw_data has 4 bytes; float32[1000000, 1000000] needs 4000000000000"});
  p.clear_dims();
  p.add_dims(2);
  p.set_raw_data(std::string(12, '\0'));
  ExpectError(TensorFromProto(p).status(), absl::StatusCode::kInvalidArgument,
              {"tensor 'w': raw_data has 12 bytes; float32[2] needs 8"});
  // Typed values that do not fill the shape.
  TensorProto q;
  q.set_name("v");
  q.set_data_type(1);
  q.add_dims(1000000);
  q.add_dims(1000000);
  q.add_float_data(1.f);
  ExpectError(TensorFromProto(q).status(), absl::StatusCode::kInvalidArgument,
              {"tensor 'v': has 1 values; float32[1000000, 1000000] needs 1000000000000"});
  // The same as a NetDef initializer: Net::Create names the net.
  NetDef def = ParseNet(R"pb(name: "init" external_output: "w")pb");
  p.clear_dims();
  p.add_dims(1000000);
  p.add_dims(1000000);
  p.set_raw_data(std::string(4, '\0'));
  *def.add_initializer() = p;
  Workspace ws;
  ExpectError(Net::Create(def, &ws, Reg()).status(), absl::StatusCode::kInvalidArgument,
              {"net 'init': initializer: tensor 'w': raw_data has 4 bytes"});
  ExpectGoodModelRuns();
}

TEST(HostileTensors, NegativeAndOverflowingDimsAreRefused) {
  TensorProto p;
  p.set_name("w");
  p.set_data_type(1);
  p.add_dims(-1);
  p.add_dims(4);
  ExpectError(TensorFromProto(p).status(), absl::StatusCode::kInvalidArgument,
              {"tensor 'w': dims: negative dimension in shape [-1, 4]"});
  p.clear_dims();
  p.add_dims(int64_t{1} << 62);
  p.add_dims(4);
  ExpectError(TensorFromProto(p).status(), absl::StatusCode::kInvalidArgument,
              {"tensor 'w': dims: the element count of shape [4611686018427387904, 4] overflows int64"});
  p.clear_dims();
  p.add_dims(int64_t{1} << 62);  // elements fit, bytes (x4) do not
  ExpectError(TensorFromProto(p).status(), absl::StatusCode::kInvalidArgument,
              {"tensor 'w': dims: the byte count of float32[4611686018427387904] overflows int64"});
  ExpectGoodModelRuns();
}

TEST(HostileTensors, OnnxInitializersAndTensorsAreCheckedByTheImporter) {
  onnx::ModelProto m = OnnxModel();
  onnx::TensorProto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(1000000);
  w->add_dims(1000000);
  w->set_raw_data(std::string(4, '\0'));
  AddNode(m.mutable_graph(), "add", "Add", {"x", "w"}, {"y"});
  m.mutable_graph()->add_output()->set_name("y");
  ExpectError(onnx_import::ImportOnnxModel(m.SerializeAsString()).status(), absl::StatusCode::kInvalidArgument,
              {"tensor 'w': raw_data has 4 bytes; float32[1000000, 1000000] needs 4000000000000"});
  w->clear_raw_data();
  w->add_float_data(1.f);
  ExpectError(onnx_import::ImportOnnxModel(m.SerializeAsString()).status(), absl::StatusCode::kInvalidArgument,
              {"tensor 'w': float_data has 1 values; float32[1000000, 1000000] needs 1000000000000"});
  w->clear_dims();
  w->add_dims(-3);
  ExpectError(onnx_import::ImportOnnxModel(m.SerializeAsString()).status(), absl::StatusCode::kInvalidArgument,
              {"tensor 'w': dims: negative dimension in shape [-3]"});
  onnx::TensorProto t;
  t.set_name("input_0");
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(int64_t{1} << 40);
  t.add_dims(int64_t{1} << 40);
  t.set_raw_data(std::string(8, '\0'));
  ExpectError(onnx_import::ImportOnnxTensor(t.SerializeAsString()).status(), absl::StatusCode::kInvalidArgument,
              {"tensor 'input_0': dims: the element count of shape [1099511627776, 1099511627776] overflows int64"});
  ExpectGoodModelRuns();
}

// ---- The limits from loom_run's command line ------------------------------

absl::StatusOr<tools::RunOptions> ParseLoomRun(std::vector<std::string> args) {
  args.insert(args.begin(), "loom_run");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return tools::ParseRunArgs(static_cast<int>(args.size()), argv.data());
}

TEST(HostileLimitsFlags, LoomRunFlagsSetTheLimitsWithTheCoreDefaults) {
  auto o = ParseLoomRun({"model.onnx"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->max_tensor_bytes, kDefaultMaxTensorBytes);
  EXPECT_EQ(o->max_tensor_bytes, NetOptions().max_tensor_bytes);
  EXPECT_EQ(o->max_nesting_depth, NetOptions().max_nesting_depth);
  EXPECT_EQ(o->max_loop_iterations, NetOptions().max_loop_iterations);
  o = ParseLoomRun({"model.onnx", "--max_tensor_bytes=68719476736", "--max_nesting_depth=128",
                    "--max_loop_iterations=0"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->max_tensor_bytes, int64_t{64} << 30);
  EXPECT_EQ(o->max_nesting_depth, 128);
  EXPECT_EQ(o->max_loop_iterations, 0);
}

}  // namespace
}  // namespace loom
