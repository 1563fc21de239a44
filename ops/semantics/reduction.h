// ONNX Reduce* axes resolution shared by every device's reduction kernels
// (ReduceSum-13, ReduceMean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare-18
// and their opset-1..11 forms with the `axes` attribute): keepdims,
// noop_with_empty_axes, negative and repeated axes.
#ifndef LOOM_OPS_SEMANTICS_REDUCTION_H_
#define LOOM_OPS_SEMANTICS_REDUCTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "ops/semantics/common.h"

namespace loom {
namespace semantics {

// The attributes of a Reduce* op.
struct ReduceAttrs {
  bool keepdims = true;                // keep reduced dims as size 1
  bool noop_with_empty_axes = false;   // empty axes: the identity instead of reducing everything
  std::vector<int64_t> axes;           // the opset-1..11 attribute (empty: not given)

  // Reads keepdims, noop_with_empty_axes and axes. INVALID_ARGUMENT, naming
  // `label`, when the axes are given both as the attribute and as input 1.
  sdk::Status Read(const sdk::KernelInfo& info, const std::string& label) {
    keepdims = info.IntOr("keepdims", 1) != 0;
    noop_with_empty_axes = info.IntOr("noop_with_empty_axes", 0) != 0;
    axes = info.IntsOr("axes", {});
    if (info.Has("axes") && info.num_inputs() > 1 && !info.input_name(1).empty()) {
      return sdk::InvalidArgument(label + ": axes given both as the input 'axes' and as the attribute; give one");
    }
    return sdk::Status::Ok();
  }
};

// A reduction resolved for one input shape.
struct ReduceGeometry {
  std::vector<bool> reduce;          // per input dim: reduced
  std::vector<int64_t> out_shape;    // reduced dims dropped, or 1 with keepdims
  bool noop = false;                 // empty axes with noop_with_empty_axes: output = input
};

// Resolves `axes` (the input's values, else the attribute's) for an input of
// `shape`: negative axes count from the end; empty axes reduce every dim
// unless noop_with_empty_axes. INVALID_ARGUMENT for an axis out of range or
// repeated.
inline sdk::Status ResolveReduceAxes(const std::string& label, const std::vector<int64_t>& shape,
                                     const std::vector<int64_t>& axes, const ReduceAttrs& attrs, ReduceGeometry* g) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  g->noop = axes.empty() && attrs.noop_with_empty_axes;
  g->reduce.assign(shape.size(), axes.empty() && !g->noop);
  for (int64_t a : axes) {
    int64_t axis = a;
    if (axis < -rank || axis >= rank) {
      return sdk::InvalidArgument(label + ": axis " + std::to_string(a) + " is out of range for input shape " +
                                  ShapeStr(shape) + " (expected [-" + std::to_string(rank) + ", " +
                                  std::to_string(rank - 1) + "])");
    }
    if (axis < 0) axis += rank;
    if (g->reduce[axis]) {
      return sdk::InvalidArgument(label + ": axis " + std::to_string(a) + " appears more than once in axes");
    }
    g->reduce[axis] = true;
  }
  g->out_shape.clear();
  for (int64_t d = 0; d < rank; ++d) {
    if (!g->reduce[d]) g->out_shape.push_back(shape[d]);
    else if (attrs.keepdims) g->out_shape.push_back(1);
  }
  return sdk::Status::Ok();
}

}  // namespace semantics
}  // namespace loom

#endif  // LOOM_OPS_SEMANTICS_REDUCTION_H_
