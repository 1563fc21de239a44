// ONNX Loop (opset 1-16, tensor values only): runs `body` while the trip
// count M (if given) is not reached and the condition (if given) holds.
// Body inputs: (iteration_num int64 scalar, cond bool scalar, carried...);
// body outputs: (cond, carried..., scan outputs...). The op's outputs are the
// final carried values, then each scan output's per-iteration values stacked
// on a new leading axis [iterations, ...] ([0] when no iteration ran: the
// element shape is then unknown).
//
// The body runs in one child workspace, reused across iterations and runs;
// carried values are handled by CarriedValues (body.h). A loop that has not
// ended after the net's max_loop_iterations, or a scan output that would grow
// past its max_tensor_bytes (both read through Ctx_Limit), is
// RESOURCE_EXHAUSTED: a hostile M = 2^62 with a condition that stays true
// fails in seconds instead of running for hours.
#include <cstring>
#include <limits>

#include "plugins/controlflow/body.h"
#include "plugins/controlflow/controlflow_ops.h"

namespace loom {
namespace controlflow {
namespace {

using sdk::Api;

class LoopKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = "Loop '" + info.op_name() + "'";
    carried_ = info.num_inputs() < 2 ? 0 : info.num_inputs() - 2;
    if (info.num_outputs() < carried_) {
      return sdk::InvalidArgument(label_ + ": " + std::to_string(carried_) + " loop-carried inputs need as many outputs, found " +
                                  std::to_string(info.num_outputs()));
    }
    scans_ = info.num_outputs() - carried_;
    return body_.Init(info, "body", label_, static_cast<int>(2 + carried_), 1 + carried_ + scans_);
  }

  sdk::Status Compute(sdk::KernelContext& ctx) {
    int64_t max_trips = std::numeric_limits<int64_t>::max();
    sdk::Tensor m = ctx.num_inputs() > 0 ? ctx.Input(0) : sdk::Tensor();
    if (m.present()) {
      if (m.num_elements() != 1) return sdk::InvalidArgument(label_ + ": input 'M' must hold one element");
      max_trips = *m.data<int64_t>();
    }
    bool cond = true;
    sdk::Tensor c = ctx.num_inputs() > 1 ? ctx.Input(1) : sdk::Tensor();
    if (c.present()) {
      if (c.num_elements() != 1) return sdk::InvalidArgument(label_ + ": input 'cond' must hold one element");
      cond = *c.data<bool>();
    }
    LoomWorkspace* ws = body_.workspace(ctx);
    const std::vector<std::string>& in = body_.inputs();
    LoomTensor* iter_blob = Api().Workspace_CreateBlob(ws, in[0].c_str());
    LoomTensor* cond_blob = Api().Workspace_CreateBlob(ws, in[1].c_str());
    LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), iter_blob, LOOM_DTYPE_INT64, nullptr, 0, "the body's iteration number"));
    LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), cond_blob, LOOM_DTYPE_BOOL, nullptr, 0, "the body's condition"));
    CarriedValues carried;
    LOOM_SDK_RETURN_IF_ERROR(carried.Start(ctx, body_, 2, 2, carried_));
    std::vector<std::string> scan_bytes(scans_);
    std::vector<std::vector<int64_t>> scan_shape(scans_);
    std::vector<LoomDataType> scan_dtype(scans_, LOOM_DTYPE_UNDEFINED);
    // Limits of the net this op runs in (NetOptions; loom_run --max_*): a
    // hostile M (2^62 with a condition that stays true) stops with an error
    // instead of running for hours, and scan outputs stop growing at the
    // per-tensor byte cap instead of exhausting memory.
    const int64_t max_iterations = ctx.Limit(LOOM_LIMIT_MAX_LOOP_ITERATIONS);
    const int64_t max_bytes = ctx.Limit(LOOM_LIMIT_MAX_TENSOR_BYTES);
    int64_t it = 0;
    for (; it < max_trips && cond; ++it) {
      if (max_iterations > 0 && it >= max_iterations) {
        return sdk::Status(LOOM_RESOURCE_EXHAUSTED,
                           label_ + ": the loop has not ended after " + std::to_string(it) +
                               " iterations, the limit max_loop_iterations = " + std::to_string(max_iterations) +
                               " (input 'M' = " + (m.present() ? std::to_string(max_trips) : "absent") +
                               ", condition still true); raise it with NetOptions::max_loop_iterations or "
                               "loom_run --max_loop_iterations");
      }
      *static_cast<int64_t*>(Api().TensorData(iter_blob)) = it;
      *static_cast<bool*>(Api().TensorData(cond_blob)) = cond;
      LOOM_SDK_RETURN_IF_ERROR(body_.Run(ctx));
      const LoomTensor* v = nullptr;
      LOOM_SDK_RETURN_IF_ERROR(body_.Output(ctx, 0, &v));
      if (sdk::Tensor(v).num_elements() != 1) return sdk::InvalidArgument(label_ + ": body output 0 (cond) must hold one element");
      bool next_cond = *sdk::Tensor(v).data<bool>();
      LOOM_SDK_RETURN_IF_ERROR(carried.Stage(ctx, body_, 1));
      for (size_t j = 0; j < scans_; ++j) {
        LOOM_SDK_RETURN_IF_ERROR(body_.Output(ctx, 1 + carried_ + j, &v));
        sdk::Tensor t(v);
        if (sdk::IsValueType(t.dtype())) {
          return sdk::InvalidArgument(label_ + ": scan output " + std::to_string(j) + " must be a tensor; found " +
                                      sdk::TypeName(t.dtype()));
        }
        if (it == 0) {
          scan_shape[j] = t.shape();
          scan_dtype[j] = t.dtype();
        } else if (t.shape() != scan_shape[j] || t.dtype() != scan_dtype[j]) {
          return sdk::InvalidArgument(label_ + ": scan output " + std::to_string(j) + " changed shape or dtype at iteration " +
                                      std::to_string(it));
        }
        const size_t add = static_cast<size_t>(t.num_elements()) * sdk::DTypeSize(t.dtype());
        if (max_bytes > 0 && scan_bytes[j].size() + add > static_cast<uint64_t>(max_bytes)) {
          return sdk::Status(LOOM_RESOURCE_EXHAUSTED,
                             label_ + ": scan output " + std::to_string(j) + " would grow past " +
                                 std::to_string(max_bytes) + " bytes at iteration " + std::to_string(it) +
                                 ", over the limit max_tensor_bytes = " + std::to_string(max_bytes) +
                                 "; raise it with NetOptions::max_tensor_bytes or loom_run --max_tensor_bytes");
        }
        scan_bytes[j].append(static_cast<const char*>(t.raw_data()), add);
      }
      LOOM_SDK_RETURN_IF_ERROR(carried.Commit(ctx));
      cond = next_cond;
    }
    LOOM_SDK_RETURN_IF_ERROR(carried.ToOutputs(ctx));
    for (size_t j = 0; j < scans_; ++j) {
      std::vector<int64_t> shape = scan_shape[j];
      shape.insert(shape.begin(), it);
      LoomDataType dtype = it > 0 ? scan_dtype[j] : body_.OutputDType(1 + carried_ + j);
      sdk::Tensor out;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(carried_ + j, dtype, shape, &out));
      if (!scan_bytes[j].empty()) std::memcpy(out.raw_data(), scan_bytes[j].data(), scan_bytes[j].size());
    }
    return sdk::Status::Ok();
  }

 private:
  std::string label_;
  size_t carried_ = 0, scans_ = 0;
  Body body_;
};

