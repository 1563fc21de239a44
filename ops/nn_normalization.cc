// Schemas of the normalizations other than BatchNormalization:
// LayerNormalization, InstanceNormalization, LRN, MeanVarianceNormalization
// and LpNormalization. ONNX semantics, opset noted per op. Shape inference
// is lenient: shapes it cannot derive, or that are inconsistent, are left
// unknown and the kernel reports the error with the shapes it gets.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// LayerNormalization: Y has X's shape and dtype; Mean and InvStdDev are
// X.shape[:axis] + [1] * (rank - axis), of dtype stash_type.
LoomStatus* LayerNormInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  sdk::KernelInfo info = ctx.info();
  const LoomDataType stash = static_cast<LoomDataType>(info.IntOr("stash_type", LOOM_DTYPE_FLOAT));
  if (stash != LOOM_DTYPE_FLOAT && stash != LOOM_DTYPE_DOUBLE && stash != LOOM_DTYPE_FLOAT16 &&
      stash != LOOM_DTYPE_BFLOAT16) {
    return sdk::InvalidArgument("stash_type must be a float dtype code (1, 10, 11 or 16); found " +
                                std::to_string(static_cast<int>(stash)))
        .release();
  }
  for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.SetOutputDType(i, stash);
  std::vector<int64_t> x;
  if (!ctx.InputShape(0, &x)) return nullptr;
  ctx.SetOutputShape(0, x);
  int64_t axis = info.IntOr("axis", -1);
  if (!NormAxis(&axis, static_cast<int64_t>(x.size()))) return nullptr;
  std::vector<int64_t> stat = x;
  std::fill(stat.begin() + axis, stat.end(), 1);
  for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.SetOutputShape(i, stat);
  return nullptr;
}

}  // namespace

sdk::Status RegisterNnNormalizationSchemas(sdk::Registrar& reg) {
  const std::vector<LoomDataType> f = FloatTypes();
  {
    sdk::SchemaBuilder s = Schema("LayerNormalization", 17, "ONNX LayerNormalization-17: normalizes X over its dims [axis, rank): Y = (X - Mean) * InvStdDev * Scale "
          "+ B, InvStdDev = 1 / sqrt(Var + epsilon); Scale and B broadcast to X.shape[axis:]. Statistics are "
          "computed in stash_type.");
    s.Input("X", "T", LOOM_PARAM_SINGLE, "any rank >= 1")
        .Input("Scale", "T", LOOM_PARAM_SINGLE, "broadcastable to X.shape[axis:]")
        .Input("B", "T", LOOM_PARAM_OPTIONAL, "broadcastable to X.shape[axis:]")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "X's shape")
        .Output("Mean", "U", LOOM_PARAM_OPTIONAL, "X.shape[:axis] + [1] * (rank - axis)")
        .Output("InvStdDev", "U", LOOM_PARAM_OPTIONAL, "X.shape[:axis] + [1] * (rank - axis)")
        .TypeConstraint("T", f)
        .TypeConstraint("U", f, "dtype of Mean and InvStdDev: stash_type")
        .AttrInt("axis", -1, "first normalized dim; negative counts from the back")
        .AttrFloat("epsilon", 1e-5f, "added to the variance")
        .AttrInt("stash_type", 1, "ONNX dtype code of the statistics' computation and of Mean / InvStdDev")
        .Infer(&LayerNormInfer);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s = Schema("InstanceNormalization", 6, "ONNX InstanceNormalization-6: y = scale * (x - mean) / sqrt(variance + epsilon) + B, mean and variance "
          "per instance and channel over the spatial dims of input [N, C, D...].");
    s.Input("input", "T", LOOM_PARAM_SINGLE, "[N, C, D1, ..., Dn]")
        .Input("scale", "T", LOOM_PARAM_SINGLE, "[C]")
        .Input("B", "T", LOOM_PARAM_SINGLE, "[C]")
        .Output("output", "T", LOOM_PARAM_SINGLE, "input's shape")
        .TypeConstraint("T", f)
        .AttrFloat("epsilon", 1e-5f, "added to the variance")
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s = Schema("LRN", 13, "ONNX LRN-13, local response normalization across channels of X [N, C, D...]: "
          "Y = X / (bias + alpha / size * square_sum) ^ beta, square_sum over channels "
          "[c - floor((size - 1) / 2), c + ceil((size - 1) / 2)].");
    s.Input("X", "T", LOOM_PARAM_SINGLE, "[N, C, D1, ..., Dn]")
        .Output("Y", "T", LOOM_PARAM_SINGLE, "X's shape")
        .TypeConstraint("T", f)
        .AttrFloat("alpha", 1e-4f, "scale of the square sum")
        .AttrFloat("beta", 0.75f, "exponent")
        .AttrFloat("bias", 1.0f, "added to the scaled square sum")
        .Attr("size", LOOM_ATTR_INT, true, "number of channels summed over")
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s = Schema("MeanVarianceNormalization", 13, "ONNX MeanVarianceNormalization-13: Y = (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9), expectations over "
          "`axes`.");
    s.Input("X", "T").Output("Y", "T")
        .TypeConstraint("T", f)
        .AttrInts("axes", {0, 2, 3}, "dims the mean and variance are taken over; negative counts from the back")
        .Infer(&SameShapeAsInput0);
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  sdk::SchemaBuilder lp = Schema("LpNormalization", 1,
      "ONNX LpNormalization-1: input divided by its L1 or L2 norm along `axis` (a zero line gives NaN).");
  lp.Input("input", "T", LOOM_PARAM_SINGLE, "rank >= 1")
      .Output("output", "T", LOOM_PARAM_SINGLE, "input's shape")
      .TypeConstraint("T", f)
      .AttrInt("axis", -1, "the axis, in [-r, r-1]")
      .AttrInt("p", 2, "the norm's order: 1 or 2")
      .Infer(Fn<InferLike<0, 0>>());
  return reg.Register(lp);
}

}  // namespace ops
}  // namespace loom
