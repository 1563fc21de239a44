#include "plugins/rnn/builder.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace loom {
namespace rnn {
namespace {

OperatorDef* AddOp(NetDef* net, const std::string& type, const std::string& name, std::vector<std::string> in,
                   std::vector<std::string> out) {
  OperatorDef* op = net->add_op();
  op->set_type(type);
  op->set_name(name);
  for (auto& i : in) op->add_input(i);
  for (auto& o : out) op->add_output(o);
  return op;
}

void Arg(OperatorDef* op, const std::string& name, int64_t v) {
  Argument* a = op->add_arg();
  a->set_name(name);
  a->set_i(v);
}

void Strings(OperatorDef* op, const std::string& name, const std::vector<std::string>& v) {
  Argument* a = op->add_arg();
  a->set_name(name);
  for (const auto& s : v) a->add_strings(s);
}

void Ints(OperatorDef* op, const std::string& name, const std::vector<int64_t>& v) {
  Argument* a = op->add_arg();
  a->set_name(name);
  for (int64_t x : v) a->add_ints(x);
}

}  // namespace

absl::StatusOr<OperatorDef> BuildRecurrentNetwork(const RecurrentNetSpec& spec) {
  if (spec.inputs.empty()) return absl::InvalidArgumentError(absl::StrCat("recurrent net '", spec.name, "': no sequence input"));
  std::set<std::string> scoped{spec.timestep};
  for (const auto& s : spec.inputs) scoped.insert(s.internal);
  for (const auto& s : spec.states) scoped.insert(s.read);
  for (const auto& p : spec.params) scoped.insert(p);
  std::set<std::string> written;
  for (const OperatorDef& op : spec.cell_net.op()) {
    for (const std::string& in : op.input()) {
      if (!in.empty() && !written.count(in) && !scoped.count(in)) {
        return absl::InvalidArgumentError(absl::StrCat("recurrent net '", spec.name, "': cell op '", op.name(),
                                                       "' reads '", in,
                                                       "', which is neither produced earlier in the cell, a sequence "
                                                       "input, a state, the timestep nor a declared param"));
      }
    }
    for (const std::string& o : op.output()) written.insert(o);
  }
  for (const std::string& in : spec.cell_net.external_input()) {
    if (!scoped.count(in)) {
      return absl::InvalidArgumentError(absl::StrCat("recurrent net '", spec.name, "': cell external input '", in,
                                                     "' is not scoped (sequence input, state, timestep) or declared as a param"));
    }
  }
  for (const auto& s : spec.states) {
    if (!written.count(s.write)) {
      return absl::InvalidArgumentError(absl::StrCat("recurrent net '", spec.name, "': state '", s.name,
                                                     "' is not linked: no cell op writes '", s.write, "'"));
    }
  }
  OperatorDef op;
  op.set_type("RecurrentNetwork");
  op.set_name(spec.name);
  std::vector<int64_t> initial_ids;
  for (const auto& s : spec.inputs) op.add_input(s.external);
  for (const auto& s : spec.states) {
    initial_ids.push_back(op.input_size());
    op.add_input(s.initial);
  }
  for (const auto& p : spec.params) op.add_input(p);
  std::vector<std::string> state_names, li, le, ad, as;
  std::vector<int64_t> lo, lw, ao;
  for (const auto& s : spec.states) {
    op.add_output(s.name);
    state_names.push_back(s.name);
    li.insert(li.end(), {s.read, s.write});
    le.insert(le.end(), {s.name, s.name});
    lo.insert(lo.end(), {0, 1});
    lw.insert(lw.end(), {1, 1});
  }
  for (const auto& s : spec.inputs) {
    li.push_back(s.internal);
    le.push_back(s.external);
    lo.push_back(0);
    lw.push_back(1);
  }
  for (const auto& a : spec.aliases) {
    op.add_output(a.output);
    as.push_back(a.state);
    ad.push_back(a.output);
    ao.push_back(a.offset);
  }
  NetDef step = spec.cell_net;
  step.set_name(absl::StrCat(spec.name, "_step"));
  std::set<std::string> declared(step.external_input().begin(), step.external_input().end());
  for (const std::string& s : scoped) {
    if (!declared.count(s) && s != spec.timestep) step.add_external_input(s);
  }
  Argument* net_arg = op.add_arg();
  net_arg->set_name("step_net");
  *net_arg->mutable_n() = step;
  Strings(&op, "recurrent_states", state_names);
  Ints(&op, "initial_recurrent_state_ids", initial_ids);
  Strings(&op, "link_internal", li);
  Strings(&op, "link_external", le);
  Ints(&op, "link_offset", lo);
  Ints(&op, "link_window", lw);
  if (!as.empty()) {
    Strings(&op, "alias_src", as);
    Strings(&op, "alias_dst", ad);
    Ints(&op, "alias_offset", ao);
  }
  Argument* ts = op.add_arg();
  ts->set_name("timestep");
  ts->set_s(spec.timestep);
  Arg(&op, "reverse", spec.reverse ? 1 : 0);
  Arg(&op, "rnn_executor", spec.use_threaded_executor ? 1 : 0);
  Arg(&op, "num_threads", spec.num_threads);
  Arg(&op, "max_parallel_timesteps", spec.max_parallel_timesteps);
  Arg(&op, "forward_only", spec.forward_only ? 1 : 0);
  return op;
}

void AddLstmCell(NetDef* cell, const std::string& p, const std::string& x_t, const std::string& h_prev,
                 const std::string& c_prev, const LstmWeights& w, const std::string& h_next, const std::string& c_next,
                 bool fused, const std::string& seq_lengths, const std::string& timestep) {
  AddOp(cell, "MatMul", p + "xw", {x_t, w.w}, {p + "xw"});
  AddOp(cell, "MatMul", p + "hr", {h_prev, w.r}, {p + "hr"});
  AddOp(cell, "Add", p + "sum", {p + "xw", p + "hr"}, {p + "sum"});
  AddOp(cell, "Add", p + "gates", {p + "sum", w.b}, {p + "gates"});
  if (fused) {
    std::vector<std::string> in = {h_prev, c_prev, p + "gates"};
    if (!seq_lengths.empty()) in.insert(in.end(), {seq_lengths, timestep});
    AddOp(cell, "LSTMUnit", p + "unit", in, {h_next, c_next});
    return;
  }
  OperatorDef* split = AddOp(cell, "Split", p + "split", {p + "gates"}, {p + "i", p + "f", p + "o", p + "g"});
  Arg(split, "axis", -1);
  AddOp(cell, "Sigmoid", p + "si", {p + "i"}, {p + "si"});
  AddOp(cell, "Sigmoid", p + "sf", {p + "f"}, {p + "sf"});
  AddOp(cell, "Sigmoid", p + "so", {p + "o"}, {p + "so"});
  AddOp(cell, "Tanh", p + "tg", {p + "g"}, {p + "tg"});
  AddOp(cell, "Mul", p + "fc", {p + "sf", c_prev}, {p + "fc"});
  AddOp(cell, "Mul", p + "ig", {p + "si", p + "tg"}, {p + "ig"});
  AddOp(cell, "Add", p + "c", {p + "fc", p + "ig"}, {c_next});
  AddOp(cell, "Tanh", p + "tc", {c_next}, {p + "tc"});
  AddOp(cell, "Mul", p + "h", {p + "so", p + "tc"}, {h_next});
}

void AddGruCell(NetDef* cell, const std::string& p, const std::string& x_t, const std::string& h_prev, const GruWeights& w,
                const std::string& h_next, bool linear_before_reset, bool fused) {
  AddOp(cell, "MatMul", p + "xw", {x_t, w.w}, {p + "xw"});
  AddOp(cell, "Add", p + "xwb", {p + "xw", w.b}, {p + "xwb"});
  Arg(AddOp(cell, "Split", p + "xsplit", {p + "xwb"}, {p + "xr", p + "xz", p + "xn"}), "axis", -1);
  AddOp(cell, "MatMul", p + "hrz", {h_prev, w.r_rz}, {p + "hrz"});
  Arg(AddOp(cell, "Split", p + "hsplit", {p + "hrz"}, {p + "hr", p + "hz"}), "axis", -1);
  AddOp(cell, "Add", p + "r_pre", {p + "xr", p + "hr"}, {p + "r_pre"});
  AddOp(cell, "Add", p + "z_pre", {p + "xz", p + "hz"}, {p + "z_pre"});
  AddOp(cell, "Sigmoid", p + "r", {p + "r_pre"}, {p + "r"});
  if (linear_before_reset) {
    AddOp(cell, "MatMul", p + "hn", {h_prev, w.r_n}, {p + "hn"});
    AddOp(cell, "Add", p + "hnb", {p + "hn", w.b_rn}, {p + "hnb"});
    AddOp(cell, "Mul", p + "rec", {p + "r", p + "hnb"}, {p + "rec"});
  } else {
    AddOp(cell, "Mul", p + "rh", {p + "r", h_prev}, {p + "rh"});
    AddOp(cell, "MatMul", p + "rhn", {p + "rh", w.r_n}, {p + "rhn"});
    AddOp(cell, "Add", p + "rec", {p + "rhn", w.b_rn}, {p + "rec"});
  }
  AddOp(cell, "Add", p + "n_pre", {p + "xn", p + "rec"}, {p + "n_pre"});
  if (fused) {
    // GRUUnit applies the sigmoid to z and the tanh to n; r only fills its slot.
    Arg(AddOp(cell, "Concat", p + "gates", {p + "r_pre", p + "z_pre", p + "n_pre"}, {p + "gates"}), "axis", -1);
    AddOp(cell, "GRUUnit", p + "unit", {h_prev, p + "gates"}, {h_next});
    return;
  }
  AddOp(cell, "Sigmoid", p + "z", {p + "z_pre"}, {p + "z"});
  AddOp(cell, "Tanh", p + "n", {p + "n_pre"}, {p + "n"});
  AddOp(cell, "Sub", p + "hmn", {h_prev, p + "n"}, {p + "hmn"});
  AddOp(cell, "Mul", p + "zhmn", {p + "z", p + "hmn"}, {p + "zhmn"});
  AddOp(cell, "Add", p + "h", {p + "n", p + "zhmn"}, {h_next});
}

void AddRnnCell(NetDef* cell, const std::string& p, const std::string& x_t, const std::string& h_prev, const RnnWeights& w,
                const std::string& h_next, RnnActivation act) {
  AddOp(cell, "MatMul", p + "xw", {x_t, w.w}, {p + "xw"});
  AddOp(cell, "MatMul", p + "hr", {h_prev, w.r}, {p + "hr"});
  AddOp(cell, "Add", p + "sum", {p + "xw", p + "hr"}, {p + "sum"});
  AddOp(cell, "Add", p + "pre", {p + "sum", w.b}, {p + "pre"});
  AddOp(cell, act == RnnActivation::kRelu ? "Relu" : "Tanh", p + "act", {p + "pre"}, {h_next});
}

absl::StatusOr<OperatorDef> BuildStackedLstm(const std::string& name, const std::string& input,
                                             const std::vector<LstmWeights>& weights,
                                             const std::vector<std::string>& h0, const std::vector<std::string>& c0,
                                             const std::string& output, bool reverse, bool threaded, int num_threads,
                                             int max_parallel_timesteps, bool fused, bool forward_only,
                                             const std::string& seq_lengths) {
  const size_t L = weights.size();
  if (L == 0 || h0.size() != L || c0.size() != L) {
    return absl::InvalidArgumentError(absl::StrCat("stacked LSTM '", name, "': need one weight set, h0 and c0 per layer; found ",
                                                   L, ", ", h0.size(), ", ", c0.size()));
  }
  if (!seq_lengths.empty() && !fused) {
    return absl::InvalidArgumentError(absl::StrCat("stacked LSTM '", name, "': sequence lengths need the fused LSTMUnit cell"));
  }
  RecurrentNetSpec spec;
  spec.name = name;
  spec.forward_only = forward_only;
  spec.inputs.push_back({input, "x_t"});
  spec.reverse = reverse;
  spec.use_threaded_executor = threaded;
  spec.num_threads = num_threads;
  spec.max_parallel_timesteps = max_parallel_timesteps;
  for (size_t l = 0; l < L; ++l) {
    std::string hl = absl::StrCat(output, "_h", l), cl = absl::StrCat(output, "_c", l);
    std::string below = l == 0 ? "x_t" : absl::StrCat("h", l - 1, "_next");
    AddLstmCell(&spec.cell_net, absl::StrCat("l", l, "_"), below, absl::StrCat("h", l, "_prev"), absl::StrCat("c", l, "_prev"),
                weights[l], absl::StrCat("h", l, "_next"), absl::StrCat("c", l, "_next"), fused, seq_lengths,
                spec.timestep);
    spec.states.push_back({hl, h0[l], absl::StrCat("h", l, "_prev"), absl::StrCat("h", l, "_next")});
    spec.states.push_back({cl, c0[l], absl::StrCat("c", l, "_prev"), absl::StrCat("c", l, "_next")});
    spec.params.insert(spec.params.end(), {weights[l].w, weights[l].r, weights[l].b});
  }
  if (!seq_lengths.empty()) spec.params.push_back(seq_lengths);
  std::string top = absl::StrCat(output, "_h", L - 1);
  spec.aliases.push_back({top, output + "_all", 1});
  spec.aliases.push_back({top, output + "_last", -1});
  return BuildRecurrentNetwork(spec);
}

}  // namespace rnn
}  // namespace loom
