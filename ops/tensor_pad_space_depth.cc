// Schemas of Pad (ONNX opset 19, opset-2 attributes accepted), DepthToSpace
// and SpaceToDepth (opset 13).
//
// Inference sets the output dtypes that differ from input 0 and the output
// shapes where they follow from the input shapes and, for shape/repeats
// style inputs, from their values when those are constants. Anything
// unknown leaves the output shape unknown; the kernel repeats the checks.
#include <cstdint>
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/common.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

using sdk::InferenceContext;
using sdk::Status;

// ---- Pad: dims + begin + end on the padded axes (constant pads/axes) -------
Status InferPad(InferenceContext& ctx) {
  std::vector<int64_t> in, pads, axes;
  if (!ctx.InputShape(0, &in)) return Status::Ok();
  const int64_t rank = static_cast<int64_t>(in.size());
  if (HasInput(ctx, 1)) {
    if (!ConstantInts(ctx, 1, &pads)) return Status::Ok();
  } else {
    pads = ctx.info().IntsOr("pads", {});
  }
  if (HasInput(ctx, 3)) {
    if (!ConstantInts(ctx, 3, &axes)) return Status::Ok();
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size()) return Status::Ok();  // the kernel reports it
  for (size_t a = 0; a < axes.size(); ++a) {
    int64_t axis = axes[a];
    if (axis < -rank || axis >= rank) return Status::Ok();
    if (axis < 0) axis += rank;
    const int64_t begin = pads[a], end = pads[a + axes.size()], dim = in[axis];
    if (__builtin_add_overflow(dim, begin, &in[axis]) || __builtin_add_overflow(in[axis], end, &in[axis])) {
      return sdk::InvalidArgument("pads " + std::to_string(begin) + " and " + std::to_string(end) + " on axis " +
                                  std::to_string(axis) + " of dim " + std::to_string(dim) +
                                  " give a dim outside int64");
    }
    if (in[axis] < 0) return Status::Ok();
  }
  ctx.SetOutputShape(0, in);
  return Status::Ok();
}

// ---- DepthToSpace / SpaceToDepth -------------------------------------------
template <bool kToSpace>
Status InferDepthSpace(InferenceContext& ctx) {
  std::vector<int64_t> in;
  const int64_t b = ctx.info().IntOr("blocksize", 0);
  if (!ctx.InputShape(0, &in) || in.size() != 4 || b <= 0) return Status::Ok();
  // Every output dim must fit in int64 (b^2 itself may not: then only C = 0
  // is a multiple of it).
  const auto too_big = [&](const char* what) {
    return sdk::InvalidArgument("attribute 'blocksize' " + std::to_string(b) + " makes " + what +
                                " overflow int64 for input shape " + semantics::ShapeStr(in));
  };
  int64_t bb = 0;
  const bool bb_overflows = __builtin_mul_overflow(b, b, &bb);
  if (kToSpace) {
    int64_t h = 0, w = 0;
    if (__builtin_mul_overflow(in[2], b, &h) || __builtin_mul_overflow(in[3], b, &w)) return too_big("H * b or W * b");
    if (bb_overflows ? in[1] != 0 : in[1] % bb != 0) return Status::Ok();  // the kernel reports it
    ctx.SetOutputShape(0, {in[0], bb_overflows ? 0 : in[1] / bb, h, w});
  } else {
    if (in[2] % b != 0 || in[3] % b != 0) return Status::Ok();
    int64_t c = 0;
    if (in[1] != 0 && (bb_overflows || __builtin_mul_overflow(in[1], bb, &c))) return too_big("C * b^2");
    ctx.SetOutputShape(0, {in[0], c, in[2] / b, in[3] / b});
  }
  return Status::Ok();
}

}  // namespace

sdk::Status RegisterTensorPadSpaceDepthSchemas(sdk::Registrar& reg) {
  const TypeSet bytes = {"T", AllTypes(), kMovesBytes};
  return RegisterOps(reg, {
      {"Pad", 19,
       "ONNX Pad-19: pads (negative values crop) the `axes` (default all) by pads = [begins..., ends...]; "
       "mode constant (constant_value, default 0), reflect (mirror without repeating the edge), edge "
       "(repeat the edge) or wrap (periodic). The opset-2 attributes pads and value are also accepted.",
       {"data:T", "pads:tensor(int64)?|1-D, 2 * len(axes); required unless the opset-2 attribute is used",
        "constant_value:T?|scalar fill for mode constant, default 0", "axes:Tind?|1-D, in [-r, r-1], no repeats"},
       {"output:T"}, {bytes, {"Tind", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}}},
       {"mode:string=constant|constant, reflect, edge or wrap", "pads:ints?|opset-2 form of the pads input",
        "value:float=0|opset-2 form of constant_value"},
       Fn<&InferPad>()},
      {"DepthToSpace", 13,
       "ONNX DepthToSpace-13: [N, C, H, W] to [N, C / b^2, H * b, W * b], moving channel blocks into "
       "b x b spatial blocks; mode DCR (depth-column-row: channel index (bh * b + bw) * C / b^2 + c) or CRD "
       "(c * b^2 + bh * b + bw).",
       {"input:T|4-D, C a multiple of blocksize^2"}, {"output:T"}, {bytes},
       {"blocksize:int!|b > 0", "mode:string=DCR|DCR or CRD"}, Fn<&InferDepthSpace<true>>()},
      {"SpaceToDepth", 13,
       "ONNX SpaceToDepth-13: [N, C, H, W] to [N, C * b^2, H / b, W / b], the inverse of DepthToSpace "
       "in DCR mode.",
       {"input:T|4-D, H and W multiples of blocksize"}, {"output:T"}, {bytes}, {"blocksize:int!|b > 0"},
       Fn<&InferDepthSpace<false>>()},
  });
}

}  // namespace ops
}  // namespace loom
