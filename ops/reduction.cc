// Schemas of the reduction family: ReduceSum, ReduceMean, ReduceMax,
// ReduceMin. ONNX semantics with the axes either as the optional int64 input
// (ReduceSum-13, the others from opset 18) or as the `axes` attribute of the
// older opsets; keepdims and noop_with_empty_axes as in ONNX.
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/families.h"

namespace loom {
namespace ops {
namespace {

// Output shape of a reduction of `in` over `axes` (ONNX rules: negative axes
// count from the end, duplicates and out-of-range axes are errors, empty
// axes reduce everything unless noop_with_empty_axes). Fills *error instead
// on bad axes.
bool ReducedShape(const std::vector<int64_t>& in, std::vector<int64_t> axes, bool keepdims, bool noop,
                  std::vector<int64_t>* out, std::string* error) {
  const int64_t rank = static_cast<int64_t>(in.size());
  if (axes.empty()) {
    if (noop) {
      *out = in;
      return true;
    }
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  std::vector<bool> reduce(in.size(), false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      *error = "axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank);
      return false;
    }
    if (a < 0) a += rank;
    if (reduce[a]) {
      *error = "axis " + std::to_string(a) + " is given twice";
      return false;
    }
    reduce[a] = true;
  }
  out->clear();
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduce[d]) out->push_back(in[d]);
    else if (keepdims) out->push_back(1);
  }
  return true;
}

// Shape inference: known when the data shape is and the axes come from the
// attribute or a constant axes input.
LoomStatus* InferReduce(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  std::vector<int64_t> in;
  if (!ctx.InputShape(0, &in)) return nullptr;
  sdk::KernelInfo info = ctx.info();
  std::vector<int64_t> axes;
  if (ctx.num_inputs() > 1 && ctx.InputDType(1) != LOOM_DTYPE_UNDEFINED) {
    sdk::Tensor t = ctx.InputConstant(1);
    if (!t.present()) return nullptr;  // computed at run time
    const int64_t* d = t.data<int64_t>();
    axes.assign(d, d + t.num_elements());
  } else {
    axes = info.IntsOr("axes", {});
  }
  std::vector<int64_t> out;
  std::string error;
  if (!ReducedShape(in, axes, info.IntOr("keepdims", 1) != 0, info.IntOr("noop_with_empty_axes", 0) != 0, &out,
                    &error)) {
    return sdk::InvalidArgument(error).release();
  }
  ctx.SetOutputShape(0, out);
  return nullptr;
}

sdk::Status Reduce(sdk::Registrar& reg, const std::string& op, const std::string& what, int since) {
  sdk::SchemaBuilder s(op);
  s.Doc("ONNX " + op + "-" + std::to_string(since) + ": " + what +
        " of `data` over `axes`. The axes are the optional int64 input or, in the older opsets' form, the "
        "`axes` attribute (not both); negative axes count from the end. Empty or absent axes reduce every "
        "dim unless noop_with_empty_axes, which then copies the input. An empty reduction gives the "
        "identity (0 for sums, -inf / +inf or the integer limits for max / min, NaN for a float mean).")
      .SinceVersion(since)
      .Input("data", "T", LOOM_PARAM_SINGLE, "any shape")
      .Input("axes", "tensor(int64)", LOOM_PARAM_OPTIONAL, "1-D, the axes to reduce, in [-r, r-1]")
      .Output("reduced", "T", LOOM_PARAM_SINGLE, "data's shape with the reduced dims 1 (keepdims) or removed")
      .TypeConstraint("T", NumericTypes())
      .AttrInt("keepdims", 1, "1: keep the reduced dims with size 1; 0: remove them")
      .AttrInt("noop_with_empty_axes", 0, "1: empty axes mean no reduction (a copy) instead of reducing all")
      .Attr("axes", LOOM_ATTR_INTS, false, "the axes, in the form of the opsets before the axes input")
      .Infer(&InferReduce);
  return reg.Register(s);
}

}  // namespace

sdk::Status RegisterReductionSchemas(sdk::Registrar& reg) {
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceSum", "sum", 13));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceMean", "arithmetic mean (integer types: truncated)", 18));
  LOOM_SDK_RETURN_IF_ERROR(Reduce(reg, "ReduceMax", "maximum (NaN propagates)", 18));
  return Reduce(reg, "ReduceMin", "minimum (NaN propagates)", 18);
}

}  // namespace ops
}  // namespace loom
