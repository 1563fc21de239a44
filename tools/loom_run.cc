// loom_run: runs a NetDef and reports outputs and timing.
//
//   loom_run [MODEL] [name=tensor.pb ...] [--random] [--iterations N] [--warmup N]
//            [--profile] [--output_dir DIR] [--plugin PATH] [--num_threads N]
//            [--input_shape name=1,3,224,224]
//
// MODEL is a NetDef in binary or text format, or an ONNX model (*.onnx,
// imported by tools/onnx); with no MODEL the default model
// that ships with Loom (tools/models/default_cnn.pb, built by
// tools/make_default_model) runs on random input.
// Inputs come from TensorProto files (name=path); with --random, every
// external input without a file is generated (uniform in [-1, 1]) with the
// shape from --input_shape or from the NetDef argument "input_shape.<name>"
// (ints) and dtype from "input_dtype.<name>" (string, default float32).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
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
#include "core/proto_io.h"
#include "tools/onnx/onnx_importer.h"
#include "tools/runtime_setup.h"

ABSL_FLAG(int, iterations, 10, "Timed runs.");
ABSL_FLAG(int, warmup, 1, "Untimed runs before the timed ones.");
ABSL_FLAG(bool, random, false, "Generate inputs that have no file.");
ABSL_FLAG(bool, profile, false, "Print the per-op profile of the timed runs.");
ABSL_FLAG(std::string, output_dir, "", "Write each output to DIR/<name>.pb (TensorProto).");
ABSL_FLAG(bool, output_raw, false, "With --output_dir, also write DIR/<name>.bin (raw little-endian data).");
ABSL_FLAG(std::string, engine, "", "Ask every op for this kernel engine (e.g. DNNL, STEPNET); others use their default.");
ABSL_FLAG(std::vector<std::string>, plugin, {}, "Plugins to load after the default ones.");
ABSL_FLAG(std::vector<std::string>, input_shape, {}, "Shapes for --random: name=d0,d1,... (repeatable).");
ABSL_FLAG(int, num_threads, 0, "Threads per kernel (0: all cores).");
ABSL_FLAG(int, seed, 1, "Seed for --random.");
ABSL_FLAG(int, show, 8, "Leading values printed per output.");

