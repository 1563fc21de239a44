#include "core/autodiff/backward.h"

#include <algorithm>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/autodiff/gradient.h"
#include "core/checked_net.h"
#include "core/workspace.h"

namespace loom {
namespace {

OperatorDef MakeOp(const std::string& type, const std::string& name, std::vector<std::string> in,
                   std::vector<std::string> out) {
  OperatorDef op;
  op.set_type(type);
  op.set_name(name);
  for (std::string& s : in) op.add_input(std::move(s));
  for (std::string& s : out) op.add_output(std::move(s));
  return op;
}

}  // namespace

absl::StatusOr<BackwardResult> AddBackward(const Registry& registry, const std::vector<std::string>& losses,
                                           const BackwardOptions& options, NetDef* net) {
  // The forward ops with their attribute defaults (CheckNet), initializers
  // standing in the workspace as names.
  Workspace ws;
  for (const TensorProto& t : net->initializer()) ws.CreateBlob(t.name());
  absl::StatusOr<std::unique_ptr<CheckedNet>> checked = CheckNet(*net, registry, ws);
  if (!checked.ok()) return checked.status();
  const std::vector<CheckedOp>& ops = (*checked)->ops;

  // SSA: who writes each blob.
  std::map<std::string, int> producer;
  for (const CheckedOp& op : ops) {
    for (const std::string& o : op.info->op.output()) {
      if (o.empty()) continue;
      if (!producer.emplace(o, op.index).second) {
        return absl::InvalidArgumentError(absl::StrCat("AddBackward: blob '", o, "' is written by ", ops[producer[o]].label,
                                                       " and ", op.label, "; the forward net must be in SSA form"));
      }
    }
  }
  std::set<std::string> known(net->external_input().begin(), net->external_input().end());
  for (const TensorProto& t : net->initializer()) known.insert(t.name());
  for (const auto& [name, p] : producer) known.insert(name);
  std::set<std::string> loss_set;
  for (const std::string& l : losses) {
    if (!known.count(l)) return absl::InvalidArgumentError(absl::StrCat("AddBackward: loss '", l, "' is not a blob of the net"));
    if (!loss_set.insert(l).second) return absl::InvalidArgumentError(absl::StrCat("AddBackward: loss '", l, "' is listed twice"));
  }
  // Gradient blobs must not take a name the net already uses.
  auto fresh = [&](const std::string& name) -> absl::Status {
    if (known.count(name)) {
      return absl::InvalidArgumentError(absl::StrCat("AddBackward: the gradient blob name '", name,
                                                     "' is already a blob of the net; rename that blob"));
    }
    return absl::OkStatus();
  };
  std::vector<std::string> wrt = options.wrt;
  if (wrt.empty()) {
    for (const TensorProto& t : net->initializer()) wrt.push_back(t.name());
  }
  for (const std::string& w : wrt) {
    if (!known.count(w)) return absl::InvalidArgumentError(absl::StrCat("AddBackward: wrt blob '", w, "' is not a blob of the net"));
  }

  // Blobs that depend on a wrt blob (forward), and blobs a loss depends on
  // (backward), neither through a stop_gradient blob.
  std::set<std::string> depends(wrt.begin(), wrt.end());
  for (const std::string& s : options.stop_gradients) depends.erase(s);
  for (const CheckedOp& op : ops) {
    bool any = false;
    for (const std::string& in : op.info->op.input()) any = any || depends.count(in);
    if (!any) continue;
    for (const std::string& o : op.info->op.output()) {
      if (!o.empty() && !options.stop_gradients.count(o)) depends.insert(o);
    }
  }
  std::set<std::string> leads(losses.begin(), losses.end());
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    bool any = false;
    for (const std::string& o : it->info->op.output()) any = any || leads.count(o);
    if (!any) continue;
    for (const std::string& in : it->info->op.input()) {
      if (!in.empty() && !options.stop_gradients.count(in)) leads.insert(in);
    }
  }
  auto active = [&](const std::string& b) { return !b.empty() && depends.count(b) && leads.count(b); };

