// The gradient-maker part of the LoomApi table (ABI 5, nested nets since 6,
// whole nets appended since 7):
// what a gradient maker (LoomGradientFn) reads of the forward op and how it
// appends the gradient ops (core/autodiff/gradient.h runs the makers).
#include "core/plugin_api/api_table.h"

#include <climits>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_bridge.h"

namespace loom {
namespace {

LoomStatus* Err(LoomStatusCode code, const std::string& m) { return new LoomStatus{code, m}; }

const LoomKernelInfo* Grad_Info(const LoomGradientContext* c) { return c->info; }

const char* Grad_OutputGradient(const LoomGradientContext* c, size_t i) {
  return i < c->output_grads.size() && !c->output_grads[i].empty() ? c->output_grads[i].c_str() : nullptr;
}

const char* Grad_InputGradient(const LoomGradientContext* c, size_t i) {
  return i < c->input_grads.size() && !c->input_grads[i].empty() ? c->input_grads[i].c_str() : nullptr;
}

void Grad_NoGradient(LoomGradientContext* c, size_t i) {
  if (i < c->no_gradient.size()) c->no_gradient[i] = true;
}

const char* Grad_TempPrefix(const LoomGradientContext* c) { return c->temp_prefix.c_str(); }

LoomStatus* Grad_AddOp(LoomGradientContext* c, const char* type, const char* const* inputs, size_t num_inputs,
                       const char* const* outputs, size_t num_outputs, int copy_arguments) {
  if (type == nullptr || *type == '\0') return Err(LOOM_INVALID_ARGUMENT, "Grad_AddOp: no op type");
  OperatorDef op;
  op.set_type(type);
  op.set_name(absl::StrCat(c->temp_prefix, c->ops.size(), "_", type));
  for (size_t i = 0; i < num_inputs; ++i) op.add_input(inputs[i] != nullptr ? inputs[i] : "");
  for (size_t i = 0; i < num_outputs; ++i) op.add_output(outputs[i] != nullptr ? outputs[i] : "");
  if (copy_arguments) {
    *op.mutable_arg() = c->info->op.arg();
    op.mutable_device_option()->CopyFrom(c->info->op.device_option());
    op.set_engine(c->info->op.engine());
  }
  c->ops.push_back(std::move(op));
  return nullptr;
}

// The argument `name` of the op just added (replaced if copied).
Argument* LastArg(LoomGradientContext* c, const char* name) {
  if (c->ops.empty() || name == nullptr) return nullptr;
  OperatorDef& op = c->ops.back();
  for (Argument& a : *op.mutable_arg()) {
    if (a.name() == name) {
      a.Clear();
      a.set_name(name);
      return &a;
    }
  }
  Argument* a = op.add_arg();
  a->set_name(name);
  return a;
}

void Grad_ArgInt(LoomGradientContext* c, const char* name, int64_t v) {
  if (Argument* a = LastArg(c, name)) a->set_i(v);
}
void Grad_ArgFloat(LoomGradientContext* c, const char* name, float v) {
  if (Argument* a = LastArg(c, name)) a->set_f(v);
}
void Grad_ArgInts(LoomGradientContext* c, const char* name, const int64_t* v, size_t n) {
  if (Argument* a = LastArg(c, name)) {
    for (size_t i = 0; i < n; ++i) a->add_ints(v[i]);
  }
}
void Grad_ArgString(LoomGradientContext* c, const char* name, const char* v) {
  if (Argument* a = LastArg(c, name)) a->set_s(v != nullptr ? v : "");
}

void Grad_ArgNet(LoomGradientContext* c, const char* name, const void* net, size_t size) {
  Argument* a = LastArg(c, name);
  if (a == nullptr) return;
  if (!a->mutable_n()->ParseFromArray(net, static_cast<int>(size))) a->clear_n();
}

void Grad_ArgStrings(LoomGradientContext* c, const char* name, const char* const* v, size_t n) {
  if (Argument* a = LastArg(c, name)) {
    for (size_t i = 0; i < n; ++i) a->add_strings(v[i] != nullptr ? v[i] : "");
  }
}

LoomStatus* Grad_NetBackward(LoomGradientContext* c, const void* net, size_t size, const char* const* outputs,
                             const char* const* output_grads, size_t num_outputs, const char* const* wrt,
                             size_t num_wrt, const void** backward, size_t* backward_size, const char* const** wrt_grads) {
  if (!c->net_backward) return Err(LOOM_FAILED_PRECONDITION, "Grad_NetBackward: no backward builder in this context");
  NetDef def;
  if (!def.ParseFromArray(net, static_cast<int>(size))) {
    return Err(LOOM_INVALID_ARGUMENT, "Grad_NetBackward: the nested NetDef does not parse");
  }
  auto names = [](const char* const* v, size_t n) {
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) out.push_back(v[i] != nullptr ? v[i] : "");
    return out;
  };
  NetDef result;
  std::vector<std::string> grads;
  absl::Status s = c->net_backward(def, names(outputs, num_outputs), names(output_grads, num_outputs), names(wrt, num_wrt),
                                   &result, &grads);
  if (!s.ok()) return ToLoomStatus(s);
  c->backward_bytes = result.SerializeAsString();
  c->wrt_grads = std::move(grads);
  c->wrt_grad_ptrs.clear();
  for (const std::string& g : c->wrt_grads) c->wrt_grad_ptrs.push_back(g.c_str());
  if (backward != nullptr) *backward = c->backward_bytes.data();
  if (backward_size != nullptr) *backward_size = c->backward_bytes.size();
  if (wrt_grads != nullptr) *wrt_grads = c->wrt_grad_ptrs.data();
  return nullptr;
}

LoomStatus* Grad_AddNet(LoomGradientContext* c, const void* net, size_t size) {
  NetDef def;
  if (net == nullptr || size > static_cast<size_t>(INT_MAX) || !def.ParseFromArray(net, static_cast<int>(size))) {
    return Err(LOOM_INVALID_ARGUMENT, "Grad_AddNet: the NetDef does not parse");
  }
  for (OperatorDef& op : *def.mutable_op()) {
    if (op.name().empty()) op.set_name(absl::StrCat(c->temp_prefix, c->ops.size(), "_", op.type()));
    c->ops.push_back(std::move(op));
  }
  return nullptr;
}

}  // namespace

void FillGradientApi(LoomApi* a) {
  a->Grad_AddNet = Grad_AddNet;
  a->Grad_NetBackward = Grad_NetBackward;
  a->Grad_ArgNet = Grad_ArgNet;
  a->Grad_ArgStrings = Grad_ArgStrings;
  a->Grad_Info = Grad_Info;
  a->Grad_OutputGradient = Grad_OutputGradient;
  a->Grad_InputGradient = Grad_InputGradient;
  a->Grad_NoGradient = Grad_NoGradient;
  a->Grad_TempPrefix = Grad_TempPrefix;
  a->Grad_AddOp = Grad_AddOp;
  a->Grad_ArgInt = Grad_ArgInt;
  a->Grad_ArgFloat = Grad_ArgFloat;
  a->Grad_ArgInts = Grad_ArgInts;
  a->Grad_ArgString = Grad_ArgString;
}

}  // namespace loom
