#include "tools/fuzz/fuzz_common.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/dtype.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "core/proto_io.h"
#include "core/workspace.h"
#include "google/protobuf/stubs/logging.h"
#include "ops/std_ops.h"

namespace loom {
namespace fuzz {

void CheckFailed(const char* file, int line, const char* cond, const std::string& what) {
  std::fprintf(stderr, "%s:%d: LOOM_FUZZ_CHECK(%s) failed: %s\n", file, line, cond, what.c_str());
  std::abort();
}

namespace {
void IgnoreLog(google::protobuf::LogLevel, const char*, int, const std::string&) {}

Registry* MakeStdRegistry() {
  auto* r = new Registry();
  absl::Status s = RegisterBuiltinPlugin(r, &LoomStdOpsInit, "<built-in>");
  LOOM_FUZZ_CHECK(s.ok(), "cannot register the standard schemas: " + s.ToString());
  return r;
}

std::vector<std::string> CpuPluginCandidates() {
  const std::string rel = "plugins/cpu/libloom_cpu.so";
  std::vector<std::string> c;
  if (const char* e = std::getenv("LOOM_FUZZ_CPU_PLUGIN")) c.push_back(e);
  if (const char* e = std::getenv("RUNFILES_DIR")) c.push_back(std::string(e) + "/loom/" + rel);
  if (const char* e = std::getenv("TEST_SRCDIR")) c.push_back(std::string(e) + "/loom/" + rel);
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = 0;
    c.push_back(std::string(exe) + ".runfiles/loom/" + rel);
  }
  c.push_back(rel);  // a test's working directory is its runfiles root
  return c;
}
}  // namespace

void QuietProtobuf() {
  static bool done = [] {
    google::protobuf::SetLogHandler(&IgnoreLog);
    return true;
  }();
  (void)done;
}

const Registry* StdRegistry() {
  static Registry* r = MakeStdRegistry();
  return r;
}

const Registry* CpuRegistry() {
  static Registry* r = [] {
    Registry* reg = MakeStdRegistry();
    std::string tried;
    for (const std::string& path : CpuPluginCandidates()) {
      if (::access(path.c_str(), R_OK) != 0) {
        tried += " " + path;
        continue;
      }
      absl::Status s = LoadPlugin(reg, path);
      LOOM_FUZZ_CHECK(s.ok(), "cannot load the CPU plugin " + path + ": " + s.ToString());
      return reg;
    }
    CheckFailed(__FILE__, __LINE__, "CPU plugin found", "no libloom_cpu.so among:" + tried);
  }();
  return r;
}

int64_t DeclaredBytes(const TensorProto& t) {
  if (!IsSupportedDataType(t.data_type())) return -1;
  int64_t n = static_cast<int64_t>(DataTypeSize(static_cast<DataType>(t.data_type())));
  for (int64_t d : t.dims()) {
    if (d < 0) return -1;
    if (d != 0 && n > INT64_MAX / d) return -1;
    n *= d;
  }
  return n;
}

void CheckNetDef(const NetDef& net) {
  for (const TensorProto& init : net.initializer()) {
    absl::StatusOr<Tensor> t = TensorFromProto(init);
    if (t.ok()) {
      LOOM_FUZZ_CHECK(t->dims().size() == static_cast<size_t>(init.dims_size()), "TensorFromProto changed the rank");
    }
  }
  Workspace ws;
  NetOptions options;
  options.num_threads = 1;
  options.max_tensor_bytes = kMaxTensorBytes;
  absl::StatusOr<std::unique_ptr<Net>> n = Net::Create(net, &ws, StdRegistry(), options);
  (void)n;
}

}  // namespace fuzz
}  // namespace loom
