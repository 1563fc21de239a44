// ONNX ModelProto -> Loom NetDef.
//
// Initializers become NetDef initializers (constants); graph inputs that are
// not initializers become external inputs (with their static shapes and
// dtypes recorded as the NetDef arguments "input_shape.<name>" (ints) and
// "input_dtype.<name>" (string), which loom_run --random uses); graph
// outputs become external outputs; node attributes become arguments
// (GRAPH attributes, the bodies of If/Loop/Scan, become nested NetDefs whose
// external inputs are the body's formal inputs followed by the outer-scope
// values it reads, the latter also listed in the string-list argument
// "outer_scope_inputs"). Each graph output's dtype is recorded as the
// argument "output_dtype.<name>" (control-flow ops infer theirs from it). The
// default-domain opset is recorded as the NetDef argument "onnx_opset", and
// every imported (domain, version) as the argument "opset_import" (strings:
// domains, ONNX's default spelled "ai.onnx"; ints: their versions). Each
// node keeps its domain (OperatorDef.domain, "ai.onnx" for the default), so
// it resolves to that domain's schema only; a node whose non-default domain
// the model's opset_import does not list is an INVALID_ARGUMENT naming the
// node and the domain (onnx.checker's rule).
// Attributes that older opsets had and that change nothing in inference
// (e.g. BatchNormalization's is_test and spatial=1, consumed_inputs) are
// dropped; top-level Constant ops holding a tensor become initializers.
// BatchNormalization of opsets 9-13 with outputs besides Y is in training
// mode (those opsets tell it by the outputs) and gets training_mode = 1, as
// opset 14 spells it; in a model whose producer is "pytorch" it also gets
// Loom's running_var_unbiased = 1 (PyTorch's running variance).
//
// The import only converts: it knows no device. The graph rewrites (folds,
// fusions, the CPU's blocked layout) are transforms::Optimize's
// (transforms/optimize.h), which the Session and the tools run after it.
#ifndef LOOM_FRONTEND_ONNX_ONNX_IMPORTER_H_
#define LOOM_FRONTEND_ONNX_ONNX_IMPORTER_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"
#include "core/tensor.h"

namespace loom {
namespace onnx_import {

// Converts a serialized ModelProto. Tensors with external data are read from
// `external_data_dir` (frontend/onnx/external_data.h: confined to it; "":
// the bytes have no folder, and external data is refused). Errors:
// INVALID_ARGUMENT for a model that does not parse, sparse tensors or
// attribute types Loom does not hold, and external data's (external_data.h).
absl::StatusOr<NetDef> ImportOnnxModel(const std::string& serialized_model, const std::string& external_data_dir = "");
// The same from a file, its external data from the file's folder.
absl::StatusOr<NetDef> ImportOnnxFile(const std::string& path);

// A serialized ONNX TensorProto (e.g. an ONNX test's input_0.pb) as a Loom
// TensorProto. INVALID_ARGUMENT if it does not parse, and for external data
// (a lone tensor has no folder).
absl::StatusOr<TensorProto> ImportOnnxTensor(const std::string& serialized_tensor);

// `t` (on the host) as a serialized ONNX TensorProto named `name`: dims,
// data_type (Loom's dtype codes are ONNX's) and the elements as raw_data,
// little-endian (strings as string_data), which onnx.load_tensor /
// numpy_helper.to_array and ONNX Runtime's test runner read, and
// ImportOnnxTensor reads back.
std::string ExportOnnxTensor(const Tensor& t, const std::string& name);

// A serialized ONNX value of type `type`, as an ONNX test's input_0.pb or
// output_0.pb holds it: a TensorProto for a tensor type (or kUndefined), a
// SequenceProto of tensors for seq(E), an OptionalProto for optional(X) (X a
// tensor or sequence type; no value: the optional's "none"). INVALID_ARGUMENT
// when the bytes are not that message (a TensorProto without a data_type,
// e.g. a MapProto's bytes, included), for sequences of other than tensors,
// external data, and items Tensor::MakeValue refuses for `type`.
absl::StatusOr<Tensor> ImportOnnxValue(const std::string& serialized, DataType type);
// The same from the file `path`: NOT_FOUND when it cannot be opened; the
// errors above prefixed with the path.
absl::StatusOr<Tensor> ReadOnnxValue(const std::string& path, DataType type);

// `t` as the serialized message ImportOnnxValue reads back: ExportOnnxTensor
// for a tensor, a SequenceProto (elem_type TENSOR) for a sequence, an
// OptionalProto (elem_type TENSOR or SEQUENCE, the value when it holds one)
// for an optional; onnx.load_tensor's siblings in ONNX's Python package
// (SequenceProto.ParseFromString, numpy_helper.to_list / to_optional) read
// them.
std::string ExportOnnxValue(const Tensor& t, const std::string& name);

// The type the import declared for graph input / output `name`: its NetDef
// argument "input_dtype.<name>" / "output_dtype.<name>" (DataTypeName's
// spelling: float32, seq(int64), optional(seq(float32)), ...); kUndefined
// when there is none (a NetDef the importer did not write) or it does not
// parse.
DataType DeclaredInputType(const NetDef& net, const std::string& name);
DataType DeclaredOutputType(const NetDef& net, const std::string& name);

// One error listing every (domain, op type, opset) in `net` (and its nested
// nets) that has no schema or no kernel for `device` in `registry`; OK if
// all are runnable.
absl::Status CheckSupported(const NetDef& net, const Registry& registry, const std::string& device = "CPU");

}  // namespace onnx_import
}  // namespace loom

#endif  // LOOM_FRONTEND_ONNX_ONNX_IMPORTER_H_
