// Schema of ReverseSequence (ONNX opset 10).
#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {

sdk::Status RegisterTensorReverseSequenceSchemas(sdk::Registrar& reg) {
  return RegisterOps(
      reg, {{"ReverseSequence", 10,
             "ONNX ReverseSequence-10: Y = X with, for each batch entry b, the first sequence_lens[b] elements "
             "along time_axis reversed and the rest copied. batch_axis and time_axis are 0 and 1, either way "
             "round.",
             {"input:T|rank >= 2", "sequence_lens:tensor(int64)|[batch], each in [0, X.dim(time_axis)]"},
             {"Y:T|input's shape"}, {{"T", AllTypes()}},
             {"batch_axis:int=1|0 or 1", "time_axis:int=0|1 or 0, not batch_axis"}, Fn<&InferLike<0, 0>>()}});
}

}  // namespace ops
}  // namespace loom
