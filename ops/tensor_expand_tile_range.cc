// Schemas of ConstantOfShape, Size, Expand, Tile, Range, Trilu and EyeLike
// (ONNX semantics; each doc names the opset).
//
// Inference sets the output dtypes that differ from input 0 and the output
// shapes where they follow from the input shapes and, for shape/repeats
// style inputs, from their values when those are constants. Anything
// unknown leaves the output shape unknown; the kernel repeats the checks.
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

using sdk::InferenceContext;
using sdk::Status;

// ---- ConstantOfShape: dtype of `value` (float32 default), dims = input ----
Status InferConstantOfShape(InferenceContext& ctx) {
  sdk::Tensor value;
  LoomDataType dt = LOOM_DTYPE_FLOAT;
  if (ctx.info().GetTensor("value", &value).ok() && value.present()) dt = value.dtype();
  ctx.SetOutputDType(0, dt);
  std::vector<int64_t> dims;
  if (ConstantInts(ctx, 0, &dims) &&
      std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; })) {
    ctx.SetOutputShape(0, dims);
  }
  return Status::Ok();
}

// ---- Size: int64 scalar -----------------------------------------------------
Status InferSize(InferenceContext& ctx) {
  ctx.SetOutputDType(0, LOOM_DTYPE_INT64);
  ctx.SetOutputShape(0, {});
  return Status::Ok();
}

// ---- Expand: broadcast(input.shape, shape) ---------------------------------
Status InferExpand(InferenceContext& ctx) {
  std::vector<int64_t> in, shape, out;
  if (!ctx.InputShape(0, &in) || !ConstantInts(ctx, 1, &shape)) return Status::Ok();
  if (Broadcast(in, shape, &out)) ctx.SetOutputShape(0, out);
  return Status::Ok();
}

// ---- Tile: dims[i] * repeats[i] ---------------------------------------------
Status InferTile(InferenceContext& ctx) {
  std::vector<int64_t> in, reps;
  if (!ctx.InputShape(0, &in) || !ConstantInts(ctx, 1, &reps)) return Status::Ok();
  if (reps.size() != in.size()) return Status::Ok();  // the kernel reports it
  for (size_t i = 0; i < in.size(); ++i) {
    if (reps[i] < 0) return Status::Ok();
    if (__builtin_mul_overflow(in[i], reps[i], &in[i])) {
      return sdk::InvalidArgument("Tile: dimension " + std::to_string(i) + " times repeats " + std::to_string(reps[i]) +
                                  " overflows int64");
    }
  }
  ctx.SetOutputShape(0, in);
  return Status::Ok();
}

// ---- Trilu / EyeLike: shape of input 0 -------------------------------------
Status InferEyeLike(InferenceContext& ctx) {
  const int64_t dt = ctx.info().IntOr("dtype", 0);
  ctx.SetOutputDType(0, dt != 0 ? static_cast<LoomDataType>(dt) : ctx.InputDType(0));
  std::vector<int64_t> in;
  if (ctx.InputShape(0, &in)) ctx.SetOutputShape(0, in);
  return Status::Ok();
}

}  // namespace

sdk::Status RegisterTensorExpandTileRangeSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllTypes();
  const TypeSet bytes = {"T", all, kMovesBytes};
  const std::vector<LoomDataType> with_string = TensorTypes();  // whole elements moved: strings too
  // Expand and Tile move whole elements (string tensors too).
  const TypeSet bytes_or_string = {"T", with_string, kMovesBytes};
  const TypeSet int64 = {"T1", {LOOM_DTYPE_INT64}};
  std::vector<OpSpec> specs = {
      {"ConstantOfShape", 20,
       "ONNX ConstantOfShape-20: a tensor of dims `input` filled with the one element of `value` "
       "(default a float32 0).",
       {"input:T1|1-D int64, the output dims (>= 0); empty gives a scalar"}, {"output:T2"}, {int64, {"T2", all}},
       {"value:tensor?|one-element tensor: the fill value and output dtype"}, Fn<&InferConstantOfShape>()},
      {"Size", 13, "ONNX Size-13: the input's element count as an int64 scalar.", {"data:T"}, {"size:T1"},
       {{"T", with_string, "any dtype"}, int64}, {}, Fn<&InferSize>()},
      {"Expand", 13,
       "ONNX Expand-13: input broadcast (numpy rules) with `shape`; the output shape is the broadcast of "
       "both, so a 1 in shape keeps the input's dim.",
       {"input:T", "shape:tensor(int64)|1-D"}, {"output:T"}, {bytes_or_string}, {}, Fn<&InferExpand>()},
      {"Tile", 13, "ONNX Tile-13: the input repeated repeats[i] times along axis i.",
       {"input:T", "repeats:T1|1-D int64 of length rank, each >= 0"}, {"output:T"}, {bytes_or_string, int64}, {},
       Fn<&InferTile>()},
      {"Range", 11,
       "ONNX Range-11: 1-D [start, start + delta, ...] with max(ceil((limit - start) / delta), 0) "
       "elements; element i is start + i * delta.",
       {"start:T|scalar", "limit:T|scalar, exclusive", "delta:T|scalar, nonzero"}, {"output:T"},
       {{"T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE, LOOM_DTYPE_INT16, LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}}}},
      {"Trilu", 14,
       "ONNX Trilu-14: keeps the upper (upper = 1: j - i >= k) or lower (j - i <= k) triangle of the last "
       "two dims of the input (rank >= 2), zeroing the rest.",
       {"input:T|rank >= 2", "k:tensor(int64)?|scalar diagonal offset, default 0"}, {"output:T"}, {bytes},
       {"upper:int=1|1: upper triangle, 0: lower"}, &SameShapeAsInput0},
      {"EyeLike", 9,
       "ONNX EyeLike-9: a 2-D tensor of the input's shape with ones on diagonal k (j - i == k) and zeros "
       "elsewhere, of dtype `dtype` (default: the input's).",
       {"input:T1|2-D"}, {"output:T2"}, {{"T1", all}, {"T2", all}},
       {"k:int=0|diagonal offset: > 0 above, < 0 below the main diagonal",
        "dtype:int?|output dtype (ONNX TensorProto.DataType code)"},
       Fn<&InferEyeLike>()},
  };
  // Folded at plan time when the inputs are constants (as before ABI 11).
  LOOM_SDK_RETURN_IF_ERROR(SetFold(LOOM_FOLD_CONSTANT_INPUTS, {"Expand", "Tile"}, &specs));
  return RegisterOps(reg, specs);
}

}  // namespace ops
}  // namespace loom