namespace loom {
namespace {

constexpr char kDefaultModel[] = "tools/models/default_cnn.pb";

absl::StatusOr<Tensor> RandomInput(const NetDef& net, const std::string& name, uint32_t seed,
                                   const std::vector<std::string>& shape_flags) {
  Shape shape;
  bool have = false;
  for (const std::string& f : shape_flags) {
    std::vector<std::string> kv = absl::StrSplit(f, absl::MaxSplits('=', 1));
    if (kv.size() == 2 && kv[0] == name) {
      for (absl::string_view d : absl::StrSplit(kv[1], ',', absl::SkipEmpty())) {
        int64_t v;
        if (!absl::SimpleAtoi(d, &v)) return absl::InvalidArgumentError(absl::StrCat("--input_shape ", f, ": bad dim '", d, "'"));
        shape.push_back(v);
      }
      have = true;
    }
  }
  DataType dtype = DataType::kFloat32;
  for (const Argument& a : net.arg()) {
    if (!have && a.name() == "input_shape." + name) {
      shape.assign(a.ints().begin(), a.ints().end());
      have = true;
    }
    if (a.name() == "input_dtype." + name) {
      auto d = ParseDataType(a.s());
      if (!d.ok()) return d.status();
      dtype = *d;
    }
  }
  if (!have) {
    return absl::InvalidArgumentError(absl::StrCat("input '", name, "': no shape for --random; pass --input_shape ", name,
                                                   "=d0,d1,... or add a NetDef arg 'input_shape.", name, "'"));
  }
  auto t = Tensor::Create(dtype, shape);
  if (!t.ok()) return t.status();
  uint32_t state = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    state = state * 1664525u + 1013904223u;
    double u = (state >> 8) * (1.0 / 16777216.0) * 2.0 - 1.0;  // [-1, 1)
    switch (dtype) {
      case DataType::kFloat32: t->data<float>()[i] = static_cast<float>(u); break;
      case DataType::kFloat64: t->data<double>()[i] = u; break;
      case DataType::kInt64: t->data<int64_t>()[i] = static_cast<int64_t>((u + 1) * 4); break;
      case DataType::kInt32: t->data<int32_t>()[i] = static_cast<int32_t>((u + 1) * 4); break;
      case DataType::kBool: t->data<bool>()[i] = u > 0; break;
      default:
        return absl::InvalidArgumentError(absl::StrCat("input '", name, "': --random does not generate ", DataTypeName(dtype)));
    }
  }
  return t;
}

int Main(std::vector<char*> args) {
  std::string model;
  std::vector<std::pair<std::string, std::string>> files;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string a = args[i];
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      files.emplace_back(a.substr(0, eq), a.substr(eq + 1));
    } else if (model.empty()) {
      model = a;
    } else {
      std::cerr << "loom_run: unexpected argument '" << a << "'\n";
      return 2;
    }
  }
  bool random = absl::GetFlag(FLAGS_random);
  if (model.empty()) {
    model = tools::FindDataFile(kDefaultModel);
    random = true;
    std::cout << "No model given: running the default model " << kDefaultModel << " on random input.\n";
  }
  const bool is_onnx = absl::EndsWith(model, ".onnx");
  auto net_def = is_onnx ? onnx_import::ImportOnnxFile(model) : ReadNetDef(model);
  if (!net_def.ok()) {
    std::cerr << "loom_run: " << net_def.status() << "\n";
    return 1;
  }
  std::vector<std::string> warnings;
  auto registry = tools::MakeRegistry(absl::GetFlag(FLAGS_plugin), &warnings);
  if (!registry.ok()) {
    std::cerr << "loom_run: " << registry.status() << "\n";
    return 1;
  }
  if (!absl::GetFlag(FLAGS_engine).empty()) {
    for (auto& op : *net_def->mutable_op()) op.set_engine(absl::GetFlag(FLAGS_engine));
  }
  if (is_onnx) {
    absl::Status s = onnx_import::CheckSupported(*net_def, **registry);
    if (!s.ok()) {
      std::cerr << "loom_run: " << model << ": " << s << "\n";
      return 1;
    }
  }
  Workspace ws;
  for (const auto& [name, path] : files) {
    auto proto = ReadTensorProto(path);
    if (!proto.ok()) {
      std::cerr << "loom_run: input '" << name << "': " << proto.status() << "\n";
      return 1;
    }
    auto t = TensorFromProto(*proto);
    if (!t.ok()) {
      std::cerr << "loom_run: input '" << name << "': " << t.status() << "\n";
      return 1;
    }
    ws.SetBlob(name, *std::move(t));
  }
  uint32_t seed = static_cast<uint32_t>(absl::GetFlag(FLAGS_seed));
  for (const std::string& in : net_def->external_input()) {
    if (ws.HasBlob(in)) continue;
    if (!random) {
      std::cerr << "loom_run: no value for external input '" << in << "'; pass " << in << "=tensor.pb or --random\n";
      return 1;
    }
    auto t = RandomInput(*net_def, in, seed++, absl::GetFlag(FLAGS_input_shape));
    if (!t.ok()) {
      std::cerr << "loom_run: " << t.status() << "\n";
      return 1;
    }
    ws.SetBlob(in, *std::move(t));
  }
  NetOptions options;
  options.num_threads = absl::GetFlag(FLAGS_num_threads);
  auto net = Net::Create(*net_def, &ws, registry->get(), options);
  if (!net.ok()) {
    std::cerr << "loom_run: " << net.status() << "\n";
    return 1;
  }
  for (int i = 0; i < absl::GetFlag(FLAGS_warmup); ++i) {
    absl::Status s = (*net)->Run();
    if (!s.ok()) {
      std::cerr << "loom_run: " << s << "\n";
      return 1;
    }
  }
  (*net)->set_profiling(absl::GetFlag(FLAGS_profile));
  std::vector<double> ms;
  int iterations = std::max(1, absl::GetFlag(FLAGS_iterations));
  for (int i = 0; i < iterations; ++i) {
    absl::Time start = absl::Now();
    absl::Status s = (*net)->Run();
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
    if (!s.ok()) {
      std::cerr << "loom_run: " << s << "\n";
      return 1;
    }
  }
  std::vector<std::string> outputs(net_def->external_output().begin(), net_def->external_output().end());
  if (outputs.empty() && net_def->op_size() > 0) {
    const OperatorDef& last = net_def->op(net_def->op_size() - 1);
    outputs.assign(last.output().begin(), last.output().end());
  }
  std::cout << "Model: " << model << " (net '" << net_def->name() << "', " << net_def->op_size() << " ops)\n";
  for (const std::string& name : outputs) {
    const Tensor* t = ws.GetBlob(name);
    if (t == nullptr) continue;
    std::vector<std::string> vals;
    for (int64_t i = 0; i < std::min<int64_t>(t->num_elements(), absl::GetFlag(FLAGS_show)); ++i) {
      vals.push_back(absl::StrFormat("%.6g", t->ElementAsDouble(i)));
    }
    std::cout << "output " << name << ": " << DataTypeName(t->dtype()) << " " << ShapeToString(t->dims()) << " ["
              << absl::StrJoin(vals, ", ") << (t->num_elements() > static_cast<int64_t>(vals.size()) ? ", ..." : "") << "]\n";
    std::string dir = absl::GetFlag(FLAGS_output_dir);
    if (!dir.empty()) {
      absl::Status s = WriteTensorProto(TensorToProto(*t, name), absl::StrCat(dir, "/", name, ".pb"));
      if (!s.ok()) {
        std::cerr << "loom_run: " << s << "\n";
        return 1;
      }
      if (absl::GetFlag(FLAGS_output_raw)) {
        std::ofstream raw(absl::StrCat(dir, "/", name, ".bin"), std::ios::binary);
        raw.write(static_cast<const char*>(t->raw_data()), static_cast<std::streamsize>(t->nbytes()));
        if (!raw) {
          std::cerr << "loom_run: cannot write " << dir << "/" << name << ".bin\n";
          return 1;
        }
      }
    }
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) { return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * (sorted.size() - 1) + 0.5))]; };
  double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / ms.size();
  std::cout << absl::StrFormat("time per run over %d runs (after %d warm-up): mean %.3f ms, p50 %.3f ms, p90 %.3f ms\n",
                               iterations, absl::GetFlag(FLAGS_warmup), mean, pct(0.5), pct(0.9));
  if (absl::GetFlag(FLAGS_profile)) std::cout << "\n" << (*net)->profile().ToString();
  return 0;
}

}  // namespace
}  // namespace loom

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Runs a Loom NetDef: loom_run [MODEL] [name=tensor.pb ...] [flags]. See --help.");
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  return loom::Main(args);
}
