// Schemas of the neural-network family: Gemm, MatMul, Conv, MaxPool,
// AveragePool, GlobalAveragePool, GlobalMaxPool, BatchNormalization
// (inference). ONNX semantics, opset noted per op. Shape inference is
// lenient: shapes it cannot derive, or that are inconsistent, are left
// unknown and the kernel reports the error with the shapes it gets.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/families.h"
#include "ops/semantics/window.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Gemm: Y [M, N] from A [M, K] (or [K, M] with transA) and B [K, N] (or
// [N, K] with transB).
LoomStatus* GemmInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> a, b;
  if (!ctx.InputShape(0, &a) || !ctx.InputShape(1, &b) || a.size() != 2 || b.size() != 2) return nullptr;
  sdk::KernelInfo info = ctx.info();
  const bool ta = info.IntOr("transA", 0) != 0, tb = info.IntOr("transB", 0) != 0;
  if ((ta ? a[0] : a[1]) != (tb ? b[1] : b[0])) return nullptr;
  ctx.SetOutputShape(0, {ta ? a[1] : a[0], tb ? b[0] : b[1]});
  return nullptr;
}

// MatMul (numpy.matmul): batch dims broadcast, 1-D operands promoted and
// the added dims dropped.
LoomStatus* MatMulInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> a, b, batch;
  if (!ctx.InputShape(0, &a) || !ctx.InputShape(1, &b) || a.empty() || b.empty()) return nullptr;
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  if (a.back() != b[b.size() - 2]) return nullptr;
  if (!Broadcast({a.begin(), a.end() - 2}, {b.begin(), b.end() - 2}, &batch)) return nullptr;
  if (!a_vec) batch.push_back(a[a.size() - 2]);
  if (!b_vec) batch.push_back(b.back());
  ctx.SetOutputShape(0, batch);
  return nullptr;
}

// Conv: Y [N, M, D'...] from X [N, C, D...] and W [M, C / group, k...].
LoomStatus* ConvInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> x, w, out;
  if (!ctx.InputShape(0, &x) || !ctx.InputShape(1, &w) || x.size() < 3 || w.size() != x.size()) return nullptr;
  const std::vector<int64_t> k(w.begin() + 2, w.end());
  if (!semantics::InferWindowOutput(ctx.info(), {x.begin() + 2, x.end()}, k, &out)) return nullptr;
  out.insert(out.begin(), {x[0], w[0]});
  ctx.SetOutputShape(0, out);
  return nullptr;
}


// The window attributes Conv and the pools share.
void WindowAttrs(sdk::SchemaBuilder& s) {
  s.AttrString("auto_pad", "NOTSET",
               "NOTSET (use pads), SAME_UPPER / SAME_LOWER (output ceil(in / stride), odd padding at the end / "
               "beginning) or VALID (no padding)")
      .Attr("kernel_shape", LOOM_ATTR_INTS, false, "spatial kernel size per axis")
      .Attr("pads", LOOM_ATTR_INTS, false, "[x1_begin, x2_begin, ..., x1_end, x2_end, ...] (default 0)")
      .Attr("strides", LOOM_ATTR_INTS, false, "stride per spatial axis (default 1)")
      .Attr("dilations", LOOM_ATTR_INTS, false, "dilation per spatial axis (default 1)");
}

}  // namespace

