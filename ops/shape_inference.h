// Shape-inference functions shared by the standard schemas.
#ifndef LOOM_OPS_SHAPE_INFERENCE_H_
#define LOOM_OPS_SHAPE_INFERENCE_H_

#include <cstdint>
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

}  // namespace ops
}  // namespace loom

#endif  // LOOM_OPS_SHAPE_INFERENCE_H_
