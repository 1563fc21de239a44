// Schema of MaxUnpool (ONNX opset 11).
#include <cstdint>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// Y: X's dtype; its shape from output_shape when constant, else the
// default rule when the attributes read.
sdk::Status InferMaxUnpool(sdk::InferenceContext& ctx) {
  ctx.SetOutputDType(0, ctx.InputDType(0));
  const sdk::Tensor out = ctx.InputConstant(2);
  if (out.present() && out.dtype() == LOOM_DTYPE_INT64) {
    ctx.SetOutputShape(0, std::vector<int64_t>(out.data<int64_t>(), out.data<int64_t>() + out.num_elements()));
    return sdk::Status::Ok();
  }
  std::vector<int64_t> x;
  const sdk::KernelInfo info = ctx.info();
  const std::vector<int64_t> k = info.IntsOr("kernel_shape", {});
  if (!ctx.InputShape(0, &x) || x.size() < 3 || k.size() != x.size() - 2 || (ctx.num_inputs() > 2 && info.input_name(2) != "")) {
    return sdk::Status::Ok();
  }
  const size_t n = k.size();
  const std::vector<int64_t> s = info.IntsOr("strides", std::vector<int64_t>(n, 1));
  const std::vector<int64_t> p = info.IntsOr("pads", std::vector<int64_t>(2 * n, 0));
  if (s.size() != n || p.size() != 2 * n) return sdk::Status::Ok();
  for (size_t i = 0; i < n; ++i) x[i + 2] = (x[i + 2] - 1) * s[i] - p[i] - p[i + n] + k[i];
  ctx.SetOutputShape(0, x);
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterNnUnpoolSchemas(sdk::Registrar& reg) {
  return RegisterOps(
      reg, {{"MaxUnpool", 11,
             "ONNX MaxUnpool-11: Y zeros but X[i] at index I[i] (as MaxPool's Indices: flat over the whole default "
             "output [N, C, (D - 1) * stride - pad_begin - pad_end + kernel, ...]); with output_shape (at least "
             "that) the same coordinates in the larger Y, its extra positions 0, as ONNX's reference.",
             {"X:T1|[N, C, D1, ..., Dn]", "I:tensor(int64)|X's shape", "output_shape:tensor(int64)?|1-D [n + 2]"},
             {"Y:T1"}, {{"T1", FloatTypes()}},
             {"kernel_shape:ints!|the pooling window, one per spatial dim", "strides:ints?|default 1 each",
              "pads:ints?|[begin..., end...]; default 0"},
             Fn<&InferMaxUnpool>()}});
}

}  // namespace ops
}  // namespace loom
