// ONNX SequenceMap (opset 17): runs `body` once per position i of
// input_sequence, with body inputs (input_sequence[i], then each additional
// input: a sequence's [i] or a tensor as it is), and collects each body
// output into an output sequence. The body runs in one child workspace,
// reused across positions and runs (body.h).
#include "plugins/controlflow/body.h"
#include "plugins/controlflow/controlflow_ops.h"

namespace loom {
namespace controlflow {
namespace {

class SequenceMapKernel {
 public:
  sdk::Status Init(const sdk::KernelInfo& info) {
    label_ = "SequenceMap '" + info.op_name() + "'";
    return body_.Init(info, "body", label_, static_cast<int>(info.num_inputs()), info.num_outputs());
  }

  sdk::Status Compute(sdk::KernelContext& ctx) {
    const size_t n_in = ctx.num_inputs(), n_out = ctx.num_outputs();
    if (!sdk::IsSequenceType(ctx.Input(0).dtype())) {
      return sdk::InvalidArgument(label_ + ": input 0 (input_sequence) must be a sequence; found " +
                                  sdk::TypeName(ctx.Input(0).dtype()));
    }
    std::vector<std::vector<sdk::Tensor>> seqs(n_in);
    const size_t len = sdk::ValuesOf(ctx.Input(0)).size();
    for (size_t k = 0; k < n_in; ++k) {
      const sdk::Tensor in = ctx.Input(k);
      if (!sdk::IsSequenceType(in.dtype())) continue;
      seqs[k] = sdk::ValuesOf(in);
      if (seqs[k].size() != len) {
        return sdk::InvalidArgument(label_ + ": input " + std::to_string(k) + " holds " + std::to_string(seqs[k].size()) +
                                    " tensors but input_sequence holds " + std::to_string(len));
      }
    }
    // Output sequences grow by one tensor a position: SetValue shares the
    // tensors already there and copies only the new one.
    for (size_t j = 0; j < n_out; ++j) {
      LOOM_SDK_RETURN_IF_ERROR(sdk::SetValue(ctx.OutputHandle(j), OutputType(j), {}));
    }
    LoomWorkspace* ws = body_.workspace(ctx);
    for (size_t i = 0; i < len; ++i) {
      for (size_t k = 0; k < n_in; ++k) {
        LoomTensor* blob = sdk::Api().Workspace_CreateBlob(ws, body_.inputs()[k].c_str());
        const sdk::Tensor in = ctx.Input(k);
        LOOM_SDK_RETURN_IF_ERROR(CopyTensor(ctx, blob, sdk::IsSequenceType(in.dtype()) ? seqs[k][i].handle() : in.handle()));
      }
      LOOM_SDK_RETURN_IF_ERROR(body_.Run(ctx));
      for (size_t j = 0; j < n_out; ++j) {
        const LoomTensor* v = nullptr;
        LOOM_SDK_RETURN_IF_ERROR(body_.Output(ctx, j, &v));
        LoomTensor* out = ctx.OutputHandle(j);
        std::vector<sdk::Tensor> items = sdk::ValuesOf(sdk::Tensor(out));
        items.emplace_back(v);
        LOOM_SDK_RETURN_IF_ERROR(sdk::SetValue(out, OutputType(j), items));
      }
    }
    return sdk::Status::Ok();
  }

 private:
  LoomDataType OutputType(size_t j) const { return body_.OutputDType(j) | LOOM_DTYPE_SEQUENCE; }

  std::string label_;
  Body body_;
};

// Output j is a sequence of body output j's declared dtype.
sdk::Status InferSequenceMap(sdk::InferenceContext& ctx) {
  std::string bytes;
  LOOM_SDK_RETURN_IF_ERROR(ctx.info().GetNetBytes("body", &bytes));
  NetDefSummary s;
  if (!ReadNetDefSummary(bytes, &s)) return sdk::InvalidArgument("body: the NetDef does not parse");
  for (size_t j = 0; j < ctx.num_outputs(); ++j) {
    if (j >= s.external_output.size()) {
      return sdk::InvalidArgument("SequenceMap '" + ctx.info().op_name() + "': body has " +
                                  std::to_string(s.external_output.size()) + " outputs; the op has " +
                                  std::to_string(ctx.num_outputs()));
    }
    auto it = s.string_args.find("output_dtype." + s.external_output[j]);
    const LoomDataType t = it == s.string_args.end() ? LOOM_DTYPE_UNDEFINED : sdk::TypeFromName(it->second);
    if (t == LOOM_DTYPE_UNDEFINED || sdk::IsValueType(t)) {
      return sdk::InvalidArgument("SequenceMap '" + ctx.info().op_name() + "': body output " + std::to_string(j) +
                                  " is " + sdk::TypeName(t) + "; it must be a tensor of a declared dtype");
    }
    ctx.SetOutputDType(j, t | LOOM_DTYPE_SEQUENCE);
  }
  return sdk::Status::Ok();
}

}  // namespace

sdk::Status RegisterSequenceMap(sdk::Registrar& reg) {
  sdk::SchemaBuilder s("SequenceMap");
  s.Doc("ONNX SequenceMap (opset 17): for each position i of input_sequence, runs body on (input_sequence[i], "
        "then each additional input: a sequence's [i], equal lengths required, or a tensor as it is) and appends "
        "each body output (a tensor) to the matching output sequence.")
      .SinceVersion(17)
      // ONNX's input_sequence and its zero or more additional_inputs as one
      // variadic list (a variadic parameter takes one or more).
      .Input("inputs", "any", LOOM_PARAM_VARIADIC,
             "input_sequence (a sequence of tensors), then additional inputs: sequences of its length, or tensors")
      .Output("out_sequence", "any", LOOM_PARAM_VARIADIC, "one sequence per body output")
      .Infer<&InferSequenceMap>()
      .Attr("body", LOOM_ATTR_NET, true, "the net run per position; as many inputs as the op, one output per sequence");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  return reg.Kernel<SequenceMapKernel>("SequenceMap");
}

}  // namespace controlflow
}  // namespace loom
