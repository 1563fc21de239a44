// What the ONNX control-flow kernels (If, Loop, Scan) share: a body graph
// (a NetDef attribute) made runnable once in a child workspace of the op's
// workspace and reused on every later run, and tensor copies between the
// body's blobs and the op's inputs and outputs.
//
// A body NetDef's external inputs are its formal inputs (bound by the op)
// followed by the outer-scope values it reads, which the child workspace
// sees in its ancestors (frontend/onnx/onnx_importer.h). Its outputs' dtypes
// are declared as string arguments "output_dtype.<name>" so the op can
// infer its own output dtypes before the body has run.
#ifndef LOOM_PLUGINS_CONTROLFLOW_BODY_H_
#define LOOM_PLUGINS_CONTROLFLOW_BODY_H_

#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/nested/netdef_reader.h"

namespace loom {
namespace controlflow {

using nested::NetDefSummary;
using nested::ReadNetDefSummary;

class Body {
 public:
  Body() = default;
  Body(const Body&) = delete;
  Body& operator=(const Body&) = delete;
  ~Body() {
    if (net_ != nullptr) sdk::Api().Net_Release(net_);
    if (ws_ != nullptr) sdk::Api().Workspace_Release(ws_);
  }

  // Reads the NetDef attribute `attr`; the body must have at least
  // `min_outputs` outputs and, when formal_inputs >= 0, at least that many
  // external inputs.
  sdk::Status Init(const sdk::KernelInfo& info, const char* attr, const std::string& label, int formal_inputs,
                   size_t min_outputs) {
    label_ = label + " " + attr;
    LOOM_SDK_RETURN_IF_ERROR(info.GetNetBytes(attr, &bytes_));
    if (!ReadNetDefSummary(bytes_, &summary_)) return sdk::InvalidArgument(label_ + ": the NetDef does not parse");
    if (formal_inputs >= 0 && summary_.external_input.size() < static_cast<size_t>(formal_inputs)) {
      return sdk::InvalidArgument(label_ + ": expected at least " + std::to_string(formal_inputs) +
                                  " inputs, found " + std::to_string(summary_.external_input.size()));
    }
    if (summary_.external_output.size() < min_outputs) {
      return sdk::InvalidArgument(label_ + ": expected at least " + std::to_string(min_outputs) + " outputs, found " +
                                  std::to_string(summary_.external_output.size()));
    }
    return sdk::Status::Ok();
  }

  const std::vector<std::string>& inputs() const { return summary_.external_input; }
  const std::vector<std::string>& outputs() const { return summary_.external_output; }

  // The workspace the body runs in (made on first use).
  LoomWorkspace* workspace(sdk::KernelContext& ctx) {
    if (ws_ == nullptr) ws_ = sdk::Api().Workspace_CreateChild(sdk::Api().Ctx_Workspace(ctx.handle()));
    return ws_;
  }

  // Runs the body once (checks and creates it on the first call).
  sdk::Status Run(sdk::KernelContext& ctx) {
    if (net_ == nullptr) {
      LOOM_SDK_RETURN_IF_ERROR(sdk::Status(
          sdk::Api().Net_Create(ctx.handle(), workspace(ctx), bytes_.data(), bytes_.size(), ctx.num_threads(), &net_)));
    }
    sdk::Status s(sdk::Api().Net_Run(net_));
    if (!s.ok()) return sdk::Status(s.code(), label_ + ": " + s.message());
    return s;
  }

  // Output `i`'s value after a run (found in the body's workspace or, for an
  // outer-scope value passed straight through, an ancestor).
  sdk::Status Output(sdk::KernelContext& ctx, size_t i, const LoomTensor** out) {
    *out = sdk::Api().Workspace_GetBlob(workspace(ctx), summary_.external_output[i].c_str());
    if (*out == nullptr) {
      return sdk::Internal(label_ + ": output '" + summary_.external_output[i] + "' was not produced");
    }
    return sdk::Status::Ok();
  }

  // The dtype declared for output `i`; UNDEFINED when not declared.
  LoomDataType OutputDType(size_t i) const {
    auto it = summary_.string_args.find("output_dtype." + summary_.external_output[i]);
    return it == summary_.string_args.end() ? LOOM_DTYPE_UNDEFINED : sdk::TypeFromName(it->second);
  }

 private:
  std::string label_, bytes_;
  NetDefSummary summary_;
  LoomWorkspace* ws_ = nullptr;
  LoomNet* net_ = nullptr;
};

// Sizes dst (a body blob) like src (dtype and shape), from the pool of the
// net ctx's op runs in, and copies src's bytes into it. A sequence or
// optional is shared instead (values are immutable).
inline sdk::Status CopyTensor(sdk::KernelContext& ctx, LoomTensor* dst, const LoomTensor* src) {
  if (dst == src) return sdk::Status::Ok();
  sdk::Tensor s(src);
  if (sdk::IsValueType(s.dtype())) return sdk::AssignValue(dst, s);
  LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), dst, s.dtype(), s.dims_data(), s.rank(), "a body's carried value"));
  return sdk::Status(sdk::Api().Tensor_Copy(dst, src));
}

