// The RNN executor benchmark (BENCHMARKS.md): a 4-layer LSTM (hidden 512,
// batch 32, T 50, input 512) built with the rnn builder, run as one
// RecurrentNetwork op with the sequential executor and with the threaded
// timestep executor. Prints the median ms of each, the speedup and the ideal
// (the number of cores).
//
// With --device CUDA the same LSTM runs with its step net on the GPU
// (the CUDA plugin, plugins/cuda/libloom_cuda.so, or --cuda_plugin): the
// cell is spelled out in standard ops (the builder's fused = false: MatMul,
// Add, Split, Sigmoid, Tanh, Mul; LSTMUnit has no CUDA kernel) and
// RecurrentNetwork runs timestep t on stream t mod S (the multi-stream
// executor, core/executor/multi_stream_executor.h) for each S in --streams
// (default 1,4). Inputs, weights and initial states are put on the GPU once
// before the runs, so the times are the recurrent network alone. Prints the
// median ms per stream count, the speedup of the last over the first and
// the largest output difference between them and against the CPU run of
// the same net (sequential executor).
//
//   rnn_bench [--runs N] [--warmup W] [--layers L] [--hidden H] [--batch N] [--steps T] [--threads K]
//   rnn_bench --device CUDA [--streams 1,4] [--runs N] [--warmup W] ...
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "core/executor/timestep_executor.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "plugins/rnn/builder.h"
#include "session/registry_setup.h"
#include "tools/runtime_setup.h"

ABSL_FLAG(int, runs, 5, "Timed runs per executor (after the warm-up).");
ABSL_FLAG(int, warmup, 1, "Untimed runs per executor before the timed ones.");
ABSL_FLAG(std::string, device, "CPU", "CPU (sequential vs threaded executor) or CUDA / CUDA:<id> (stream counts).");
ABSL_FLAG(std::vector<std::string>, streams, std::vector<std::string>({"1", "4"}), "With --device CUDA: the stream counts to compare.");
ABSL_FLAG(std::string, cuda_plugin, "plugins/cuda/libloom_cuda.so", "The CUDA plugin (found next to the binary, in its runfiles or here).");
ABSL_FLAG(bool, check_cpu, true, "With --device CUDA: also run the net once on the CPU and report the largest difference.");
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
  for (int i = 0; i < std::max(1, absl::GetFlag(FLAGS_warmup)); ++i) {
    absl::Status s = net->Run();
    if (!s.ok()) {
      std::fprintf(stderr, "rnn_bench: %s\n", s.ToString().c_str());
      std::exit(1);
    }
  }
  std::vector<double> ms;
  for (int i = 0; i < std::max(1, runs); ++i) {
    absl::Time start = absl::Now();
    absl::Status s = net->Run();
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
    if (!s.ok()) {
      std::fprintf(stderr, "rnn_bench: %s\n", s.ToString().c_str());
      std::exit(1);
    }
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// The default registry plus each (plugin name, path) not already loaded
// from the default plugin folder (path found by tools::FindDataFile).
absl::StatusOr<std::unique_ptr<Registry>> LoadRegistry(const std::vector<std::pair<std::string, std::string>>& plugins) {
  auto registry = loom::MakeRegistry({}, nullptr);
  if (!registry.ok()) return registry.status();
  for (const auto& [name, path] : plugins) {
    if ((*registry)->FindPlugin(name).has_value()) continue;
    absl::Status s = LoadPlugin(registry->get(), tools::FindDataFile(path));
    if (!s.ok()) return s;
  }
  return registry;
}

// Sets the device of `net`, its ops and the nets nested in their arguments.
void PlaceOnDevice(NetDef* net, const DeviceOption& device) {
  *net->mutable_device_option() = device;
  for (OperatorDef& op : *net->mutable_op()) {
    *op.mutable_device_option() = device;
    for (Argument& a : *op.mutable_arg()) {
      if (a.has_n()) PlaceOnDevice(a.mutable_n(), device);
      for (NetDef& n : *a.mutable_nets()) PlaceOnDevice(&n, device);
    }
  }
}

double MaxDiff(const Tensor& a, const Tensor& b) {
  if (a.dims() != b.dims() || a.dtype() != DataType::kFloat32 || b.dtype() != DataType::kFloat32) return INFINITY;
  double d = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) d = std::max<double>(d, std::abs(a.data<float>()[i] - b.data<float>()[i]));
  return d;
}

