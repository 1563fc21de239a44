#include "testing/op_runner.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "tools/cpp/runfiles/runfiles.h"
#include "core/api/loom_sdk.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "google/protobuf/text_format.h"
#include "ops/std_ops.h"

namespace loom {
namespace testing {

namespace {

// The file at runfiles path `path` ("<repository>/<path>", e.g.
// "ocr_session/libsoft_shrink.so"), else `otherwise` (relative to the test's
// working directory, its own repository's runfiles root).
std::string Resolve(const std::string& path, const std::string& otherwise) {
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest());
  if (runfiles == nullptr) return otherwise;
  const std::string found = runfiles->Rlocation(path);
  return !found.empty() && std::ifstream(found).good() ? found : otherwise;
}

// The CPU plugin, found through the test's runfiles as Loom's repository
// file "loom/plugins/cpu/libloom_cpu.so": Loom's own tests and another
// workspace's over @loom (loom_plugin_test, tools/build_defs/plugin.bzl)
// alike. Without runfiles, the in-tree relative path.
std::string CpuPluginPath() {
  return Resolve("loom/plugins/cpu/libloom_cpu.so", "plugins/cpu/libloom_cpu.so");
}

}  // namespace

Registry* CpuRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry();
    absl::Status s = RegisterBuiltinPlugin(r, &LoomStdOpsInit, "<built-in>");
    const std::string path = CpuPluginPath();
    if (s.ok()) s = LoadPlugin(r, path);
    if (!s.ok()) {
      ADD_FAILURE() << "cannot set up the CPU registry (the standard ops and the CPU plugin from '" << path
                    << "'): " << s << ". A test needs the CPU plugin in its data: "
                    << "@loom//plugins/cpu:libloom_cpu.so (loom_plugin_test adds it)";
    }
    return r;
  }();
  return registry;
}

Registry* CpuRegistryWith(const std::string& path) {
  static std::mutex mu;
  static std::set<std::string>* loaded = new std::set<std::string>();
  Registry* r = CpuRegistry();
  std::lock_guard<std::mutex> lock(mu);
  if (loaded->insert(path).second) {
    absl::Status s = LoadPlugin(r, Resolve(path, path));
    EXPECT_TRUE(s.ok()) << s;
  }
  return r;
}

OperatorDef ParseOp(const std::string& text) {
  OperatorDef op;
  if (!google::protobuf::TextFormat::ParseFromString(text, &op)) ADD_FAILURE() << "bad OperatorDef text: " << text;
  return op;
}

absl::StatusOr<std::vector<Tensor>> RunSingleOp(const OperatorDef& op, const std::vector<Tensor>& inputs,
                                                Registry* registry) {
  Workspace ws;
  NetDef net;
  net.set_name(absl::StrCat("single_", op.type()));
  *net.add_op() = op;
  for (int i = 0; i < op.input_size(); ++i) {
    if (op.input(i).empty()) continue;
    if (i >= static_cast<int>(inputs.size())) {
      return absl::InvalidArgumentError(absl::StrCat("RunSingleOp: no tensor for input ", i));
    }
    ws.SetBlob(op.input(i), inputs[i]);
    net.add_external_input(op.input(i));
  }
  for (const std::string& o : op.output()) {
    if (!o.empty()) net.add_external_output(o);
  }
  auto n = Net::Create(net, &ws, registry);
  if (!n.ok()) return n.status();
  absl::Status s = (*n)->Run();
  if (!s.ok()) return s;
  std::vector<Tensor> out;
  for (const std::string& o : op.output()) out.push_back(o.empty() ? Tensor() : *ws.GetBlob(o));
  return out;
}

Tensor RandomTensor(DataType dtype, Shape dims, uint32_t seed, double lo, double hi) {
  Tensor t = Tensor::Zeros(dtype, std::move(dims));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    double v = dist(gen);
    switch (dtype) {
      case DataType::kFloat32: t.data<float>()[i] = static_cast<float>(v); break;
      case DataType::kFloat64: t.data<double>()[i] = v; break;
      case DataType::kFloat16: t.data<uint16_t>()[i] = sdk::Float16::FromFloat(static_cast<float>(v)); break;
      case DataType::kBFloat16: t.data<uint16_t>()[i] = sdk::BFloat16::FromFloat(static_cast<float>(v)); break;
      case DataType::kInt8: t.data<int8_t>()[i] = static_cast<int8_t>(std::lround(v)); break;
      case DataType::kUInt8: t.data<uint8_t>()[i] = static_cast<uint8_t>(std::lround(v)); break;
      case DataType::kInt16: t.data<int16_t>()[i] = static_cast<int16_t>(std::lround(v)); break;
      case DataType::kUInt16: t.data<uint16_t>()[i] = static_cast<uint16_t>(std::lround(v)); break;
      case DataType::kInt32: t.data<int32_t>()[i] = static_cast<int32_t>(std::lround(v)); break;
      case DataType::kUInt32: t.data<uint32_t>()[i] = static_cast<uint32_t>(std::lround(v)); break;
      case DataType::kInt64: t.data<int64_t>()[i] = std::llround(v); break;
      case DataType::kUInt64: t.data<uint64_t>()[i] = static_cast<uint64_t>(std::llround(v)); break;
      case DataType::kBool: t.data<bool>()[i] = v > (lo + hi) / 2; break;
      default: break;
    }
  }
  return t;
}

