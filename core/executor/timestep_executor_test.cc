// The threaded timestep executor against sequential execution of the same
// plans: a stacked recurrence h_l[t+1] = 0.5 * h_l[t] + f(h_{l-1}[t+1]) whose
// step nets alias rows of state tensors in the parent workspace, as the
// recurrent-network operator does.
#include "core/executor/timestep_executor.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/api/loom_sdk.h"
#include "core/executor/sequential_executor.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "core/trace.h"
#include "gtest/gtest.h"

namespace {

std::atomic<int> g_max_kernel_threads{0};
std::atomic<int> g_fail_at{-1};  // value of `below` that makes TCell fail
std::atomic<int> g_sleep_ms{0};  // > 0: TCell also sleeps this long (ops long enough to overlap)

// Y = 0.5 * Prev + sin(Below) * 0.75 (elementwise, float32).
class TCellKernel {
 public:
  loom::sdk::Status Init(const loom::sdk::KernelInfo&) { return loom::sdk::Status::Ok(); }
  loom::sdk::Status Compute(loom::sdk::KernelContext& ctx) {
    g_max_kernel_threads = std::max(g_max_kernel_threads.load(), ctx.num_threads());
    if (g_sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(g_sleep_ms.load()));
    loom::sdk::Tensor prev = ctx.Input(0), below = ctx.Input(1), y;
    LOOM_SDK_RETURN_IF_ERROR(ctx.Output(0, LOOM_DTYPE_FLOAT, prev.shape(), &y));
    for (int64_t i = 0; i < prev.num_elements(); ++i) {
      float b = below.data<float>()[i];
      if (g_fail_at >= 0 && b == static_cast<float>(g_fail_at.load())) return loom::sdk::InvalidArgument("poisoned input");
      float acc = 0;
      for (int k = 0; k < 200; ++k) acc += std::sin(b + 0.001f * k);  // some work per op
      y.data<float>()[i] = 0.5f * prev.data<float>()[i] + 0.75f * acc / 200;
    }
    return loom::sdk::Status::Ok();
  }
};

}  // namespace

LOOM_DEFINE_PLUGIN_INIT(TimestepTestOpsInit, "timestep_test_ops", "1.0", reg) {
  loom::sdk::SchemaBuilder s("TCell");
  s.Input("Prev", "T").Input("Below", "T").Output("Y", "T").TypeConstraint("T", {LOOM_DTYPE_FLOAT});
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  return reg.Kernel<TCellKernel>("TCell");
}

