// loom_train's nets (training_nets.h): gradient accumulation equals one
// large batch, frozen parameters stay bit-identical, and training-mode
// BatchNormalization's running statistics reach the initializers, the
// checkpointed state and the evaluation net.
#include "tools/train/training_nets.h"

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/net.h"
#include "core/proto_io.h"
#include "testing/op_runner.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "transforms/batchnorm_training.h"

namespace loom {
namespace train {
namespace {

using testing::CpuRegistry;
using testing::RandomTensor;

NetDef Parse(const std::string& text) {
  NetDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return def;
}

void AddInitializer(NetDef* net, const std::string& name, const Tensor& t) {
  *net->add_initializer() = TensorToProto(t, name);
}

// x [N, 3, 6, 6] -> Conv (4 channels) -> [BatchNormalization] -> Relu ->
// Flatten -> Gemm (10 classes) -> SoftmaxCrossEntropyLoss with y.
NetDef SmallCnn(bool bn) {
  NetDef net = Parse(std::string(R"pb(
    name: "cnn" external_input: "x" external_input: "y" external_output: "loss"
    op { type: "Conv" input: "x" input: "w" input: "b" output: "c"
         arg { name: "pads" ints: [1, 1, 1, 1] } }
  )pb") + (bn ? R"pb(
    op { type: "BatchNormalization" input: "c" input: "s" input: "sh" input: "m" input: "v" output: "n"
         output: "m_running" output: "v_running" arg { name: "training_mode" i: 1 } arg { name: "momentum" f: 0.8 } }
    op { type: "Relu" input: "n" output: "r" }
  )pb" : R"pb(
    op { type: "Relu" input: "c" output: "r" }
  )pb") + R"pb(
    op { type: "Flatten" input: "r" output: "f" }
    op { type: "Gemm" input: "f" input: "fw" input: "fb" output: "logits" }
    op { type: "SoftmaxCrossEntropyLoss" input: "logits" input: "y" output: "loss" }
  )pb");
  uint32_t seed = 10;
  AddInitializer(&net, "w", RandomTensor(DataType::kFloat32, {4, 3, 3, 3}, seed++, -0.5, 0.5));
  AddInitializer(&net, "b", RandomTensor(DataType::kFloat32, {4}, seed++));
  AddInitializer(&net, "fw", RandomTensor(DataType::kFloat32, {4 * 6 * 6, 10}, seed++, -0.2, 0.2));
  AddInitializer(&net, "fb", RandomTensor(DataType::kFloat32, {10}, seed++));
  if (bn) {
    AddInitializer(&net, "s", RandomTensor(DataType::kFloat32, {4}, seed++, 0.5, 1.5));
    AddInitializer(&net, "sh", RandomTensor(DataType::kFloat32, {4}, seed++));
    AddInitializer(&net, "m", RandomTensor(DataType::kFloat32, {4}, seed++));
    AddInitializer(&net, "v", RandomTensor(DataType::kFloat32, {4}, seed++, 0.5, 1.5));
  }
  return net;
}

TrainingNetOptions Sgd(int accumulate, const std::string& freeze = "") {
  TrainingNetOptions o;
  o.accumulate_steps = accumulate;
  o.freeze = freeze;
  o.optimizer.type = "Momentum";
  Argument alpha;
  alpha.set_name("alpha");
  alpha.set_f(0.9f);
  o.optimizer.attributes.push_back(alpha);
  return o;
}

// Runs `updates` updates of `micro` micro-batches each (examples
// [k * n, (k + 1) * n) of x and y per micro-batch k) and returns the
// workspace's state.
std::map<std::string, Tensor> Train(const NetDef& forward, const TrainingNetOptions& o, const Tensor& x, const Tensor& y,
                                    int updates, Workspace* ws, TrainingNets* out = nullptr) {
  std::map<std::string, Tensor> state;
  absl::StatusOr<TrainingNets> nets = BuildTrainingNets(*CpuRegistry(), forward, o);
  EXPECT_TRUE(nets.ok()) << nets.status();
  if (!nets.ok()) return state;
  EXPECT_TRUE(SetUpWorkspace(&*nets, ws).ok());
  auto step = Net::Create(nets->step, ws, CpuRegistry());
  EXPECT_TRUE(step.ok()) << step.status();
  std::unique_ptr<Net> update;
  if (nets->update.op_size() > 0) {
    auto u = Net::Create(nets->update, ws, CpuRegistry());
    EXPECT_TRUE(u.ok()) << u.status();
    if (!u.ok()) return state;
    update = *std::move(u);
  }
  if (!step.ok()) return state;
  const int k = o.accumulate_steps;
  const int64_t n = x.dim(0) / k, per = x.num_elements() / x.dim(0);
  for (int u = 0; u < updates; ++u) {
    ws->SetBlob(nets->learning_rate, Tensor::FromVector<float>({}, {0.1f}));
    ws->SetBlob(nets->step_counter, Tensor::FromVector<int64_t>({}, {u}));
    for (const std::string& a : nets->accumulators) ws->SetBlob(a, Tensor());
    for (int m = 0; m < k; ++m) {
      Shape xs = x.dims();
      xs[0] = n;
      std::vector<float> xv(x.data<float>() + m * n * per, x.data<float>() + (m + 1) * n * per);
      std::vector<int64_t> yv(y.data<int64_t>() + m * n, y.data<int64_t>() + (m + 1) * n);
      ws->SetBlob("x", Tensor::FromVector<float>(xs, xv));
      ws->SetBlob("y", Tensor::FromVector<int64_t>({n}, yv));
      absl::Status s = (*step)->Run();
      EXPECT_TRUE(s.ok()) << s;
    }
    if (update) {
      absl::Status s = update->Run();
      EXPECT_TRUE(s.ok()) << s;
    }
  }
  for (const std::string& name : nets->state) state[name] = *ws->GetBlob(name)->Clone();
  if (out != nullptr) *out = *std::move(nets);
  return state;
}

Tensor Labels(int64_t n, uint32_t seed) {
  Tensor r = RandomTensor(DataType::kInt64, {n}, seed, 0, 9);
  return r;
}

// Four micro-batches of 8 make the same update as one batch of 32: the
// mean loss's gradient is the mean of the micro-batches' (1e-5).
TEST(TrainingNetsTest, AccumulatedMicroBatchesEqualOneLargeBatch) {
  const NetDef forward = SmallCnn(/*bn=*/false);
  Tensor x = RandomTensor(DataType::kFloat32, {32, 3, 6, 6}, 1), y = Labels(32, 2);
  Workspace one_ws, acc_ws;
  std::map<std::string, Tensor> one = Train(forward, Sgd(1), x, y, 3, &one_ws);
  std::map<std::string, Tensor> acc = Train(forward, Sgd(4), x, y, 3, &acc_ws);
  for (const char* p : {"w", "b", "fw", "fb"}) {
    ASSERT_TRUE(one.count(p) && acc.count(p)) << p;
    EXPECT_TRUE(testing::AllClose(acc[p], one[p], 1e-5, 1e-6)) << p;
  }
  // And training moved them.
  absl::StatusOr<Tensor> w0 = TensorFromProto(forward.initializer(0));
  ASSERT_TRUE(w0.ok());
  EXPECT_FALSE(testing::AllClose(one["w"], *w0, 1e-3, 1e-4));
}

// A frozen parameter keeps its bytes; the others train.
TEST(TrainingNetsTest, FrozenParametersStayBitIdentical) {
  const NetDef forward = SmallCnn(/*bn=*/false);
  Tensor x = RandomTensor(DataType::kFloat32, {16, 3, 6, 6}, 3), y = Labels(16, 4);
  for (int accumulate : {1, 2}) {
    Workspace ws;
    TrainingNets nets;
    std::map<std::string, Tensor> state = Train(forward, Sgd(accumulate, "^f[wb]$"), x, y, 3, &ws, &nets);
    EXPECT_EQ(nets.frozen, (std::vector<std::string>{"fw", "fb"}));
    for (int i = 0; i < forward.initializer_size(); ++i) {
      const std::string& name = forward.initializer(i).name();
      absl::StatusOr<Tensor> before = TensorFromProto(forward.initializer(i));
      ASSERT_TRUE(before.ok());
      const Tensor* after = ws.GetBlob(name);
      ASSERT_NE(after, nullptr) << name;
      const bool same = after->nbytes() == before->nbytes() &&
                        std::memcmp(after->raw_data(), before->raw_data(), before->nbytes()) == 0;
      EXPECT_EQ(same, name == "fw" || name == "fb") << name << " (accumulate " << accumulate << ")";
    }
  }
  EXPECT_EQ(BuildTrainingNets(*CpuRegistry(), forward, Sgd(1, ".")).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildTrainingNets(*CpuRegistry(), forward, Sgd(1, "(")).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildTrainingNets(*CpuRegistry(), forward, Sgd(0)).status().code(), absl::StatusCode::kInvalidArgument);
}

// Each step blends the batch statistics into the running ones
// (momentum 0.8, ONNX's population variance), which are state, and the
// evaluation net normalizes with them.
TEST(TrainingNetsTest, BatchNormRunningStatisticsAreWrittenBack) {
  const NetDef forward = SmallCnn(/*bn=*/true);
  Tensor x = RandomTensor(DataType::kFloat32, {8, 3, 6, 6}, 5), y = Labels(8, 6);
  Workspace ws;
  TrainingNets nets;
  // One step: the statistics come from the initial weights' convolution.
  std::map<std::string, Tensor> state = Train(forward, Sgd(1), x, y, 1, &ws, &nets);
  ASSERT_TRUE(state.count("m") && state.count("v"));
  absl::StatusOr<Tensor> w = TensorFromProto(forward.initializer(0)), b = TensorFromProto(forward.initializer(1));
  absl::StatusOr<Tensor> m0 = TensorFromProto(forward.initializer(6)), v0 = TensorFromProto(forward.initializer(7));
  ASSERT_TRUE(w.ok() && b.ok() && m0.ok() && v0.ok());
  auto c = testing::RunSingleOp(
      testing::ParseOp("type: 'Conv' input: 'x' input: 'w' input: 'b' output: 'c' arg { name: 'pads' ints: [1, 1, 1, 1] }"),
      {x, *w, *b});
  ASSERT_TRUE(c.ok()) << c.status();
  const int64_t count = 8 * 36;
  for (int64_t ch = 0; ch < 4; ++ch) {
    double sum = 0, sq = 0;
    for (int64_t n = 0; n < 8; ++n) {
      for (int64_t s = 0; s < 36; ++s) sum += (*c)[0].data<float>()[(n * 4 + ch) * 36 + s];
    }
    const double mean = sum / count;
    for (int64_t n = 0; n < 8; ++n) {
      for (int64_t s = 0; s < 36; ++s) sq += std::pow((*c)[0].data<float>()[(n * 4 + ch) * 36 + s] - mean, 2);
    }
    EXPECT_NEAR(state["m"].data<float>()[ch], 0.8 * m0->data<float>()[ch] + 0.2 * mean, 1e-5) << ch;
    EXPECT_NEAR(state["v"].data<float>()[ch], 0.8 * v0->data<float>()[ch] + 0.2 * sq / count, 1e-5) << ch;
  }
  // The evaluation net: inference-mode BatchNormalization with only Y.
  int bns = 0;
  for (const OperatorDef& op : nets.eval.op()) {
    if (op.type() != "BatchNormalization") continue;
    ++bns;
    EXPECT_EQ(op.output_size(), 1);
  }
  EXPECT_EQ(bns, 1);
  auto eval = Net::Create(nets.eval, &ws, CpuRegistry());
  ASSERT_TRUE(eval.ok()) << eval.status();
  absl::Status s = (*eval)->Run();
  ASSERT_TRUE(s.ok()) << s;
  // The statistics are inputs of eval, not changed by it.
  EXPECT_TRUE(testing::AllClose(*ws.GetBlob("m"), state["m"], 0, 0));
}

}  // namespace
}  // namespace train
}  // namespace loom
