// ONNX nodes whose import depends on their inputs' ranks: older opsets'
// semantics that the importer rewrites into current ops (onnx_importer.cc)
// and that therefore need ONNX's shape inference first
// (isolated_shape_inference.h, NeedsShapeInference). One definition for both.
#ifndef LOOM_FRONTEND_ONNX_LEGACY_OPS_H_
#define LOOM_FRONTEND_ONNX_LEGACY_OPS_H_

#include <cstdint>
#include <string>

#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

inline bool HasAttribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return true;
  }
  return false;
}

// Binary ops of opsets 1-6 with `broadcast` = 1: B is aligned with A
// starting at dimension `axis` (default: trailing alignment). The importer
// turns that into numpy broadcasting; the attributes are then dropped.
inline bool IsLegacyBinary(const onnx::NodeProto& node) {
  const std::string& op = node.op_type();
  return (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow") && HasAttribute(node, "broadcast");
}

// Softmax, LogSoftmax and Hardmax: before opset 13 they flatten the input to
// 2-D at `axis`.
inline bool IsSoftmaxFamily(const std::string& op_type) {
  return op_type == "Softmax" || op_type == "LogSoftmax" || op_type == "Hardmax";
}

// True when the importer rewrites `node` of default-domain opset `opset`
// using its inputs' ranks: a legacy binary op or PRelu (its slope is per
// channel) before opset 7, where `broadcast` exists, and the Softmax family
// before opset 13.
inline bool RewriteUsesRanks(const onnx::NodeProto& node, int64_t opset) {
  return (opset < 7 && (IsLegacyBinary(node) || node.op_type() == "PRelu")) ||
         (IsSoftmaxFamily(node.op_type()) && opset < 13);
}

}  // namespace onnx_import
}  // namespace loom

#endif  // LOOM_FRONTEND_ONNX_LEGACY_OPS_H_
