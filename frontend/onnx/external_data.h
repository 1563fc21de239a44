// ONNX external data: initializers (and Constant / attribute tensors, in
// subgraphs too) whose bytes live in files beside the model
// (TensorProto.data_location EXTERNAL; external_data keys `location`,
// `offset`, `length`, as onnx.save_model(save_as_external_data=True) and
// ONNX's external_data_helper write them). The locations are checked here
// as core/external_data.h says (confined to the model's folder; a model
// given as bytes has none unless the caller names one,
// SessionOptions::external_data_dir); the bytes are mapped or read later,
// when the net is made (TensorFromProto), so a weight is never copied
// through the import.
#ifndef LOOM_FRONTEND_ONNX_EXTERNAL_DATA_H_
#define LOOM_FRONTEND_ONNX_EXTERNAL_DATA_H_

#include <string>

#include "absl/status/status.h"
#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

// Checks every external tensor of `model` against `folder` and rewrites its
// `location` to the file's absolute path (with `offset` and `length` set),
// which the import carries into the NetDef's TensorProto.external_data.
// `folder` "": the model has none, and an external tensor is
// INVALID_ARGUMENT saying so. Errors as core/external_data.h says; NOT_FOUND
// for a missing file.
absl::Status LoadExternalData(onnx::ModelProto* model, const std::string& folder);

}  // namespace onnx_import
}  // namespace loom

#endif  // LOOM_FRONTEND_ONNX_EXTERNAL_DATA_H_
