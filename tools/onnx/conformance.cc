// onnx_conformance: runs the ONNX backend test data (Debian's
// libonnx-testdata: suites node, pytorch-converted, pytorch-operator,
// simple) on Loom's CPU plugin and classifies every test:
//   passed       all outputs match (rtol 1e-3, atol 1e-7, NaN == NaN, exact
//                for integers and bool)
//   wrong        an output differs (largest absolute and relative error and
//                where are reported)
//   unsupported  the model uses an op with no CPU kernel
//   error        import, checking or running failed (message kept); a crash
//                is contained: each test runs in a child process.
// Tests that use LSTM, GRU or RNN run once more per --recurrent_engines
// entry (DNNL, STEPNET), reported per engine. Writes a Markdown report and a
// JSON file, and with --expected fails (exit status 1) if a test listed there
// no longer passes or a recurrent test fails with one of the engines. Ends
// with
//   conformance: P passed, W wrong, U unsupported, E errors of N
//
// --device CUDA[:id] places every op (nested nets included) on that device
// (NetDef.device_option); a test whose model uses an op with no kernel for
// it is "unsupported", and so is one whose net finds no kernel there for
// its dtypes (Net::Create: NOT_FOUND). The CUDA plugin comes from --plugin, LOOM_PLUGIN_PATH
// or plugins/cuda/libloom_cuda.so (next to the binary, in its runfiles or
// under the current folder). CUDA cannot be used in a child forked after
// the parent initialized it, and a context per test would cost most of the
// run, so on a device the parent never loads a plugin: a child loads the
// registry and runs the tests in order, streaming one result per test; a
// crash or timeout marks the test that was running and a new child goes on
// with the next one, and a child also restarts after an error that names
// CUDA, cuDNN or cuBLAS (a sticky CUDA error poisons the context).
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>
#include <cstring>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/api/loom_sdk.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "core/proto_io.h"
#include "frontend/onnx/onnx_importer.h"
#include "tools/child_process.h"
#include "session/registry_setup.h"
#include "tools/runtime_setup.h"
#include "transforms/optimize.h"

ABSL_FLAG(std::string, data_dir, "/usr/share/libonnx-testdata/data", "Root of the ONNX test data.");
ABSL_FLAG(std::string, suites, "node,pytorch-converted,pytorch-operator,simple", "Suites to run.");
ABSL_FLAG(std::string, filter, "", "Run only tests whose name contains this.");
ABSL_FLAG(std::string, markdown, "", "Write the report (CONFORMANCE.md) here.");
ABSL_FLAG(std::string, json, "", "Write per-test results as JSON here.");
ABSL_FLAG(std::string, expected, "", "File of suite/test names that must pass.");
ABSL_FLAG(std::string, write_passes, "", "Write the suite/test names that passed here.");
ABSL_FLAG(std::vector<std::string>, plugin, {}, "Plugins to load after the default ones.");
ABSL_FLAG(int, timeout_s, 60, "Seconds per test before it counts as an error.");
ABSL_FLAG(int, deadline_s, 0, "With --device: start no test after this many seconds (the rest count as errors, 'not run'); 0: none.");
ABSL_FLAG(std::string, device, "CPU", "Place every op on this device: CPU, CUDA or CUDA:<id>.");
ABSL_FLAG(std::string, engine, "", "Ask every op for this kernel engine (e.g. STEPNET); ops without one use their default.");
ABSL_FLAG(std::vector<std::string>, recurrent_engines, std::vector<std::string>({"DNNL", "STEPNET"}),
          "On the host: run the tests that use LSTM, GRU or RNN again with each of these engines and report them "
          "per engine (the rnn issue's two kernels); empty: skip.");

