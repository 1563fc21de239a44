// Target 2: NetDef binary parsing.
// Feeds: the bytes as a model file to ReadNetDef (core/proto_io.h), which
// parses protobuf binary (recursion limit 1000) and falls back to text
// format. The file lives in /dev/shm (or $TMPDIR), one per process.
// Must hold: every outcome is a status; a NetDef that parsed re-serializes
// and parses back to the same bytes, then goes through CheckNetDef
// (TensorFromProto of the initializers, Net::Create's checks).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/proto_io.h"
#include "tools/fuzz/fuzz_common.h"
#include "tools/fuzz/fuzz_entry.h"

namespace {
const std::string& ScratchPath() {
  static const std::string path = [] {
    const char* dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    return std::string(dir) + "/loom_fuzz_netdef_" + std::to_string(::getpid()) + ".pb";
  }();
  return path;
}
}  // namespace

extern "C" int LoomFuzzOne(const uint8_t* data, size_t size) {
  loom::fuzz::QuietProtobuf();
  const std::string& path = ScratchPath();
  FILE* f = std::fopen(path.c_str(), "wb");
  LOOM_FUZZ_CHECK(f != nullptr, "cannot write " + path);
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  absl::StatusOr<loom::NetDef> net = loom::ReadNetDef(path);
  std::remove(path.c_str());
  if (!net.ok()) return 0;
  std::string bytes, again;
  LOOM_FUZZ_CHECK(net->SerializeToString(&bytes), "a parsed NetDef does not serialize");
  loom::NetDef back;
  LOOM_FUZZ_CHECK(back.ParseFromString(bytes), "a NetDef does not parse back");
  LOOM_FUZZ_CHECK(back.SerializeToString(&again) && again == bytes, "NetDef binary round trip changed the bytes");
  loom::fuzz::CheckNetDef(*net);
  return 0;
}
