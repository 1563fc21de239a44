// Target 3: NetDef text parsing.
// Feeds: the bytes as text to ParseNetDefText (core/proto_io.h).
// Must hold: every outcome is a status; a NetDef that parsed prints as text
// and parses back to an equal message (same binary serialization), then goes
// through CheckNetDef (TensorFromProto of the initializers, Net::Create).
#include <string>

#include "core/proto_io.h"
#include "google/protobuf/text_format.h"
#include "tools/fuzz/fuzz_common.h"
#include "tools/fuzz/fuzz_entry.h"

extern "C" int LoomFuzzOne(const uint8_t* data, size_t size) {
  loom::fuzz::QuietProtobuf();
  absl::StatusOr<loom::NetDef> net = loom::ParseNetDefText(std::string(reinterpret_cast<const char*>(data), size));
  if (!net.ok()) return 0;
  std::string text, a, b;
  LOOM_FUZZ_CHECK(google::protobuf::TextFormat::PrintToString(*net, &text), "a parsed NetDef does not print");
  absl::StatusOr<loom::NetDef> back = loom::ParseNetDefText(text);
  LOOM_FUZZ_CHECK(back.ok(), "printed NetDef text does not parse back: " + back.status().ToString());
  net->SerializeToString(&a);
  back->SerializeToString(&b);
  LOOM_FUZZ_CHECK(a == b, "NetDef text round trip changed the message");
  loom::fuzz::CheckNetDef(*net);
  return 0;
}