  // Readers that will give each active blob a gradient part.
  std::map<std::string, int> readers;
  std::vector<bool> in_backward(ops.size(), false);
  for (const CheckedOp& op : ops) {
    bool out_active = false, in_active = false;
    for (const std::string& o : op.info->op.output()) out_active = out_active || active(o);
    for (const std::string& in : op.info->op.input()) in_active = in_active || active(in);
    in_backward[op.index] = out_active && in_active;
    if (!in_backward[op.index]) continue;
    for (const std::string& in : op.info->op.input()) {
      if (active(in)) ++readers[in];
    }
  }

  BackwardResult result;
  result.forward_ops = net->op_size();
  std::vector<OperatorDef> added;
  // Gradient parts of each blob, and its final gradient once summed.
  std::map<std::string, std::vector<std::string>> parts;
  std::map<std::string, int> next_part;
  std::map<std::string, std::string> final_grad;
  // The gradient of `blob` ("" if none reached it), summing its parts on
  // first use.
  auto gradient_of = [&](const std::string& blob) -> std::string {
    auto f = final_grad.find(blob);
    if (f != final_grad.end()) return f->second;
    std::vector<std::string>& p = parts[blob];
    std::string g;
    if (p.size() == 1) {
      g = p[0];
    } else if (p.size() > 1) {
      g = blob + "_grad";  // checked fresh with the parts' names
      added.push_back(MakeOp("Sum", absl::StrCat("__grad_sum_", blob), p, {g}));
    }
    final_grad[blob] = g;
    return g;
  };
  for (const std::string& l : losses) {
    auto given = options.output_gradients.find(l);
    if (given != options.output_gradients.end()) {
      if (absl::Status s = fresh(l + "_grad"); !s.ok()) return s;
      parts[l].push_back(given->second);
      continue;
    }
    // The seed is its own blob: a loss that other ops also read (a loss of
    // a loss) gets its gradient parts summed with it.
    const std::string shape = l + "_grad_shape", ones = l + "_grad_ones", g = l + "_grad_seed";
    for (const std::string& n : {shape, ones, g, l + "_grad"}) {
      if (absl::Status s = fresh(n); !s.ok()) return s;
    }
    added.push_back(MakeOp("Shape", "__grad_seed_shape_" + l, {l}, {shape}));
    OperatorDef fill = MakeOp("ConstantOfShape", "__grad_seed_fill_" + l, {shape}, {ones});
    Argument* value = fill.add_arg();
    value->set_name("value");
    TensorProto* one = value->mutable_t();
    one->add_dims(1);
    one->set_data_type(1);  // float32 (ONNX code)
    one->add_float_data(1.0f);
    added.push_back(std::move(fill));
    added.push_back(MakeOp("CastLike", "__grad_seed_cast_" + l, {ones, l}, {g}));
    parts[l].push_back(g);
  }

  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    const CheckedOp& op = *it;
    if (!in_backward[op.index]) continue;
    const OperatorDef& def = op.info->op;
    std::vector<std::string> go(def.output_size()), gi(def.input_size());
    bool any_go = false;
    for (int k = 0; k < def.output_size(); ++k) {
      if (active(def.output(k))) go[k] = gradient_of(def.output(k));
      any_go = any_go || !go[k].empty();
    }
    if (!any_go) continue;
    for (int k = 0; k < def.input_size(); ++k) {
      const std::string& in = def.input(k);
      if (!active(in)) continue;
      // A blob with one reader (and not itself a loss) gets <blob>_grad
      // directly; otherwise parts, summed into <blob>_grad.
      gi[k] = readers[in] == 1 && !loss_set.count(in) ? in + "_grad"
                                                      : absl::StrCat(in, "_grad_autosplit_", next_part[in]++);
      if (absl::Status s = fresh(gi[k]); !s.ok()) return s;
      if (absl::Status s = fresh(in + "_grad"); !s.ok()) return s;
    }
    absl::StatusOr<OpGradient> g = MakeOpGradient(op, go, gi, absl::StrCat("__grad_op", op.index, "_"), &registry);
    if (!g.ok()) {
      std::string needed;
      for (int k = 0; k < def.input_size(); ++k) {
        if (!gi[k].empty()) absl::StrAppend(&needed, needed.empty() ? "" : ", ", "'", def.input(k), "'");
      }
      return absl::Status(g.status().code(), absl::StrCat(g.status().message(), " (the gradient of input ", needed,
                                                          " is needed for loss ", losses.front(), ")"));
    }
    for (OperatorDef& o : g->ops) added.push_back(std::move(o));
    for (int k = 0; k < def.input_size(); ++k) {
      if (g->written[k]) parts[def.input(k)].push_back(gi[k]);
    }
  }
  for (const std::string& w : wrt) {
    std::string g = gradient_of(w);
    if (g.empty()) continue;
    if (options.accumulate) {  // grad_req add: the step's gradient is added into <w>_grad_accum
      const std::string acc = w + "_grad_accum";
      if (absl::Status s = fresh(acc); !s.ok()) return s;
      added.push_back(MakeOp("Accumulate", "__grad_accumulate_" + w, {g}, {acc}));
      g = acc;
    }
    result.gradients[w] = g;
    net->add_external_output(g);
  }
  result.backward_ops = static_cast<int>(added.size());
  for (OperatorDef& o : added) *net->add_op() = std::move(o);
  return result;
}

