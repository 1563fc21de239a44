// Google Benchmark figures for the core (see BENCHMARKS.md):
//  - BM_DispatchAdd1000: a net of 1,000 chained Add ops on 1-element float32
//    tensors; the counter ns_per_op is the runtime's overhead per op.
//  - BM_GemmLoom / BM_GemmDirectDnnl: Gemm 1024x1024x1024 float32 through a
//    Loom net, and the same oneDNN matmul primitive called directly; the
//    counter GFLOPs is 2*M*N*K per second.
#include <memory>
#include <random>

#include "benchmark/benchmark.h"
#include "core/net.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "session/registry_setup.h"
#include "tools/runtime_setup.h"

namespace loom {
namespace {

Registry* GetRegistry() {
  static Registry* r = [] {
    auto reg = loom::MakeRegistry({tools::FindDataFile("plugins/cpu/libloom_cpu.so")}, nullptr);
    if (!reg.ok()) {
      fprintf(stderr, "bench: %s\n", reg.status().ToString().c_str());
      std::exit(1);
    }
    return reg->release();
  }();
  return r;
}

void BM_DispatchAdd1000(benchmark::State& state) {
  constexpr int kOps = 1000;
  Workspace ws;
  ws.SetBlob("x0", Tensor::FromVector<float>({1}, {1.0f}));
  ws.SetBlob("one", Tensor::FromVector<float>({1}, {1.0f}));
  NetDef def;
  def.set_name("add_chain");
  def.add_external_input("x0");
  def.add_external_input("one");
  for (int i = 0; i < kOps; ++i) {
    OperatorDef* op = def.add_op();
    op->set_type("Add");
    op->add_input("x" + std::to_string(i));
    op->add_input("one");
    op->add_output("x" + std::to_string(i + 1));
  }
  auto net = Net::Create(def, &ws, GetRegistry());
  if (!net.ok() || !(*net)->Run().ok()) {
    state.SkipWithError("cannot build or run the Add chain");
    return;
  }
  for (auto _ : state) {
    absl::Status s = (*net)->Run();
    benchmark::DoNotOptimize(s);
  }
  if (ws.GetBlob("x1000")->data<float>()[0] != 1001.0f) state.SkipWithError("wrong result");
  state.counters["ns_per_op"] = benchmark::Counter(kOps * state.iterations(),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert,
                                                   benchmark::Counter::kIs1000);
}

constexpr int64_t kM = 1024, kN = 1024, kK = 1024;

void Fill(float* p, int64_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  for (int64_t i = 0; i < n; ++i) p[i] = d(g);
}

void SetGflops(benchmark::State& state) {
  state.counters["GFLOPs"] = benchmark::Counter(2.0 * kM * kN * kK * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

void BM_GemmLoom(benchmark::State& state) {
  Workspace ws;
  Tensor a = Tensor::Zeros(DataType::kFloat32, {kM, kK}), b = Tensor::Zeros(DataType::kFloat32, {kK, kN});
  Fill(a.data<float>(), a.num_elements(), 1);
  Fill(b.data<float>(), b.num_elements(), 2);
  ws.SetBlob("A", a);
  ws.SetBlob("B", b);
  NetDef def;
  def.add_external_input("A");
  def.add_external_input("B");
  OperatorDef* op = def.add_op();
  op->set_type("Gemm");
  op->add_input("A");
  op->add_input("B");
  op->add_output("Y");
  auto net = Net::Create(def, &ws, GetRegistry());
  if (!net.ok() || !(*net)->Run().ok()) {
    state.SkipWithError("cannot build or run Gemm");
    return;
  }
  for (auto _ : state) {
    absl::Status s = (*net)->Run();
    benchmark::DoNotOptimize(s);
  }
  SetGflops(state);
}

void BM_GemmDirectDnnl(benchmark::State& state) {
  using dnnl::memory;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  memory::desc a_md({kM, kK}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc b_md({kK, kN}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc c_md({kM, kN}, memory::data_type::f32, memory::format_tag::ab);
  dnnl::matmul prim(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), eng));
  std::vector<float> a(kM * kK), b(kK * kN), c(kM * kN);
  Fill(a.data(), a.size(), 1);
  Fill(b.data(), b.size(), 2);
  memory am(a_md, eng, a.data()), bm(b_md, eng, b.data()), cm(c_md, eng, c.data());
  for (auto _ : state) {
    prim.execute(strm, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    strm.wait();
  }
  SetGflops(state);
}

BENCHMARK(BM_DispatchAdd1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GemmLoom)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_GemmDirectDnnl)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace loom

BENCHMARK_MAIN();