namespace loom {
namespace {

constexpr int kN = 8;

// A stacked recurrence of `layers` layers over `T` timesteps.
struct Stack {
  Stack(Registry* registry, int layers, int T, bool reverse, int kernel_threads) : layers(layers), T(T) {
    Tensor x = Tensor::Zeros(DataType::kFloat32, {T, kN});
    for (int64_t i = 0; i < x.num_elements(); ++i) x.data<float>()[i] = 0.01f * static_cast<float>(i % 97);
    parent.SetBlob("X", x);
    for (int l = 0; l < layers; ++l) {
      Tensor s = Tensor::Zeros(DataType::kFloat32, {T + 1, kN});
      for (int i = 0; i < kN; ++i) s.data<float>()[i] = 0.1f * l;  // row 0: initial state
      parent.SetBlob(absl::StrCat("S", l), s);
    }
    for (int l = 0; l < layers; ++l) {
      OperatorDef* op = step_net.add_op();
      op->set_type("TCell");
      op->set_name(absl::StrCat("cell", l));
      op->add_input(absl::StrCat("h", l, "_prev"));
      op->add_input(l == 0 ? "x_t" : absl::StrCat("h", l - 1));
      op->add_output(absl::StrCat("h", l));
      recurrent.emplace_back(absl::StrCat("h", l, "_prev"), absl::StrCat("h", l));
    }
    step_net.add_external_input("x_t");
    for (int l = 0; l < layers; ++l) step_net.add_external_input(absl::StrCat("h", l, "_prev"));
    // Timestep t (in run order) processes input row `row`; reverse runs rows
    // T-1..0 and walks the states the same way Caffe2 does: state row k+1 is
    // written by the k-th timestep run.
    for (int k = 0; k < T; ++k) {
      int row = reverse ? T - 1 - k : k;
      auto ws = std::make_unique<Workspace>(&parent);
      EXPECT_TRUE(ws->Alias("x_t", "X", row, row + 1).ok());
      for (int l = 0; l < layers; ++l) {
        EXPECT_TRUE(ws->Alias(absl::StrCat("h", l, "_prev"), absl::StrCat("S", l), k, k + 1).ok());
        EXPECT_TRUE(ws->Alias(absl::StrCat("h", l), absl::StrCat("S", l), k + 1, k + 2).ok());
      }
      NetOptions opts;
      opts.num_threads = kernel_threads;
      auto net = Net::Create(step_net, ws.get(), registry, opts);
      EXPECT_TRUE(net.ok()) << net.status();
      auto plan = (*net)->Prepare();
      EXPECT_TRUE(plan.ok()) << plan.status();
      plans.push_back(*plan);
      nets.push_back(*std::move(net));
      workspaces.push_back(std::move(ws));
    }
  }
  std::vector<float> States() const {
    std::vector<float> out;
    for (int l = 0; l < layers; ++l) {
      const Tensor* s = parent.GetBlob(absl::StrCat("S", l));
      out.insert(out.end(), s->data<float>(), s->data<float>() + s->num_elements());
    }
    return out;
  }
  int layers, T;
  Workspace parent;
  NetDef step_net;
  std::vector<std::pair<std::string, std::string>> recurrent;
  std::vector<std::unique_ptr<Workspace>> workspaces;
  std::vector<std::unique_ptr<Net>> nets;
  std::vector<Plan*> plans;
};

class TimestepExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(RegisterBuiltinPlugin(&registry_, &TimestepTestOpsInit, "<test>").ok()); }
  Registry registry_;
};

TEST(StepNetAnalysis, SameStepAndPreviousStepDependencies) {
  NetDef net;
  auto add = [&](std::vector<std::string> in, std::string out) {
    OperatorDef* op = net.add_op();
    for (auto& i : in) op->add_input(i);
    op->add_output(out);
  };
  add({"h0_prev", "x"}, "h0");
  add({"h1_prev", "h0"}, "h1");
  add({"h1"}, "y");
  StepNetDependencies d = AnalyzeStepNet(net, {{"h0_prev", "h0"}, {"h1_prev", "h1"}});
  EXPECT_EQ(d.same_step[0], std::vector<int>{});
  EXPECT_EQ(d.same_step[1], std::vector<int>{0});
  EXPECT_EQ(d.same_step[2], std::vector<int>{1});
  EXPECT_EQ(d.previous_step[0], std::vector<int>{0});
  EXPECT_EQ(d.previous_step[1], std::vector<int>{1});
  EXPECT_EQ(d.previous_step[2], std::vector<int>{2});
}

TEST_F(TimestepExecutorTest, BitwiseIdenticalToSequential) {
  for (bool reverse : {false, true}) {
    for (int layers : {1, 2, 4}) {
      for (int T : {1, 37}) {
        for (int parallel : {1, 2, 5}) {
          Stack seq(&registry_, layers, T, reverse, 1);
          for (Plan* p : seq.plans) ASSERT_TRUE(RunSequential(*p, nullptr).ok());
          Stack thr(&registry_, layers, T, reverse, 1);
          ThreadedTimestepExecutor exec({2, parallel});
          StepNetDependencies deps = AnalyzeStepNet(thr.step_net, thr.recurrent);
          ASSERT_TRUE(exec.Run(thr.plans, deps).ok());
          std::vector<float> a = seq.States(), b = thr.States();
          ASSERT_EQ(a.size(), b.size());
          EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)))
              << "layers " << layers << " T " << T << " reverse " << reverse << " parallel " << parallel;
          // Rerun: same executor, same result.
          ASSERT_TRUE(exec.Run(thr.plans, deps).ok());
          std::vector<float> c = thr.States();
          EXPECT_EQ(0, std::memcmp(a.data(), c.data(), a.size() * sizeof(float)));
        }
      }
    }
  }
}