double ElementAsDouble(const Tensor& t, int64_t i) { return t.ElementAsDouble(i); }

namespace {
template <typename T>
void SetInt(Tensor& t, int64_t i, double v) {
  t.data<T>()[i] = static_cast<T>(static_cast<int64_t>(v));
}
}  // namespace

void SetElement(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DataType::kFloat32: t.data<float>()[i] = static_cast<float>(v); break;
    case DataType::kFloat64: t.data<double>()[i] = v; break;
    case DataType::kFloat16: t.data<uint16_t>()[i] = sdk::Float16::FromFloat(static_cast<float>(v)); break;
    case DataType::kBFloat16: t.data<uint16_t>()[i] = sdk::BFloat16::FromFloat(static_cast<float>(v)); break;
    case DataType::kBool: t.data<bool>()[i] = v != 0; break;
    case DataType::kInt8: SetInt<int8_t>(t, i, v); break;
    case DataType::kUInt8: SetInt<uint8_t>(t, i, v); break;
    case DataType::kInt16: SetInt<int16_t>(t, i, v); break;
    case DataType::kUInt16: SetInt<uint16_t>(t, i, v); break;
    case DataType::kInt32: SetInt<int32_t>(t, i, v); break;
    case DataType::kUInt32: SetInt<uint32_t>(t, i, v); break;
    case DataType::kInt64: SetInt<int64_t>(t, i, v); break;
    case DataType::kUInt64: t.data<uint64_t>()[i] = static_cast<uint64_t>(v); break;
    default: ADD_FAILURE() << "SetElement: dtype not handled"; break;
  }
}

::testing::AssertionResult AllClose(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  if (actual.dtype() != expected.dtype() || actual.dims() != expected.dims()) {
    return ::testing::AssertionFailure() << "expected " << expected.DebugString() << ", found " << actual.DebugString();
  }
  int64_t bad = -1, worst_i = -1;
  double worst = 0;
  for (int64_t i = 0; i < actual.num_elements(); ++i) {
    double a = ElementAsDouble(actual, i), e = ElementAsDouble(expected, i);
    if (std::isnan(a) && std::isnan(e)) continue;
    double err = std::fabs(a - e);
    if (std::isinf(a) && std::isinf(e) && (a > 0) == (e > 0)) continue;  // rtol * inf would be NaN
    if (!(err <= atol + rtol * std::fabs(e))) {
      if (bad < 0) bad = i;
      if (!(err <= worst)) { worst = err; worst_i = i; }
    }
  }
  if (bad < 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "first mismatch at flat index " << bad << ": found " << ElementAsDouble(actual, bad)
                                       << ", expected " << ElementAsDouble(expected, bad) << "; worst abs error " << worst
                                       << " at " << worst_i << " (" << actual.DebugString() << ")";
}

void ExpectInferredShapes(const OperatorDef& op, const std::vector<Tensor>& inputs, Registry* registry) {
  Workspace ws;
  NetDef def;
  for (int i = 0; i < op.input_size(); ++i) {
    if (op.input(i).empty()) continue;
    ws.SetBlob(op.input(i), inputs[i]);
    def.add_external_input(op.input(i));
  }
  *def.add_op() = op;
  auto net = Net::Create(def, &ws, registry);
  ASSERT_TRUE(net.ok()) << net.status();
  ASSERT_TRUE((*net)->Run().ok());
  const PlanStep& step = (*net)->last_plan()->steps()[0];
  for (int k = 0; k < op.output_size(); ++k) {
    if (op.output(k).empty()) continue;
    ASSERT_TRUE(step.inferred_shapes[k].has_value()) << op.type() << " output " << k << ": no inferred shape";
    EXPECT_EQ(*step.inferred_shapes[k], ws.GetBlob(op.output(k))->dims()) << op.type() << " output " << k;
  }
}

std::string IntsArg(const std::string& name, const std::vector<int64_t>& values) {
  if (values.empty()) return "";
  std::string s = " arg { name: \"" + name + "\"";
  for (int64_t x : values) s += " ints: " + std::to_string(x);
  return s + " } ";
}

}  // namespace testing
}  // namespace loom
