#include "tools/run/report.h"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/proto_io.h"
#include "frontend/onnx/onnx_importer.h"
#include "tools/run/failure.h"

namespace loom {
namespace tools {
namespace {

// "float32 [1, 10] [0.0552142, 0.00671549, ...]", strings quoted.
std::string Describe(const Tensor& t, int show) {
  std::vector<std::string> vals;
  for (int64_t i = 0; i < std::min<int64_t>(t.num_elements(), show); ++i) {
    vals.push_back(t.dtype() == DataType::kString ? absl::StrCat("\"", t.strings()[i], "\"")
                                                  : absl::StrFormat("%.6g", t.ElementAsDouble(i)));
  }
  return absl::StrCat(DataTypeName(t.dtype()), " ", ShapeToString(t.dims()), " [", absl::StrJoin(vals, ", "),
                      t.num_elements() > static_cast<int64_t>(vals.size()) ? ", ..." : "", "]");
}

// "output prob: float32 [1, 10] [0.0552142, 0.00671549, ...]"; a sequence
// or optional as "seq(float32) of 2:" and a line per value it holds.
void PrintOutput(const RunOutput& output, int show, std::ostream& out) {
  const Tensor& t = *output.tensor;
  if (!t.is_value()) {
    out << "output " << output.name << ": " << Describe(t, show) << "\n";
    return;
  }
  out << "output " << output.name << ": " << t.DebugString() << (t.values().empty() ? "" : ":") << "\n";
  for (size_t i = 0; i < t.values().size(); ++i) {
    const Tensor& v = t.values()[i];
    out << "  [" << i << "] " << (v.is_value() ? v.DebugString() : Describe(v, show)) << "\n";
  }
}

// DIR/<name>.pb and, with `raw`, DIR/<name>.bin (tensors other than strings).
absl::Status WriteOutput(const RunOutput& output, const std::string& dir, bool raw) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat("cannot create --output_dir ", dir, ": ", ec.message()));
  // ONNX's messages as an ONNX test's output_0.pb holds them: a TensorProto
  // (onnx.load_tensor reads it), a SequenceProto or an OptionalProto; loom_run
  // reads each back as an input. Not Loom's own TensorProto, whose field
  // numbers differ.
  const std::string path = absl::StrCat(dir, "/", output.name, ".pb");
  std::ofstream pb(path, std::ios::binary);
  pb << onnx_import::ExportOnnxValue(*output.tensor, output.name);
  if (!pb) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  if (raw && !output.tensor->is_value() && output.tensor->dtype() != DataType::kString) {  // strings have no raw bytes
    std::ofstream file(absl::StrCat(dir, "/", output.name, ".bin"), std::ios::binary);
    file.write(static_cast<const char*>(output.tensor->raw_data()), static_cast<std::streamsize>(output.tensor->nbytes()));
    if (!file) return absl::PermissionDeniedError(absl::StrCat("cannot write ", dir, "/", output.name, ".bin"));
  }
  return absl::OkStatus();
}

// "time per run over 3 runs (after 1 warm-up): mean ..., p50 ..., p90 ..."
void PrintTimes(const RunResult& result, std::ostream& out) {
  const std::vector<double>& ms = result.run_ms;
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) { return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * (sorted.size() - 1) + 0.5))]; };
  double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / ms.size();
  out << absl::StrFormat("time per run over %d runs (after %d warm-up): mean %.3f ms, p50 %.3f ms, p90 %.3f ms\n",
                         static_cast<int>(ms.size()), result.warmup, mean, pct(0.5), pct(0.9));
}

std::string Mib(size_t bytes) { return absl::StrFormat("%.1f MiB", bytes / 1048576.0); }

// Weights: the bytes of the blobs the net reads that are not external
// inputs (initializers and what else the workspace held), those freed after
// their kernels packed them (static_shape) included. Peak RSS from
// getrusage (the whole process so far: model loading included).
void PrintMemory(const RunResult& result, std::ostream& out) {
  const Net& net = *result.net;
  std::set<std::string> external(net.def().external_input().begin(), net.def().external_input().end());
  size_t weights = 0;
  for (const std::string& name : net.inputs()) {
    if (external.count(name)) continue;
    if (const Tensor* t = result.workspace->GetBlob(name)) weights += t->nbytes();
  }
  weights += net.released_constant_bytes();
  out << "memory: weights " << Mib(weights) << " (" << weights << " bytes)\n";
  if (net.released_constants() > 0) {
    out << absl::StrFormat("memory: %d initializers (%s) freed after their kernels packed them (--static_shape)\n",
                           static_cast<int>(net.released_constants()), Mib(net.released_constant_bytes()));
  }
  const Plan* plan = net.last_plan();
  if (plan != nullptr && plan->memory().enabled) {
    const MemoryPlan& m = plan->memory();
    size_t arena = 0;
    for (const auto& [device, bytes] : m.arena_bytes) arena += bytes;
    out << absl::StrFormat(
        "memory: planned arena %s for %d intermediates (%d in place), %s without reuse (%.2fx); net arena %s\n",
        Mib(arena), static_cast<int>(m.blobs.size()), static_cast<int>(m.in_place), Mib(m.no_reuse_bytes),
        m.no_reuse_bytes ? static_cast<double>(arena) / m.no_reuse_bytes : 0.0, Mib(net.arena_bytes()));
    out << absl::StrFormat("memory: %d outputs sized at run time from the pool: high water %s, %d device allocations\n",
                           static_cast<int>(m.dynamic_blobs), Mib(net.pool().high_water_bytes()),
                           static_cast<int>(net.pool().device_allocations()));
  } else {
    out << "memory: not planned (--plan_memory=false, a multi_stream net, or a net with no external output)\n";
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  out << "memory: peak RSS " << Mib(static_cast<size_t>(ru.ru_maxrss) * 1024) << "\n";
}

}  // namespace

absl::Status WriteReport(const RunResult& result, const RunOptions& options, std::ostream& out) {
  out << "Model: " << result.model << " (net '" << result.net_name << "', " << result.num_ops << " ops)\n";
  for (const RunOutput& output : result.outputs) {
    PrintOutput(output, options.show, out);
    if (!options.output_dir.empty()) {
      absl::Status s = WriteOutput(output, options.output_dir, options.output_raw);
      if (!s.ok()) return s;
    }
  }
  PrintTimes(result, out);
  if (options.memory) PrintMemory(result, out);
  if (options.profile) out << "\n" << result.profile.ToString();
  return absl::OkStatus();
}

}  // namespace tools
}  // namespace loom
