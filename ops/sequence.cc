// Schemas of ONNX's sequence and optional operators: SequenceEmpty,
// SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase,
// SequenceLength, SplitToSequence, ConcatFromSequence (opset 11), Optional,
// OptionalHasElement, OptionalGetElement (opset 15). A sequence's type is
// LOOM_DTYPE_SEQUENCE | element dtype, an optional's LOOM_DTYPE_OPTIONAL |
// inner type (core/api/loom_c_api.h); their values are Tensors holding
// tensors (core/tensor.h, Tensor::MakeValue).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

using sdk::TypeName;

sdk::Status InferSequenceEmpty(sdk::InferenceContext& ctx) {
  const int64_t dt = ctx.info().IntOr("dtype", LOOM_DTYPE_FLOAT);
  const std::vector<LoomDataType> ok = TensorTypes();
  if (std::find(ok.begin(), ok.end(), static_cast<LoomDataType>(dt)) == ok.end()) {
    return sdk::InvalidArgument("attribute 'dtype' = " + std::to_string(dt) + " is not a tensor dtype Loom holds");
  }
  ctx.SetOutputDType(0, static_cast<LoomDataType>(dt) | LOOM_DTYPE_SEQUENCE);
  return sdk::Status::Ok();
}

// Every input is a tensor of one dtype (the T binding checks it).
sdk::Status InferSequenceConstruct(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0) | LOOM_DTYPE_SEQUENCE);
  return sdk::Status::Ok();
}

// The tensor must have the sequence's element dtype.
sdk::Status InferSequenceInsert(sdk::InferenceContext& ctx) {
  const LoomDataType s = ctx.InputDType(0), t = ctx.InputDType(1);
  if (sdk::ValueElementType(s) != t) {
    return sdk::InvalidArgument("input 'tensor' is " + TypeName(t) + " but input 'input_sequence' is " + TypeName(s));
  }
  ctx.SetOutputDType(0, s);
  return sdk::Status::Ok();
}

// OptionalGetElement: the optional's inner type; a plain tensor or sequence
// (ONNX opset 18's relaxation) stays what it is.
sdk::Status InferOptionalElement(sdk::InferenceContext& ctx) {
  const LoomDataType t = ctx.InputDType(0);
  ctx.SetOutputDType(0, sdk::IsOptionalType(t) ? sdk::ValueElementType(t) : t);
  return sdk::Status::Ok();
}

sdk::Status InferElementOf(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, sdk::ValueElementType(ctx.InputDType(0)));
  return sdk::Status::Ok();
}

sdk::Status InferSequenceOfInput(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0) | LOOM_DTYPE_SEQUENCE);
  return sdk::Status::Ok();
}

// Optional-15: optional(input's type), or for "none" the `type`
// attribute's (a type code: a tensor dtype, or LOOM_DTYPE_SEQUENCE | one).
sdk::Status InferOptional(sdk::InferenceContext& ctx) {
  if (HasInput(ctx, 0)) {
    ctx.SetOutputDType(0, ctx.InputDType(0) | LOOM_DTYPE_OPTIONAL);
    return sdk::Status::Ok();
  }
  int64_t type = 0;
  if (!ctx.info().GetInt("type", &type).ok()) {
    return sdk::InvalidArgument("with no input, attribute 'type' (the value's type) is required");
  }
  const std::vector<LoomDataType> ok = TensorTypes(), seqs = SequenceTypes();
  if (std::find(ok.begin(), ok.end(), type) == ok.end() && std::find(seqs.begin(), seqs.end(), type) == seqs.end()) {
    return sdk::InvalidArgument("attribute 'type' = " + std::to_string(type) + " is not a tensor or sequence type");
  }
  ctx.SetOutputDType(0, static_cast<LoomDataType>(type) | LOOM_DTYPE_OPTIONAL);
  return sdk::Status::Ok();
}

sdk::Status InferScalarBool(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_BOOL);
  ctx.SetOutputShape(0, {});
  return sdk::Status::Ok();
}

