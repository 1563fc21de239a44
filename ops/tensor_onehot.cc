// Schema of OneHot (ONNX opset 11).
#include <cstdint>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

using sdk::InferenceContext;
using sdk::Status;

// ---- OneHot: values' dtype; indices' dims with depth inserted at axis ------
Status InferOneHot(InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(2));
  std::vector<int64_t> in;
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  sdk::Tensor d = ctx.InputConstant(1);
  if (!d.present() || d.num_elements() != 1) return Status::Ok();
  int64_t depth = 0;
  switch (d.dtype()) {
    case LOOM_DTYPE_INT64: depth = *d.data<int64_t>(); break;
    case LOOM_DTYPE_INT32: depth = *d.data<int32_t>(); break;
    case LOOM_DTYPE_FLOAT: depth = static_cast<int64_t>(*d.data<float>()); break;
    case LOOM_DTYPE_DOUBLE: depth = static_cast<int64_t>(*d.data<double>()); break;
    default: return Status::Ok();
  }
  const int64_t r = static_cast<int64_t>(in.size()) + 1;
  int64_t axis = ctx.info().IntOr("axis", -1);
  if (depth < 1 || axis < -r || axis >= r) return Status::Ok();  // the kernel reports it
  if (axis < 0) axis += r;
  in.insert(in.begin() + axis, depth);
  ctx.SetOutputShape(0, in);
  return Status::Ok();
}

}  // namespace

sdk::Status RegisterTensorOneHotSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> all = AllTypes();
  {
    sdk::SchemaBuilder s("OneHot");
    s.Doc("ONNX OneHot-11: values[1] where the new axis' index equals the index (negative ones count from "
          "the end, in [-depth, depth-1]), values[0] elsewhere; an index out of range gives an all-off row. "
          "Output: indices' dims with depth inserted at axis; dtype of values.")
        .SinceVersion(11)
        .Input("indices", "T1", LOOM_PARAM_SINGLE, "any shape; non-integer values are truncated")
        .Input("depth", "T2", LOOM_PARAM_SINGLE, "one element, >= 1 (cast to an integer)")
        .Input("values", "T3", LOOM_PARAM_SINGLE, "1-D [off_value, on_value]")
        .Output("output", "T3")
        .TypeConstraint("T1", NumericTypes())
        .TypeConstraint("T2", NumericTypes())
        .TypeConstraint("T3", all)
        .AttrInt("axis", -1, "where the depth axis goes, in [-r-1, r] for indices' rank r")
        .Infer(Fn<&InferOneHot>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