// Carried outputs take their initial values' dtypes; scan outputs the
// body's declared ones.
sdk::Status InferLoop(sdk::InferenceContext& ctx) {
  size_t carried = ctx.num_inputs() < 2 ? 0 : ctx.num_inputs() - 2;
  std::vector<std::pair<size_t, size_t>> map;
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    if (k < carried) {
      ctx.SetOutputDType(k, ctx.InputDType(2 + k));
    } else {
      map.push_back({k, 1 + k});
    }
  }
  return InferFromBody(ctx, "body", map);
}

}  // namespace

sdk::Status RegisterLoop(sdk::Registrar& reg) {
  sdk::SchemaBuilder s("Loop");
  s.Doc("ONNX Loop (opset 16, tensor values only): runs body while iteration < M (if given) and cond (if given) "
        "holds. Body inputs (iteration_num int64 scalar, cond bool scalar, carried...), outputs (cond, carried..., "
        "scan outputs...). Outputs: final carried values, then scan outputs stacked [iterations, ...].")
      .SinceVersion(1)
      .Input("M", "I", LOOM_PARAM_OPTIONAL, "int64 scalar: maximum trip count")
      .Input("cond", "B", LOOM_PARAM_OPTIONAL, "bool scalar: initial condition")
      .Input("v_initial", "any", LOOM_PARAM_VARIADIC, "initial loop-carried values")
      .Output("v_final_and_scan_outputs", "any", LOOM_PARAM_VARIADIC, "final carried values, then scan outputs")
      .TypeConstraint("I", {LOOM_DTYPE_INT64}, "trip count")
      .TypeConstraint("B", {LOOM_DTYPE_BOOL}, "condition")
      .Infer<&InferLoop>()
      .Attr("body", LOOM_ATTR_NET, true, "the loop body");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  return reg.Kernel<LoopKernel>("Loop");
}

}  // namespace controlflow
}  // namespace loom