namespace loom {
namespace {

namespace fs = std::filesystem;

struct Result {
  std::string suite, name, status, detail;  // status: passed|wrong|unsupported|error
  std::vector<std::string> ops;
};

bool IsFloat(DataType d) {
  return d == DataType::kFloat32 || d == DataType::kFloat64 || d == DataType::kFloat16 || d == DataType::kBFloat16;
}

// "" when equal; otherwise what differs.
std::string Compare(const std::string& name, const Tensor& got, const Tensor& want) {
  if (got.is_value() || want.is_value()) {  // sequences and optionals: type, count, then each value
    if (got.dtype() != want.dtype() || got.values().size() != want.values().size()) {
      return absl::StrCat("output '", name, "': expected ", want.DebugString(), ", found ", got.DebugString());
    }
    for (size_t i = 0; i < want.values().size(); ++i) {
      std::string d = Compare(absl::StrCat(name, "[", i, "]"), got.values()[i], want.values()[i]);
      if (!d.empty()) return d;
    }
    return "";
  }
  // bfloat16 expectations come as uint16 bit patterns (see the inputs).
  if (got.dtype() == DataType::kBFloat16 && want.dtype() == DataType::kUInt16 && got.dims() == want.dims()) {
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      uint16_t g = got.data<uint16_t>()[i], w = want.data<uint16_t>()[i];
      bool both_nan = (g & 0x7f80) == 0x7f80 && (g & 0x7f) && (w & 0x7f80) == 0x7f80 && (w & 0x7f);
      if (g != w && !both_nan) {
        return absl::StrFormat("output '%s' bfloat16: bits 0x%04x at flat index %d, expected 0x%04x", name, g, i, w);
      }
    }
    return "";
  }
  if (got.dtype() != want.dtype() || got.dims() != want.dims()) {
    return absl::StrCat("output '", name, "': expected ", want.DebugString(), ", found ", got.DebugString());
  }
  if (want.dtype() == DataType::kString) {  // exactly
    for (size_t i = 0; i < want.strings().size(); ++i) {
      if (got.strings()[i] != want.strings()[i]) {
        return absl::StrCat("output '", name, "' string: \"", got.strings()[i], "\" at flat index ", i, ", expected \"",
                            want.strings()[i], "\"");
      }
    }
    return "";
  }
  double worst_abs = 0, worst_rel = 0;
  int64_t where = -1;
  bool exact = !IsFloat(want.dtype());
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    double a = got.ElementAsDouble(i), e = want.ElementAsDouble(i);
    if (std::isnan(a) && std::isnan(e)) continue;
    if (std::isinf(a) && std::isinf(e) && (a > 0) == (e > 0)) continue;
    double err = std::fabs(a - e);
    bool ok = exact ? a == e : err <= 1e-7 + 1e-3 * std::fabs(e);
    if (!ok && (where < 0 || !(err <= worst_abs))) {
      worst_abs = err;
      worst_rel = e != 0 ? err / std::fabs(e) : INFINITY;
      where = i;
    }
  }
  if (where < 0) return "";
  return absl::StrFormat("output '%s' %s: largest abs error %.3g (rel %.3g) at flat index %d: found %.7g, expected %.7g", name,
                         want.DebugString(), worst_abs, worst_rel, where, got.ElementAsDouble(where), want.ElementAsDouble(where));
}

// --deadline_s as an absolute time (set in Main).
absl::Time g_deadline = absl::InfiniteFuture();
bool DeadlinePassed() { return absl::Now() >= g_deadline; }

// --device as a DeviceOption (CPU:0 by default).
DeviceOption TargetDevice() {
  DeviceOption d;
  std::vector<std::string> parts = absl::StrSplit(absl::GetFlag(FLAGS_device), absl::MaxSplits(':', 1));
  d.set_device_type(parts[0].empty() ? "CPU" : parts[0]);
  int id = 0;
  if (parts.size() == 2 && absl::SimpleAtoi(parts[1], &id) && id >= 0) d.set_device_id(id);
  return d;
}

bool OnHost() { return TargetDevice().device_type() == "CPU"; }

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

