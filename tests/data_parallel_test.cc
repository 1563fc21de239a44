// Data-parallel training (core/autodiff/data_parallel.h, the collectives
// plugin on Gloo over loopback): two processes that each train on half of
// every batch end, after 50 SGD steps, within 1e-5 of one process training
// on the whole batches; so do two contexts in one process; a rank that dies
// or never arrives makes the other fail with a clear error within the
// timeout; a rendezvous folder left by a failed run does not confuse a new
// one. Ranks are child processes (fork before any thread starts).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/autodiff/backward.h"
#include "core/autodiff/data_parallel.h"
#include "core/autodiff/optimizer.h"
#include "core/net.h"
#include "core/proto_io.h"
#include "testing/op_runner.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

constexpr int kFeatures = 6, kHidden = 10, kClasses = 3, kExamples = 48, kBatch = 8, kSteps = 50;

Registry* Registry() { return testing::CpuRegistryWith("plugins/collectives/libloom_collectives.so"); }

void Init(NetDef* net, const std::string& name, Shape dims, uint32_t seed) {
  Tensor t = testing::RandomTensor(DataType::kFloat32, dims, seed, -0.5, 0.5);
  *net->add_initializer() = TensorToProto(t, name);
}

// x [B, 6] -> Gemm -> Relu -> Gemm -> SoftmaxCrossEntropyLoss (mean) with y.
NetDef Mlp() {
  NetDef net;
  net.set_name("mlp");
  auto op = [&](const std::string& type, std::vector<std::string> in, std::vector<std::string> out) {
    OperatorDef* o = net.add_op();
    o->set_type(type);
    for (auto& i : in) o->add_input(i);
    for (auto& x : out) o->add_output(x);
    return o;
  };
  Init(&net, "W1", {kFeatures, kHidden}, 1);
  Init(&net, "b1", {kHidden}, 2);
  Init(&net, "W2", {kHidden, kClasses}, 3);
  Init(&net, "b2", {kClasses}, 4);
  op("Gemm", {"x", "W1", "b1"}, {"h"});
  op("Relu", {"h"}, {"r"});
  op("Gemm", {"r", "W2", "b2"}, {"logits"});
  op("SoftmaxCrossEntropyLoss", {"logits", "y"}, {"loss"});
  net.add_external_input("x");
  net.add_external_input("y");
  net.add_external_output("loss");
  return net;
}

struct Data {
  std::vector<float> x;
  std::vector<int64_t> y;
};
Data MakeData() {
  Data d;
  std::mt19937 gen(11);
  std::normal_distribution<float> n(0, 1);
  for (int i = 0; i < kExamples * kFeatures; ++i) d.x.push_back(n(gen));
  for (int i = 0; i < kExamples; ++i) d.y.push_back(i % kClasses);
  return d;
}

struct RunSpec {
  int world = 1, rank = 0, contexts = 1;
  std::string rendezvous, run_id;
  int timeout_ms = 5000;
  int die_after_steps = -1;  // > 0: this rank kills itself after that many steps
  bool overlap = true;       // asynchronous Allreduce ops and AllreduceWait
};

