// RecurrentNetworkGradient: the gradient of RecurrentNetwork with Caffe2's
// semantics (caffe2/python/recurrent.py, recurrent_network_op.h).
//
// The gradient maker derives the backward step net from the step net with
// the core's gradient registry (Grad_NetBackward): the gradient of each
// written state link `h` (offset 1) comes in as SeedName(h), and the
// gradients of what a timestep reads — state links `h_prev` (offset 0),
// sequence links `x_t`, parameters read by name — are each added into an
// accumulator (Caffe2's Accumulate into AccumulatorName(blob)). The kernel
// runs that net in the forward op's step workspaces (kept with
// forward_only = 0; found through the op's StepNets, step_nets.h), so it
// reads the forward intermediates in place, in reverse time order, then
// returns them to the pool. Its links:
//   SeedName(h)           -> rows [t+1, t+2) of the state's gradient G_s
//   AccumulatorName(h_prev) -> rows [t, t+1) of G_s            (gradient links)
//   AccumulatorName(x_t)  -> the rows of the input's gradient x_t read
//   AccumulatorName(W)    -> all of W's gradient              (parameters)
// G_s [T+1, ...] starts as the gradient of the state output plus those of
// its aliases (each on its rows); timestep t reads its row t+1 (complete:
// timestep t+1 added its part before) and adds into row t, and row 0 is the
// initial state's gradient. Parameter gradients sum over timesteps in
// reverse time order whatever the executor: on the threaded timestep
// executor the instances of one op run in timestep order (the wavefront:
// op j of timestep t-1 starts when what it reads of timestep t is done), so
// the sequential and threaded runs give identical results.
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/nested/netdef_reader.h"
#include "plugins/nested/netdef_writer.h"
#include "plugins/rnn/recurrent_network_attrs.h"
#include "plugins/rnn/rnn_ops.h"
#include "plugins/rnn/step_nets.h"

namespace loom {
namespace rnn {
namespace {

// How the forward op's inputs take part: initial states, sequences (link
// externals) and parameters (read by name in the step net).
struct InputRoles {
  std::set<size_t> initial;
  std::set<std::string> sequences;
  std::vector<size_t> params;  // input indices

