// ONNX Scan (opset 9-16): runs `body` once per position along the scan axis
// of the scan inputs. Inputs: N initial states, then num_scan_inputs scan
// inputs (all with the same length L on their scan axis). Body inputs: the N
// states and one slice of each scan input (the scan axis removed); body
// outputs: the N next states, then K scan-output elements. Outputs: the N
// final states, then K scan outputs, each element stacked along its
// scan_output_axes entry. Directions 1 read (or write) positions L-1..0.
//
// The body runs in one child workspace, reused across steps and runs; the
// states are handled by CarriedValues (body.h). Slices are copied (a slice along a non-leading
// axis is strided).
#include <cstring>

#include "plugins/controlflow/body.h"
#include "plugins/controlflow/controlflow_ops.h"

namespace loom {
namespace controlflow {
namespace {

using sdk::Api;

int64_t Product(const std::vector<int64_t>& d, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= d[i];
  return p;
}

class ScanKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = "Scan '" + info.op_name() + "'";
    int64_t m = 0;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("num_scan_inputs", &m));
    if (m < 1 || static_cast<size_t>(m) > info.num_inputs()) {
      return sdk::InvalidArgument(label_ + ": num_scan_inputs = " + std::to_string(m) + " must be in [1, " +
                                  std::to_string(info.num_inputs()) + "] (the number of inputs)");
    }
    scan_inputs_ = static_cast<size_t>(m);
    states_ = info.num_inputs() - scan_inputs_;
    if (info.num_outputs() < states_) {
      return sdk::InvalidArgument(label_ + ": " + std::to_string(states_) + " states need as many outputs, found " +
                                  std::to_string(info.num_outputs()));
    }
    scan_outputs_ = info.num_outputs() - states_;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("scan_input_directions", &in_dirs_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("scan_input_axes", &in_axes_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("scan_output_directions", &out_dirs_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("scan_output_axes", &out_axes_));
    auto check = [&](std::vector<int64_t>* v, size_t n, const char* name) -> sdk::Status {
      if (v->empty()) v->assign(n, 0);
      if (v->size() != n) {
        return sdk::InvalidArgument(label_ + ": attribute '" + name + "' must have " + std::to_string(n) +
                                    " entries, found " + std::to_string(v->size()));
      }
      return sdk::Status::Ok();
    };
    LOOM_SDK_RETURN_IF_ERROR(check(&in_dirs_, scan_inputs_, "scan_input_directions"));
    LOOM_SDK_RETURN_IF_ERROR(check(&in_axes_, scan_inputs_, "scan_input_axes"));
    LOOM_SDK_RETURN_IF_ERROR(check(&out_dirs_, scan_outputs_, "scan_output_directions"));
    LOOM_SDK_RETURN_IF_ERROR(check(&out_axes_, scan_outputs_, "scan_output_axes"));
    return body_.Init(info, "body", label_, static_cast<int>(info.num_inputs()), info.num_outputs());
  }

  sdk::Status Compute(sdk::KernelContext& ctx) {
    LoomWorkspace* ws = body_.workspace(ctx);
    const std::vector<std::string>& in = body_.inputs();
    // The scan length and each scan input's slicing.
    int64_t L = -1;
    struct Slicing { sdk::Tensor x; std::vector<int64_t> slice_shape; int64_t outer, len, inner; LoomTensor* blob; };
    std::vector<Slicing> slicing;
    for (size_t j = 0; j < scan_inputs_; ++j) {
      sdk::Tensor x = ctx.Input(states_ + j);
      std::vector<int64_t> d = x.shape();
      int64_t axis = in_axes_[j] < 0 ? in_axes_[j] + static_cast<int64_t>(d.size()) : in_axes_[j];
      if (axis < 0 || axis >= static_cast<int64_t>(d.size())) {
        return sdk::InvalidArgument(label_ + ": scan input " + std::to_string(j) + " has rank " + std::to_string(d.size()) +
                                    "; scan_input_axes gives " + std::to_string(in_axes_[j]));
      }
      if (L >= 0 && d[axis] != L) {
        return sdk::InvalidArgument(label_ + ": scan input " + std::to_string(j) + " has length " + std::to_string(d[axis]) +
                                    " on its scan axis; expected " + std::to_string(L) + " like scan input 0");
      }
      L = d[axis];
      Slicing s{x, d, Product(d, 0, axis), d[axis],
                Product(d, axis + 1, d.size()) * static_cast<int64_t>(sdk::DTypeSize(x.dtype())),
                Api().Workspace_CreateBlob(ws, in[states_ + j].c_str())};
      s.slice_shape.erase(s.slice_shape.begin() + axis);
      LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), s.blob, x.dtype(), s.slice_shape.data(), s.slice_shape.size(),
                                                 "a scan input's slice"));
      slicing.push_back(s);
    }
    CarriedValues state;
    LOOM_SDK_RETURN_IF_ERROR(state.Start(ctx, body_, 0, 0, states_));
    std::vector<sdk::Tensor> outs(scan_outputs_);
    std::vector<int64_t> out_outer(scan_outputs_), out_inner(scan_outputs_);
    for (int64_t t = 0; t < L; ++t) {
      for (Slicing& s : slicing) {
        int64_t pos = in_dirs_[&s - slicing.data()] ? L - 1 - t : t;
        char* dst = static_cast<char*>(Api().TensorData(s.blob));
        const char* src = static_cast<const char*>(s.x.raw_data());
        for (int64_t o = 0; o < s.outer; ++o) std::memcpy(dst + o * s.inner, src + (o * s.len + pos) * s.inner, s.inner);
      }
      LOOM_SDK_RETURN_IF_ERROR(body_.Run(ctx));
      LOOM_SDK_RETURN_IF_ERROR(state.Stage(ctx, body_, 0));
      const LoomTensor* v = nullptr;
      for (size_t j = 0; j < scan_outputs_; ++j) {
        LOOM_SDK_RETURN_IF_ERROR(body_.Output(ctx, states_ + j, &v));
        sdk::Tensor e(v);
        std::vector<int64_t> shape = e.shape();
        int64_t r = static_cast<int64_t>(shape.size());
        int64_t axis = out_axes_[j] < 0 ? out_axes_[j] + r + 1 : out_axes_[j];
        if (axis < 0 || axis > r) {
          return sdk::InvalidArgument(label_ + ": scan output " + std::to_string(j) + " elements have rank " +
                                      std::to_string(r) + "; scan_output_axes gives " + std::to_string(out_axes_[j]));
        }
        if (t == 0) {
          out_outer[j] = Product(shape, 0, axis);
          out_inner[j] = Product(shape, axis, shape.size()) * static_cast<int64_t>(sdk::DTypeSize(e.dtype()));
          shape.insert(shape.begin() + axis, L);
          LOOM_SDK_RETURN_IF_ERROR(ctx.Output(states_ + j, e.dtype(), shape, &outs[j]));
        } else if (e.num_elements() * static_cast<int64_t>(sdk::DTypeSize(e.dtype())) != out_outer[j] * out_inner[j]) {
          return sdk::InvalidArgument(label_ + ": scan output " + std::to_string(j) + " changed size at step " + std::to_string(t));
        }
        int64_t pos = out_dirs_[j] ? L - 1 - t : t;
        char* dst = static_cast<char*>(outs[j].raw_data());
        const char* src = static_cast<const char*>(e.raw_data());
        for (int64_t o = 0; o < out_outer[j]; ++o) {
          std::memcpy(dst + (o * L + pos) * out_inner[j], src + o * out_inner[j], out_inner[j]);
        }
      }
      LOOM_SDK_RETURN_IF_ERROR(state.Commit(ctx));
    }
    LOOM_SDK_RETURN_IF_ERROR(state.ToOutputs(ctx));
    if (L <= 0) {
      for (size_t j = 0; j < scan_outputs_; ++j) {
        sdk::Tensor out;
        LOOM_SDK_RETURN_IF_ERROR(ctx.Output(states_ + j, body_.OutputDType(states_ + j), {0}, &out));
      }
    }
    return sdk::Status::Ok();
  }

 private:
  std::string label_;
  size_t states_ = 0, scan_inputs_ = 0, scan_outputs_ = 0;
  std::vector<int64_t> in_dirs_, in_axes_, out_dirs_, out_axes_;
  Body body_;
};