// Sizes the op's output `i` like src and copies src into it. The output's
// dtype must be the one inferred for it.
inline sdk::Status CopyToOutput(sdk::KernelContext& ctx, size_t i, const LoomTensor* src) {
  sdk::Tensor s(src), out;
  if (sdk::IsValueType(s.dtype())) return sdk::AssignValue(ctx.OutputHandle(i), s);
  LOOM_SDK_RETURN_IF_ERROR(ctx.Output(i, s.dtype(), s.shape(), &out));
  return sdk::Status(sdk::Api().Tensor_Copy(const_cast<LoomTensor*>(out.handle()), src));
}

// Values a body carries from one iteration to the next (Loop's carried
// values, Scan's states). Body output -> staging blob -> body input, so a
// body that passes an input straight through (output name == input name)
// or swaps two values reads consistent values.
class CarriedValues {
 public:
  // Binds body inputs `inputs[first_input + k]` (k < count) in the body's
  // workspace to copies of the op's inputs `first_op_input + k`.
  sdk::Status Start(sdk::KernelContext& ctx, Body& body, size_t first_input, size_t first_op_input, size_t count) {
    LoomWorkspace* ws = body.workspace(ctx);
    values_.resize(count);
    staging_.resize(count);
    for (size_t k = 0; k < count; ++k) {
      values_[k] = sdk::Api().Workspace_CreateBlob(ws, body.inputs()[first_input + k].c_str());
      staging_[k] = sdk::Api().Workspace_CreateBlob(ws, ("__carried_next_" + std::to_string(k)).c_str());
      LOOM_SDK_RETURN_IF_ERROR(CopyTensor(ctx, values_[k], ctx.Input(first_op_input + k).handle()));
    }
    return sdk::Status::Ok();
  }
  // After a run: stages body outputs `first_output + k`.
  sdk::Status Stage(sdk::KernelContext& ctx, Body& body, size_t first_output) {
    for (size_t k = 0; k < values_.size(); ++k) {
      const LoomTensor* v = nullptr;
      LOOM_SDK_RETURN_IF_ERROR(body.Output(ctx, first_output + k, &v));
      LOOM_SDK_RETURN_IF_ERROR(CopyTensor(ctx, staging_[k], v));
    }
    return sdk::Status::Ok();
  }
  // Makes the staged values the body's inputs for the next run.
  sdk::Status Commit(sdk::KernelContext& ctx) {
    for (size_t k = 0; k < values_.size(); ++k) LOOM_SDK_RETURN_IF_ERROR(CopyTensor(ctx, values_[k], staging_[k]));
    return sdk::Status::Ok();
  }
  // Copies the current values to the op's outputs [0, count).
  sdk::Status ToOutputs(sdk::KernelContext& ctx) const {
    for (size_t k = 0; k < values_.size(); ++k) LOOM_SDK_RETURN_IF_ERROR(CopyToOutput(ctx, k, values_[k]));
    return sdk::Status::Ok();
  }

 private:
  std::vector<LoomTensor*> values_, staging_;
};

// Infers output dtypes from the body NetDef in attribute `attr`: output
// `op_output` gets the declared dtype of body output `body_output`.
inline sdk::Status InferFromBody(sdk::InferenceContext& ctx, const char* attr,
                                 const std::vector<std::pair<size_t, size_t>>& op_to_body) {
  std::string bytes;
  LOOM_SDK_RETURN_IF_ERROR(ctx.info().GetNetBytes(attr, &bytes));
  NetDefSummary s;
  if (!ReadNetDefSummary(bytes, &s)) return sdk::InvalidArgument(std::string(attr) + ": the NetDef does not parse");
  for (const auto& [op_out, body_out] : op_to_body) {
    if (body_out >= s.external_output.size()) {
      return sdk::InvalidArgument(ctx.info().op_type() + " '" + ctx.info().op_name() + "': " + attr + " has " +
                                  std::to_string(s.external_output.size()) + " outputs; output " +
                                  std::to_string(op_out) + " needs body output " + std::to_string(body_out));
    }
    const std::string& name = s.external_output[body_out];
    auto it = s.string_args.find("output_dtype." + name);
    LoomDataType t = it == s.string_args.end() ? LOOM_DTYPE_UNDEFINED : sdk::TypeFromName(it->second);
    if (t == LOOM_DTYPE_UNDEFINED) {
      return sdk::InvalidArgument(ctx.info().op_type() + " '" + ctx.info().op_name() + "': " + attr + " output '" +
                                  name + "' has no declared dtype (NetDef argument \"output_dtype." + name + "\")");
    }
    ctx.SetOutputDType(op_out, t);
  }
  return sdk::Status::Ok();
}

}  // namespace controlflow
}  // namespace loom

#endif  // LOOM_PLUGINS_CONTROLFLOW_BODY_H_