// Runs `def` once (on whatever devices it names); exits on failure.
void RunOnce(const NetDef& def, Workspace* ws, const Registry* registry) {
  auto net = Net::Create(def, ws, registry);
  absl::Status s = net.ok() ? (*net)->Run() : net.status();
  if (!s.ok()) {
    std::fprintf(stderr, "rnn_bench: net '%s': %s\n", def.name().c_str(), s.ToString().c_str());
    std::exit(1);
  }
}

// --device CUDA: the LSTM with its step net on the GPU, per stream count.
int MainDevice() {
  const int L = absl::GetFlag(FLAGS_layers), H = absl::GetFlag(FLAGS_hidden), N = absl::GetFlag(FLAGS_batch),
            T = absl::GetFlag(FLAGS_steps), runs = absl::GetFlag(FLAGS_runs);
  const std::string device_flag = absl::GetFlag(FLAGS_device);
  DeviceOption device;
  {
    std::vector<std::string> parts = absl::StrSplit(device_flag, absl::MaxSplits(':', 1));
    int id = 0;
    if (parts.size() == 2 && (!absl::SimpleAtoi(parts[1], &id) || id < 0)) {
      std::fprintf(stderr, "rnn_bench: --device '%s': expected TYPE or TYPE:<id>\n", device_flag.c_str());
      return 2;
    }
    device.set_device_type(parts[0]);
    device.set_device_id(id);
  }
  std::vector<int> streams;
  for (const std::string& v : absl::GetFlag(FLAGS_streams)) {
    int k;
    if (!absl::SimpleAtoi(v, &k) || k < 1) {
      std::fprintf(stderr, "rnn_bench: --streams: bad count '%s'\n", v.c_str());
      return 2;
    }
    streams.push_back(k);
  }
  if (streams.empty()) streams = {1, 4};
  std::vector<std::pair<std::string, std::string>> plugins = {{"cpu", "plugins/cpu/libloom_cpu.so"},
                                                              {"rnn", "plugins/rnn/libloom_rnn.so"}};
  if (device.device_type() == "CUDA") plugins.push_back({"cuda", absl::GetFlag(FLAGS_cuda_plugin)});
  auto registry = LoadRegistry(plugins);
  if (!registry.ok()) {
    std::fprintf(stderr, "rnn_bench: %s\n", registry.status().ToString().c_str());
    return 1;
  }
  if ((*registry)->FindDevice(device.device_type(), device.device_id()) == nullptr) {
    std::fprintf(stderr, "rnn_bench: no device %s (the plugin is loaded; for CUDA, cudaGetDeviceCount found no usable GPU)\n",
                 device_flag.c_str());
    return 1;
  }
  // Host values (the same as the CPU mode's), then one Identity per tensor
  // on the device: the device copies keep the names the nets read.
  Workspace ws;
  NetDef upload;
  upload.set_name("upload");
  auto host = [&](const std::string& name, Tensor t) {
    ws.SetBlob(name + "@host", std::move(t));
    upload.add_external_input(name + "@host");
    OperatorDef* op = upload.add_op();
    op->set_type("Identity");
    op->add_input(name + "@host");
    op->add_output(name);
  };
  host("X", Random({T, N, H}, 1, 1.0f));
  std::vector<rnn::LstmWeights> w;
  std::vector<std::string> h0, c0;
  for (int l = 0; l < L; ++l) {
    w.push_back({absl::StrCat("W", l), absl::StrCat("R", l), absl::StrCat("B", l)});
    host(w.back().w, Random({H, 4 * H}, 10 + l, 0.05f));
    host(w.back().r, Random({H, 4 * H}, 20 + l, 0.05f));
    host(w.back().b, Random({4 * H}, 30 + l, 0.05f));
    h0.push_back(absl::StrCat("h0_", l));
    c0.push_back(absl::StrCat("c0_", l));
    host(h0.back(), Random({1, N, H}, 40 + l, 0.1f));
    host(c0.back(), Random({1, N, H}, 50 + l, 0.1f));
  }
  PlaceOnDevice(&upload, device);
  RunOnce(upload, &ws, registry->get());
  std::printf("4-layer LSTM benchmark on %s: layers %d, hidden %d, batch %d, T %d, input %d; step net of standard ops "
              "(MatMul, Add, Split, Sigmoid, Tanh, Mul); %d warm-up, %d timed runs\n",
              device_flag.c_str(), L, H, N, T, H, std::max(1, absl::GetFlag(FLAGS_warmup)), std::max(1, runs));
  std::printf("%-52s %12s\n", "executor", "median ms");
  std::vector<double> ms;
  std::vector<Tensor> outs;
  for (int k : streams) {
    std::string out = absl::StrCat("S", k);
    auto op = rnn::BuildStackedLstm(absl::StrCat("lstm_streams", k), "X", w, h0, c0, out, false, /*threaded=*/true, k, 2 * L,
                                    /*fused=*/false);
    if (!op.ok()) {
      std::fprintf(stderr, "rnn_bench: %s\n", op.status().ToString().c_str());
      return 1;
    }
    NetDef def;
    def.set_name(absl::StrCat("lstm_streams", k));
    *def.add_op() = *op;
    def.add_external_input("X");
    PlaceOnDevice(&def, device);
    auto net = Net::Create(def, &ws, registry->get());
    if (!net.ok()) {
      std::fprintf(stderr, "rnn_bench: %s\n", net.status().ToString().c_str());
      return 1;
    }
    ms.push_back(MedianMs(net->get(), runs));
    std::printf("%-52s %12.2f\n",
                (k == 1 ? absl::StrCat("RecurrentNetwork on ", device_flag, ", 1 stream")
                        : absl::StrCat("RecurrentNetwork on ", device_flag, ", ", k, " streams (t mod ", k, ")"))
                    .c_str(),
                ms.back());
    // The top layer's outputs back on the host (a CPU Identity: the planner copies).
    NetDef fetch;
    fetch.set_name("fetch");
    OperatorDef* f = fetch.add_op();
    f->set_type("Identity");
    f->add_input(out + "_all");
    f->add_output(out + "_all_host");
    RunOnce(fetch, &ws, registry->get());
    outs.push_back(*ws.GetBlob(out + "_all_host"));
  }
  double vs_first = 0;
  for (size_t i = 1; i < outs.size(); ++i) vs_first = std::max(vs_first, MaxDiff(outs[0], outs[i]));
  std::string cpu_note = "not checked";
  if (absl::GetFlag(FLAGS_check_cpu)) {
    Workspace cpu_ws;
    for (const std::string& name : upload.external_input()) {
      cpu_ws.SetBlob(name.substr(0, name.size() - 5), *ws.GetBlob(name));  // strip "@host"
    }
    auto op = rnn::BuildStackedLstm("lstm_cpu", "X", w, h0, c0, "C", false, /*threaded=*/false, 1, 1, /*fused=*/false);
    if (!op.ok()) {
      std::fprintf(stderr, "rnn_bench: %s\n", op.status().ToString().c_str());
      return 1;
    }
    NetDef def;
    def.set_name("lstm_cpu");
    *def.add_op() = *op;
    def.add_external_input("X");
    RunOnce(def, &cpu_ws, registry->get());
    double d = 0;
    for (const Tensor& t : outs) d = std::max(d, MaxDiff(t, *cpu_ws.GetBlob("C_all")));
    cpu_note = absl::StrFormat("%.3g", d);
  }
  std::printf("speedup %d streams / %d stream%s: %.2fx; largest output difference between stream counts %.3g, against the CPU %s\n",
              streams.back(), streams.front(), streams.front() == 1 ? "" : "s", ms.front() / ms.back(), vs_first,
              cpu_note.c_str());
  return 0;
}

int Main() {
  if (absl::GetFlag(FLAGS_device) != "CPU") return MainDevice();
  const int L = absl::GetFlag(FLAGS_layers), H = absl::GetFlag(FLAGS_hidden), N = absl::GetFlag(FLAGS_batch),
            T = absl::GetFlag(FLAGS_steps), K = absl::GetFlag(FLAGS_threads), runs = absl::GetFlag(FLAGS_runs);
  auto registry = LoadRegistry({{"cpu", "plugins/cpu/libloom_cpu.so"}, {"rnn", "plugins/rnn/libloom_rnn.so"}});
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