sdk::Status RegisterNnSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> f = FloatTypes();
  {
    sdk::SchemaBuilder s("Gemm");
    s.Doc("ONNX Gemm-13: Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A ([M, K]), B' = transB ? B^T : B "
          "([K, N]); C optional, unidirectionally broadcast to [M, N].")
        .SinceVersion(13)
        .Input("A", "T", LOOM_PARAM_SINGLE, "[M, K], or [K, M] with transA")
        .Input("B", "T", LOOM_PARAM_SINGLE, "[K, N], or [N, K] with transB")
        .Input("C", "T", LOOM_PARAM_OPTIONAL, "broadcastable to [M, N]")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "[M, N]")
        .TypeConstraint("T", f)
        .AttrFloat("alpha", 1.0f, "scale of A' * B'")
        .AttrFloat("beta", 1.0f, "scale of C")
        .AttrInt("transA", 0, "nonzero: use A transposed")
        .AttrInt("transB", 0, "nonzero: use B transposed")
        .Attr("broadcast", LOOM_ATTR_INT, false,
              "Gemm-6 and earlier; accepted and ignored (C always broadcasts, as since Gemm-7)")
        .Infer(&GemmInfer);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("MatMul");
    s.Doc("ONNX MatMul-13: numpy.matmul. A [..., M, K] x B [..., K, N] -> Y [..., M, N], batch dims broadcast; a 1-D "
          "A is [1, K] and a 1-D B is [K, 1], the added dim removed from Y.")
        .SinceVersion(13)
        .Input("A", "T").Input("B", "T").Output("Y", "T")
        .TypeConstraint("T", f)
        .Infer(&MatMulInfer);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("Conv");
    s.Doc("ONNX Conv-11: convolution (1-D to 3-D) of X [N, C, D...] with W [M, C / group, k...] and optional bias "
          "B [M]; Y [N, M, D'...].")
        .SinceVersion(11)
        .Input("X", "T", LOOM_PARAM_SINGLE, "[N, C, D1, ..., Dn]")
        .Input("W", "T", LOOM_PARAM_SINGLE, "[M, C / group, k1, ..., kn]")
        .Input("B", "T", LOOM_PARAM_OPTIONAL, "[M]")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "[N, M, D1', ..., Dn']")
        .TypeConstraint("T", f)
        .AttrInt("group", 1, "number of groups; C and M divisible by it (group = C: depthwise)")
        .Infer(&ConvInfer);
    WindowAttrs(s);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    // Not an ONNX op: the importer (tools/onnx/fuse_conv_activation.h) makes
    // it from a Conv whose output only feeds an activation, as ONNX Runtime's
    // com.microsoft FusedConv. Default domain, so the checker and
    // loom_inspect treat it like any other op.
    sdk::SchemaBuilder s("FusedConv");
    s.Doc("Conv (ONNX Conv-11, same inputs, outputs and attributes) followed by the elementwise `activation`; made "
          "by the ONNX importer so the activation runs inside the convolution (ONNX Runtime's FusedConv).")
        .SinceVersion(1)
        .Input("X", "T", LOOM_PARAM_SINGLE, "[N, C, D1, ..., Dn]")
        .Input("W", "T", LOOM_PARAM_SINGLE, "[M, C / group, k1, ..., kn]")
        .Input("B", "T", LOOM_PARAM_OPTIONAL, "[M]")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "[N, M, D1', ..., Dn']")
        .TypeConstraint("T", f)
        .AttrInt("group", 1, "number of groups; C and M divisible by it (group = C: depthwise)")
        .Attr("activation", LOOM_ATTR_STRING, true,
              "Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid or HardSwish (ONNX semantics)")
        .Attr("activation_params", LOOM_ATTR_FLOATS, false,
              "alpha for LeakyRelu (default 0.01); min, max for Clip (default unbounded); alpha, beta for "
              "HardSigmoid (default 0.2, 0.5); none for the others")
        .Infer(&ConvInfer);
    WindowAttrs(s);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    std::vector<LoomDataType> t = f;
    t.push_back(LOOM_DTYPE_INT8);
    t.push_back(LOOM_DTYPE_UINT8);
    sdk::SchemaBuilder s("MaxPool");
    s.Doc("ONNX MaxPool-12 over X [N, C, D...]: the maximum of each window (padding never wins). Indices holds the "
          "flat index into X of each maximum.")
        .SinceVersion(12)
        .Input("X", "T", LOOM_PARAM_SINGLE, "[N, C, D1, ..., Dn]")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "[N, C, D1', ..., Dn']")
        .Output("Indices", "tensor(int64)", LOOM_PARAM_OPTIONAL, "flat index into X of each maximum")
        .TypeConstraint("T", t)
        .AttrInt("ceil_mode", 0, "nonzero: output sizes rounded up instead of down")
        .AttrInt("storage_order", 0, "Indices over the spatial dims in row-major (0) or column-major (1) order")
        .Infer(&PoolShapes);
    WindowAttrs(s);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("AveragePool");
    s.Doc("ONNX AveragePool-19 over X [N, C, D...]: the mean of each window, over its taps inside X "
          "(count_include_pad = 0) or inside X and its explicit padding (count_include_pad = 1).")
        .SinceVersion(19)
        .Input("X", "T", LOOM_PARAM_SINGLE, "[N, C, D1, ..., Dn]")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "[N, C, D1', ..., Dn']")
        .TypeConstraint("T", f)
        .AttrInt("ceil_mode", 0, "nonzero: output sizes rounded up instead of down")
        .AttrInt("count_include_pad", 0, "nonzero: padding counts in the divisor")
        .Infer(&PoolShapes);
    WindowAttrs(s);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    sdk::SchemaBuilder s(op);
    s.Doc(std::string("ONNX ") + op + "-1: pools all spatial dims of X [N, C, D...] to Y [N, C, 1, ...].")
        .Input("X", "T").Output("Y", "T")
        .TypeConstraint("T", f)
        .Infer(&GlobalPoolShapes);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("BatchNormalization");
    s.Doc("ONNX BatchNormalization-15, inference: Y = (X - input_mean) / sqrt(input_var + epsilon) * scale + B per "
          "channel of X [N, C, D...]. training_mode = 1 is not supported.")
        .SinceVersion(15)
        .Input("X", "T", LOOM_PARAM_SINGLE, "[N, C, D1, ..., Dn]")
        .Input("scale", "T", LOOM_PARAM_SINGLE, "[C]")
        .Input("B", "T", LOOM_PARAM_SINGLE, "[C]")
        .Input("input_mean", "T", LOOM_PARAM_SINGLE, "[C]")
        .Input("input_var", "T", LOOM_PARAM_SINGLE, "[C]")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "X's shape")
        .Output("running_mean", "T", LOOM_PARAM_OPTIONAL, "training mode only")
        .Output("running_var", "T", LOOM_PARAM_OPTIONAL, "training mode only")
        .TypeConstraint("T", f)
        .AttrFloat("epsilon", 1e-5f, "added to the variance")
        .AttrFloat("momentum", 0.9f, "running-statistics factor (training mode)")
        .AttrInt("training_mode", 0, "nonzero: normalize with the batch statistics and output running averages")
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
