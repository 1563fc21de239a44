// RecurrentNetwork: Caffe2's recurrent-network operator as a Loom kernel.
//
// Runs `step_net` once per timestep over sequences [T, N, ...]. Each
// timestep has a child workspace of the op's workspace (made on the first
// run, reused afterwards) in which *links* make step-net blobs aliases of
// rows of external tensors, with no copy:
//   link (internal, external, offset, window): at timestep t, `internal` is
//   rows [t + offset, t + offset + window) of `external`.
// A *recurrent state* `s` is an output [T + 1, ...] whose row 0 is a copy of
// its initial value (input `initial_recurrent_state_ids[i]`); the step net
// reads row t (a link with offset 0) and writes row t + 1 (offset 1).
// *Aliases* (src, dst, offset) expose rows of a state as further outputs:
// offset >= 0 gives rows [offset, T + 1), a negative offset the last -offset
// rows (-1: row T, the final state). Each step workspace holds an int32
// scalar `timestep` = t. With `reverse` = 1, links to non-state tensors read
// row T - 1 - t (the sequence runs backwards; states still fill rows 1..T in
// run order).
//
// T is the leading dimension of input 0. With `rnn_executor` = 1 the
// threaded timestep executor runs the steps (`num_threads` workers, at most
// `max_parallel_timesteps` in flight); otherwise they run in order.
// With `forward_only` = 1 (inference) a timestep's intermediates go back
// to the net's pool as soon as that timestep is done (core/memory_plan.h,
// PlanTimestepMemory). With 0 (training, Caffe2's default) the step
// workspaces keep them for RecurrentNetworkGradient
// (recurrent_network_gradient.cc), which runs the backward step net in them
// and then lets them go; the blobs in `recompute_blobs_on_backward` are the
// exception: they go back after each timestep anyway, and the backward
// step net recomputes them (Caffe2's recurrent.py). The step workspaces and nets are the op's
// StepNets (step_nets.h), shared by its kernels in every plan (bucket) and
// by its gradient's.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/rnn/recurrent_network_attrs.h"
#include "plugins/rnn/rnn_ops.h"
#include "plugins/rnn/step_nets.h"

namespace loom {
namespace rnn {
namespace {

class RecurrentNetworkKernel {
 public:
  ~RecurrentNetworkKernel() {
    if (executor_ != nullptr) Api().TimestepExecutor_Release(executor_);
  }