sdk::Status InferSequenceLength(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
  ctx.SetOutputShape(0, {});
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterSequenceSchemas(sdk::Registrar& reg) {
  const TypeSet seq{"S", SequenceTypes(), "a sequence of tensors"};
  const TypeSet tensor{"T", TensorTypes()};
  const TypeSet index{"I", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}, "a position"};
  const TypeSet opt{"O", OptionalTypes(), "an optional tensor or sequence"};
  std::vector<LoomDataType> tensor_or_seq = TensorTypes();
  for (LoomDataType t : SequenceTypes()) tensor_or_seq.push_back(t);
  const TypeSet value{"V", tensor_or_seq, "a tensor or a sequence"};
  // OptionalHasElement / OptionalGetElement also take a plain tensor or
  // sequence (ONNX opset 18's relaxation; a Loop body whose optional input
  // carries a sequence from the second iteration on needs it).
  std::vector<LoomDataType> opt_or_value = OptionalTypes();
  opt_or_value.insert(opt_or_value.end(), tensor_or_seq.begin(), tensor_or_seq.end());
  const TypeSet opt_in{"O", opt_or_value, "an optional, tensor or sequence"};
  return RegisterOps(
      reg,
      {{"SequenceEmpty", 11, "ONNX SequenceEmpty-11: an empty sequence of dtype's tensors.", {}, {"output:S"}, {seq},
        {"dtype:int?|element dtype (ONNX TensorProto.DataType; default float)"}, Fn<&InferSequenceEmpty>()},
       {"SequenceConstruct", 11, "ONNX SequenceConstruct-11: the sequence of the inputs, in order (copied).",
        {"inputs:T*|tensors of one dtype"}, {"output_sequence:S"}, {tensor, seq}, {}, Fn<&InferSequenceConstruct>()},
       {"SequenceInsert", 11,
        "ONNX SequenceInsert-11: input_sequence with tensor inserted before position (in [-n, n], negative "
        "counts from the end; absent: at the end).",
        {"input_sequence:S", "tensor:T|of the sequence's element dtype", "position:I?|scalar"},
        {"output_sequence:S"}, {seq, tensor, index}, {}, Fn<&InferSequenceInsert>()},
       {"SequenceAt", 11, "ONNX SequenceAt-11: a copy of the tensor at position (in [-n, n-1]).",
        {"input_sequence:S", "position:I|scalar"}, {"tensor:T"}, {seq, tensor, index}, {}, Fn<&InferElementOf>()},
       {"SequenceErase", 11,
        "ONNX SequenceErase-11: input_sequence without the tensor at position (in [-n, n-1]; absent: the last).",
        {"input_sequence:S", "position:I?|scalar"}, {"output_sequence:S"}, {seq, index}, {}},
       {"SequenceLength", 11, "ONNX SequenceLength-11: the number of tensors, an int64 scalar.",
        {"input_sequence:S"}, {"length:tensor(int64)"}, {seq}, {}, Fn<&InferSequenceLength>()},
       {"SplitToSequence", 11,
        "ONNX SplitToSequence-11: input split along axis into a sequence: by the sizes of 1-D split (summing to "
        "the dim), into chunks of scalar split (the last may be smaller), or without split into pieces of 1, "
        "then without that axis when keepdims is 0.",
        {"input:T", "split:I?|scalar chunk size or 1-D sizes"}, {"output_sequence:S"}, {tensor, index, seq},
        {"axis:int=0|in [-r, r-1]", "keepdims:int=1|without split: keep the split axis (1) or not (0)"},
        Fn<&InferSequenceOfInput>()},
       {"ConcatFromSequence", 11,
        "ONNX ConcatFromSequence-11: the sequence's tensors concatenated along axis, or stacked on a new axis "
        "(new_axis 1; axis then in [-r-1, r]). An empty sequence is an error (no shape).",
        {"input_sequence:S"}, {"concat_result:T"}, {seq, tensor},
        {"axis:int!|the axis", "new_axis:int=0|1: stack on a new axis"}, Fn<&InferElementOf>()},
       {"Optional", 15,
        "ONNX Optional-15: an optional holding input (a tensor or sequence), or, without input, none of the "
        "type given by attribute 'type' (the importer turns ONNX's TypeProto into a type code: a tensor dtype, "
        "or LOOM_DTYPE_SEQUENCE | one).",
        {"input:V?"}, {"output:O"}, {value, opt}, {"type:int?|the type code when there is no input"},
        Fn<&InferOptional>()},
       {"OptionalHasElement", 15,
        "ONNX OptionalHasElement-15: a bool scalar, true when input holds a value (a plain tensor or sequence "
        "input, as opset 18 allows, holds one).",
        {"input:O"}, {"output:tensor(bool)"}, {opt_in}, {}, Fn<&InferScalarBool>()},
       {"OptionalGetElement", 15,
        "ONNX OptionalGetElement-15: the value input holds (a tensor is copied); an error for none. A plain "
        "tensor or sequence input (opset 18) is passed on.",
        {"input:O"}, {"output:V"}, {opt_in, value}, {}, Fn<&InferOptionalElement>()}});
}

}  // namespace ops
}  // namespace loom
