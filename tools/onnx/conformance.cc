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
// Writes a Markdown report and a JSON file, and with --expected fails (exit
// status 1) if a test listed there no longer passes. Ends with
//   conformance: P passed, W wrong, U unsupported, E errors of N
#include <csignal>
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
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/api/loom_sdk.h"
#include "core/net.h"
#include "core/proto_io.h"
#include "onnx/onnx_pb.h"
#include "tools/onnx/onnx_importer.h"
#include "tools/child_process.h"
#include "tools/runtime_setup.h"

ABSL_FLAG(std::string, data_dir, "/usr/share/libonnx-testdata/data", "Root of the ONNX test data.");
ABSL_FLAG(std::string, suites, "node,pytorch-converted,pytorch-operator,simple", "Suites to run.");
ABSL_FLAG(std::string, filter, "", "Run only tests whose name contains this.");
ABSL_FLAG(std::string, markdown, "", "Write the report (CONFORMANCE.md) here.");
ABSL_FLAG(std::string, json, "", "Write per-test results as JSON here.");
ABSL_FLAG(std::string, expected, "", "File of suite/test names that must pass.");
ABSL_FLAG(std::string, write_passes, "", "Write the suite/test names that passed here.");
ABSL_FLAG(std::vector<std::string>, plugin, {}, "Plugins to load after the default ones.");
ABSL_FLAG(int, timeout_s, 60, "Seconds per test before it counts as an error.");
ABSL_FLAG(std::string, engine, "", "Ask every op for this kernel engine (e.g. STEPNET); ops without one use their default.");

namespace loom {
namespace {

namespace fs = std::filesystem;

struct Result {
  std::string suite, name, status, detail;  // status: passed|wrong|unsupported|error
  std::vector<std::string> ops;
};

absl::StatusOr<Tensor> LoadOnnxTensor(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  onnx::TensorProto t;
  if (!t.ParseFromString(ss.str()) || (t.dims_size() == 0 && !t.has_raw_data() && t.float_data_size() == 0 &&
                                       t.int32_data_size() == 0 && t.int64_data_size() == 0 && t.double_data_size() == 0 &&
                                       t.data_type() == 0)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a TensorProto (sequences and maps are not supported)"));
  }
  // Reuse the importer's conversion through a one-tensor model.
  onnx::ModelProto m;
  *m.mutable_graph()->add_initializer() = t;
  m.mutable_graph()->mutable_initializer(0)->set_name("t");
  auto net = onnx_import::ImportOnnxModel(m.SerializeAsString());
  if (!net.ok()) return net.status();
  return TensorFromProto(net->initializer(0));
}

bool IsFloat(DataType d) {
  return d == DataType::kFloat32 || d == DataType::kFloat64 || d == DataType::kFloat16 || d == DataType::kBFloat16;
}

// "" when equal; otherwise what differs.
std::string Compare(const std::string& name, const Tensor& got, const Tensor& want) {
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

Result RunTest(const std::string& suite, const fs::path& dir, Registry* registry) {
  Result r{suite, dir.filename().string(), "error", "", {}};
  auto net = onnx_import::ImportOnnxFile((dir / "model.onnx").string());
  if (!net.ok()) {
    r.detail = std::string(net.status().message());
    return r;
  }
  std::set<std::string> ops;
  for (auto& op : *net->mutable_op()) {
    ops.insert(op.type());
    if (!absl::GetFlag(FLAGS_engine).empty()) op.set_engine(absl::GetFlag(FLAGS_engine));
  }
  r.ops.assign(ops.begin(), ops.end());
  absl::Status supported = onnx_import::CheckSupported(*net, *registry);
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
      auto t = LoadOnnxTensor(p.string());
      if (!t.ok()) {
        r.detail = std::string(t.status().message());
        return r;
      }
      // The ONNX test data stores bfloat16 tensors as uint16 (numpy has no
      // bfloat16): take the bits as the dtype the graph declares.
      if (t->dtype() == DataType::kUInt16) {
        for (const auto& a : net->arg()) {
          if (a.name() == "input_dtype." + net->external_input(i) && a.s() == "bfloat16") {
            Tensor bf = Tensor::Zeros(DataType::kBFloat16, t->dims());
            if (t->nbytes()) std::memcpy(bf.raw_data(), t->raw_data(), t->nbytes());
            *t = bf;
          }
        }
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
      auto want = LoadOnnxTensor(p.string());
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

std::string Md(std::string s) {
  std::replace(s.begin(), s.end(), '|', '/');
  if (s.size() > 300) s = s.substr(0, 300) + "...";
  return s;
}

int Main() {
  auto registry = tools::MakeRegistry(absl::GetFlag(FLAGS_plugin), nullptr);
  if (!registry.ok()) {
    std::cerr << "onnx_conformance: " << registry.status() << "\n";
    return 2;
  }
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
      results.push_back(RunIsolated(suite, d, registry->get()));
    }
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
    md << "# ONNX conformance\n\nLoom's CPU plugin on the ONNX backend test data (Debian `libonnx-testdata` 1.12), "
          "made by `bazel build //tools/onnx:onnx_conformance && bazel-bin/tools/onnx/onnx_conformance --markdown=$PWD/CONFORMANCE.md --json=$PWD/CONFORMANCE.json --write_passes=$PWD/tests/conformance_expected_passes.txt`.\n"
          "Outputs must match within rtol 1e-3, atol 1e-7 (NaN equal to NaN; integers and bool exactly).\n\n**"
       << summary << "**\n\n## Per suite\n\n| suite | passed | wrong | unsupported | errors | total |\n|---|---|---|---|---|---|\n";
    for (auto& [suite, c] : per_suite) {
      md << "| " << suite << " | " << c["passed"] << " | " << c["wrong"] << " | " << c["unsupported"] << " | " << c["error"] << " | "
         << c["passed"] + c["wrong"] + c["unsupported"] + c["error"] << " |\n";
    }
    md << "\n## Per op (tests whose model uses the op)\n\n| op | passed | wrong | unsupported | errors |\n|---|---|---|---|---|\n";
    for (auto& [op, c] : per_op) {
      md << "| " << op << " | " << c["passed"] << " | " << c["wrong"] << " | " << c["unsupported"] << " | " << c["error"] << " |\n";
    }
    md << "\n## Tests that do not pass, with the reason\n\n| suite | test | status | reason |\n|---|---|---|---|\n";
    for (const Result& r : results) {
      if (r.status != "passed") md << "| " << r.suite << " | " << r.name << " | " << r.status << " | " << Md(r.detail) << " |\n";
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
  std::cout << summary << "\n";
  return rc;
}

}  // namespace
}  // namespace loom

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return loom::Main();
}