Result RunTest(const std::string& suite, const fs::path& dir, Registry* registry) {
  Result r{suite, dir.filename().string(), "error", "", {}};
  auto net = onnx_import::ImportOnnxFile((dir / "model.onnx").string());
  if (!net.ok()) {
    r.detail = std::string(net.status().message());
    return r;
  }
  transforms::OptimizeOptions optimize;  // what loom_run and the Session run
  optimize.device = TargetDevice().device_type();
  transforms::Optimize(&*net, optimize);
  if (!OnHost()) PlaceOnDevice(&*net, TargetDevice());
  std::set<std::string> ops;
  for (auto& op : *net->mutable_op()) {
    ops.insert(op.type());
    if (!absl::GetFlag(FLAGS_engine).empty()) op.set_engine(absl::GetFlag(FLAGS_engine));
  }
  r.ops.assign(ops.begin(), ops.end());
  absl::Status supported = onnx_import::CheckSupported(*net, *registry, TargetDevice().device_type());
  if (!supported.ok()) {
    r.status = "unsupported";
    r.detail = std::string(supported.message());
    return r;
  }
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  }
  std::sort(sets.begin(), sets.end());
  for (const fs::path& set : sets) {
    Workspace ws;
    for (int i = 0; i < net->external_input_size(); ++i) {
      fs::path p = set / absl::StrCat("input_", i, ".pb");
      if (!fs::exists(p)) continue;  // an optional input left out
      // A TensorProto, or for a sequence or optional input a SequenceProto or OptionalProto.
      const DataType declared = onnx_import::DeclaredInputType(*net, net->external_input(i));
      auto t = onnx_import::ReadOnnxValue(p.string(), declared);
      if (!t.ok()) {
        r.detail = std::string(t.status().message());
        return r;
      }
      // The ONNX test data stores bfloat16 tensors as uint16 (numpy has no
      // bfloat16): take the bits as the dtype the graph declares.
      if (t->dtype() == DataType::kUInt16 && declared == DataType::kBFloat16) {
        Tensor bf = Tensor::Zeros(DataType::kBFloat16, t->dims());
        if (t->nbytes()) std::memcpy(bf.raw_data(), t->raw_data(), t->nbytes());
        *t = bf;
      }
      ws.SetBlob(net->external_input(i), *t);
    }
    NetDef def = *net;
    // Inputs with no data (optional) are dropped from the net's inputs.
    def.clear_external_input();
    for (const auto& in : net->external_input()) {
      if (ws.HasBlob(in)) def.add_external_input(in);
    }
    auto n = Net::Create(def, &ws, registry);
    if (!n.ok()) {
      // On a device, no kernel for these dtypes there is "unsupported" too.
      if (!OnHost() && n.status().code() == absl::StatusCode::kNotFound) r.status = "unsupported";
      r.detail = std::string(n.status().message());
      return r;
    }
    absl::Status s = (*n)->Run();
    if (!s.ok()) {
      r.detail = std::string(s.message());
      return r;
    }
    for (int i = 0; i < net->external_output_size(); ++i) {
      fs::path p = set / absl::StrCat("output_", i, ".pb");
      if (!fs::exists(p)) continue;
      auto want = onnx_import::ReadOnnxValue(p.string(), onnx_import::DeclaredOutputType(*net, net->external_output(i)));
      if (!want.ok()) {
        r.detail = std::string(want.status().message());
        return r;
      }
      const Tensor* got = ws.GetBlob(net->external_output(i));
      if (got == nullptr) {
        r.detail = absl::StrCat("output '", net->external_output(i), "' was not produced");
        return r;
      }
      std::string diff = Compare(net->external_output(i), *got, *want);
      if (!diff.empty()) {
        r.status = "wrong";
        r.detail = absl::StrCat(set.filename().string(), ": ", diff);
        return r;
      }
    }
  }
  r.status = "passed";
  return r;
}

// Runs one test in a child process; the child sends "status\tdetail\tops".
Result RunIsolated(const std::string& suite, const fs::path& dir, Registry* registry) {
  tools::ChildResult c = tools::RunInChild(
      [&]() -> std::string {
        Result r = RunTest(suite, dir, registry);
        std::string detail = r.detail;
        std::replace(detail.begin(), detail.end(), '\t', ' ');
        std::replace(detail.begin(), detail.end(), '\n', ' ');
        return absl::StrCat(r.status, "\t", detail, "\t", absl::StrJoin(r.ops, ","));
      },
      absl::GetFlag(FLAGS_timeout_s));
  Result r{suite, dir.filename().string(), "error", "", {}};
  if (c.signal != 0) {
    r.detail = c.signal == SIGALRM ? absl::StrCat("timed out after ", absl::GetFlag(FLAGS_timeout_s), " s")
                                   : absl::StrCat("crashed: signal ", c.signal, " (", strsignal(c.signal), ")");
    return r;
  }
  std::vector<std::string> parts = absl::StrSplit(c.output, '\t');
  if (parts.size() >= 3) {
    r.status = parts[0];
    r.detail = parts[1];
    if (!parts[2].empty()) r.ops = absl::StrSplit(parts[2], ',');
  } else {
    r.detail = "child reported nothing";
  }
  return r;
}

