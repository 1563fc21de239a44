// Schemas of the signal window functions: HannWindow, HammingWindow and
// BlackmanWindow (ONNX opset 17).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/dtype_sets.h"
#include "ops/register_schemas.h"
#include "ops/schema_helpers.h"
#include "ops/shape_inference.h"

namespace loom {
namespace ops {
namespace {

// output_datatype's dtype (a numeric one); [size] when size is constant.
sdk::Status InferWindow(sdk::InferenceContext& ctx) {
  const int64_t dt = ctx.info().IntOr("output_datatype", LOOM_DTYPE_FLOAT);
  const std::vector<LoomDataType> ok = NumericTypes();
  if (std::find(ok.begin(), ok.end(), static_cast<LoomDataType>(dt)) == ok.end()) {
    return sdk::InvalidArgument("attribute 'output_datatype' = " + std::to_string(dt) +
                                " is not a numeric dtype (ONNX TensorProto.DataType codes)");
  }
  ctx.SetOutputDType(0, static_cast<LoomDataType>(dt));
  const sdk::Tensor size = ctx.InputConstant(0);
  if (size.present() && size.num_elements() == 1) {
    const int64_t n = size.dtype() == LOOM_DTYPE_INT64 ? size.data<int64_t>()[0] : size.data<int32_t>()[0];
    if (n >= 0) ctx.SetOutputShape(0, {n});
  }
  return sdk::Status::Ok();
}

OpSpec Window(const char* op, const std::string& formula) {
  return {op, 17,
          "ONNX " + std::string(op) + "-17: w[n] = " + formula + " for n in [0, size), N = size (periodic 1) or "
          "size - 1 (periodic 0; size 1: w = [1]), computed in double and stored as output_datatype.",
          {"size:T1|one element, >= 0"}, {"output:T2|[size]"},
          {{"T1", {LOOM_DTYPE_INT32, LOOM_DTYPE_INT64}}, {"T2", NumericTypes()}},
          {"output_datatype:int=1|the output's dtype (ONNX TensorProto.DataType; default float)",
           "periodic:int=1|1: periodic (N = size), for spectral analysis; 0: symmetric (N = size - 1)"},
          Fn<&InferWindow>()};
}

}  // namespace

sdk::Status RegisterSignalSchemas(sdk::Registrar& reg) {
  return RegisterOps(reg, {Window("HannWindow", "0.5 - 0.5 cos(2 pi n / N)"),
                           Window("HammingWindow", "25/46 - 21/46 cos(2 pi n / N)"),
                           Window("BlackmanWindow", "0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)")});
}

}  // namespace ops
}  // namespace loom