  Status Init(const KernelInfo& info) {
    LOOM_SDK_RETURN_IF_ERROR(a_.Read(info, "RecurrentNetwork '" + info.op_name() + "'"));
    if (!a_.forward_only && !LOOM_SDK_API_HAS(TimestepExecutor_KeepIntermediates)) {
      return sdk::Unimplemented(a_.label + ": forward_only = 0 needs a core with ABI 6");
    }
    for (const std::string& s : a_.states) {
      if (!a_.output_index.count(s)) return sdk::InvalidArgument(a_.label + ": recurrent state '" + s + "' is not an output");
    }
    for (const std::string& d : a_.alias_dst) {
      if (!a_.output_index.count(d)) return sdk::InvalidArgument(a_.label + ": alias '" + d + "' is not an output");
    }
    for (int64_t id : a_.initial_ids) {
      if (id < 0 || id >= static_cast<int64_t>(info.num_inputs())) {
        return sdk::InvalidArgument(a_.label + ": initial_recurrent_state_ids has " + std::to_string(id) + "; the op has " +
                                    std::to_string(info.num_inputs()) + " inputs");
      }
    }
    // (read, written) pairs for the timestep executor: a state's offset-0
    // link is read at t+1 after the offset-1 link was written at t.
    for (const StateLinks& sl : a_.StateLinkNames()) {
      for (const auto& r : sl.read) {
        for (const auto& w : sl.written) {
          pair_storage_.push_back(r);
          pair_storage_.push_back(w);
        }
      }
    }
    for (const std::string& p : pair_storage_) pairs_.push_back(p.c_str());
    if (info.num_outputs() > 0) first_output_ = info.output_name(0);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor seq = ctx.Input(0);
    if (!seq.present() || seq.rank() < 1) return sdk::InvalidArgument(a_.label + ": input 0 must be a sequence [T, ...]");
    const int64_t T = seq.dim(0);
    LoomWorkspace* parent = Api().Ctx_Workspace(ctx.handle());
    std::map<std::string, LoomTensor*> state_tensors;
    for (size_t i = 0; i < a_.states.size(); ++i) {
      Tensor init = ctx.Input(static_cast<size_t>(a_.initial_ids[i]));
      std::vector<int64_t> shape = init.shape();
      shape.insert(shape.begin(), T + 1);
      Tensor out;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(a_.output_index[a_.states[i]], init.dtype(), shape, &out));
      LoomTensor* s = const_cast<LoomTensor*>(out.handle());
      state_tensors[a_.states[i]] = s;
      // Row 0 = the initial state (through an alias, so any device works).
      LoomTensor* row0 = Api().Workspace_CreateBlob(parent, ("__rnn_row0_" + a_.states[i]).c_str());
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Alias(row0, s, 0, 1)));
      std::vector<int64_t> row_shape = init.shape();
      row_shape.insert(row_shape.begin(), 1);
      LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), row0, init.dtype(), init.shape().data(), init.rank(), "row 0 of a state"));
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Copy(row0, init.handle())));
      LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), row0, init.dtype(), row_shape.data(), row_shape.size(), "row 0 of a state"));
    }
    if (shared_ == nullptr) LOOM_SDK_RETURN_IF_ERROR(SharedStepNets(ctx, first_output_, &shared_));
    std::vector<LoomWorkspace*>& steps = shared_->workspaces;
    std::vector<LoomNet*>& nets = shared_->forward;
    shared_->kept = false;
    while (static_cast<int64_t>(steps.size()) < T) steps.push_back(Api().Workspace_CreateChild(parent));
    for (int64_t t = 0; t < T; ++t) {
      LoomWorkspace* ws = steps[t];
      for (const Link& l : a_.links) {
        const LoomTensor* ext = nullptr;
        const int64_t row = a_.LinkRow(l, t, T);
        auto st = state_tensors.find(l.external);
        if (st != state_tensors.end()) {
          ext = st->second;
        } else {
          auto in = a_.input_index.find(l.external);
          ext = in != a_.input_index.end() ? ctx.Input(in->second).handle() : Api().Workspace_GetBlob(parent, l.external.c_str());
        }
        if (ext == nullptr) return sdk::InvalidArgument(a_.label + ": link external '" + l.external + "' does not exist");
        LoomTensor* internal = Api().Workspace_CreateBlob(ws, l.internal.c_str());
        Status s(Api().Tensor_Alias(internal, ext, row, row + l.window));
        if (!s.ok()) {
          return sdk::InvalidArgument(a_.label + ": link '" + l.internal + "' -> '" + l.external + "' at timestep " +
                                      std::to_string(t) + ": " + s.message());
        }
      }
      LoomTensor* ts = Api().Workspace_CreateBlob(ws, a_.timestep.c_str());
      LOOM_SDK_RETURN_IF_ERROR(sdk::ResizeTensor(ctx.handle(), ts, LOOM_DTYPE_INT32, nullptr, 0, "the timestep"));
      *static_cast<int32_t*>(Api().TensorData(ts)) = static_cast<int32_t>(a_.reverse ? T - 1 - t : t);
    }
    int kernel_threads = a_.threads > 0 ? Api().KernelThreadsFor(a_.threads) : ctx.num_threads();
    while (static_cast<int64_t>(nets.size()) < T) {
      LoomNet* net = nullptr;
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Net_Create(ctx.handle(), steps[nets.size()], a_.step_net.data(),
                                                       a_.step_net.size(), kernel_threads, &net)));
      if (!a_.forward_only && !a_.recompute.empty()) {
        if (!LOOM_SDK_API_HAS(Net_SetRecomputedOnBackward)) {
          Api().Net_Release(net);
          return sdk::Unimplemented(a_.label + ": recompute_blobs_on_backward needs a core with ABI 7");
        }
        std::vector<const char*> names;
        for (const std::string& r : a_.recompute) names.push_back(r.c_str());
        Api().Net_SetRecomputedOnBackward(net, names.data(), names.size());
      }
      nets.push_back(net);
    }
    // This op's own executor (Caffe2 kept one per op): recurrent ops of
    // different nets run concurrently, and it is freed with the kernel.
    if (executor_ == nullptr) {
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().TimestepExecutor_Create(a_.threads, a_.parallel, &executor_)));
      // Training: the step workspaces keep their intermediates for
      // RecurrentNetworkGradient, which runs the backward step net in them.
      if (!a_.forward_only) Api().TimestepExecutor_KeepIntermediates(executor_, 1);
    }
    LOOM_SDK_RETURN_IF_ERROR(Status(Api().TimestepExecutor_Run(executor_, nets.data(), static_cast<size_t>(T),
                                                               pairs_.data(), pairs_.size() / 2)));
    shared_->last_T = T;
    shared_->kept = !a_.forward_only;
    for (size_t i = 0; i < a_.alias_src.size(); ++i) {
      auto st = state_tensors.find(a_.alias_src[i]);
      if (st == state_tensors.end()) return sdk::InvalidArgument(a_.label + ": alias source '" + a_.alias_src[i] + "' is not a recurrent state");
      int64_t o = a_.alias_offset[i];
      int64_t begin = o >= 0 ? o : T + 1 + o;
      LoomTensor* dst = Api().Ctx_OutputHandle(ctx.handle(), a_.output_index[a_.alias_dst[i]]);
      if (dst == nullptr) continue;
      Status s(Api().Tensor_Alias(dst, st->second, begin, T + 1));
      if (!s.ok()) return sdk::InvalidArgument(a_.label + ": alias '" + a_.alias_dst[i] + "': " + s.message());
    }
    // Without a gradient, nothing reads the links or the row-0 aliases after
    // the run, and they share the buffers of the states and of the linked
    // inputs: let go of them (the next run aliases them again), so that
    // those buffers can go back to the pool when their owners let go too
    // (the STEPNET LSTM kernel does, after copying its outputs).
    if (a_.forward_only && LOOM_SDK_API_HAS(Tensor_Release)) {
      for (int64_t t = 0; t < T; ++t) {
        for (const Link& l : a_.links) Api().Tensor_Release(Api().Workspace_CreateBlob(steps[t], l.internal.c_str()));
      }
      for (const std::string& s : a_.states) {
        Api().Tensor_Release(Api().Workspace_CreateBlob(parent, ("__rnn_row0_" + s).c_str()));
      }
    }
    return Status::Ok();
  }

 private:
  RecurrentNetworkAttrs a_;
  std::string first_output_;  // names the op's StepNets
  std::vector<std::string> pair_storage_;
  std::vector<const char*> pairs_;
  std::shared_ptr<StepNets> shared_;  // with this op's other kernels (other plans) and its gradient's
  LoomTimestepExecutor* executor_ = nullptr;
};

}  // namespace