std::string OneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\t', ' ');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

// The registry for a device run: the default plugins, --plugin, and the CUDA
// plugin if the device is CUDA and none of those provided it.
absl::StatusOr<std::unique_ptr<Registry>> DeviceRegistry() {
  auto registry = loom::MakeRegistry(absl::GetFlag(FLAGS_plugin), nullptr);
  if (!registry.ok()) return registry.status();
  DeviceOption d = TargetDevice();
  if (d.device_type() == "CUDA" && !(*registry)->FindPlugin("cuda").has_value()) {
    absl::Status s = LoadPlugin(registry->get(), tools::FindDataFile("plugins/cuda/libloom_cuda.so"));
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("cannot load the CUDA plugin (pass --plugin=PATH/libloom_cuda.so): ", s.message()));
  }
  if ((*registry)->FindDevice(d.device_type(), d.device_id()) == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("no device ", d.device_type(), ":", d.device_id(),
                                                      " (registered device types: ", absl::StrJoin((*registry)->DeviceTypes(), ", "),
                                                      d.device_type() == "CUDA" ? "; cudaGetDeviceCount found no usable GPU" : "", ")"));
  }
  return registry;
}

// Runs tests[begin..) in one child that loads its own registry and writes
// "index\tstatus\tdetail\tops\n" per test, or "FATAL\tmessage\n". Stops
// early after an error naming CUDA/cuDNN/cuBLAS. Fills (*results)[index];
// returns the index to continue from, or -1 with *fatal set.
int RunBatch(const std::vector<std::pair<std::string, fs::path>>& tests, int begin, std::vector<Result>* results,
             std::string* fatal) {
  int fds[2];
  if (pipe(fds) != 0) {
    *fatal = "pipe failed";
    return -1;
  }
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    *fatal = "fork failed";
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    auto send = [&](const std::string& line) {
      const char* p = line.data();
      size_t left = line.size();
      while (left > 0) {
        ssize_t n = write(fds[1], p, left);
        if (n <= 0) _exit(1);
        p += n;
        left -= static_cast<size_t>(n);
      }
    };
    auto registry = DeviceRegistry();
    if (!registry.ok()) {
      send(absl::StrCat("FATAL\t", OneLine(registry.status().ToString()), "\n"));
      _exit(0);
    }
    for (int i = begin; i < static_cast<int>(tests.size()); ++i) {
      if (DeadlinePassed()) _exit(0);
      if (absl::GetFlag(FLAGS_timeout_s) > 0) alarm(static_cast<unsigned>(absl::GetFlag(FLAGS_timeout_s)));
      Result r = RunTest(tests[i].first, tests[i].second, registry->get());
      alarm(0);
      send(absl::StrCat(i, "\t", r.status, "\t", OneLine(r.detail), "\t", absl::StrJoin(r.ops, ","), "\n"));
      std::string lower = absl::AsciiStrToLower(r.detail);
      if (r.status == "error" && (absl::StrContains(lower, "cuda") || absl::StrContains(lower, "cudnn") ||
                                  absl::StrContains(lower, "cublas"))) {
        _exit(0);  // a fresh context for the next test
      }
    }
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  int next = begin;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(line, '\t');
    if (parts[0] == "FATAL") {
      *fatal = parts.size() > 1 ? parts[1] : "the child failed";
      return -1;
    }
    int i;
    if (parts.size() < 4 || !absl::SimpleAtoi(parts[0], &i) || i < begin || i >= static_cast<int>(tests.size())) continue;
    Result& r = (*results)[i];
    r.status = parts[1];
    r.detail = parts[2];
    if (!parts[3].empty()) r.ops = absl::StrSplit(parts[3], ',');
    next = std::max(next, i + 1);
  }
  if (!WIFSIGNALED(status) && next == begin && DeadlinePassed()) return next;  // stopped at the deadline
  if (next < static_cast<int>(tests.size()) && (WIFSIGNALED(status) || next == begin)) {
    // The test at `next` was running when the child died (or it reported nothing).
    Result& r = (*results)[next];
    r.status = "error";
    if (WIFSIGNALED(status)) {
      int sig = WTERMSIG(status);
      r.detail = sig == SIGALRM ? absl::StrCat("timed out after ", absl::GetFlag(FLAGS_timeout_s), " s")
                                : absl::StrCat("crashed: signal ", sig, " (", strsignal(sig), ")");
    } else {
      r.detail = "child reported nothing";
    }
    ++next;
  }
  return next;
}

