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

// Output 0 has input 0's dtype and shape (ScatterElements, ScatterND,
// CumSum, Hardmax, LpNormalization).
sdk::Status InferSameAsData(sdk::InferenceContext& ctx);

// The window attributes Conv, FusedConv and the pools share (auto_pad,
// kernel_shape, pads, strides, dilations): schema attributes, not inference.
void WindowAttrs(sdk::SchemaBuilder& s);

}  // namespace ops
}  // namespace loom

#endif  // LOOM_OPS_SHAPE_INFERENCE_H_
