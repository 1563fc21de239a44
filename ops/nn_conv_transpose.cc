// Schema of ConvTranspose (ONNX opset 11). Shape inference is lenient: what
// it cannot derive (attributes that do not fit) is left unknown and the
// kernel reports the error.
#include <vector>

#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/semantics/window.h"

namespace loom {
namespace ops {
namespace {

// ConvTranspose: Y [N, M, D'...] from X [N, C, D...] and W [C, M / group,
// k...]; D' = output_shape if given, else stride * (D - 1) + output_padding +
// (k - 1) * dilation + 1 - pads (SAME_*: D * stride).
LoomStatus* ConvTransposeInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> x, w;
  if (!ctx.InputShape(0, &x) || !ctx.InputShape(1, &w) || x.size() < 3 || w.size() != x.size()) return nullptr;
  const sdk::KernelInfo info = ctx.info();
  const size_t n = x.size() - 2;
  const int64_t group = info.IntOr("group", 1);
  std::vector<int64_t> out = {x[0], w[1] * group};
  const std::vector<int64_t> output_shape = info.IntsOr("output_shape", {});
  if (!output_shape.empty()) {
    if (output_shape.size() != n && output_shape.size() != n + 2) return nullptr;
    out.insert(out.end(), output_shape.end() - n, output_shape.end());
    ctx.SetOutputShape(0, out);
    return nullptr;
  }
  // Otherwise the kernels' rules (semantics::ConvTransposeAttrs), which
  // need every spatial size known.
  for (size_t i = 2; i < x.size(); ++i) {
    if (x[i] < 0 || w[i] < 1) return nullptr;
  }
  semantics::ConvTransposeAttrs attrs;
  semantics::ConvTransposeGeometry geo;
  if (!attrs.Read(info, "").ok() || !attrs.Resolve("", x, w, &geo).ok()) return nullptr;
  out.insert(out.end(), geo.out.begin(), geo.out.end());
  ctx.SetOutputShape(0, out);
  return nullptr;
}

}  // namespace

sdk::Status RegisterNnConvTransposeSchemas(sdk::Registrar& reg) {
  sdk::SchemaBuilder s = Schema("ConvTranspose", 11,
      "ONNX ConvTranspose-11: transposed convolution (1-D to 3-D) of X [N, C, D...] with W [C, M / group, k...] "
      "and optional bias B [M]; Y [N, M, D'...] with D' = stride * (D - 1) + output_padding + (k - 1) * dilation "
      "+ 1 - pad_begin - pad_end, or output_shape (pads then derived).");
  ConvSignature(s, "[C, M / group, k1, ..., kn]", "number of groups; C and M divisible by it",
                &ConvTransposeInfer);
  s.AttrString("auto_pad", "NOTSET",
               "NOTSET (use pads), SAME_UPPER / SAME_LOWER (output D * stride, odd padding at the end / "
               "beginning) or VALID (no padding)")
      .Attr("kernel_shape", LOOM_ATTR_INTS, false, "spatial kernel size per axis (default: from W)")
      .Attr("pads", LOOM_ATTR_INTS, false, "[x1_begin, ..., x1_end, ...] (default 0); ignored with output_shape")
      .Attr("strides", LOOM_ATTR_INTS, false, "stride per spatial axis (default 1)")
      .Attr("dilations", LOOM_ATTR_INTS, false, "dilation per spatial axis (default 1)")
      .Attr("output_padding", LOOM_ATTR_INTS, false, "extra size added at the end of each spatial axis (default 0)")
      .Attr("output_shape", LOOM_ATTR_INTS, false,
            "spatial output size (or the full [N, M, D'...]); pads are then computed from it");
  return reg.Register(s);
}

}  // namespace ops
}  // namespace loom