// Why tests whose ops Loom implements still do not pass, by test-name
// prefix: the report adds this to the test's own message.
std::string KnownReason(const std::string& test) {
  static const std::vector<std::pair<std::string, std::string>> kReasons = {
      {"test_cast_FLOAT_to_BFLOAT16", "Loom rounds float32 to bfloat16 to nearest even, as ONNX Runtime and PyTorch do; "
                                      "ONNX 1.12's expected data truncates (later ONNX releases round too)."},
      {"test_castlike_FLOAT_to_BFLOAT16", "as test_cast_FLOAT_to_BFLOAT16: nearest-even rounding against truncated expected data."},
      {"test_adam_multiple", "the expected data was made with epsilon = 0.01, which the node does not set; Loom uses "
                             "the schema's default 1e-6 (libonnx's Adam schema says 1e-6). With 0.01 the first value "
                             "is 0.7591363, the expected one."},
      {"test_bernoulli", "Bernoulli (and the RandomUniformLike of the expanded form) draws random values; the "
                         "expected data comes from NumPy's generator, which a runtime cannot reproduce. Loom's "
                         "seeding (same seed, same values on any thread count) is tested in "
                         "plugins/cpu/random_test.cc."},
      {"test_gradient_of_add", "ai.onnx.preview.training's Gradient op is a decision: Loom builds gradients itself "
                               "(core/autodiff, loom_train) rather than from Gradient nodes in the model."},
      {"test_training_dropout", "training-mode Dropout draws a random mask; the expected data comes from NumPy's generator, "
                                "which a runtime cannot reproduce."},
      {"test_scan_sum", "Scan-8 (batched, with sequence_lens) was replaced in opset 9; Loom implements Scan from opset 9."},
  };
  for (const auto& [prefix, why] : kReasons) {
    if (test.rfind(prefix, 0) == 0) return why;
  }
  return "";
}

std::string Md(std::string s) {
  std::replace(s.begin(), s.end(), '|', '/');
  if (s.size() > 300) s = s.substr(0, 300) + "...";
  return s;
}

