// The RNN executor benchmark (BENCHMARKS.md): a 4-layer LSTM (hidden 512,
// batch 32, T 50, input 512) built with the rnn builder, run as one
// RecurrentNetwork op with the sequential executor and with the threaded
// timestep executor. Prints the median ms of each, the speedup and the ideal
// (the number of cores).
//
//   rnn_bench [--runs N] [--layers L] [--hidden H] [--batch N] [--steps T] [--threads K]
#include <algorithm>
#include <cstdio>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/executor/timestep_executor.h"
#include "core/net.h"
#include "plugins/rnn/builder.h"
#include "tools/runtime_setup.h"

ABSL_FLAG(int, runs, 5, "Timed runs per executor (after one warm-up).");
ABSL_FLAG(int, layers, 4, "LSTM layers.");
ABSL_FLAG(int, hidden, 512, "Hidden size (also the input size).");
ABSL_FLAG(int, batch, 32, "Batch size.");
ABSL_FLAG(int, steps, 50, "Timesteps T.");
ABSL_FLAG(int, threads, 2, "Threaded executor workers.");
ABSL_FLAG(int, sequential_kernel_threads, 0, "OpenMP threads per kernel in the sequential run (0: all cores).");

namespace loom {
namespace {

Tensor Random(Shape dims, uint32_t seed, float scale) {
  Tensor t = Tensor::Zeros(DataType::kFloat32, std::move(dims));
  uint32_t s = seed;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = scale * static_cast<float>((s >> 8) * (1.0 / 16777216.0) * 2.0 - 1.0);
  }
  return t;
}

double MedianMs(Net* net, int runs) {
  absl::Status s = net->Run();
  if (!s.ok()) {
    std::fprintf(stderr, "rnn_bench: %s\n", s.ToString().c_str());
    std::exit(1);
  }
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    absl::Time start = absl::Now();
    (void)net->Run();
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int Main() {
  const int L = absl::GetFlag(FLAGS_layers), H = absl::GetFlag(FLAGS_hidden), N = absl::GetFlag(FLAGS_batch),
            T = absl::GetFlag(FLAGS_steps), K = absl::GetFlag(FLAGS_threads), runs = absl::GetFlag(FLAGS_runs);
  auto registry = tools::MakeRegistry({tools::FindDataFile("plugins/cpu/libloom_cpu.so"),
                                       tools::FindDataFile("plugins/rnn/libloom_rnn.so")},
                                      nullptr);
  if (!registry.ok()) {
    std::fprintf(stderr, "rnn_bench: %s\n", registry.status().ToString().c_str());
    return 1;
  }
  Workspace ws;
  ws.SetBlob("X", Random({T, N, H}, 1, 1.0f));
  std::vector<rnn::LstmWeights> w;
  std::vector<std::string> h0, c0;
  for (int l = 0; l < L; ++l) {
    w.push_back({absl::StrCat("W", l), absl::StrCat("R", l), absl::StrCat("B", l)});
    ws.SetBlob(w.back().w, Random({H, 4 * H}, 10 + l, 0.05f));
    ws.SetBlob(w.back().r, Random({H, 4 * H}, 20 + l, 0.05f));
    ws.SetBlob(w.back().b, Random({4 * H}, 30 + l, 0.05f));
    h0.push_back(absl::StrCat("h0_", l));
    c0.push_back(absl::StrCat("c0_", l));
    ws.SetBlob(h0.back(), Random({1, N, H}, 40 + l, 0.1f));
    ws.SetBlob(c0.back(), Random({1, N, H}, 50 + l, 0.1f));
  }
  std::printf("4-layer LSTM benchmark: layers %d, hidden %d, batch %d, T %d, %d cores\n", L, H, N, T, NumCores());
  std::printf("%-52s %12s\n", "executor", "median ms");
  double seq_ms = 0, thr_ms = 0;
  for (bool threaded : {false, true}) {
    auto op = rnn::BuildStackedLstm(threaded ? "lstm_threaded" : "lstm_seq", "X", w, h0, c0, threaded ? "T" : "S", false,
                                    threaded, K, 2 * L);
    if (!op.ok()) {
      std::fprintf(stderr, "rnn_bench: %s\n", op.status().ToString().c_str());
      return 1;
    }
    NetDef def;
    *def.add_op() = *op;
    def.add_external_input("X");
    NetOptions opts;
    if (!threaded) opts.num_threads = absl::GetFlag(FLAGS_sequential_kernel_threads);
    auto net = Net::Create(def, &ws, registry->get(), opts);
    if (!net.ok()) {
      std::fprintf(stderr, "rnn_bench: %s\n", net.status().ToString().c_str());
      return 1;
    }
    double ms = MedianMs(net->get(), runs);
    (threaded ? thr_ms : seq_ms) = ms;
    std::printf("%-52s %12.2f\n",
                threaded ? absl::StrCat("threaded timestep executor (", K, " workers x ", KernelThreadsFor(K), " kernel threads)").c_str()
                         : absl::StrCat("sequential (", opts.num_threads > 0 ? opts.num_threads : NumCores(), " kernel threads)").c_str(),
                ms);
  }
  const Tensor* a = ws.GetBlob("S_all");
  const Tensor* b = ws.GetBlob("T_all");
  double max_diff = 0;
  for (int64_t i = 0; i < a->num_elements(); ++i) max_diff = std::max<double>(max_diff, std::abs(a->data<float>()[i] - b->data<float>()[i]));
  std::printf("speedup threaded/sequential: %.2fx (ideal %d.0x); largest output difference %.3g\n", seq_ms / thr_ms,
              std::min(K, NumCores()), max_diff);
  return 0;
}

}  // namespace
}  // namespace loom

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return loom::Main();
}