// kSteps of SGD (lr 0.2) over global batches of kBatch; this rank trains on
// its 1/world of each. Returns the parameters.
absl::StatusOr<std::map<std::string, std::vector<float>>> Train(const RunSpec& r) {
  ::loom::Registry* reg = Registry();
  NetDef forward = Mlp();
  NetDef training = forward;
  if (r.contexts > 1) {
    absl::StatusOr<NetDef> split = SplitAcrossContexts(forward, {"x", "y"}, "loss", r.contexts);
    if (!split.ok()) return split.status();
    training = *split;
  }
  absl::StatusOr<BackwardResult> b = AddBackward(*reg, {"loss"}, {}, &training);
  if (!b.ok()) return b.status();
  DataParallelOptions dp;
  dp.world_size = r.world;
  dp.rank = r.rank;
  dp.rendezvous = r.rendezvous;
  dp.run_id = r.run_id;
  dp.timeout_ms = r.timeout_ms;
  dp.bucket_bytes = 64;  // several buckets even for this small net
  dp.overlap = r.overlap;
  if (r.world > 1) {
    b = AddAllreduce(*b, dp, &training);
    if (!b.ok()) return b.status();
  }
  OptimizerOptions opt;
  Argument alpha;
  alpha.set_name("alpha");
  alpha.set_f(0.0f);  // plain SGD
  opt.attributes.push_back(alpha);
  if (absl::Status s = AddOptimizer(*b, opt, &training); !s.ok()) return s;
  Workspace ws;
  absl::StatusOr<std::unique_ptr<Net>> net = Net::Create(training, &ws, reg);
  if (!net.ok()) return net.status();
  if (r.world > 1) {  // everyone starts from rank 0's parameters
    std::vector<std::string> params;
    for (const TensorProto& t : forward.initializer()) params.push_back(t.name());
    // Different starting values on the other ranks: the broadcast must fix them.
    if (r.rank != 0) {
      for (const std::string& p : params) {
        Tensor* t = ws.GetBlob(p);
        for (int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] += 1.0f;
      }
    }
    absl::StatusOr<std::unique_ptr<Net>> bcast = Net::Create(BroadcastNet(params, dp), &ws, reg);
    if (!bcast.ok()) return bcast.status();
    if (absl::Status s = (*bcast)->Run(); !s.ok()) return s;
  }
  const Data d = MakeData();
  const int shard = kBatch / r.world;
  for (int step = 0; step < kSteps; ++step) {
    if (r.die_after_steps > 0 && step == r.die_after_steps) raise(SIGKILL);
    const int first = (step * kBatch) % kExamples + r.rank * shard;
    std::vector<float> x(d.x.begin() + first * kFeatures, d.x.begin() + (first + shard) * kFeatures);
    std::vector<int64_t> y(d.y.begin() + first, d.y.begin() + first + shard);
    ws.SetBlob("x", Tensor::FromVector<float>({shard, kFeatures}, x));
    ws.SetBlob("y", Tensor::FromVector<int64_t>({shard}, y));
    ws.SetBlob(opt.learning_rate, Tensor::FromVector<float>({}, {0.2f}));
    ws.SetBlob(opt.step, Tensor::FromVector<int64_t>({}, {step}));
    if (absl::Status s = (*net)->Run(); !s.ok()) return s;
  }
  std::map<std::string, std::vector<float>> out;
  for (const TensorProto& t : forward.initializer()) {
    const Tensor* v = ws.GetBlob(t.name());
    out[t.name()] = std::vector<float>(v->data<float>(), v->data<float>() + v->num_elements());
  }
  return out;
}

// Runs Train in a child process; the child writes its parameters (or its
// error) to `file` and exits 0 (or 1).
pid_t Spawn(const RunSpec& r, const std::string& file) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  absl::StatusOr<std::map<std::string, std::vector<float>>> p = Train(r);
  std::ofstream f(file);
  if (!p.ok()) {
    f << p.status().ToString();
    f.close();
    _exit(1);
  }
  for (const auto& [name, v] : *p) {
    f << name;
    for (float x : v) f << " " << x;
    f << "\n";
  }
  f.precision(9);
  f.close();
  _exit(0);
}

// waitpid with a deadline; the exit code, or -1 on a signal, -2 when it
// did not end in time (then it is killed).
int Wait(pid_t pid, double seconds, double* took = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    int st = 0;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      if (took) *took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string Slurp(const std::string& file) {
  std::ifstream f(file);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::map<std::string, std::vector<float>> ReadParams(const std::string& file) {
  std::map<std::string, std::vector<float>> out;
  std::ifstream f(file);
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    std::string name;
    in >> name;
    float v;
    while (in >> v) out[name].push_back(v);
  }
  return out;
}

void ExpectClose(const std::map<std::string, std::vector<float>>& a, const std::map<std::string, std::vector<float>>& b,
                 const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (const auto& [name, v] : a) {
    const std::vector<float>& w = b.at(name);
    ASSERT_EQ(v.size(), w.size()) << what << " " << name;
    for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], w[i], 1e-5) << what << " " << name << "[" << i << "]";
  }
}