int Main() {
  // On a device the parent loads no plugin (see the top of the file).
  std::unique_ptr<Registry> registry;
  if (OnHost()) {
    auto r = loom::MakeRegistry(absl::GetFlag(FLAGS_plugin), nullptr);
    if (!r.ok()) {
      std::cerr << "onnx_conformance: " << r.status() << "\n";
      return 2;
    }
    registry = *std::move(r);
  }
  std::vector<std::pair<std::string, fs::path>> device_tests;
  std::vector<Result> results;
  std::string filter = absl::GetFlag(FLAGS_filter);
  for (const std::string& suite : std::vector<std::string>(absl::StrSplit(absl::GetFlag(FLAGS_suites), ',', absl::SkipEmpty()))) {
    fs::path root = fs::path(absl::GetFlag(FLAGS_data_dir)) / suite;
    if (!fs::exists(root)) {
      std::cerr << "onnx_conformance: no suite at " << root << " (install libonnx-testdata)\n";
      return 2;
    }
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(root)) {
      if (e.is_directory() && fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
    }
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& d : dirs) {
      if (!filter.empty() && d.filename().string().find(filter) == std::string::npos) continue;
      if (OnHost()) {
        results.push_back(RunIsolated(suite, d, registry.get()));
      } else {
        device_tests.emplace_back(suite, d);
      }
    }
  }
  if (!OnHost()) {
    for (const auto& [suite, d] : device_tests) results.push_back(Result{suite, d.filename().string(), "error", "", {}});
    if (absl::GetFlag(FLAGS_deadline_s) > 0) g_deadline = absl::Now() + absl::Seconds(absl::GetFlag(FLAGS_deadline_s));
    for (Result& r : results) r.detail = "not run (--deadline_s reached)";
    int next = 0;
    while (next >= 0 && next < static_cast<int>(device_tests.size()) && !DeadlinePassed()) {
      std::string fatal;
      next = RunBatch(device_tests, next, &results, &fatal);
      if (next < 0) {
        std::cerr << "onnx_conformance: --device " << absl::GetFlag(FLAGS_device) << ": " << fatal << "\n";
        return 2;
      }
    }
  }
  // The recurrent tests once more per kernel engine (each kernel must pass
  // them all, not only the one selection picks by priority).
  std::vector<std::string> engines = absl::GetFlag(FLAGS_recurrent_engines);
  std::map<std::string, std::map<std::string, Result>> by_engine;  // test -> engine -> result
  if (OnHost() && absl::GetFlag(FLAGS_engine).empty()) {
    for (const Result& r : results) {
      bool recurrent = false;
      for (const std::string& op : r.ops) recurrent |= op == "LSTM" || op == "GRU" || op == "RNN";
      if (!recurrent) continue;
      for (const std::string& e : engines) {
        absl::SetFlag(&FLAGS_engine, e);
        by_engine[r.suite + "/" + r.name][e] =
            RunIsolated(r.suite, fs::path(absl::GetFlag(FLAGS_data_dir)) / r.suite / r.name, registry.get());
      }
    }
    absl::SetFlag(&FLAGS_engine, "");
  }
  std::map<std::string, std::map<std::string, int>> per_suite, per_op;
  std::map<std::string, int> total;
  for (const Result& r : results) {
    per_suite[r.suite][r.status]++;
    total[r.status]++;
    for (const std::string& op : r.ops) per_op[op][r.status]++;
  }
  std::string summary = absl::StrFormat("conformance: %d passed, %d wrong, %d unsupported, %d errors of %d", total["passed"],
                                        total["wrong"], total["unsupported"], total["error"], results.size());
  if (!absl::GetFlag(FLAGS_markdown).empty()) {
    std::ofstream md(absl::GetFlag(FLAGS_markdown));
    if (OnHost()) {
      md << "# ONNX conformance\n\nLoom's CPU plugin on the ONNX backend test data (Debian `libonnx-testdata` 1.12), "
            "made by `bazel build //tools/onnx:onnx_conformance && bazel-bin/tools/onnx/onnx_conformance --markdown=$PWD/CONFORMANCE.md --json=$PWD/CONFORMANCE.json --write_passes=$PWD/tests/conformance_expected_passes.txt`.\n";
    } else {
      md << "# ONNX conformance on " << absl::GetFlag(FLAGS_device) << "\n\nEvery op placed on " << absl::GetFlag(FLAGS_device)
         << " (tests using an op without a kernel there are unsupported), ONNX backend test data (Debian `libonnx-testdata` 1.12), "
            "made by `onnx_conformance --device "
         << absl::GetFlag(FLAGS_device) << " --markdown=...` (scripts/gpu_run.sh).\n";
    }
    md << "Outputs must match within rtol 1e-3, atol 1e-7 (NaN equal to NaN; integers and bool exactly).\n\n**"
       << summary << "**\n\n## Per suite\n\n| suite | passed | wrong | unsupported | errors | total |\n|---|---|---|---|---|---|\n";
    for (auto& [suite, c] : per_suite) {
      md << "| " << suite << " | " << c["passed"] << " | " << c["wrong"] << " | " << c["unsupported"] << " | " << c["error"] << " | "
         << c["passed"] + c["wrong"] + c["unsupported"] + c["error"] << " |\n";
    }
    md << "\n## Per op (tests whose model uses the op)\n\n| op | passed | wrong | unsupported | errors |\n|---|---|---|---|---|\n";
    for (auto& [op, c] : per_op) {
      md << "| " << op << " | " << c["passed"] << " | " << c["wrong"] << " | " << c["unsupported"] << " | " << c["error"] << " |\n";
    }
    if (!by_engine.empty()) {
      md << "\n## LSTM, GRU and RNN tests per kernel engine\n\nEach test run again with every op asking for one engine "
            "(`--engine`): `DNNL` is the CPU plugin's fused oneDNN kernel, `STEPNET` the rnn plugin's kernel that expands "
            "into a RecurrentNetwork step net.\n\n| test |";
      for (const std::string& e : engines) md << " " << e << " |";
      md << "\n|---|";
      for (size_t i = 0; i < engines.size(); ++i) md << "---|";
      md << "\n";
      for (const auto& [name, per] : by_engine) {
        md << "| " << name << " |";
        for (const std::string& e : engines) {
          auto it = per.find(e);
          md << " " << (it == per.end() ? "-" : it->second.status == "passed" ? "passed" : it->second.status + ": " + Md(it->second.detail)) << " |";
        }
        md << "\n";
      }
    }
    md << "\n## Tests that do not pass, with the reason\n\n| suite | test | status | reason |\n|---|---|---|---|\n";
    for (const Result& r : results) {
      if (r.status == "passed") continue;
      const std::string why = KnownReason(r.name);
      md << "| " << r.suite << " | " << r.name << " | " << r.status << " | " << (why.empty() ? "" : "**" + why + "** ") << Md(r.detail)
         << " |\n";
    }
  }
  if (!absl::GetFlag(FLAGS_json).empty()) {
    std::ofstream js(absl::GetFlag(FLAGS_json));
    js << "[\n";
    for (size_t i = 0; i < results.size(); ++i) {
      const Result& r = results[i];
      js << "  {\"suite\": " << tools::JsonString(r.suite) << ", \"test\": " << tools::JsonString(r.name)
         << ", \"status\": " << tools::JsonString(r.status) << ", \"detail\": " << tools::JsonString(r.detail) << "}"
         << (i + 1 < results.size() ? "," : "") << "\n";
    }
    js << "]\n";
  }
  if (!absl::GetFlag(FLAGS_write_passes).empty()) {
    std::ofstream out(absl::GetFlag(FLAGS_write_passes));
    out << "# Tests that pass; //tests:onnx_conformance_test fails if one stops passing. Only add to this list.\n";
    for (const Result& r : results) {
      if (r.status == "passed") out << r.suite << "/" << r.name << "\n";
    }
  }
  int rc = 0;
  if (!absl::GetFlag(FLAGS_expected).empty()) {
    std::ifstream in(absl::GetFlag(FLAGS_expected));
    if (!in) {
      std::cerr << "onnx_conformance: cannot read " << absl::GetFlag(FLAGS_expected) << "\n";
      return 2;
    }
    std::map<std::string, const Result*> by_name;
    for (const Result& r : results) by_name[r.suite + "/" + r.name] = &r;
    std::string line;
    int expected = 0;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      ++expected;
      auto it = by_name.find(line);
      if (it == by_name.end() || it->second->status != "passed") {
        std::cout << "REGRESSION " << line << ": "
                  << (it == by_name.end() ? "not run" : it->second->status + ": " + it->second->detail) << "\n";
        rc = 1;
      }
    }
    std::cout << "expected passes checked: " << expected << (rc ? " (regressions above)" : ", all pass") << "\n";
  }
  for (const auto& [name, per] : by_engine) {
    for (const auto& [e, r] : per) {
      if (r.status == "passed") continue;
      std::cout << "engine " << e << ": " << name << " " << r.status << ": " << r.detail << "\n";
      if (!absl::GetFlag(FLAGS_expected).empty()) rc = 1;  // every recurrent kernel must pass every test
    }
  }
  if (!by_engine.empty()) std::cout << "recurrent tests per engine: " << by_engine.size() << " tests x " << engines.size() << " engines\n";
  std::cout << summary << "\n";
  return rc;
}

}  // namespace
}  // namespace loom

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return loom::Main();
}