  InputRoles(const RecurrentNetworkAttrs& a, const std::vector<std::string>& inputs) {
    for (int64_t id : a.initial_ids) initial.insert(static_cast<size_t>(id));
    for (const Link& l : a.links) {
      if (!a.IsState(l.external)) sequences.insert(l.external);
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (!inputs[k].empty() && !initial.count(k) && !sequences.count(inputs[k])) params.push_back(k);
    }
  }
};

// The step-net ops that write the blobs recomputed on backward, in step-net
// order, as NetDef op fields: recurrent.py puts them first in the backward
// step net. INVALID_ARGUMENT when such an op also writes a blob not in the
// list (Caffe2 asserts the same), or a listed blob has no writer.
Status RecomputeOps(const RecurrentNetworkAttrs& a, std::string* out) {
  const std::set<std::string> want(a.recompute.begin(), a.recompute.end());
  std::set<std::string> found;
  nested::internal::WireReader net(a.step_net.data(), a.step_net.size());
  int number = 0, wire = 0;
  std::string op;
  while (!net.done()) {
    if (!net.Field(&number, &wire, &op)) return sdk::InvalidArgument(a.label + ": the step net does not parse");
    if (number != 2 || wire != 2) continue;  // NetDef.op
    std::vector<std::string> outputs;
    nested::internal::WireReader fields(op.data(), op.size());
    int n = 0, w = 0;
    std::string field;
    while (!fields.done()) {
      if (!fields.Field(&n, &w, &field)) return sdk::InvalidArgument(a.label + ": the step net does not parse");
      if (n == 2 && w == 2) outputs.push_back(field);  // OperatorDef.output
    }
    std::string listed;
    for (const std::string& o : outputs) {
      if (want.count(o)) listed = o;
    }
    if (listed.empty()) continue;
    for (const std::string& o : outputs) {
      if (!want.count(o)) {
        return sdk::InvalidArgument(a.label + ": recompute_blobs_on_backward has '" + listed + "', whose step-net op also writes '" +
                                    o + "', which is not listed (every output of a recomputed op must be)");
      }
      found.insert(o);
    }
    nested::ProtoWriter w2;
    w2.Bytes(2, op);
    *out += w2.bytes();
  }
  for (const std::string& r : want) {
    if (!found.count(r)) {
      return sdk::InvalidArgument(a.label + ": recompute_blobs_on_backward has '" + r + "', which no step-net op writes");
    }
  }
  return Status::Ok();
}

// `net` (a NetDef) without the external inputs in `drop`: the backward
// step net writes the recomputed blobs itself, and an external input would
// be pinned (kept for the whole run) instead of going back to the pool
// after its timestep.
Status DropExternalInputs(const RecurrentNetworkAttrs& a, const std::set<std::string>& drop, std::string* net) {
  nested::internal::WireReader r(net->data(), net->size());
  nested::ProtoWriter w;
  int number = 0, wire = 0;
  std::string payload;
  while (!r.done()) {
    if (!r.Field(&number, &wire, &payload) || wire != 2) {
      return sdk::Internal(a.label + ": the backward step net does not parse as a NetDef");
    }
    if (number == 6 && drop.count(payload)) continue;  // NetDef.external_input
    w.Bytes(number, payload);
  }
  *net = w.bytes();
  return Status::Ok();
}

}  // namespace

Status MakeRecurrentNetworkGradient(sdk::GradientContext& c) {
  RecurrentNetworkAttrs a;
  LOOM_SDK_RETURN_IF_ERROR(a.Read(c.info(), "RecurrentNetwork '" + c.info().op_name() + "'"));
  if (a.forward_only) {
    return Status(LOOM_FAILED_PRECONDITION,
                  a.label + ": its gradient needs forward_only = 0 (Caffe2's default, for training), so that the "
                            "forward pass keeps its step workspaces for the backward step net; found forward_only = 1");
  }
  const size_t n = c.num_inputs(), m = c.num_outputs();
  std::vector<std::string> inputs;
  for (size_t k = 0; k < n; ++k) inputs.push_back(c.I(k));
  const InputRoles roles(a, inputs);
  // The backward step net: seeds for the written state links; gradients of
  // the state reads, the sequence links and the parameters.
  std::vector<std::string> outs, seeds, wrt;
  for (const StateLinks& sl : a.StateLinkNames()) {
    for (const std::string& w : sl.written) {
      outs.push_back(w);
      seeds.push_back(SeedName(w));
    }
    wrt.insert(wrt.end(), sl.read.begin(), sl.read.end());
  }
  for (const Link& l : a.links) {
    if (!a.IsState(l.external)) wrt.push_back(l.internal);
  }
  for (size_t k : roles.params) wrt.push_back(inputs[k]);
  std::string backward;
  std::vector<std::string> grads;
  LOOM_SDK_RETURN_IF_ERROR(c.NetBackward(a.step_net, outs, seeds, wrt, &backward, &grads));
  // Each gradient is added into its accumulator (ops appended to the
  // serialized NetDef: repeated fields concatenate).
  std::set<std::string> reached;
  nested::ProtoWriter extra;
  for (size_t k = 0; k < wrt.size(); ++k) {
    if (grads[k].empty()) continue;
    reached.insert(wrt[k]);
    nested::OpSpec acc;
    acc.type = "Accumulate";
    acc.name = "__rnn_accumulate_" + wrt[k];
    acc.inputs = {grads[k]};
    acc.outputs = {AccumulatorName(wrt[k])};
    extra.Bytes(2, acc.Serialize());
  }
  backward += extra.bytes();
  // Blobs recomputed on backward: the ops that write them run first.
  std::string recompute;
  LOOM_SDK_RETURN_IF_ERROR(RecomputeOps(a, &recompute));
  LOOM_SDK_RETURN_IF_ERROR(DropExternalInputs(a, std::set<std::string>(a.recompute.begin(), a.recompute.end()), &backward));
  backward = recompute + backward;
  // Input gradients: initial states always (row 0 of the state's
  // gradient); a sequence when one of its links got a gradient; a
  // parameter when it did. The rest have none (indices, lengths).
  std::vector<std::string> gi(n);
  for (size_t k = 0; k < n; ++k) {
    if (c.GI(k).empty()) continue;
    bool has = roles.initial.count(k) > 0;
    if (roles.sequences.count(inputs[k])) {
      for (const Link& l : a.links) has = has || (l.external == inputs[k] && reached.count(l.internal));
    } else if (!has) {
      has = reached.count(inputs[k]) > 0;
    }
    if (has) gi[k] = c.GI(k);
    else c.NoGradient(k);
  }
  std::vector<std::string> in = inputs;
  std::vector<int64_t> with_grad;
  for (size_t j = 0; j < m; ++j) in.push_back(c.O(j));
  for (size_t j = 0; j < m; ++j) {
    if (c.GO(j).empty()) continue;
    in.push_back(c.GO(j));
    with_grad.push_back(static_cast<int64_t>(j));
  }
  LOOM_SDK_RETURN_IF_ERROR(c.AddOp("RecurrentNetworkGradient", in, gi, /*copy_arguments=*/true));
  c.ArgNet("backward_step_net", backward);
  c.ArgInt("forward_inputs", static_cast<int64_t>(n));
  c.ArgInt("forward_outputs", static_cast<int64_t>(m));
  c.ArgInts("output_gradients", with_grad);
  return Status::Ok();
}

namespace {

template <typename T>
void AddInto(T* dst, const T* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
}

// Adds `src` (n elements) into `dst`, both float32 or float64.
void AddElements(LoomDataType dt, void* dst, const void* src, int64_t n) {
  if (dt == LOOM_DTYPE_DOUBLE) AddInto(static_cast<double*>(dst), static_cast<const double*>(src), n);
  else AddInto(static_cast<float*>(dst), static_cast<const float*>(src), n);
}

// RecurrentNetworkGradient (CPU, float32 / float64 states): inputs are the
// forward op's n inputs, its m outputs and the gradients of the outputs
// `output_gradients` lists; outputs are the n input gradients ("" where not
// wanted).
class RecurrentNetworkGradientKernel {
 public:
  ~RecurrentNetworkGradientKernel() {
    if (executor_ != nullptr) Api().TimestepExecutor_Release(executor_);
  }

  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(a_.Read(info, "RecurrentNetworkGradient '" + info.op_name() + "'"));
    LOOM_SDK_RETURN_IF_ERROR(info.GetNetBytes("backward_step_net", &backward_));
    int64_t n = 0, m = 0;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("forward_inputs", &n));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("forward_outputs", &m));
    n_ = static_cast<size_t>(n);
    m_ = static_cast<size_t>(m);
    std::vector<int64_t> with_grad;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("output_gradients", &with_grad));
    if (n < 1 || m < 1 || info.num_inputs() != n_ + m_ + with_grad.size() || info.num_outputs() > n_) {
      return sdk::InvalidArgument(a_.label + ": expected " + std::to_string(n) + " forward inputs, " +
                                  std::to_string(m) + " forward outputs and " + std::to_string(with_grad.size()) +
                                  " output gradients, and at most " + std::to_string(n) + " outputs; found " +
                                  std::to_string(info.num_inputs()) + " inputs and " +
                                  std::to_string(info.num_outputs()) + " outputs");
    }
    for (size_t p = 0; p < with_grad.size(); ++p) {
      if (with_grad[p] < 0 || with_grad[p] >= m) {
        return sdk::InvalidArgument(a_.label + ": output_gradients names output " + std::to_string(with_grad[p]) +
                                    " of " + std::to_string(m));
      }
      gradient_input_[static_cast<size_t>(with_grad[p])] = n_ + m_ + p;
    }
    for (size_t k = 0; k < n_; ++k) inputs_.push_back(info.input_name(k));
    for (size_t j = 0; j < m_; ++j) forward_output_[info.input_name(n_ + j)] = j;
    for (const std::string& s : a_.states) {
      if (!forward_output_.count(s)) return sdk::InvalidArgument(a_.label + ": recurrent state '" + s + "' is not a forward output");
    }
    for (int64_t id : a_.initial_ids) {
      if (id < 0 || static_cast<size_t>(id) >= n_) {
        return sdk::InvalidArgument(a_.label + ": initial_recurrent_state_ids has " + std::to_string(id) + "; the forward op has " +
                                    std::to_string(n_) + " inputs");
      }
    }
    first_output_ = info.input_name(n_);  // the forward op's first output names its StepNets
    // Timestep t - 1 (next in run order) reads the seed row that timestep t
    // accumulated into.
    for (const StateLinks& sl : a_.StateLinkNames()) {
      for (const auto& w : sl.written) {
        for (const auto& r : sl.read) {
          pair_storage_.push_back(SeedName(w));
          pair_storage_.push_back(AccumulatorName(r));
        }
      }
    }
    for (const std::string& p : pair_storage_) pairs_.push_back(p.c_str());
    // Every link a step workspace may hold (DetachLinks): the forward's, the
    // seeds and every accumulator.
    for (const Link& l : a_.links) link_names_.push_back(l.internal);
    for (const StateLinks& sl : a_.StateLinkNames()) {
      for (const std::string& w : sl.written) link_names_.push_back(SeedName(w));
      for (const std::string& r : sl.read) link_names_.push_back(AccumulatorName(r));
    }
    for (const Link& l : a_.links) {
      if (!a_.IsState(l.external)) link_names_.push_back(AccumulatorName(l.internal));
    }
    for (const std::string& in : inputs_) link_names_.push_back(AccumulatorName(in));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor seq = ctx.Input(0);
    if (!seq.present() || seq.rank() < 1) return sdk::InvalidArgument(a_.label + ": input 0 must be a sequence [T, ...]");
    const int64_t T = seq.dim(0);
    LoomWorkspace* parent = Api().Ctx_Workspace(ctx.handle());
    if (shared_ == nullptr) LOOM_SDK_RETURN_IF_ERROR(SharedStepNets(ctx, first_output_, &shared_));
    if (!shared_->kept || shared_->last_T != T) {
      return Status(LOOM_FAILED_PRECONDITION, a_.label + ": the forward RecurrentNetwork did not just run " +
                                                  std::to_string(T) + " timesteps with forward_only = 0 in this "
                                                  "workspace (it must run before its gradient, in the same net)");
    }
    const std::vector<LoomWorkspace*> ws(shared_->workspaces.begin(), shared_->workspaces.begin() + T);
    const std::vector<LoomNet*> forward_nets(shared_->forward.begin(), shared_->forward.begin() + T);
    // The states' gradients G_s [T+1, ...]: the outputs' gradients.
    std::vector<LoomTensor*> g(a_.states.size());
    for (size_t i = 0; i < a_.states.size(); ++i) {
      const size_t j = forward_output_[a_.states[i]];
      Tensor state = ctx.Input(n_ + j);
      if (state.dtype() != LOOM_DTYPE_FLOAT && state.dtype() != LOOM_DTYPE_DOUBLE) {
        return sdk::InvalidArgument(a_.label + ": state '" + a_.states[i] + "' is " + sdk::DTypeName(state.dtype()) +
                                    "; float32 or float64 expected");
      }
      if (state.rank() < 1 || state.dim(0) != T + 1) {
        return sdk::InvalidArgument(a_.label + ": state '" + a_.states[i] + "' must have T + 1 = " + std::to_string(T + 1) +
                                    " rows");
      }
      g[i] = Api().Workspace_CreateBlob(parent, ("__rnn_grad_" + a_.states[i]).c_str());
      const std::vector<int64_t> shape = state.shape();
      // Kept when it fits: last run's links still point into it, and a
      // resize of a shared buffer would allocate a new one every run.
      const Tensor held(g[i]);
      if (held.dtype() != state.dtype() || held.shape() != shape) {
        LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), g[i], state.dtype(), shape.data(), shape.size(), "a state's gradient"));
      }
      const Tensor gi(g[i]);
      const int64_t row = state.num_elements() / (T + 1);
      std::memset(gi.raw_data(), 0, static_cast<size_t>(state.num_elements()) * sdk::DTypeSize(state.dtype()));
      LOOM_SDK_RETURN_IF_ERROR(AddOutputGradient(ctx, j, 0, gi, row));
      for (size_t k = 0; k < a_.alias_src.size(); ++k) {
        if (a_.alias_src[k] != a_.states[i]) continue;
        auto d = forward_output_.find(a_.alias_dst[k]);
        if (d == forward_output_.end()) continue;
        const int64_t o = a_.alias_offset[k];
        LOOM_SDK_RETURN_IF_ERROR(AddOutputGradient(ctx, d->second, o >= 0 ? o : T + 1 + o, gi, row));
      }
    }
    // The input gradients, zeroed: they are accumulated into.
    std::vector<Tensor> gin(n_);
    for (size_t k = 0; k < n_ && k < ctx.num_outputs(); ++k) {
      if (!ctx.OutputRequested(k)) continue;
      Tensor x = ctx.Input(k);
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(k, x.dtype(), x.shape(), &gin[k]));
      std::memset(gin[k].raw_data(), 0, static_cast<size_t>(x.num_elements()) * sdk::DTypeSize(x.dtype()));
    }
    const InputRoles roles(a_, inputs_);
    const std::vector<StateLinks> state_links = a_.StateLinkNames();
    for (int64_t t = 0; t < T; ++t) {
      for (size_t i = 0; i < state_links.size(); ++i) {
        for (const std::string& w : state_links[i].written) {
          LOOM_SDK_RETURN_IF_ERROR(LinkRows(ws[t], SeedName(w), g[i], t + 1, t + 2));
        }
        for (const std::string& r : state_links[i].read) {
          LOOM_SDK_RETURN_IF_ERROR(LinkRows(ws[t], AccumulatorName(r), g[i], t, t + 1));
        }
      }
      for (const Link& l : a_.links) {
        if (a_.IsState(l.external)) continue;
        for (size_t k = 0; k < n_; ++k) {
          if (inputs_[k] != l.external || !gin[k].present()) continue;
          const int64_t row = a_.LinkRow(l, t, T);
          LOOM_SDK_RETURN_IF_ERROR(LinkRows(ws[t], AccumulatorName(l.internal), gin[k].handle(), row, row + l.window));
        }
      }
      for (size_t k : roles.params) {
        if (!gin[k].present()) continue;
        if (gin[k].rank() < 1) {
          return sdk::Unimplemented(a_.label + ": the gradient of scalar parameter '" + inputs_[k] +
                                    "' (accumulators alias rows; give it shape [1])");
        }
        LOOM_SDK_RETURN_IF_ERROR(LinkRows(ws[t], AccumulatorName(inputs_[k]), gin[k].handle(), 0, gin[k].dim(0)));
      }
    }
    const int kernel_threads = a_.threads > 0 ? Api().KernelThreadsFor(a_.threads) : ctx.num_threads();
    std::vector<LoomNet*>& nets = shared_->backward;
    while (static_cast<int64_t>(nets.size()) < T) {
      LoomNet* net = nullptr;
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Net_Create(ctx.handle(), shared_->workspaces[nets.size()], backward_.data(),
                                                       backward_.size(), kernel_threads, &net)));
      nets.push_back(net);
    }
    if (executor_ == nullptr) {
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().TimestepExecutor_Create(a_.threads, a_.parallel, &executor_)));
    }
    std::vector<LoomNet*> order(nets.rbegin() + (nets.size() - static_cast<size_t>(T)), nets.rend());
    LOOM_SDK_RETURN_IF_ERROR(Status(Api().TimestepExecutor_Run(executor_, order.data(), order.size(), pairs_.data(),
                                                               pairs_.size() / 2)));
    // The forward intermediates are read: back to the pool (each bucket's
    // plan has its own forward kernel; none keeps its steps past this run).
    for (LoomNet* net : forward_nets) Api().Net_ReleaseTimestep(net);
    shared_->kept = false;
    // The initial states' gradients: row 0 (the state's gradient is
    // [T + 1, initial...], so row 0 has the initial state's elements).
    for (size_t i = 0; i < a_.states.size(); ++i) {
      const size_t k = static_cast<size_t>(a_.initial_ids[i]);
      if (k >= gin.size() || !gin[k].present()) continue;
      const Tensor gi(g[i]);
      const int64_t row = gi.num_elements() / gi.dim(0);
      if (gin[k].num_elements() != row) {
        return sdk::InvalidArgument(a_.label + ": initial state '" + inputs_[k] + "' has " +
                                    std::to_string(gin[k].num_elements()) + " elements; a row of state '" +
                                    a_.states[i] + "' has " + std::to_string(row));
      }
      std::memcpy(gin[k].raw_data(), gi.raw_data(), static_cast<size_t>(row) * sdk::DTypeSize(gi.dtype()));
    }
    return DetachLinks(ctx, parent);
  }

 private:
  // Adds the gradient of forward output j (if any) into rows [begin, ...) of g.
  Status AddOutputGradient(KernelContext& ctx, size_t j, int64_t begin, const Tensor& g, int64_t row) {
    auto at = gradient_input_.find(j);
    if (at == gradient_input_.end()) return Status::Ok();
    Tensor go = ctx.Input(at->second);
    const int64_t rows = g.dim(0) - begin;
    if (go.dtype() != g.dtype() || go.num_elements() != rows * row) {
      return sdk::InvalidArgument(a_.label + ": the gradient of output " + std::to_string(j) + " has " +
                                  std::to_string(go.num_elements()) + " " + sdk::DTypeName(go.dtype()) + " elements; " +
                                  std::to_string(rows * row) + " " + sdk::DTypeName(g.dtype()) + " expected");
    }
    char* base = static_cast<char*>(g.raw_data()) + begin * row * static_cast<int64_t>(sdk::DTypeSize(g.dtype()));
    AddElements(g.dtype(), base, go.raw_data(), go.num_elements());
    return Status::Ok();
  }

  // Points every link of every step workspace (the forward's and this
  // op's) and the forward's row-0 aliases at a one-element placeholder: the links'
  // sources (the states, the input and parameter gradients, the state
  // gradients) then go back to the pool once the net is done with them,
  // instead of staying held by timesteps a shorter bucket does not reach.
  // Each run links its timesteps again before it reads them.
  Status DetachLinks(KernelContext& ctx, LoomWorkspace* parent) {
    if (placeholder_ == nullptr) {
      placeholder_ = Api().Workspace_CreateBlob(parent, ("__rnn_detached_" + first_output_).c_str());
      const int64_t one = 1;
      LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), placeholder_, LOOM_DTYPE_FLOAT, &one, 1, "the links' placeholder"));
    }
    for (LoomWorkspace* w : shared_->workspaces) {
      for (const std::string& name : link_names_) {
        LoomTensor* b = Api().Workspace_GetBlob(w, name.c_str());
        if (b != nullptr && Api().Workspace_GetBlob(parent, name.c_str()) != b) {  // the step's own, not a parent's
          LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Alias(b, placeholder_, 0, 1)));
        }
      }
    }
    for (const std::string& s : a_.states) {
      LoomTensor* b = Api().Workspace_GetBlob(parent, ("__rnn_row0_" + s).c_str());
      if (b != nullptr) LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Alias(b, placeholder_, 0, 1)));
    }
    return Status::Ok();
  }

  // Blob `name` of `ws` := rows [begin, end) of `src`.
  Status LinkRows(LoomWorkspace* ws, const std::string& name, const LoomTensor* src, int64_t begin, int64_t end) {
    LoomTensor* b = Api().Workspace_CreateBlob(ws, name.c_str());
    Status s(Api().Tensor_Alias(b, src, begin, end));
    if (!s.ok()) return sdk::InvalidArgument(a_.label + ": gradient link '" + name + "': " + s.message());
    return Status::Ok();
  }

  RecurrentNetworkAttrs a_;
  std::string backward_, first_output_;
  size_t n_ = 0, m_ = 0;
  std::vector<std::string> inputs_;
  std::map<std::string, size_t> forward_output_;
  std::map<size_t, size_t> gradient_input_;  // forward output -> the input holding its gradient
  std::vector<std::string> pair_storage_;
  std::vector<const char*> pairs_;
  std::shared_ptr<StepNets> shared_;  // the forward op's step workspaces and nets; the backward nets too
  LoomTensor* placeholder_ = nullptr;  // what DetachLinks points the links at
  std::vector<std::string> link_names_;  // the links DetachLinks looks for
  LoomTimestepExecutor* executor_ = nullptr;
};

