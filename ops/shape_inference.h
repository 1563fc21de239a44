// Shape-inference functions shared by the standard schemas.
#ifndef LOOM_OPS_SHAPE_INFERENCE_H_
#define LOOM_OPS_SHAPE_INFERENCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"

namespace loom {
namespace ops {

// Output 0 has input 0's shape (dtype: the core's default).
LoomStatus* SameShapeAsInput0(LoomInferenceContext* ctx);
// Output 0 has the numpy broadcast of all present inputs' shapes; an error
// when they do not broadcast.
LoomStatus* BroadcastShapes(LoomInferenceContext* ctx);
// Output 0 is `kDType` with the broadcast shape of the inputs (comparisons: bool).
template <LoomDataType kDType>
LoomStatus* BroadcastShapesAs(LoomInferenceContext* c) {
  sdk::InferenceContext(c).SetOutputDType(0, kDType);
  return BroadcastShapes(c);
}
// Numpy broadcast of two shapes; false if incompatible.
bool Broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>* out);

// The C inference callback of an `sdk::Status F(sdk::InferenceContext&)`.
template <sdk::Status (*F)(sdk::InferenceContext&)>
constexpr LoomInferFn Fn() { return &sdk::internal::InferTrampoline<F>; }

// Whether optional input i is given.
bool HasInput(const sdk::InferenceContext& ctx, size_t i);

// The values of int64/int32 input i when it is a constant (an initializer).
bool ConstantInts(const sdk::InferenceContext& ctx, size_t i, std::vector<int64_t>* out);

// Output shape of a reduction of `in` over `axes` (ONNX rules: negative axes
// count from the end, duplicates and out-of-range axes are errors, empty
// axes reduce everything unless noop_with_empty_axes). Fills *error instead
// on bad axes.
bool ReducedShape(const std::vector<int64_t>& in, std::vector<int64_t> axes, bool keepdims, bool noop,
                  std::vector<int64_t>* out, std::string* error);

// ReduceX (ReduceSum, ..., ReduceLogSumExp): output 0's shape, known when the
// data shape is and the axes come from the attribute or a constant axes
// input. INVALID_ARGUMENT, `error_prefix` + the reason, for bad axes.
sdk::Status InferReduceShape(sdk::InferenceContext& ctx, const std::string& error_prefix);

// MaxPool / AveragePool / LpPool: every output [N, C, D'...] by the window
// rules (ops/semantics/window.h) over kernel_shape.
LoomStatus* PoolShapes(LoomInferenceContext* ctx);
// GlobalAveragePool / GlobalMaxPool / GlobalLpPool: Y [N, C, 1...].
LoomStatus* GlobalPoolShapes(LoomInferenceContext* ctx);

// Output 0 has input kDType's dtype and input kShape's shape (when known):
// <0, 0> for ScatterElements, ScatterND, CumSum, Hardmax, LpNormalization;
// <1, 0> for CastLike; <0, 1> for GatherElements.
template <size_t kDType, size_t kShape>
sdk::Status InferLike(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(kDType));
  std::vector<int64_t> s;
  if (ctx.InputShape(kShape, &s)) ctx.SetOutputShape(0, s);
  return sdk::Status::Ok();
}

// Output 0 is `kDType`; its shape is left unknown (NonZero: int64).
template <LoomDataType kDType>
sdk::Status OutputDType(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, kDType);
  return sdk::Status::Ok();
}

// Output 0 is `kDType` with input 0's shape when known (IsNaN, IsInf: bool).
template <LoomDataType kDType>
LoomStatus* SameShapeAs(LoomInferenceContext* c) {
  sdk::InferenceContext(c).SetOutputDType(0, kDType);
  return SameShapeAsInput0(c);
}

// Maps axis from [-rank, rank - 1] to [0, rank - 1]; false if outside.
bool NormAxis(int64_t* axis, int64_t rank);

}  // namespace ops
}  // namespace loom

#endif  // LOOM_OPS_SHAPE_INFERENCE_H_
