// ONNX's shape inference (libonnx 1.12, onnx::shape_inference::InferShapes)
// run on an untrusted model without trusting it not to crash.
//
// The importer needs what ONNX's inference adds to a model in two places
// only: the ranks of values that older opsets' rewrites depend on (legacy
// broadcasting before opset 7, Softmax/LogSoftmax/Hardmax before opset 13)
// and the element types of If/Loop/Scan body outputs that exporters leave
// out. libonnx 1.12's inference functions crash on malformed models (a zero
// stride divides by zero in convPoolShapeInference, Scan and ConvTranspose
// read past the end of their arguments: fuzz findings in
// tools/fuzz/regressions/onnx_import), and those crashes would end the
// process that imports the model. So the inference runs only when the model
// needs it, and then in a forked child process whose result (types only, no
// weights) comes back through a pipe; a crash, a hang past the timeout or an
// exception there leaves the model as it was, as if nothing was inferred.
#ifndef LOOM_FRONTEND_ONNX_ISOLATED_SHAPE_INFERENCE_H_
#define LOOM_FRONTEND_ONNX_ISOLATED_SHAPE_INFERENCE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

// True when importing `model` (default-domain opset `opset`) uses what
// ONNX's shape inference adds: a node the importer rewrites by its inputs'
// ranks (legacy_ops.h, RewriteUsesRanks: a Softmax/LogSoftmax/Hardmax
// before opset 13, an Add/Sub/Mul/Div/Pow with the legacy `broadcast`
// attribute or a PRelu before opset 7), or an If/Loop/Scan body output
// without an element type. Looks into every nested graph.
bool NeedsShapeInference(const onnx::ModelProto& model, int64_t opset);

// Runs InferShapes on a copy of `model` in a child process (fork) and copies
// the result into `model`: each graph's value_info, and the types of graph
// inputs and outputs that had none, graph by graph (nested bodies matched by
// node and attribute position). Nothing else of `model` changes.
//
// Returns OK when the types were copied; otherwise `model` is unchanged and
// the status says why: INTERNAL when the child crashed (names the signal) or
// could not be started, DEADLINE_EXCEEDED when it ran past `timeout` (it is
// killed), INVALID_ARGUMENT when ONNX's inference rejected the model (its
// message). Callers treat every error as "no inferred types".
absl::Status InferShapesIsolated(onnx::ModelProto* model, absl::Duration timeout);

}  // namespace onnx_import
}  // namespace loom

#endif  // LOOM_FRONTEND_ONNX_ISOLATED_SHAPE_INFERENCE_H_
