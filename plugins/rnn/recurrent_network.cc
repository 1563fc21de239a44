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
// Forward only: this operator has no gradient here (`forward_only` = 0 is
// UNIMPLEMENTED), so a timestep's intermediates go back to the net's pool
// as soon as that timestep is done (core/memory_plan.h,
// PlanTimestepMemory).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"
#include "plugins/rnn/rnn_ops.h"

namespace loom {
namespace rnn {
namespace {

using sdk::Api;
using sdk::KernelContext;
using sdk::KernelInfo;
using sdk::Status;
using sdk::Tensor;

struct Link {
  std::string internal, external;
  int64_t offset = 0, window = 1;
};

class RecurrentNetworkKernel {
 public:
  ~RecurrentNetworkKernel() {
    for (LoomNet* n : nets_) Api().Net_Release(n);
    if (executor_ != nullptr) Api().TimestepExecutor_Release(executor_);
    for (LoomWorkspace* w : steps_) Api().Workspace_Release(w);
  }

  Status Init(const KernelInfo& info) {
    label_ = "RecurrentNetwork '" + info.op_name() + "'";
    LOOM_SDK_RETURN_IF_ERROR(info.GetNetBytes("step_net", &step_net_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("recurrent_states", &states_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("initial_recurrent_state_ids", &initial_ids_));
    std::vector<std::string> li, le;
    std::vector<int64_t> lo, lw;
    LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("link_internal", &li));
    LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("link_external", &le));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("link_offset", &lo));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("link_window", &lw));
    LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("alias_src", &alias_src_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("alias_dst", &alias_dst_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("alias_offset", &alias_offset_));
    LOOM_SDK_RETURN_IF_ERROR(info.GetString("timestep", &timestep_));
    int64_t forward_only = 1, reverse = 0, use_executor = 1, threads = 2, parallel = 2;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("forward_only", &forward_only));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("reverse", &reverse));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("rnn_executor", &use_executor));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("num_threads", &threads));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("max_parallel_timesteps", &parallel));
    if (!forward_only) return sdk::Unimplemented(label_ + ": only forward_only=1 is supported");
    reverse_ = reverse != 0;
    threads_ = use_executor ? static_cast<int>(std::max<int64_t>(1, threads)) : 0;
    parallel_ = static_cast<int>(std::max<int64_t>(1, parallel));
    if (li.size() != le.size() || li.size() != lo.size() || (!lw.empty() && lw.size() != li.size())) {
      return sdk::InvalidArgument(label_ + ": link_internal, link_external, link_offset (and link_window) must have equal lengths");
    }
    for (size_t i = 0; i < li.size(); ++i) links_.push_back({li[i], le[i], lo[i], lw.empty() ? 1 : lw[i]});
    if (states_.size() != initial_ids_.size()) {
      return sdk::InvalidArgument(label_ + ": recurrent_states and initial_recurrent_state_ids must have equal lengths");
    }
    if (alias_src_.size() != alias_dst_.size() || alias_src_.size() != alias_offset_.size()) {
      return sdk::InvalidArgument(label_ + ": alias_src, alias_dst, alias_offset must have equal lengths");
    }
    for (size_t i = 0; i < info.num_inputs(); ++i) input_index_[info.input_name(i)] = i;
    for (size_t i = 0; i < info.num_outputs(); ++i) output_index_[info.output_name(i)] = i;
    for (const std::string& s : states_) {
      if (!output_index_.count(s)) return sdk::InvalidArgument(label_ + ": recurrent state '" + s + "' is not an output");
    }
    for (const std::string& d : alias_dst_) {
      if (!output_index_.count(d)) return sdk::InvalidArgument(label_ + ": alias '" + d + "' is not an output");
    }
    for (int64_t id : initial_ids_) {
      if (id < 0 || id >= static_cast<int64_t>(info.num_inputs())) {
        return sdk::InvalidArgument(label_ + ": initial_recurrent_state_ids has " + std::to_string(id) + "; the op has " +
                                    std::to_string(info.num_inputs()) + " inputs");
      }
    }
    // (read, written) pairs for the timestep executor: a state's offset-0
    // link is read at t+1 after the offset-1 link was written at t.
    for (const std::string& s : states_) {
      std::vector<std::string> reads, writes;
      for (const Link& l : links_) {
        if (l.external != s) continue;
        if (l.offset == 0) reads.push_back(l.internal);
        if (l.offset == 1) writes.push_back(l.internal);
      }
      for (const auto& r : reads) {
        for (const auto& w : writes) {
          pair_storage_.push_back(r);
          pair_storage_.push_back(w);
        }
      }
    }
    for (const std::string& p : pair_storage_) pairs_.push_back(p.c_str());
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) {
    Tensor seq = ctx.Input(0);
    if (!seq.present() || seq.rank() < 1) return sdk::InvalidArgument(label_ + ": input 0 must be a sequence [T, ...]");
    const int64_t T = seq.dim(0);
    LoomWorkspace* parent = Api().Ctx_Workspace(ctx.handle());
    std::map<std::string, LoomTensor*> state_tensors;
    for (size_t i = 0; i < states_.size(); ++i) {
      Tensor init = ctx.Input(static_cast<size_t>(initial_ids_[i]));
      std::vector<int64_t> shape = init.shape();
      shape.insert(shape.begin(), T + 1);
      Tensor out;
      LOOM_SDK_RETURN_IF_ERROR(ctx.Output(output_index_[states_[i]], init.dtype(), shape, &out));
      LoomTensor* s = const_cast<LoomTensor*>(out.handle());
      state_tensors[states_[i]] = s;
      // Row 0 = the initial state (through an alias, so any device works).
      LoomTensor* row0 = Api().Workspace_CreateBlob(parent, ("__rnn_row0_" + states_[i]).c_str());
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Alias(row0, s, 0, 1)));
      std::vector<int64_t> row_shape = init.shape();
      row_shape.insert(row_shape.begin(), 1);
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Resize(row0, init.dtype(), init.shape().data(), init.rank())));
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Copy(row0, init.handle())));
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Resize(row0, init.dtype(), row_shape.data(), row_shape.size())));
    }
    while (static_cast<int64_t>(steps_.size()) < T) steps_.push_back(Api().Workspace_CreateChild(parent));
    for (int64_t t = 0; t < T; ++t) {
      LoomWorkspace* ws = steps_[t];
      for (const Link& l : links_) {
        const LoomTensor* ext = nullptr;
        int64_t row = t + l.offset;
        auto st = state_tensors.find(l.external);
        if (st != state_tensors.end()) {
          ext = st->second;
        } else {
          auto in = input_index_.find(l.external);
          ext = in != input_index_.end() ? ctx.Input(in->second).handle() : Api().Workspace_GetBlob(parent, l.external.c_str());
          if (reverse_) row = T - 1 - t + l.offset;
        }
        if (ext == nullptr) return sdk::InvalidArgument(label_ + ": link external '" + l.external + "' does not exist");
        LoomTensor* internal = Api().Workspace_CreateBlob(ws, l.internal.c_str());
        Status s(Api().Tensor_Alias(internal, ext, row, row + l.window));
        if (!s.ok()) {
          return sdk::InvalidArgument(label_ + ": link '" + l.internal + "' -> '" + l.external + "' at timestep " +
                                      std::to_string(t) + ": " + s.message());
        }
      }
      LoomTensor* ts = Api().Workspace_CreateBlob(ws, timestep_.c_str());
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Tensor_Resize(ts, LOOM_DTYPE_INT32, nullptr, 0)));
      *static_cast<int32_t*>(Api().TensorData(ts)) = static_cast<int32_t>(reverse_ ? T - 1 - t : t);
    }
    int kernel_threads = threads_ > 0 ? Api().KernelThreadsFor(threads_) : ctx.num_threads();
    while (static_cast<int64_t>(nets_.size()) < T) {
      LoomNet* net = nullptr;
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().Net_Create(ctx.handle(), steps_[nets_.size()], step_net_.data(),
                                                       step_net_.size(), kernel_threads, &net)));
      nets_.push_back(net);
    }
    // This op's own executor (Caffe2 kept one per op): recurrent ops of
    // different nets run concurrently, and it is freed with the kernel.
    if (executor_ == nullptr) {
      LOOM_SDK_RETURN_IF_ERROR(Status(Api().TimestepExecutor_Create(threads_, parallel_, &executor_)));
    }
    LOOM_SDK_RETURN_IF_ERROR(Status(Api().TimestepExecutor_Run(executor_, nets_.data(), static_cast<size_t>(T),
                                                               pairs_.data(), pairs_.size() / 2)));
    for (size_t i = 0; i < alias_src_.size(); ++i) {
      auto st = state_tensors.find(alias_src_[i]);
      if (st == state_tensors.end()) return sdk::InvalidArgument(label_ + ": alias source '" + alias_src_[i] + "' is not a recurrent state");
      int64_t o = alias_offset_[i];
      int64_t begin = o >= 0 ? o : T + 1 + o;
      LoomTensor* dst = Api().Ctx_OutputHandle(ctx.handle(), output_index_[alias_dst_[i]]);
      if (dst == nullptr) continue;
      Status s(Api().Tensor_Alias(dst, st->second, begin, T + 1));
      if (!s.ok()) return sdk::InvalidArgument(label_ + ": alias '" + alias_dst_[i] + "': " + s.message());
    }
    return Status::Ok();
  }

 private:
  std::string label_, step_net_, timestep_;
  std::vector<std::string> states_, alias_src_, alias_dst_;
  std::vector<int64_t> initial_ids_, alias_offset_;
  std::vector<Link> links_;
  bool reverse_ = false;
  int threads_ = 0, parallel_ = 1;
  std::map<std::string, size_t> input_index_, output_index_;
  std::vector<std::string> pair_storage_;
  std::vector<const char*> pairs_;
  std::vector<LoomWorkspace*> steps_;
  std::vector<LoomNet*> nets_;
  LoomTimestepExecutor* executor_ = nullptr;
};

}  // namespace

