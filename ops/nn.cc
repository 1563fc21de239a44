// Schemas of the neural-network family: Gemm, MatMul, Conv, pooling,
// BatchNormalization (inference). ONNX semantics, opset noted per op.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/families.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

LoomStatus* GemmInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> a, b;
  if (!ctx.InputShape(0, &a) || !ctx.InputShape(1, &b) || a.size() != 2 || b.size() != 2) return nullptr;
  sdk::KernelInfo info = ctx.info();
  int64_t ta = info.IntOr("transA", 0), tb = info.IntOr("transB", 0);
  ctx.SetOutputShape(0, {ta ? a[1] : a[0], tb ? b[0] : b[1]});
  return nullptr;
}

void ConvPoolAttrs(sdk::SchemaBuilder& s) {
  s.AttrString("auto_pad", "NOTSET", "NOTSET, SAME_UPPER, SAME_LOWER or VALID")
      .Attr("kernel_shape", LOOM_ATTR_INTS, false, "spatial kernel size (Conv: from W if absent)")
      .Attr("pads", LOOM_ATTR_INTS, false, "begin and end padding per spatial axis (default 0)")
      .Attr("strides", LOOM_ATTR_INTS, false, "stride per spatial axis (default 1)")
      .Attr("dilations", LOOM_ATTR_INTS, false, "dilation per spatial axis (default 1)");
}

}  // namespace

sdk::Status RegisterNnSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> f = FloatTypes();
  {
    sdk::SchemaBuilder s("Gemm");
    s.Doc("ONNX Gemm-13: Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A (A [M, K]), B' likewise (B [K, N]); "
          "C optional, unidirectionally broadcast to [M, N].")
        .SinceVersion(13)
        .Input("A", "T").Input("B", "T").Input("C", "T", LOOM_PARAM_OPTIONAL).Output("Y", "T")
        .TypeConstraint("T", f)
        .AttrFloat("alpha", 1.0f).AttrFloat("beta", 1.0f).AttrInt("transA", 0).AttrInt("transB", 0)
        .Infer(&GemmInfer);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("MatMul");
    s.Doc("ONNX MatMul-13: numpy.matmul (1-D operands promoted; batch dimensions broadcast).")
        .SinceVersion(13)
        .Input("A", "T").Input("B", "T").Output("Y", "T")
        .TypeConstraint("T", f);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("Conv");
    s.Doc("ONNX Conv-11: N-D convolution (1-D to 3-D) of X [N, C, D...] with W [M, C/group, k...] and optional "
          "bias B [M]; Y [N, M, D'...].")
        .SinceVersion(11)
        .Input("X", "T").Input("W", "T").Input("B", "T", LOOM_PARAM_OPTIONAL).Output("Y", "T")
        .TypeConstraint("T", f)
        .AttrInt("group", 1, "number of groups (C and M divisible by it)");
    ConvPoolAttrs(s);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("MaxPool");
    s.Doc("ONNX MaxPool-12 over X [N, C, D...]. The Indices output is not supported.")
        .SinceVersion(12)
        .Input("X", "T").Output("Y", "T").Output("Indices", "tensor(int64)", LOOM_PARAM_OPTIONAL)
        .TypeConstraint("T", f)
        .AttrInt("ceil_mode", 0).AttrInt("storage_order", 0);
    ConvPoolAttrs(s);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("AveragePool");
    s.Doc("ONNX AveragePool-11 over X [N, C, D...].")
        .SinceVersion(11)
        .Input("X", "T").Output("Y", "T")
        .TypeConstraint("T", f)
        .AttrInt("ceil_mode", 0).AttrInt("count_include_pad", 0);
    ConvPoolAttrs(s);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    sdk::SchemaBuilder s(op);
    s.Doc(std::string("ONNX ") + op + "-1: pools all spatial dims of X [N, C, D...] to Y [N, C, 1...].")
        .Input("X", "T").Output("Y", "T")
        .TypeConstraint("T", f);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("BatchNormalization");
    s.Doc("ONNX BatchNormalization-15, inference: Y = (X - mean) / sqrt(var + epsilon) * scale + B per channel of "
          "X [N, C, D...]. training_mode = 1 is not supported.")
        .SinceVersion(15)
        .Input("X", "T").Input("scale", "T").Input("B", "T").Input("input_mean", "T").Input("input_var", "T")
        .Output("Y", "T").Output("running_mean", "T", LOOM_PARAM_OPTIONAL).Output("running_var", "T", LOOM_PARAM_OPTIONAL)
        .TypeConstraint("T", f)
        .AttrFloat("epsilon", 1e-5f).AttrFloat("momentum", 0.9f, "unused in inference").AttrInt("training_mode", 0)
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