// Input gradients have the forward inputs' dtypes and shapes.
LoomStatus* InferRecurrentNetworkGradient(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  for (size_t k = 0; k < ctx.num_outputs() && k < ctx.num_inputs(); ++k) {
    ctx.SetOutputDType(k, ctx.InputDType(k));
    std::vector<int64_t> s;
    if (ctx.InputShape(k, &s)) ctx.SetOutputShape(k, s);
  }
  return nullptr;
}

}  // namespace

sdk::Status RegisterRecurrentNetworkGradient(sdk::Registrar& reg) {
  sdk::SchemaBuilder s("RecurrentNetworkGradient");
  s.Domain(LOOM_OPS_DOMAIN);
  s.Doc("Caffe2's RecurrentNetworkGradient: the gradient of RecurrentNetwork (forward_only = 0). Runs "
        "backward_step_net in the forward op's step workspaces in reverse time order, with gradient links and "
        "parameter gradients accumulated over timesteps (see plugins/rnn/recurrent_network_gradient.cc).")
      .Input("inputs", "any", LOOM_PARAM_VARIADIC,
             "the forward op's n inputs, its m outputs, then the gradients of the outputs output_gradients names")
      .Output("input_grads", "any", LOOM_PARAM_VARIADIC,
              "the gradients of the forward op's inputs (\"\" where not wanted): float32 or float64")
      .Infer(&InferRecurrentNetworkGradient)
      .Attr("backward_step_net", LOOM_ATTR_NET, true, "the backward step net (derived by the gradient maker)")
      .AttrInt("forward_inputs", 0, "the forward op's input count n")
      .AttrInt("forward_outputs", 0, "the forward op's output count m")
      .AttrInts("output_gradients", {}, "the forward outputs whose gradients follow, in order");
  DeclareRecurrentNetworkAttrs(s);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  return reg.Kernel<RecurrentNetworkGradientKernel>("RecurrentNetworkGradient");
}

}  // namespace rnn
}  // namespace loom
