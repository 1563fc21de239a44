// Allreduce bandwidth of the collectives plugin (Gloo over TCP): one rank
// of a run started by tools/train/launch_local.sh (or by hand, as
// loom_train). For each size from 1 KiB to 64 MiB (float32, x4), times
// --iters Allreduce ops (sum) after --warmup, through a Loom net as
// training runs them, and rank 0 prints per size: the median time (ms),
// the algorithm bandwidth (bytes / time) and the bus bandwidth
// (algorithm bandwidth x 2 (n - 1) / n, nccl-tests' convention: what each
// link carries in a ring).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "core/autodiff/data_parallel.h"
#include "core/net.h"
#include "session/registry_setup.h"
#include "tools/runtime_setup.h"

ABSL_FLAG(int, world_size, 2, "ranks");
ABSL_FLAG(int, rank, 0, "this rank");
ABSL_FLAG(std::string, rendezvous, "", "rendezvous folder");
ABSL_FLAG(std::string, run_id, "", "run id");
ABSL_FLAG(int, warmup, 3, "untimed runs per size");
ABSL_FLAG(int, iters, 20, "timed runs per size");
ABSL_FLAG(int64_t, max_bytes, int64_t{64} << 20, "largest size");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  using loom::tools::FindDataFile;
  std::vector<std::string> warnings;
  auto registry = loom::MakeRegistry(
      {FindDataFile("plugins/cpu/libloom_cpu.so"), FindDataFile("plugins/collectives/libloom_collectives.so")}, &warnings,
      "libloom_collectives.so");
  if (!registry.ok()) {
    std::fprintf(stderr, "allreduce_bench: %s\n", registry.status().ToString().c_str());
    return 1;
  }
  loom::DataParallelOptions dp;
  dp.world_size = absl::GetFlag(FLAGS_world_size);
  dp.rank = absl::GetFlag(FLAGS_rank);
  dp.rendezvous = absl::GetFlag(FLAGS_rendezvous);
  dp.run_id = absl::GetFlag(FLAGS_run_id);
  loom::NetDef def;
  def.set_name("allreduce_bench");
  *def.add_op() = loom::CommonWorldOp(dp);
  loom::OperatorDef* op = def.add_op();
  op->set_type("Allreduce");
  op->add_input("__comm");
  op->add_input("x");
  op->add_output("x");
  def.add_external_input("x");
  loom::Workspace ws;
  if (dp.rank == 0) {
    std::printf("allreduce over %d ranks (Gloo, TCP loopback), float32 sum, median of %d runs\n", dp.world_size,
                absl::GetFlag(FLAGS_iters));
    std::printf("%12s %12s %18s %18s\n", "bytes", "ms", "algbw (MB/s)", "busbw (MB/s)");
  }
  for (int64_t bytes = 1024; bytes <= absl::GetFlag(FLAGS_max_bytes); bytes *= 4) {
    ws.SetBlob("x", loom::Tensor::Zeros(loom::DataType::kFloat32, {bytes / 4}));
    auto net = loom::Net::Create(def, &ws, registry->get());
    if (!net.ok()) {
      std::fprintf(stderr, "allreduce_bench: %s\n", net.status().ToString().c_str());
      return 1;
    }
    std::vector<double> ms;
    for (int i = 0; i < absl::GetFlag(FLAGS_warmup) + absl::GetFlag(FLAGS_iters); ++i) {
      const auto start = std::chrono::steady_clock::now();
      if (absl::Status s = (*net)->Run(); !s.ok()) {
        std::fprintf(stderr, "allreduce_bench: %s\n", s.ToString().c_str());
        return 1;
      }
      if (i >= absl::GetFlag(FLAGS_warmup)) {
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      }
    }
    std::sort(ms.begin(), ms.end());
    const double t = ms[ms.size() / 2];
    const double algbw = static_cast<double>(bytes) / (t / 1e3) / 1e6;
    const double busbw = algbw * 2.0 * (dp.world_size - 1) / dp.world_size;
    if (dp.rank == 0) std::printf("%12lld %12.3f %18.1f %18.1f\n", static_cast<long long>(bytes), t, algbw, busbw);
  }
  return 0;
}
