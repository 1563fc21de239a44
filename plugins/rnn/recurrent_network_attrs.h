// What RecurrentNetwork (recurrent_network.cc) and RecurrentNetworkGradient
// (recurrent_network_gradient.cc) share: Caffe2's RecurrentNetwork
// attributes, read and checked once, their schema declarations, and the
// names of the gradient's links inside the step workspaces.
#ifndef LOOM_PLUGINS_RNN_RECURRENT_NETWORK_ATTRS_H_
#define LOOM_PLUGINS_RNN_RECURRENT_NETWORK_ATTRS_H_

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/api/loom_sdk.h"

namespace loom {
namespace rnn {

// link (internal, external, offset, window): at timestep t, `internal` is
// rows [t + offset, t + offset + window) of `external`.
struct Link {
  std::string internal, external;
  int64_t offset = 0, window = 1;
};

// A recurrent state's links: the step net reads row t as `read` (offset
// 0) and writes row t + 1 as `written` (offset 1).
struct StateLinks {
  std::string state;
  std::vector<std::string> read, written;
};

struct RecurrentNetworkAttrs {
  std::string label, step_net, timestep;
  std::vector<std::string> states, alias_src, alias_dst;
  std::vector<std::string> recompute;  // recompute_blobs_on_backward
  std::vector<int64_t> initial_ids, alias_offset;
  std::vector<Link> links;
  bool forward_only = true, reverse = false;
  int threads = 0, parallel = 1;  // threads 0: timesteps in order
  std::map<std::string, size_t> input_index, output_index;

  // Reads and checks the attributes of `info` (RecurrentNetwork's, or its
  // gradient's copy of them); INVALID_ARGUMENT naming the op otherwise.
  sdk::Status Read(const sdk::KernelInfo& info, const std::string& op_label) {
    label = op_label;
    LOOM_SDK_RETURN_IF_ERROR(info.GetNetBytes("step_net", &step_net));
    LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("recurrent_states", &states));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("initial_recurrent_state_ids", &initial_ids));
    std::vector<std::string> li, le;
    std::vector<int64_t> lo, lw;
    LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("link_internal", &li));
    LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("link_external", &le));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("link_offset", &lo));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("link_window", &lw));
    LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("alias_src", &alias_src));
    LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("alias_dst", &alias_dst));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInts("alias_offset", &alias_offset));
    LOOM_SDK_RETURN_IF_ERROR(info.GetString("timestep", &timestep));
    LOOM_SDK_RETURN_IF_ERROR(info.GetStrings("recompute_blobs_on_backward", &recompute));
    int64_t fwd_only = 1, rev = 0, use_executor = 1, num_threads = 2, max_parallel = 2;
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("forward_only", &fwd_only));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("reverse", &rev));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("rnn_executor", &use_executor));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("num_threads", &num_threads));
    LOOM_SDK_RETURN_IF_ERROR(info.GetInt("max_parallel_timesteps", &max_parallel));
    forward_only = fwd_only != 0;
    reverse = rev != 0;
    threads = use_executor ? static_cast<int>(std::max<int64_t>(1, num_threads)) : 0;
    parallel = static_cast<int>(std::max<int64_t>(1, max_parallel));
    if (li.size() != le.size() || li.size() != lo.size() || (!lw.empty() && lw.size() != li.size())) {
      return sdk::InvalidArgument(label + ": link_internal, link_external, link_offset (and link_window) must have equal lengths");
    }
    links.clear();
    for (size_t i = 0; i < li.size(); ++i) links.push_back({li[i], le[i], lo[i], lw.empty() ? 1 : lw[i]});
    if (states.size() != initial_ids.size()) {
      return sdk::InvalidArgument(label + ": recurrent_states and initial_recurrent_state_ids must have equal lengths");
    }
    if (alias_src.size() != alias_dst.size() || alias_src.size() != alias_offset.size()) {
      return sdk::InvalidArgument(label + ": alias_src, alias_dst, alias_offset must have equal lengths");
    }
    input_index.clear();
    output_index.clear();
    for (size_t i = 0; i < info.num_inputs(); ++i) input_index[info.input_name(i)] = i;
    for (size_t i = 0; i < info.num_outputs(); ++i) output_index[info.output_name(i)] = i;
    return sdk::Status::Ok();
  }

  // Per recurrent state, its read (offset 0) and written (offset 1) links.
  std::vector<StateLinks> StateLinkNames() const {
    std::vector<StateLinks> out;
    for (const std::string& s : states) {
      StateLinks sl{s, {}, {}};
      for (const Link& l : links) {
        if (l.external != s) continue;
        if (l.offset == 0) sl.read.push_back(l.internal);
        if (l.offset == 1) sl.written.push_back(l.internal);
      }
      out.push_back(sl);
    }
    return out;
  }

  bool IsState(const std::string& name) const { return std::find(states.begin(), states.end(), name) != states.end(); }

  // The first row link `l` covers at timestep t of T: t + offset for a
  // state (states fill rows in run order), (reverse ? T - 1 - t : t) +
  // offset for another tensor. The forward and the gradient both use it.
  int64_t LinkRow(const Link& l, int64_t t, int64_t T) const {
    return (reverse && !IsState(l.external) ? T - 1 - t : t) + l.offset;
  }
};

// Declares RecurrentNetwork's attributes on `s` (its schema and its
// gradient's, which copies them).
void DeclareRecurrentNetworkAttrs(sdk::SchemaBuilder& s);

// Names inside the step workspaces of a backward run: the gradient of a
// written state link coming in (row t + 1 of the state's gradient), and the
// accumulator a blob's gradient is added into (RecurrentNetworkGradient).
inline std::string SeedName(const std::string& written) { return "__rnn_seed_" + written; }
inline std::string AccumulatorName(const std::string& blob) { return "__rnn_acc_" + blob; }

}  // namespace rnn
}  // namespace loom

#endif  // LOOM_PLUGINS_RNN_RECURRENT_NETWORK_ATTRS_H_
