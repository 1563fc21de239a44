// ONNX external data: initializers (and Constant / attribute tensors, in
// subgraphs too) whose bytes live in files beside the model
// (TensorProto.data_location EXTERNAL; external_data keys `location`,
// `offset`, `length`, as onnx.save_model(save_as_external_data=True) and
// ONNX's external_data_helper write them), read into the tensors before the
// import converts them.
//
// A location is confined to the model's folder, the places where ONNX and
// ONNX Runtime had path-traversal reports (onnx#3991, onnx#7686,
// onnxruntime#26776): refused, with INVALID_ARGUMENT naming the tensor and
// the location, are an empty or absolute location, one whose `..` leaves
// the folder, one that resolves (through symlinks) outside it, a file that
// is not a regular file (a device, a FIFO, a folder), a file with more than
// one hard link (a link to a file elsewhere), a `length` other than the
// tensor's byte size, and a file too short for offset + length. A model
// given as bytes has no folder: its external data is refused unless the
// caller names one (SessionOptions::external_data_dir; onnxruntime#27430 was
// that hole).
#ifndef LOOM_FRONTEND_ONNX_EXTERNAL_DATA_H_
#define LOOM_FRONTEND_ONNX_EXTERNAL_DATA_H_

#include <string>

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

// Reads every external tensor of `model` from `folder` into its raw_data
// (then marked DEFAULT, its external_data cleared). `folder` "": the model
// has none, and an external tensor is INVALID_ARGUMENT saying so. Errors
// otherwise as above; NOT_FOUND for a missing file.
absl::Status LoadExternalData(onnx::ModelProto* model, const std::string& folder);

}  // namespace onnx_import
}  // namespace loom

#endif  // LOOM_FRONTEND_ONNX_EXTERNAL_DATA_H_