// Output dtypes: a state takes its initial value's, an alias its state's.
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
  for (size_t i = 0; i < alias_src.size() && i < alias_dst.size(); ++i) {
    auto it = dtype.find(alias_src[i]);
    if (it != dtype.end()) dtype[alias_dst[i]] = it->second;
  }
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    auto it = dtype.find(info.output_name(k));
    if (it == dtype.end()) {
      return sdk::InvalidArgument("RecurrentNetwork: output '" + info.output_name(k) + "' is neither a recurrent state nor an alias");
    }
    ctx.SetOutputDType(k, it->second);
  }
  return Status::Ok();
}

sdk::Status RegisterRecurrentNetwork(sdk::Registrar& reg) {
  sdk::SchemaBuilder s("RecurrentNetwork");
  s.Doc("Caffe2's RecurrentNetwork: runs step_net once per timestep over input 0 [T, N, ...] with links, "
        "recurrent states [T+1, ...] and aliases (see plugins/rnn/recurrent_network.cc). Forward only.")
      .Input("inputs", "any", LOOM_PARAM_VARIADIC, "sequences [T, N, ...] (input 0 sets T), initial states, parameters (any dtype)")
      .Output("outputs", "any", LOOM_PARAM_VARIADIC, "recurrent states [T+1, ...], then aliases (their initial values' dtype)")
      .Infer(&sdk::internal::InferTrampoline<&InferRecurrentNetwork>)
      .Attr("step_net", LOOM_ATTR_NET, true, "the net run at every timestep")
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
      .AttrInt("forward_only", 1, "1: inference only (the only mode supported)")
      .AttrInt("reverse", 0, "1: input links read rows T-1-t")
      .AttrInt("rnn_executor", 1, "1: threaded timestep executor; 0: timesteps in order")
      .AttrInt("num_threads", 2, "executor workers (clamped to the cores)")
      .AttrInt("max_parallel_timesteps", 2, "timesteps in flight in the threaded executor");
  LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  LOOM_SDK_RETURN_IF_ERROR(reg.Kernel<RecurrentNetworkKernel>("RecurrentNetwork"));
  // The kernel only moves tensors through the ABI (aliases, copies), so it
  // also runs with its states on a GPU: the step net's ops then run there,
  // timestep t on stream t mod num_threads (core/executor/multi_stream_executor.h).
  return reg.Kernel<RecurrentNetworkKernel>("RecurrentNetwork", {"CUDA", "", 0, {}});
}

}  // namespace rnn
}  // namespace loom