// Output dtypes (a state takes its initial value's, an alias its state's) and,
// when known, shapes.
sdk::Status InferRecurrentNetwork(sdk::InferenceContext& ctx) {
  KernelInfo info = ctx.info();
  std::vector<std::string> states, alias_src, alias_dst;
  std::vector<int64_t> ids;
  LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("recurrent_states", &states));
  LOOM_SDK_RETURN_IF_ERROR(info.GetInts("initial_recurrent_state_ids", &ids));
  LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("alias_src", &alias_src));
  LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("alias_dst", &alias_dst));
  std::map<std::string, LoomDataType> dtype;
  for (size_t i = 0; i < states.size() && i < ids.size(); ++i) {
    if (ids[i] >= 0 && static_cast<size_t>(ids[i]) < ctx.num_inputs()) dtype[states[i]] = ctx.InputDType(ids[i]);
  }
  // Shapes, when T (input 0's first dim) and the initial states' shapes are
  // known: a state is [T + 1, initial...], an alias its rows [offset, T + 1)
  // or its last -offset rows. Planned shapes let the memory planner place
  // them (and what follows them) in the arena, which PlanBuckets shares.
  std::vector<int64_t> alias_offset;
  LOOM_SDK_RETURN_IF_ERROR(info.GetInts("alias_offset", &alias_offset));
  std::vector<int64_t> seq;
  const bool has_t = ctx.InputShape(0, &seq) && !seq.empty() && seq[0] >= 0;
  std::map<std::string, std::vector<int64_t>> shape;
  for (size_t i = 0; has_t && i < states.size() && i < ids.size(); ++i) {
    std::vector<int64_t> init;
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= ctx.num_inputs() || !ctx.InputShape(ids[i], &init)) continue;
    init.insert(init.begin(), seq[0] + 1);
    shape[states[i]] = init;
  }
  for (size_t i = 0; i < alias_src.size() && i < alias_dst.size(); ++i) {
    auto it = dtype.find(alias_src[i]);
    if (it != dtype.end()) dtype[alias_dst[i]] = it->second;
    auto st = shape.find(alias_src[i]);
    if (st == shape.end() || i >= alias_offset.size()) continue;
    const int64_t o = alias_offset[i], rows = st->second[0];
    std::vector<int64_t> a = st->second;
    a[0] = o >= 0 ? rows - o : -o;
    if (a[0] >= 0 && a[0] <= rows) shape[alias_dst[i]] = a;
  }
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    auto it = dtype.find(info.output_name(k));
    if (it == dtype.end()) {
      return sdk::InvalidArgument("RecurrentNetwork: output '" + info.output_name(k) + "' is neither a recurrent state nor an alias");
    }
    ctx.SetOutputDType(k, it->second);
    auto sh = shape.find(info.output_name(k));
    if (sh != shape.end()) ctx.SetOutputShape(k, sh->second);
  }
  return Status::Ok();
}