// States take their initial values' dtypes; scan outputs the body's
// declared ones.
sdk::Status InferScan(sdk::InferenceContext& ctx) {
  int64_t m = 0;
  LOOM_SDK_RETURN_IF_ERROR(ctx.info().GetInt("num_scan_inputs", &m));
  size_t states = ctx.num_inputs() >= static_cast<size_t>(m) ? ctx.num_inputs() - static_cast<size_t>(m) : 0;
  std::vector<std::pair<size_t, size_t>> map;
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    if (k < states) {
      ctx.SetOutputDType(k, ctx.InputDType(k));
    } else {
      map.push_back({k, k});
    }
  }
  return InferFromBody(ctx, "body", map);
}

}  // namespace

sdk::Status RegisterScan(sdk::Registrar& reg) {
  sdk::SchemaBuilder s("Scan");
  s.Doc("ONNX Scan (opset 16; opset 9 and later): runs body once per position along the scan axis. Inputs: states, "
        "then num_scan_inputs scan inputs of equal length L. Outputs: final states, then scan outputs with the "
        "per-step elements stacked on scan_output_axes (length L).")
      .SinceVersion(9)
      .Input("initial_state_and_scan_inputs", "any", LOOM_PARAM_VARIADIC, "N initial states, then the scan inputs")
      .Output("final_state_and_scan_outputs", "any", LOOM_PARAM_VARIADIC, "N final states, then the scan outputs")
      .Infer<&InferScan>()
      .Attr("body", LOOM_ATTR_NET, true, "the step body: (states, slices) -> (states, scan-output elements)")
      .Attr("num_scan_inputs", LOOM_ATTR_INT, true, "how many of the inputs (the last ones) are scanned")
      .AttrInts("scan_input_directions", {}, "per scan input: 0 forward, 1 reverse (default all 0)")
      .AttrInts("scan_input_axes", {}, "per scan input: the scanned axis, negative counts from the end (default 0)")
      .AttrInts("scan_output_directions", {}, "per scan output: 0 appends, 1 prepends (default all 0)")
      .AttrInts("scan_output_axes", {}, "per scan output: the axis the elements are stacked on (default 0)");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  return reg.Kernel<ScanKernel>("Scan");
}

}  // namespace controlflow
}  // namespace loom
