// Target 1: ONNX model import.
// Feeds: the bytes as a serialized onnx.ModelProto to ImportOnnxModel
// (frontend/onnx/onnx_importer.h): parse, graph -> NetDef (initializers,
// attributes, nested If/Loop/Scan bodies, BatchNorm folding, fusions).
// Must hold: every outcome is a status; an imported NetDef re-serializes and
// parses back, then goes through CheckNetDef (TensorFromProto of every
// initializer, Net::Create against the standard schemas) and CheckSupported.
#include <string>

#include "tools/fuzz/fuzz_common.h"
#include "tools/fuzz/fuzz_entry.h"
#include "frontend/onnx/onnx_importer.h"

extern "C" int LoomFuzzOne(const uint8_t* data, size_t size) {
  loom::fuzz::QuietProtobuf();
  absl::StatusOr<loom::NetDef> net =
      loom::onnx_import::ImportOnnxModel(std::string(reinterpret_cast<const char*>(data), size));
  if (!net.ok()) return 0;
  std::string bytes;
  LOOM_FUZZ_CHECK(net->SerializeToString(&bytes), "an imported NetDef does not serialize");
  loom::NetDef back;
  LOOM_FUZZ_CHECK(back.ParseFromString(bytes), "an imported NetDef does not parse back");
  loom::fuzz::CheckNetDef(*net);
  (void)loom::onnx_import::CheckSupported(*net, *loom::fuzz::StdRegistry());
  return 0;
}