void DeclareRecurrentNetworkAttrs(sdk::SchemaBuilder& s) {
  s.Attr("step_net", LOOM_ATTR_NET, true, "the net run at every timestep")
      .AttrStrings("recurrent_states", {}, "output names of the recurrent states")
      .AttrInts("initial_recurrent_state_ids", {}, "for each state, the input index of its initial value")
      .AttrStrings("link_internal", {}, "step-net blob names of the links")
      .AttrStrings("link_external", {}, "the tensors they alias (a state, an input or a workspace blob)")
      .AttrInts("link_offset", {}, "row offset of each link: rows [t + offset, t + offset + window)")
      .AttrInts("link_window", {}, "rows per link (default 1 each)")
      .AttrStrings("alias_src", {}, "recurrent state exposed by an alias")
      .AttrStrings("alias_dst", {}, "the output it becomes")
      .AttrInts("alias_offset", {}, ">= 0: rows [offset, T+1); < 0: the last -offset rows")
      .AttrString("timestep", "timestep", "name of the int32 scalar timestep blob in each step workspace")
      .AttrInt("forward_only", 1,
               "1: inference (each timestep's intermediates go back to the pool when it is done); 0: training "
               "(Caffe2's default): the step workspaces keep them for RecurrentNetworkGradient")
      .AttrInt("reverse", 0, "1: input links read rows T-1-t")
      .AttrInt("rnn_executor", 1, "1: threaded timestep executor; 0: timesteps in order")
      .AttrInt("num_threads", 2, "executor workers (clamped to the cores)")
      .AttrInt("max_parallel_timesteps", 2, "timesteps in flight in the threaded executor")
      .AttrStrings("recompute_blobs_on_backward", {},
                   "step-net blobs not kept per timestep for the backward pass (forward_only = 0): they go back "
                   "to the pool after each timestep and the backward step net recomputes them first, with the "
                   "step-net ops that write them (Caffe2's recurrent.py)");
}

sdk::Status RegisterRecurrentNetwork(sdk::Registrar& reg) {
  sdk::SchemaBuilder s("RecurrentNetwork");
  s.Domain(LOOM_OPS_DOMAIN);
  s.Doc("Caffe2's RecurrentNetwork: runs step_net once per timestep over input 0 [T, N, ...] with links, "
        "recurrent states [T+1, ...] and aliases (see plugins/rnn/recurrent_network.cc). Its gradient is "
        "RecurrentNetworkGradient; train with forward_only = 0.")
      .Input("inputs", "any", LOOM_PARAM_VARIADIC, "sequences [T, N, ...] (input 0 sets T), initial states, parameters (any dtype)")
      .Output("outputs", "any", LOOM_PARAM_VARIADIC, "recurrent states [T+1, ...], then aliases (their initial values' dtype)")
      .Infer<&InferRecurrentNetwork>()
      .Gradient<&MakeRecurrentNetworkGradient>();
  DeclareRecurrentNetworkAttrs(s);
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<RecurrentNetworkKernel>("RecurrentNetwork"));
  // The kernel only moves tensors through the ABI (aliases, copies), so it
  // also runs with its states on a GPU: the step net's ops then run there,
  // timestep t on stream t mod num_threads (core/executor/multi_stream_executor.h).
  return reg.Kernel<RecurrentNetworkKernel>("RecurrentNetwork", {"CUDA", "", 0, {}});
}

}  // namespace rnn
}  // namespace loom