absl::Status NetBackward(const Registry& registry, const NetDef& net, const std::vector<std::string>& outputs,
                         const std::vector<std::string>& output_grads, const std::vector<std::string>& wrt,
                         NetDef* backward, std::vector<std::string>* wrt_grads) {
  if (outputs.size() != output_grads.size()) {
    return absl::InvalidArgumentError(absl::StrCat("NetBackward: ", outputs.size(), " outputs but ", output_grads.size(),
                                                   " output gradients"));
  }
  // Blobs read before any op writes them are the net's inputs.
  NetDef copy = net;
  std::set<std::string> written, inputs(net.external_input().begin(), net.external_input().end());
  for (const TensorProto& t : net.initializer()) inputs.insert(t.name());
  for (const OperatorDef& op : net.op()) {
    for (const std::string& in : op.input()) {
      if (!in.empty() && !written.count(in) && inputs.insert(in).second) copy.add_external_input(in);
    }
    for (const std::string& o : op.output()) written.insert(o);
  }
  BackwardOptions options;
  for (size_t i = 0; i < outputs.size(); ++i) options.output_gradients[outputs[i]] = output_grads[i];
  for (const std::string& w : wrt) {
    if (inputs.count(w) || written.count(w)) options.wrt.push_back(w);
  }
  backward->Clear();
  backward->set_name(net.name() + "_backward");
  wrt_grads->assign(wrt.size(), "");
  if (options.wrt.empty()) return absl::OkStatus();
  absl::StatusOr<BackwardResult> r = AddBackward(registry, outputs, options, &copy);
  if (!r.ok()) return r.status();
  std::set<std::string> made, read;
  for (int i = r->forward_ops; i < copy.op_size(); ++i) {
    const OperatorDef& op = copy.op(i);
    for (const std::string& in : op.input()) {
      if (!in.empty() && !made.count(in) && read.insert(in).second) backward->add_external_input(in);
    }
    for (const std::string& o : op.output()) made.insert(o);
    *backward->add_op() = op;
  }
  for (size_t k = 0; k < wrt.size(); ++k) {
    auto g = r->gradients.find(wrt[k]);
    if (g == r->gradients.end()) continue;
    (*wrt_grads)[k] = g->second;
  }
  return absl::OkStatus();
}

}  // namespace loom