TEST_F(TimestepExecutorTest, FailingOpStopsRunAndExecutorRunsAgain) {
  Stack s(&registry_, 2, 20, false, 1);
  // Poison the input row of timestep 5 (value 0.01 * (5*kN % 97) at its first element).
  Tensor* x = s.parent.GetBlob("X");
  x->data<float>()[5 * kN] = 1234.0f;
  g_fail_at = 1234;
  ThreadedTimestepExecutor exec({2, 3});
  StepNetDependencies deps = AnalyzeStepNet(s.step_net, s.recurrent);
  absl::Status st = exec.Run(s.plans, deps);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("timestep 5"), std::string::npos) << st;
  EXPECT_NE(st.message().find("op #0 'cell0' (TCell)"), std::string::npos) << st;
  EXPECT_NE(st.message().find("poisoned input"), std::string::npos) << st;
  g_fail_at = -1;
  EXPECT_TRUE(exec.Run(s.plans, deps).ok());
}

TEST_F(TimestepExecutorTest, ThreadPolicyNeverOversubscribesCores) {
  for (int requested : {1, 2, 3, 64}) {
    ThreadedTimestepExecutor exec({requested, 2});
    EXPECT_GE(exec.num_threads(), 1);
    EXPECT_LE(exec.num_threads(), NumCores());
    EXPECT_LE(exec.num_threads() * exec.kernel_threads(), NumCores()) << requested;
    // Kernels in step nets planned with that policy see that many threads.
    g_max_kernel_threads = 0;
    Stack s(&registry_, 2, 4, false, exec.kernel_threads());
    ASSERT_TRUE(exec.Run(s.plans, AnalyzeStepNet(s.step_net, s.recurrent)).ok());
    EXPECT_EQ(g_max_kernel_threads.load(), exec.kernel_threads());
  }
}

// loom_run --trace: with a TraceRecorder active, every op of every
// timestep is an event, and the threaded executor's workers show as
// threads of their own (2 workers: 2 tracks). Inactive: nothing recorded.
TEST_F(TimestepExecutorTest, TraceShowsEveryOpOnTheWorkersThreads) {
  const int layers = 2, T = 12;
  Stack s(&registry_, layers, T, false, 1);
  ThreadedTimestepExecutor exec({2, 2});
  ASSERT_EQ(exec.num_threads(), std::min(2, NumCores()));
  StepNetDependencies deps = AnalyzeStepNet(s.step_net, s.recurrent);
  TraceRecorder idle;
  ASSERT_TRUE(exec.Run(s.plans, deps).ok());
  EXPECT_EQ(idle.size(), 0u);
  TraceRecorder trace;
  trace.Start();
  g_sleep_ms = 5;  // layer l of t and layer l - 1 of t + 1 run at once, on both workers
  ASSERT_TRUE(exec.Run(s.plans, deps).ok());
  g_sleep_ms = 0;
  trace.Stop();
  EXPECT_EQ(trace.size(), static_cast<size_t>(layers * T));  // one op per layer per timestep
  const std::string path = ::testing::TempDir() + "/timestep_trace.json";
  ASSERT_TRUE(trace.WriteJson(path).ok());
  std::ifstream f(path);
  const std::string json((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"name\": \"TCell cell0\""), std::string::npos) << json.substr(0, 400);
  int tracks = 0;
  for (size_t at = json.find("\"thread_name\""); at != std::string::npos; at = json.find("\"thread_name\"", at + 1)) ++tracks;
  EXPECT_EQ(tracks, exec.num_threads()) << json.substr(0, 400);
}

TEST_F(TimestepExecutorTest, WrongPlanSizeIsAnError) {
  Stack s(&registry_, 2, 3, false, 1);
  StepNetDependencies wrong = AnalyzeStepNet(Stack(&registry_, 3, 1, false, 1).step_net, {});
  EXPECT_EQ(ThreadedTimestepExecutor({2, 2}).Run(s.plans, wrong).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace loom
