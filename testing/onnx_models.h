// Small ONNX models built in tests, imported and optimized as the Session
// does, and run on the CPU and controlflow plugins: what the importer's and
// the transforms' tests share.
#ifndef LOOM_TESTING_ONNX_MODELS_H_
#define LOOM_TESTING_ONNX_MODELS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/net.h"
#include "core/registry.h"
#include "onnx/onnx_pb.h"
#include "transforms/optimize.h"

namespace loom {
namespace testing {

// The built-in ops with the CPU and controlflow plugins (loaded once).
Registry* CpuControlFlowRegistry();

// Graph builders: a float (or `elem`) input of static `dims`; an output,
// float-typed unless `typed` is false; a node of `type`; INT and INTS
// attributes of a node.
void AddInput(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims,
              int elem = onnx::TensorProto::FLOAT);
void AddOutput(onnx::GraphProto* g, const std::string& name, bool typed = true);
onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& type, std::vector<std::string> in,
                         std::vector<std::string> out);
void IntAttr(onnx::NodeProto* n, const std::string& name, int64_t v);
void IntsAttr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v);
// A serialized ModelProto of `g` (IR 7) importing the default domain at `opset`.
std::string Serialize(const onnx::GraphProto& g, int64_t opset);
// A float32 initializer `name` holding `t`.
onnx::TensorProto FloatTensor(const std::string& name, const Tensor& t);
// An initializer `name` of ONNX data type `elem` (onnx::TensorProto's codes)
// and `dims`, holding `v` as raw_data.
template <typename T>
onnx::TensorProto Initializer(const std::string& name, int elem, std::vector<int64_t> dims, const std::vector<T>& v) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(elem);
  for (int64_t d : dims) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)));
  return t;
}

// Imports `model` and runs the transforms `options` selects (what the
// Session does), so that each test states the rewrites it expects.
absl::StatusOr<NetDef> ImportOptimized(const std::string& model, const transforms::OptimizeOptions& options = {});
// The same without the NCHWc pass: the graph the folds and fusions leave,
// on any machine (on AVX-512 the pass also rewrites dense convolutions).
absl::StatusOr<NetDef> ImportWithoutLayoutPass(const std::string& model);
// Imports (optimized), runs with `inputs`, returns output `name` (a
// failure is a test failure, and an empty tensor).
Tensor RunModel(const std::string& model, const std::vector<std::pair<std::string, Tensor>>& inputs,
                const std::string& name);
// Runs `blocked` (`model` imported with the NCHWc pass) and the plain import
// of `model` on `feeds` and expects their output `out` within `tol`
// (relative and absolute).
void ExpectSameAsPlainImport(const std::string& model, const NetDef& blocked,
                             const std::vector<std::pair<std::string, Tensor>>& feeds, const std::string& out,
                             double tol = 1e-5);

}  // namespace testing
}  // namespace loom

#endif  // LOOM_TESTING_ONNX_MODELS_H_
