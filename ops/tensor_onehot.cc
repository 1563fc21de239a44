// Schema of OneHot (ONNX opset 11).
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

// OneHot: values' dtype; indices' dims with depth inserted at axis.
sdk::Status InferOneHot(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(2));
  std::vector<int64_t> in;
  sdk::Tensor d = ctx.InputConstant(1);
  if (!ctx.InputShape(0, &in) || !d.present() || d.num_elements() != 1) return sdk::Status::Ok();
  int64_t depth = 0;
  double depth_d = 0;
  switch (d.dtype()) {
    case LOOM_DTYPE_INT64: depth = *d.data<int64_t>(); break;
    case LOOM_DTYPE_INT32: depth = *d.data<int32_t>(); break;
    case LOOM_DTYPE_FLOAT: depth_d = *d.data<float>(); break;
    case LOOM_DTYPE_DOUBLE: depth_d = *d.data<double>(); break;
    default: return sdk::Status::Ok();
  }
  if (d.dtype() == LOOM_DTYPE_FLOAT || d.dtype() == LOOM_DTYPE_DOUBLE) {
    // Truncated to an integer as the kernel does, after its range check.
    if (!(depth_d >= 1) || !(depth_d < 1e12)) {
      return sdk::InvalidArgument("input 'depth' must be a finite number >= 1 and < 1e12; found " +
                                  std::to_string(depth_d));
    }
    depth = static_cast<int64_t>(depth_d);
  }
  int64_t axis = ctx.info().IntOr("axis", -1);
  // Out of range: the kernel reports it.
  if (depth < 1 || !NormAxis(&axis, static_cast<int64_t>(in.size()) + 1)) return sdk::Status::Ok();
  in.insert(in.begin() + axis, depth);
  ctx.SetOutputShape(0, in);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterTensorOneHotSchemas(sdk::Registrar& reg) {
  return RegisterOps(reg, {{"OneHot", 11,
      "ONNX OneHot-11: values[1] where the new axis' index equals the index (negative ones count from "
      "the end, in [-depth, depth-1]), values[0] elsewhere; an index out of range gives an all-off row. "
      "Output: indices' dims with depth inserted at axis; dtype of values.",
      {"indices:T1|any shape; non-integer values are truncated",
       "depth:T2|one element, finite, >= 1 and < 1e12 (truncated to an integer)",
       "values:T3|1-D [off_value, on_value]"},
      {"output:T3"}, {{"T1", NumericTypes()}, {"T2", NumericTypes()}, {"T3", AllTypes()}},
      {"axis:int=-1|where the depth axis goes, in [-r-1, r] for indices' rank r"}, Fn<&InferOneHot>()}});
}

}  // namespace ops
}  // namespace loom
