// Target 4: TensorProto parsing, Loom's and ONNX's.
// Feeds: byte 0 picks the format, the rest is a serialized message:
//   even: loom.TensorProto -> TensorFromProto (core/proto_io.h);
//   odd:  onnx.TensorProto -> ImportOnnxTensor (frontend/onnx/onnx_importer.h,
//         the importer's ConvertTensor) -> TensorFromProto.
// Must hold: every outcome is a status; a tensor that converted has the
// proto's dims and dtype, and TensorToProto -> TensorFromProto gives the
// same bytes back.
#include <cstring>
#include <string>

#include "core/proto_io.h"
#include "tools/fuzz/fuzz_common.h"
#include "tools/fuzz/fuzz_entry.h"
#include "frontend/onnx/onnx_importer.h"

namespace {
void CheckTensor(const loom::TensorProto& p) {
  absl::StatusOr<loom::Tensor> t = loom::TensorFromProto(p);
  if (!t.ok()) return;
  LOOM_FUZZ_CHECK(static_cast<int32_t>(t->dtype()) == p.data_type(), "TensorFromProto changed the dtype");
  LOOM_FUZZ_CHECK(t->dims() == loom::Shape(p.dims().begin(), p.dims().end()), "TensorFromProto changed the dims");
  loom::TensorProto again = loom::TensorToProto(*t, p.name());
  absl::StatusOr<loom::Tensor> back = loom::TensorFromProto(again);
  LOOM_FUZZ_CHECK(back.ok(), "TensorToProto's output does not convert back: " + back.status().ToString());
  LOOM_FUZZ_CHECK(back->nbytes() == t->nbytes() &&
                      (t->nbytes() == 0 || std::memcmp(back->raw_data(), t->raw_data(), t->nbytes()) == 0),
                  "TensorProto round trip changed the data");
}
}  // namespace

extern "C" int LoomFuzzOne(const uint8_t* data, size_t size) {
  loom::fuzz::QuietProtobuf();
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    loom::TensorProto p;
    if (p.ParseFromString(bytes)) CheckTensor(p);
  } else {
    absl::StatusOr<loom::TensorProto> p = loom::onnx_import::ImportOnnxTensor(bytes);
    if (p.ok()) CheckTensor(*p);
  }
  return 0;
}
