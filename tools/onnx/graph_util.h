// Small helpers for the importer's graph rewrites (fold_batchnorm,
// fuse_conv_activation, fuse_elementwise): who reads what, attributes, and
// scalar constants.
#ifndef LOOM_TOOLS_ONNX_GRAPH_UTIL_H_
#define LOOM_TOOLS_ONNX_GRAPH_UTIL_H_

#include <map>
#include <optional>
#include <string>

#include "core/proto/loom.pb.h"
#include "core/proto_io.h"

namespace loom {
namespace onnx_import {

// How many times each blob is read anywhere in `net` (nested nets and net
// outputs count too).
inline void CollectReads(const NetDef& net, std::map<std::string, int>* reads) {
  for (const OperatorDef& op : net.op()) {
    for (const std::string& in : op.input()) {
      if (!in.empty()) ++(*reads)[in];
    }
    for (const Argument& a : op.arg()) {
      if (a.has_n()) CollectReads(a.n(), reads);
      for (const NetDef& n : a.nets()) CollectReads(n, reads);
    }
  }
  for (const std::string& out : net.external_output()) ++(*reads)[out];
}

inline const Argument* FindArg(const OperatorDef& op, const std::string& name) {
  for (const Argument& a : op.arg()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

inline float FloatArg(const OperatorDef& op, const std::string& name, float dflt) {
  const Argument* a = FindArg(op, name);
  return a != nullptr && a->has_f() ? a->f() : dflt;
}

inline bool HasNonZeroInt(const OperatorDef& op, const std::string& name) {
  const Argument* a = FindArg(op, name);
  return a != nullptr && a->i() != 0;
}

// The value of a one-element float32 initializer named `name` of rank at most
// `max_rank` (so broadcasting it changes no shape of that rank); nullopt
// otherwise, and for an initializer that is also a net input (a caller may
// feed another value).
inline std::optional<float> ScalarInitializer(const NetDef& net, const std::string& name, int max_rank) {
  for (const std::string& in : net.external_input()) {
    if (in == name) return std::nullopt;
  }
  for (const TensorProto& t : net.initializer()) {
    if (t.name() != name) continue;
    if (t.data_type() != static_cast<int>(DataType::kFloat32) || t.dims_size() > max_rank) return std::nullopt;
    auto v = TensorFromProto(t);
    if (!v.ok() || v->num_elements() != 1) return std::nullopt;
    return v->data<float>()[0];
  }
  return std::nullopt;
}

}  // namespace onnx_import
}  // namespace loom

#endif  // LOOM_TOOLS_ONNX_GRAPH_UTIL_H_
