// Building blocks the standard schemas share: a schema started with its
// opset and doc, schemas described as compact text tables (OpSpec,
// RegisterOps), table-driven registration of the elementwise families, the
// ReduceX schema, the window attributes of Conv and the pools, and the specs
// of the pools and of Conv, FusedConv and ConvTranspose.
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

// One type constraint: the type string, its dtypes, an optional doc.
struct TypeSet {
  std::string name;
  std::vector<LoomDataType> types;
  std::string doc = "";
};

// A schema described by text. Inputs and outputs are "name:type" with an
// optional "?" (optional) or "*" (variadic) after the type and "|doc" last:
// "axes:tensor(int64)?|1-D, in [-r, r-1]". Attributes are "name:kind" with
// kind int, float, string, ints, floats, strings, tensor or net, then "=value"
// (a default; int, float and string only), "!" (required) or "?" (optional,
// no default), and "|doc" last: "axis:int=0|in [-r, r-1]". `inplace`: output
// 0 may reuse input 0's buffer.
struct OpSpec {
  std::string op;
  int since;
  std::string doc;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<TypeSet> types;
  std::vector<std::string> attrs = {};
  LoomInferFn infer = nullptr;
  bool inplace = false;
  // The operator domain; "" for ONNX's, LOOM_OPS_DOMAIN for Loom's own.
  std::string domain = "";
  // When the planner may run the op at plan time (LoomFoldKind, ABI 11).
  LoomFoldKind fold = LOOM_FOLD_NEVER;
};

// `specs` with their domain set to `domain` (a table of Loom's own ops).
std::vector<OpSpec> InDomain(const char* domain, std::vector<OpSpec> specs);
// Sets the fold of the ops named in `ops` to `kind`; INTERNAL naming an op
// `specs` lacks (so a misspelled name cannot silently stop a fold).
sdk::Status SetFold(LoomFoldKind kind, const std::vector<std::string>& ops, std::vector<OpSpec>* specs);

// Adds `spec`'s inputs, outputs, constraints, attributes, in-place pair and
// inference to `s`; an error names a description it cannot read.
sdk::Status Describe(sdk::SchemaBuilder& s, const OpSpec& spec);
// Registers every spec as Schema(op, since, doc) described by it.
sdk::Status RegisterOps(sdk::Registrar& reg, const std::vector<OpSpec>& specs);

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
// kernel_shape, pads, strides, dilations), as OpSpec attributes.
std::vector<std::string> WindowAttrs(bool kernel_shape_required = false);
// ConvTranspose-11's window attributes (WindowAttrs' plus output_padding
// and output_shape; kernel_shape optional), for it and its gradient.
std::vector<std::string> ConvTransposeWindowAttrs();

// MaxPool / AveragePool / LpPool over X [N, C, D...]: X, Y, T, the window
// attributes and ceil_mode, output shapes by PoolShapes.
OpSpec PoolSpec(const std::string& op, int since, const std::string& doc, std::vector<LoomDataType> types,
                bool kernel_shape_required = false);

// Conv-like X [N, C, D...], W (`w_doc`), optional B [M] -> Y [N, M, D'...]
// of float types, with `group` and the inference function `infer`.
OpSpec ConvSpec(const std::string& op, int since, const std::string& doc, const std::string& w_doc,
                const std::string& group_doc, LoomInferFn infer);

}  // namespace ops
}  // namespace loom

#endif  // LOOM_OPS_SCHEMA_HELPERS_H_
