// Building blocks the standard schemas share: a schema started with its
// opset and doc, table-driven registration of the elementwise families, the
// ReduceX schema, the window attributes of Conv and the pools, and the
// signature Conv, FusedConv and ConvTranspose share.
#ifndef LOOM_OPS_SCHEMA_HELPERS_H_
#define LOOM_OPS_SCHEMA_HELPERS_H_

#include <functional>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"

namespace loom {
namespace ops {

// The doc of a T constraint over AllTypes() for ops that only move bytes.
inline constexpr char kMovesBytes[] = "any dtype: the op only moves bytes";
// Cast's and CastLike's saturate attribute.
inline constexpr char kSaturateDoc[] = "opset 19; applies to float8 types only, which Loom does not have";

// "ONNX <op>-<since>" followed by ": <what>" (or "." when `what` is empty):
// how every standard doc starts.
std::string OnnxDoc(const std::string& op, int since, const std::string& what);

// A schema of `op` with its opset version and doc set.
sdk::SchemaBuilder Schema(const std::string& op, int since, const std::string& doc);

// Extra schema content (attributes) an entry of a table adds.
using SchemaExtra = std::function<void(sdk::SchemaBuilder&)>;
struct FloatAttr {
  const char* name;
  float dflt;
  const char* doc;
};
// Adds float attributes with defaults.
SchemaExtra FloatAttrs(std::vector<FloatAttr> attrs);

// One elementwise op of a table: its doc is OnnxDoc(op, since, what) plus
// the family's sentence.
struct ElementwiseOp {
  const char* op;
  int since;
  const char* what;
  std::vector<LoomDataType> types;
  SchemaExtra extra = nullptr;
};

// Y = op(X) with X's shape and dtype; `inplace` lets Y reuse X's buffer.
sdk::Status RegisterUnary(sdk::Registrar& reg, const std::vector<ElementwiseOp>& ops, bool inplace);
// C = op(A, B) with numpy broadcasting; `bool_out` makes C bool (comparisons).
sdk::Status RegisterBinary(sdk::Registrar& reg, const std::vector<ElementwiseOp>& ops, bool bool_out);

// ReduceX: data and the optional axes input, keepdims, noop_with_empty_axes
// and the older opsets' axes attribute; output by InferReduceShape. The doc
// says what the op computes, what an empty reduction gives and `note`.
struct ReduceOp {
  const char* op;
  int since;
  const char* what;
  const char* empty;
};
sdk::Status RegisterReduce(sdk::Registrar& reg, const std::vector<ReduceOp>& ops, const std::string& note);

// The window attributes Conv, FusedConv and the pools share (auto_pad,
// kernel_shape, pads, strides, dilations).
void WindowAttrs(sdk::SchemaBuilder& s, bool kernel_shape_required = false);

// MaxPool / AveragePool / LpPool over X [N, C, D...]: X, Y, T, the window
// attributes and ceil_mode, output shapes by PoolShapes.
sdk::SchemaBuilder PoolSchema(const std::string& op, int since, const std::string& doc,
                              std::vector<LoomDataType> types, bool kernel_shape_required = false);

// Conv-like X [N, C, D...], W (`w_doc`), optional B [M] -> Y [N, M, D'...]
// of float types, with `group` and the inference function `infer`.
void ConvSignature(sdk::SchemaBuilder& s, const std::string& w_doc, const std::string& group_doc, LoomInferFn infer);

}  // namespace ops
}  // namespace loom

#endif  // LOOM_OPS_SCHEMA_HELPERS_H_