class DataParallelTest : public ::testing::Test {
 protected:
  // Ranks 0 and 1 of `r` in child processes, each writing its parameters
  // to File(<prefix><rank>); both must succeed.
  void RunTwoRanks(RunSpec r, const std::string& prefix) {
    r.world = 2;
    r.rank = 0;
    const pid_t p0 = Spawn(r, File(prefix + "0"));
    r.rank = 1;
    const pid_t p1 = Spawn(r, File(prefix + "1"));
    ASSERT_EQ(Wait(p0, 120), 0) << Slurp(File(prefix + "0"));
    ASSERT_EQ(Wait(p1, 120), 0) << Slurp(File(prefix + "1"));
  }
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / absl::StrCat("rendezvous_", getpid(), "_", counter_++);
    std::filesystem::create_directories(dir_);
  }
  std::string File(const std::string& name) { return (dir_ / name).string(); }
  std::filesystem::path dir_;
  static inline int counter_ = 0;
};

// Forked first (no threads yet in this process), compared after; with the
// reductions overlapping the backward pass and without.
TEST_F(DataParallelTest, TwoProcessesMatchOneOnTheWholeBatch) {
  for (bool overlap : {true, false}) {
    RunSpec r;
    r.rendezvous = File("rdv");
    r.run_id = overlap ? "two_overlap" : "two";
    r.overlap = overlap;
    ASSERT_NO_FATAL_FAILURE(RunTwoRanks(r, "rank"));
    auto one = Train(RunSpec{});
    ASSERT_TRUE(one.ok()) << one.status();
    ExpectClose(ReadParams(File("rank0")), *one, overlap ? "rank 0, overlapped" : "rank 0");
    ExpectClose(ReadParams(File("rank1")), *one, overlap ? "rank 1, overlapped" : "rank 1");
    // The run's keys are gone from the folder.
    EXPECT_FALSE(std::filesystem::exists(File("rdv") + "/" + r.run_id));
  }
}

TEST_F(DataParallelTest, TwoContextsInOneProcessMatchOne) {
  RunSpec two;
  two.contexts = 2;
  auto a = Train(two);
  ASSERT_TRUE(a.ok()) << a.status();
  auto one = Train(RunSpec{});
  ASSERT_TRUE(one.ok()) << one.status();
  ExpectClose(*a, *one, "2 contexts");
}

TEST_F(DataParallelTest, ADeadRankStopsTheOtherWithinTheTimeout) {
  RunSpec r;
  r.world = 2;
  r.rendezvous = File("rdv");
  r.run_id = "killed";
  r.timeout_ms = 3000;
  r.rank = 0;
  const pid_t p0 = Spawn(r, File("rank0"));
  r.rank = 1;
  r.die_after_steps = 5;
  const pid_t p1 = Spawn(r, File("rank1"));
  double took = 0;
  EXPECT_EQ(Wait(p1, 60), -1);  // killed itself
  const int code = Wait(p0, 30, &took);
  ASSERT_EQ(code, 1) << "rank 0 did not fail (-2: still running after 30 s)";
  const std::string error = Slurp(File("rank0"));
  EXPECT_NE(error.find("rank 0 of 2"), std::string::npos) << error;
  EXPECT_NE(error.find("Allreduce failed"), std::string::npos) << error;
  EXPECT_LT(took, 20.0) << error;
}

TEST_F(DataParallelTest, ARankThatNeverArrivesIsNamed) {
  RunSpec r;
  r.world = 2;
  r.rendezvous = File("rdv");
  r.run_id = "alone";
  r.timeout_ms = 1500;
  double took = 0;
  const pid_t p0 = Spawn(r, File("rank0"));
  ASSERT_EQ(Wait(p0, 30, &took), 1);
  const std::string error = Slurp(File("rank0"));
  EXPECT_NE(error.find("DEADLINE_EXCEEDED"), std::string::npos) << error;
  EXPECT_NE(error.find("rank(s) 1 did not arrive within 1500 ms"), std::string::npos) << error;
  EXPECT_LT(took, 15.0);

  // Its keys stay in the folder; a new run (new id) there is not confused,
  // and reusing the failed run's id is refused at once with a clear error.
  RunSpec again = r;
  again.timeout_ms = 5000;
  again.run_id = "fresh";
  ASSERT_NO_FATAL_FAILURE(RunTwoRanks(again, "fresh"));
  RunSpec reuse = r;
  const pid_t s0 = Spawn(reuse, File("reuse0"));
  ASSERT_EQ(Wait(s0, 30), 1);
  EXPECT_NE(Slurp(File("reuse0")).find("left by an earlier run"), std::string::npos) << Slurp(File("reuse0"));
}

}  // namespace
}  // namespace loom
