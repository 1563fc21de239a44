#include "ops/schema_helpers.h"

#include "ops/dtype_sets.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// ReduceX output shape; errors name the op.
sdk::Status InferReduce(sdk::InferenceContext& ctx) { return InferReduceShape(ctx, ctx.info().op_type() + ": "); }

}  // namespace

std::string OnnxDoc(const std::string& op, int since, const std::string& what) {
  return "ONNX " + op + "-" + std::to_string(since) + (what.empty() ? "." : ": " + what);
}

sdk::SchemaBuilder Schema(const std::string& op, int since, const std::string& doc) {
  sdk::SchemaBuilder s(op);
  s.Doc(doc).SinceVersion(since);
  return s;
}

SchemaExtra FloatAttrs(std::vector<FloatAttr> attrs) {
  return [attrs](sdk::SchemaBuilder& s) {
    for (const FloatAttr& a : attrs) s.AttrFloat(a.name, a.dflt, a.doc);
  };
}

sdk::Status RegisterUnary(sdk::Registrar& reg, const std::vector<ElementwiseOp>& ops, bool inplace) {
  for (const ElementwiseOp& u : ops) {
    sdk::SchemaBuilder s = Schema(u.op, u.since, OnnxDoc(u.op, u.since, u.what) + " Elementwise; Y has X's shape and dtype.");
    s.Input("X", "T", LOOM_PARAM_SINGLE, "input, any shape")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "output, X's shape")
        .TypeConstraint("T", u.types)
        .Infer(&SameShapeAsInput0);
    if (inplace) s.InPlace(0, 0);
    if (u.extra) u.extra(s);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

sdk::Status RegisterBinary(sdk::Registrar& reg, const std::vector<ElementwiseOp>& ops, bool bool_out) {
  for (const ElementwiseOp& b : ops) {
    sdk::SchemaBuilder s =
        Schema(b.op, b.since, OnnxDoc(b.op, b.since, b.what) + " Numpy-style (multidirectional) broadcasting of A and B.");
    s.Input("A", "T", LOOM_PARAM_SINGLE, "first operand")
        .Input("B", "T", LOOM_PARAM_SINGLE, "second operand")
        .TypeConstraint("T", b.types);
    if (bool_out) {
      s.Output("C", "T1", LOOM_PARAM_SINGLE, "bool result, the broadcast shape")
          .TypeConstraint("T1", {LOOM_DTYPE_BOOL})
          .Infer(&BroadcastShapesAs<LOOM_DTYPE_BOOL>);
    } else {
      s.Output("C", "T", LOOM_PARAM_SINGLE, "result, the broadcast shape").Infer(&BroadcastShapes);
    }
    if (b.extra) b.extra(s);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

sdk::Status RegisterReduce(sdk::Registrar& reg, const std::vector<ReduceOp>& ops, const std::string& note) {
  for (const ReduceOp& r : ops) {
    const std::string doc =
        OnnxDoc(r.op, r.since, r.what) +
        " of `data` over `axes`. The axes are the optional int64 input or, in the older opsets' form, the `axes` "
        "attribute (not both); negative axes count from the end. Empty or absent axes reduce every dim unless "
        "noop_with_empty_axes, which then copies the input. An empty reduction gives " + r.empty + "." + note;
    sdk::SchemaBuilder s = Schema(r.op, r.since, doc);
    s.Input("data", "T", LOOM_PARAM_SINGLE, "any shape")
        .Input("axes", "tensor(int64)", LOOM_PARAM_OPTIONAL, "1-D, the axes to reduce, in [-r, r-1]")
        .Output("reduced", "T", LOOM_PARAM_SINGLE, "data's shape with the reduced dims 1 (keepdims) or removed")
        .TypeConstraint("T", NumericTypes())
        .AttrInt("keepdims", 1, "1: keep the reduced dims with size 1; 0: remove them")
        .AttrInt("noop_with_empty_axes", 0, "1: empty axes mean no reduction (a copy) instead of reducing all")
        .Attr("axes", LOOM_ATTR_INTS, false, "the axes, in the form of the opsets before the axes input")
        .Infer(Fn<InferReduce>());
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

void WindowAttrs(sdk::SchemaBuilder& s, bool kernel_shape_required) {
  s.AttrString("auto_pad", "NOTSET",
               "NOTSET (use pads), SAME_UPPER / SAME_LOWER (output ceil(in / stride), odd padding at the end / "
               "beginning) or VALID (no padding)")
      .Attr("kernel_shape", LOOM_ATTR_INTS, kernel_shape_required, "spatial kernel size per axis")
      .Attr("pads", LOOM_ATTR_INTS, false, "[x1_begin, x2_begin, ..., x1_end, x2_end, ...] (default 0)")
      .Attr("strides", LOOM_ATTR_INTS, false, "stride per spatial axis (default 1)")
      .Attr("dilations", LOOM_ATTR_INTS, false, "dilation per spatial axis (default 1)");
}

sdk::SchemaBuilder PoolSchema(const std::string& op, int since, const std::string& doc,
                              std::vector<LoomDataType> types, bool kernel_shape_required) {
  sdk::SchemaBuilder s = Schema(op, since, doc);
  s.Input("X", "T", LOOM_PARAM_SINGLE, "[N, C, D1, ..., Dn]")
      .Output("Y", "T", LOOM_PARAM_SINGLE, "[N, C, D1', ..., Dn']")
      .TypeConstraint("T", std::move(types))
      .Infer(&PoolShapes);
  WindowAttrs(s, kernel_shape_required);
  s.AttrInt("ceil_mode", 0, "nonzero: output sizes rounded up instead of down");
  return s;
}

void ConvSignature(sdk::SchemaBuilder& s, const std::string& w_doc, const std::string& group_doc, LoomInferFn infer) {
  s.Input("X", "T", LOOM_PARAM_SINGLE, "[N, C, D1, ..., Dn]")
      .Input("W", "T", LOOM_PARAM_SINGLE, w_doc)
      .Input("B", "T", LOOM_PARAM_OPTIONAL, "[M]")
      .Output("Y", "T", LOOM_PARAM_SINGLE, "[N, M, D1', ..., Dn']")
      .TypeConstraint("T", FloatTypes())
      .AttrInt("group", 1, group_doc)
      .Infer(infer);
}

}  // namespace ops
}  // namespace loom
