// Shared set-up for the fuzz targets: registries, silenced protobuf logging,
// the invariant check, and the NetDef checks that targets 1-3 share.
#ifndef LOOM_TOOLS_FUZZ_FUZZ_COMMON_H_
#define LOOM_TOOLS_FUZZ_FUZZ_COMMON_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"

// An invariant of the code under test that the fuzzer found broken: prints
// and aborts (a crash for libFuzzer, a failure for the replay test).
#define LOOM_FUZZ_CHECK(cond, what) \
  ((cond) ? (void)0 : ::loom::fuzz::CheckFailed(__FILE__, __LINE__, #cond, (what)))

namespace loom {
namespace fuzz {

[[noreturn]] void CheckFailed(const char* file, int line, const char* cond, const std::string& what);

// Protobuf's parse-error logging off (once; cheap to call every time).
void QuietProtobuf();

// The standard schemas only (LoomStdOpsInit, linked in): enough to check a
// net, no kernels.
const Registry* StdRegistry();

// The standard schemas plus the CPU plugin, dlopen'ed from the same build
// (runfiles: plugins/cpu/libloom_cpu.so; $LOOM_FUZZ_CPU_PLUGIN overrides).
// Aborts when it cannot be loaded: a set-up error, not a finding.
const Registry* CpuRegistry();

// Memory bound of the fuzzed runs: NetOptions::max_tensor_bytes of the nets
// the targets create (far below libFuzzer's 2 GiB -rss_limit_mb).
constexpr int64_t kMaxTensorBytes = int64_t{64} << 20;

// What targets 1-3 do with a NetDef that parsed: every initializer through
// TensorFromProto, then Net::Create against the standard schemas (the
// checks: schemas, arity, attributes, data flow, nested nets). Any outcome
// is fine as long as it is a status.
void CheckNetDef(const NetDef& net);

// Declared bytes of a Loom TensorProto (dims x element size), or -1 when
// negative, overflowing or of an unknown dtype.
int64_t DeclaredBytes(const TensorProto& t);

}  // namespace fuzz
}  // namespace loom

#endif  // LOOM_TOOLS_FUZZ_FUZZ_COMMON_H_
