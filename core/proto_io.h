// Reading and writing Loom protos and converting tensors.
#ifndef LOOM_CORE_PROTO_IO_H_
#define LOOM_CORE_PROTO_IO_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "google/protobuf/message.h"
#include "core/proto/loom.pb.h"
#include "core/tensor.h"

namespace loom {

// A CPU tensor from a TensorProto (raw_data, the typed fields, or
// external_data: mapped or read from its file, core/external_data.h, whose
// location must be an absolute path a loader resolved). Errors name the
// tensor and say what is wrong (unknown data_type, byte count mismatch, a
// file too short).
absl::StatusOr<Tensor> TensorFromProto(const TensorProto& proto);
// The same, taking `proto`'s raw_data without a copy where it can: the
// tensor then owns the moved string's memory (aligned to malloc's 16 bytes,
// which every kernel takes, rather than kTensorAlignment), so a weight is
// never held twice while a net loads (Net::Create(NetDef&&)). `proto` is
// left without its values either way on success.
absl::StatusOr<Tensor> TensorFromProto(TensorProto&& proto);
// A TensorProto with raw_data (little-endian) of a CPU tensor.
TensorProto TensorToProto(const Tensor& t, const std::string& name = "");

// The folder of a file's `path`, where its external data lives: "." for a
// bare file name, "/" for a file at the root.
std::string FolderOf(const std::string& path);

// Reads a NetDef from `path`: protobuf binary, or text format when the file
// ends in .pbtxt/.txt/.prototxt or does not parse as binary. Its external
// data locations are resolved against path's folder (ResolveExternalData,
// core/external_data.h: confined to it; errors name the tensor).
// ParseNetDefText's text has no folder: external data there is refused.
absl::StatusOr<NetDef> ReadNetDef(const std::string& path);
// Writes binary unless `path` ends in .pbtxt/.txt/.prototxt.
absl::Status WriteNetDef(const NetDef& net, const std::string& path);
absl::StatusOr<NetDef> ParseNetDefText(const std::string& text);
// A TensorProto from `path` (binary or text); an external_data location is
// resolved against path's folder as ReadNetDef's are.
absl::StatusOr<TensorProto> ReadTensorProto(const std::string& path);
// Parses binary protobuf `data` (or what `in` yields) into `m`, allowing
// 1000 nested messages rather than protobuf's default 100 (about 330 nested
// nets; NetOptions::max_nesting_depth is the limit that names the op). False
// when it does not parse or does not end where the data ends, and for data
// over 2 GiB. For any message type (NetDef, onnx::ModelProto).
bool ParseBinaryProto(absl::string_view data, google::protobuf::Message* m);
bool ParseBinaryProto(google::protobuf::io::ZeroCopyInputStream* in, google::protobuf::Message* m);
absl::Status WriteTensorProto(const TensorProto& t, const std::string& path);

}  // namespace loom

#endif  // LOOM_CORE_PROTO_IO_H_
