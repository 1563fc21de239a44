// Schemas of LpPool (ONNX opset 18) and GlobalLpPool (opset 2). Output
// shapes by the window rules (PoolShapes, GlobalPoolShapes in
// ops/shape_inference.h).
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {

sdk::Status RegisterNnLpPoolSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> f = FloatTypes();
  {
    sdk::SchemaBuilder s("LpPool");
    s.Doc("ONNX LpPool-18 over X [N, C, D...]: Y = (sum over each window of |x| ^ p) ^ (1 / p); padding adds "
          "nothing.")
        .SinceVersion(18)
        .Input("X", "T", LOOM_PARAM_SINGLE, "[N, C, D1, ..., Dn]")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "[N, C, D1', ..., Dn']")
        .TypeConstraint("T", f)
        .AttrString("auto_pad", "NOTSET",
                    "NOTSET (use pads), SAME_UPPER / SAME_LOWER (output ceil(in / stride), odd padding at the end / "
                    "beginning) or VALID (no padding)")
        .Attr("kernel_shape", LOOM_ATTR_INTS, true, "spatial kernel size per axis")
        .Attr("pads", LOOM_ATTR_INTS, false, "[x1_begin, x2_begin, ..., x1_end, x2_end, ...] (default 0)")
        .Attr("strides", LOOM_ATTR_INTS, false, "stride per spatial axis (default 1)")
        .Attr("dilations", LOOM_ATTR_INTS, false, "dilation per spatial axis (default 1; LpPool-18)")
        .AttrInt("ceil_mode", 0, "nonzero: output sizes rounded up instead of down (LpPool-18)")
        .AttrInt("p", 2, "the norm's order")
        .Infer(&PoolShapes);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("GlobalLpPool");
    s.Doc("ONNX GlobalLpPool-2: Y [N, C, 1, ...] = (sum over all spatial dims of |x| ^ p) ^ (1 / p).")
        .SinceVersion(2)
        .Input("X", "T").Output("Y", "T")
        .TypeConstraint("T", f)
        .AttrInt("p", 2, "the norm's order")
        .Infer(&GlobalPoolShapes);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
