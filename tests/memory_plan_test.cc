// The memory planner (core/memory_plan.h) and the pool behind it
// (core/buffer_pool.h): intermediates share an arena by liveness (figures
// derived by hand in each test), outputs stay, results equal those of an
// unplanned run, run-time sizes come from the pool, a steady-state run
// allocates nothing on the device, poisoning shows dead memory, and
// buckets of an LSTM language model share one arena.
#include <dlfcn.h>

#include <cmath>
#include <cstring>

#include "core/net.h"
#include "core/plugin_loader.h"
#include "testing/op_runner.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace loom {
namespace {

constexpr char kFakePlugin[] = "tests/plugins/libfake_device.so";

Registry* Reg() {
  static Registry* r = [] {
    Registry* reg = testing::CpuRegistry();
    for (const char* p : {kFakePlugin, "plugins/rnn/libloom_rnn.so"}) {
      absl::Status s = LoadPlugin(reg, p);
      EXPECT_TRUE(s.ok()) << s;
    }
    return reg;
  }();
  return r;
}

int64_t FakeAllocations() {
  Reg();
  void* lib = dlopen(kFakePlugin, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(lib, nullptr) << dlerror();
  auto fn = reinterpret_cast<int64_t (*)()>(dlsym(lib, "LoomFakeDeviceAllocations"));
  EXPECT_NE(fn, nullptr);
  return fn ? fn() : -1;
}

NetDef Parse(const std::string& text) {
  NetDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return def;
}

NetOptions Planned(bool on, bool poison = false) {
  NetOptions o;
  o.plan_memory = on;
  o.poison_released_memory = poison;
  o.num_threads = 1;
  return o;
}

// x[32, 32] float32 (4096 bytes per tensor):
//   a = Exp(x); b = Neg(x); c = Add(a, b); d = Sigmoid(c); e = Mul(d, x);
//   f = Tanh(e); y = Add(f, x)   (y the only output)
// By hand: a -> storage 0, b -> 1, c -> 2 (a and b are still read by Add),
// then a and b die; d takes c's place (Sigmoid declares it, c dies at d);
// e takes 0 or 1; f takes e's place; y is an output (kept). Six placed
// blobs, two in place, three storages: 12288 bytes of arena against 24576
// without reuse.
constexpr char kDag[] = R"pb(
  name: "dag" external_input: "x" external_output: "y"
  op { type: "Exp" input: "x" output: "a" }
  op { type: "Neg" input: "x" output: "b" }
  op { type: "Add" input: "a" input: "b" output: "c" }
  op { type: "Sigmoid" input: "c" output: "d" }
  op { type: "Mul" input: "d" input: "x" output: "e" }
  op { type: "Tanh" input: "e" output: "f" }
  op { type: "Add" input: "f" input: "x" output: "y" }
)pb";

TEST(MemoryPlanTest, IntermediatesShareAnArenaByLivenessAndResultsAreUnchanged) {
  const Tensor x = testing::RandomTensor(DataType::kFloat32, {32, 32}, 7);
  Workspace plain_ws, planned_ws;
  plain_ws.SetBlob("x", x);
  planned_ws.SetBlob("x", x);
  auto plain = Net::Create(Parse(kDag), &plain_ws, Reg(), Planned(false));
  auto planned = Net::Create(Parse(kDag), &planned_ws, Reg(), Planned(true));
  ASSERT_TRUE(plain.ok() && planned.ok());
  for (int run = 0; run < 3; ++run) {
    ASSERT_TRUE((*plain)->Run().ok());
    ASSERT_TRUE((*planned)->Run().ok());
    EXPECT_TRUE(testing::AllClose(*planned_ws.GetBlob("y"), *plain_ws.GetBlob("y"), 0, 0));
  }
  const MemoryPlan& m = (*planned)->last_plan()->memory();
  ASSERT_TRUE(m.enabled);
  EXPECT_EQ(m.blobs.size(), 6u);
  EXPECT_EQ(m.in_place, 2);
  EXPECT_EQ(m.no_reuse_bytes, 6u * 4096);
  ASSERT_EQ(m.arena_bytes.size(), 1u);
  EXPECT_EQ(m.arena_bytes.begin()->second, 3u * 4096);
  EXPECT_EQ((*planned)->arena_bytes(), 3u * 4096);
  EXPECT_EQ((*planned)->arena_allocations(), 1);
  // Inputs and outputs are never placed.
  for (const PlannedBlob& b : m.blobs) {
    EXPECT_NE(b.tensor, planned_ws.GetBlob("x"));
    EXPECT_NE(b.tensor, planned_ws.GetBlob("y"));
  }
  EXPECT_FALSE(planned_ws.GetBlob("y")->is_planned());
  // Unplanned: every intermediate keeps a buffer of its own.
  EXPECT_FALSE((*plain)->last_plan()->memory().enabled);
  EXPECT_EQ((*plain)->arena_bytes(), 0u);
}

TEST(MemoryPlanTest, ANetWithoutOutputsKeepsEveryBlobReadable) {
  // Caffe2's convention: nothing named as output, so nothing is reused.
  NetDef def = Parse(kDag);
  def.clear_external_output();
  Workspace ws;
  ws.SetBlob("x", Tensor::FromVector<float>({2}, {0.f, 1.f}));
  auto net = Net::Create(def, &ws, Reg(), Planned(true, /*poison=*/true));
  ASSERT_TRUE(net.ok());
  ASSERT_TRUE((*net)->Run().ok());
  EXPECT_FALSE((*net)->last_plan()->memory().enabled);
  // a = exp(x), b = -x, c = a + b: readable after the run.
  const Tensor* c = ws.GetBlob("c");
  EXPECT_FLOAT_EQ(c->data<float>()[0], 1.f);
  EXPECT_FLOAT_EQ(c->data<float>()[1], std::exp(1.f) - 1.f);
}

TEST(MemoryPlanTest, PoisoningFillsDeadMemoryWithNaN) {
  Workspace ws;
  ws.SetBlob("x", testing::RandomTensor(DataType::kFloat32, {32, 32}, 3));
  auto net = Net::Create(Parse(kDag), &ws, Reg(), Planned(true, /*poison=*/true));
  ASSERT_TRUE(net.ok());
  ASSERT_TRUE((*net)->Run().ok());
  // Every placed blob is dead after the run, so its bytes are 0xFF: a
  // kernel reading memory after its reuse would read NaN.
  for (const char* name : {"a", "c", "f"}) {
    const Tensor* t = ws.GetBlob(name);
    ASSERT_EQ(t->num_elements(), 32 * 32) << name;
    for (int64_t i = 0; i < t->num_elements(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, t->data<float>() + i, 4);
      ASSERT_EQ(bits, 0xFFFFFFFFu) << name << " element " << i;
    }
  }
  // The output is right all the same: y = tanh(sigmoid(exp(x) - x) * x) + x.
  const Tensor* x = ws.GetBlob("x");
  const Tensor* y = ws.GetBlob("y");
  for (int64_t i = 0; i < y->num_elements(); ++i) {
    const float v = x->data<float>()[i];
    const float want = std::tanh(1.f / (1.f + std::exp(-(std::exp(v) - v))) * v) + v;
    ASSERT_NEAR(y->data<float>()[i], want, 1e-5) << i;
  }
}

// n = NonZero(x) and c = Cast(n): their sizes depend on x's values, so they
// come from the pool at run time and go back after their last reader.
TEST(MemoryPlanTest, RunTimeSizesComeFromThePoolAndGoBack) {
  Workspace ws;
  ws.SetBlob("x", Tensor::FromVector<float>({8}, {0.f, 1.f, 0.f, 2.f, 3.f, 0.f, 0.f, 4.f}));
  auto net = Net::Create(Parse(R"pb(
    name: "nonzero" external_input: "x" external_output: "y"
    op { type: "NonZero" input: "x" output: "n" }
    op { type: "Cast" input: "n" output: "c" arg { name: "to" i: 1 } }
    op { type: "Neg" input: "c" output: "y" }
  )pb"), &ws, Reg(), Planned(true));
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  const Tensor* y = ws.GetBlob("y");
  ASSERT_EQ(y->dims(), (Shape{1, 4}));
  EXPECT_EQ(std::vector<float>(y->data<float>(), y->data<float>() + 4), (std::vector<float>{-1.f, -3.f, -4.f, -7.f}));
  EXPECT_EQ((*net)->last_plan()->memory().dynamic_blobs, 2);
  // Released after their last reader: empty now, memory back in the pool.
  EXPECT_EQ(ws.GetBlob("n")->num_elements(), 0);
  EXPECT_EQ(ws.GetBlob("c")->num_elements(), 0);
  EXPECT_GT((*net)->pool().high_water_bytes(), 0u);
  // Still out: only y's buffer (float32[1, 4], 16 bytes in a 64-byte bucket).
  EXPECT_EQ((*net)->pool().in_use_bytes(), 64u);
  // The second run settles which free buffer serves which output; from
  // then on the pool serves every request.
  ASSERT_TRUE((*net)->Run().ok());
  const int64_t device_allocs = (*net)->pool().device_allocations();
  for (int run = 0; run < 3; ++run) ASSERT_TRUE((*net)->Run().ok());
  EXPECT_EQ((*net)->pool().device_allocations(), device_allocs);
  EXPECT_EQ(std::vector<float>(y->data<float>(), y->data<float>() + 4), (std::vector<float>{-1.f, -3.f, -4.f, -7.f}));
}

// On the FAKE device (which counts its allocations): after the first run,
// runs with the same signature allocate nothing on the device.
TEST(MemoryPlanTest, ASteadyStateRunAllocatesNothingOnTheDevice) {
  Workspace ws;
  ws.SetBlob("x", Tensor::FromVector<float>({256}, std::vector<float>(256, 1.5f)));
  auto net = Net::Create(Parse(R"pb(
    name: "fake" external_input: "x" external_output: "y"
    op { type: "Neg" input: "x" output: "a" device_option { device_type: "FAKE" } }
    op { type: "Neg" input: "a" output: "b" device_option { device_type: "FAKE" } }
    op { type: "Neg" input: "b" output: "c" device_option { device_type: "FAKE" } }
    op { type: "Abs" input: "c" output: "y" }
  )pb"), &ws, Reg(), Planned(true));
  ASSERT_TRUE(net.ok()) << net.status();
  const int64_t before = FakeAllocations();
  ASSERT_TRUE((*net)->Run().ok());
  // The arena (a, b, c on one place: each Neg takes its input's place) and
  // the copy of x to FAKE.
  EXPECT_EQ(FakeAllocations() - before, 2);
  EXPECT_EQ((*net)->arena_bytes(), 1024u);
  const int64_t after_first = FakeAllocations();
  for (int run = 0; run < 5; ++run) {
    ws.SetBlob("x", Tensor::FromVector<float>({256}, std::vector<float>(256, -2.f - run)));
    ASSERT_TRUE((*net)->Run().ok());
    EXPECT_FLOAT_EQ(ws.GetBlob("y")->data<float>()[255], 2.f + run);
  }
  EXPECT_EQ(FakeAllocations(), after_first);
}

// An LSTM language model: tokens[T, 1] -> Gather(embedding) -> LSTM ->
// Reshape [T, H] -> MatMul(W_out) -> Softmax = probs[T, V]; T is the bucket.
NetDef LstmLanguageModel() {
  constexpr int V = 50, E = 16, H = 32;
  NetDef def = Parse(R"pb(
    name: "lstm_lm" external_input: "tokens" external_output: "probs"
    op { type: "Gather" input: "embedding" input: "tokens" output: "x" }
    op { type: "LSTM" input: "x" input: "W" input: "R" input: "B" output: "h_all" arg { name: "hidden_size" i: 32 } }
    op { type: "Reshape" input: "h_all" input: "flat" output: "h" }
    op { type: "MatMul" input: "h" input: "W_out" output: "logits" }
    op { type: "Softmax" input: "logits" output: "probs" arg { name: "axis" i: -1 } }
  )pb");
  auto add = [&](const std::string& name, Shape dims, uint32_t seed) {
    Tensor t = testing::RandomTensor(DataType::kFloat32, dims, seed, -0.3, 0.3);
    TensorProto* p = def.add_initializer();
    p->set_name(name);
    for (int64_t d : dims) p->add_dims(d);
    p->set_raw_data(std::string(static_cast<const char*>(t.raw_data()), t.nbytes()));
  };
  add("embedding", {V, E}, 1);
  add("W", {1, 4 * H, E}, 2);
  add("R", {1, 4 * H, H}, 3);
  add("B", {1, 8 * H}, 4);
  add("W_out", {H, V}, 5);
  TensorProto* flat = def.add_initializer();
  flat->set_name("flat");
  flat->add_dims(2);
  flat->set_data_type(7);  // int64
  flat->add_int64_data(-1);
  flat->add_int64_data(H);
  return def;
}

Tensor Tokens(int64_t T, uint32_t seed) {
  std::vector<int64_t> v(T);
  for (int64_t t = 0; t < T; ++t) v[t] = (seed * 31 + t * 7) % 50;
  return Tensor::FromVector<int64_t>({T, 1}, v);
}

// Arena plus pool high water: what the planner's memory peaks at.
size_t PlannedPeak(const Net& net) { return net.arena_bytes() + net.pool().high_water_bytes(); }

TEST(MemoryPlanTest, BucketsOfAnLstmLanguageModelShareOneArena) {
  const std::vector<int64_t> lengths = {10, 20, 30, 40, 50, 60};
  // The largest bucket alone.
  size_t largest_alone = 0;
  {
    Workspace ws;
    ws.SetBlob("tokens", Tokens(60, 1));
    auto net = Net::Create(LstmLanguageModel(), &ws, Reg(), Planned(true));
    ASSERT_TRUE(net.ok()) << net.status();
    for (int i = 0; i < 2; ++i) ASSERT_TRUE((*net)->Run().ok());
    largest_alone = PlannedPeak(**net);
    EXPECT_GT((*net)->arena_bytes(), 0u);
  }
  // All buckets declared, then cycled three times; results as unplanned.
  Workspace ws, plain_ws;
  ws.SetBlob("tokens", Tokens(10, 1));
  plain_ws.SetBlob("tokens", Tokens(10, 1));
  auto net = Net::Create(LstmLanguageModel(), &ws, Reg(), Planned(true));
  auto plain = Net::Create(LstmLanguageModel(), &plain_ws, Reg(), Planned(false));
  ASSERT_TRUE(net.ok() && plain.ok());
  std::vector<std::vector<std::pair<std::string, Shape>>> buckets;
  for (int64_t T : lengths) buckets.push_back({{"tokens", {T, 1}}});
  ASSERT_TRUE((*net)->PlanBuckets(buckets).ok());
  EXPECT_EQ((*net)->plans_built(), 6);
  EXPECT_EQ((*net)->arena_allocations(), 1);  // the largest first: no growth
  for (int cycle = 0; cycle < 3; ++cycle) {
    for (int64_t T : lengths) {
      ws.SetBlob("tokens", Tokens(T, cycle + 1));
      plain_ws.SetBlob("tokens", Tokens(T, cycle + 1));
      ASSERT_TRUE((*net)->Run().ok());
      ASSERT_TRUE((*plain)->Run().ok());
      ASSERT_EQ(ws.GetBlob("probs")->dims(), (Shape{T, 50}));
      ASSERT_TRUE(testing::AllClose(*ws.GetBlob("probs"), *plain_ws.GetBlob("probs"), 0, 0)) << "T = " << T;
    }
  }
  EXPECT_EQ((*net)->plans_built(), 6);
  EXPECT_EQ((*net)->arena_allocations(), 1);
  const size_t cycling = PlannedPeak(**net);
  EXPECT_LE(static_cast<double>(cycling), 1.05 * static_cast<double>(largest_alone))
      << "cycling " << cycling << " bytes, largest alone " << largest_alone;
}

TEST(MemoryPlanTest, WithoutDeclaredBucketsTheArenaGrowsToTheLargest) {
  Workspace ws;
  ws.SetBlob("tokens", Tokens(10, 1));
  auto net = Net::Create(LstmLanguageModel(), &ws, Reg(), Planned(true));
  ASSERT_TRUE(net.ok());
  size_t arena = 0;
  for (int64_t T : {10, 30, 60, 20}) {
    ws.SetBlob("tokens", Tokens(T, 2));
    ASSERT_TRUE((*net)->Run().ok());
    EXPECT_GE((*net)->arena_bytes(), arena);
    arena = (*net)->arena_bytes();
  }
  // Grown at 30 and at 60 (after 10), not for 20.
  EXPECT_EQ((*net)->arena_allocations(), 3);
}

}  // namespace
}  // namespace loom
