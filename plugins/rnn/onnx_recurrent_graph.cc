#include "plugins/rnn/onnx_recurrent_graph.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace loom {
namespace rnn {
namespace {

using nested::ArgSpec;
using nested::IntArg;
using nested::IntsArg;
using nested::NetArg;
using nested::NetSpec;
using nested::OpSpec;
using nested::StringArg;
using nested::StringsArg;
using semantics::RnnActivation;
using semantics::RnnAttrs;
using semantics::RnnCell;

OpSpec Op(std::string type, std::string name, std::vector<std::string> in, std::vector<std::string> out,
          std::vector<ArgSpec> args = {}) {
  return OpSpec{std::move(type), std::move(name), std::move(in), std::move(out), std::move(args)};
}

ArgSpec FloatArg(std::string n, float v) {
  ArgSpec a;
  a.name = std::move(n);
  a.kind = ArgSpec::kFloat;
  a.f = v;
  return a;
}

// Appends ops to one net, with unique blob names.
class Writer {
 public:
  Writer(NetSpec* net, StepConsts* consts, std::string const_prefix)
      : net_(net), consts_(consts), const_prefix_(std::move(const_prefix)) {}

  // Adds `type` over `in` writing `out` (a fresh name when empty); returns out.
  std::string Add(const std::string& type, std::vector<std::string> in, std::string out = "",
                  std::vector<ArgSpec> args = {}) {
    if (out.empty()) out = const_prefix_ + "v" + std::to_string(count_++) + "_" + type;
    net_->ops.push_back(Op(type, out, std::move(in), {out}, std::move(args)));
    return out;
  }
  // An op with several outputs.
  void AddMulti(const std::string& type, std::vector<std::string> in, std::vector<std::string> out,
                std::vector<ArgSpec> args = {}) {
    std::string name = out.front();  // before `out` moves
    net_->ops.push_back(Op(type, std::move(name), std::move(in), std::move(out), std::move(args)));
  }

  // A float scalar [1] blob holding v, made outside the net (a prepared
  // blob, or Constant + CastLike in the graph) and declared as its input.
  std::string Const(float v) {
    std::string name = const_prefix_ + "k" + std::to_string(consts_->size());
    consts_->push_back({name, v});
    net_->external_inputs.push_back(name);
    return name;
  }

  // act(in) as standard ops.
  // The parameters are float32 in the step net (activation_alpha/_beta are
  // float attributes, so the narrowing is exact).
  std::string Act(const RnnActivation& a, const std::string& in, std::string out = "") {
    const float alpha = static_cast<float>(a.alpha), beta = static_cast<float>(a.beta);
    if (a.name == "Affine") return Add("Add", {Add("Mul", {in, Const(alpha)}), Const(beta)}, out);
    if (a.name == "ScaledTanh") return Add("Mul", {Add("Tanh", {Add("Mul", {in, Const(beta)})}), Const(alpha)}, out);
    std::vector<ArgSpec> args;
    if (a.name == "LeakyRelu" || a.name == "ThresholdedRelu" || a.name == "Elu" || a.name == "HardSigmoid") {
      args.push_back(FloatArg("alpha", alpha));
    }
    if (a.name == "HardSigmoid") args.push_back(FloatArg("beta", beta));
    return Add(a.name, {in}, out, args);
  }

  // clip(in) when the op has a clip threshold, else in.
  std::string Clip(const std::string& in, bool has_clip, float clip) {
    if (!has_clip) return in;
    return Add("Clip", {in}, "", {FloatArg("min", -clip), FloatArg("max", clip)});
  }

 private:
  NetSpec* net_;
  StepConsts* consts_;
  std::string const_prefix_;
  int count_ = 0;
};

}  // namespace

NetSpec OnnxStepNet(const RnnAttrs& attrs, const StepConfig& cfg, int64_t d, const std::string& prefix,
                    StepConsts* consts) {
  const std::string s = std::to_string(d);
  auto P = [&](const std::string& name) { return prefix + name + s; };  // a blob of the enclosing workspace
  const char* kName = attrs.cell == RnnCell::kLstm ? "LSTM" : attrs.cell == RnnCell::kGru ? "GRU" : "RNN";
  NetSpec step;
  step.name = std::string(kName) + "_step" + s;
  step.external_inputs = {"x_t", "h_prev", prefix + "seq", "timestep"};
  if (cfg.mask) step.external_inputs.push_back("m_t");
  Writer sw(&step, consts, prefix + "c" + s + "_");
  const RnnActivation* act = &attrs.activations[d * attrs.acts_per_dir];
  const bool has_clip = attrs.has_clip;
  const float clip = attrs.clip;
  // The new state `name`: written as `out` directly, or, with the mask,
  // as `name` and then kept only for entries still inside their sequence.
  auto state = [&](const std::string& name, const std::string& out) { return cfg.mask ? name : out; };
  auto carry = [&](const std::string& name, const std::string& prev, const std::string& out) {
    if (cfg.mask) sw.Add("Where", {"m_t", name, prev}, out);
  };
  // in w^T + b over the last dim ([1, N, K] rows of X, [1, N, K] of a
  // state); `b` "" for none. FC reads w as [G*H, K]; MatMul as [K, G*H].
  auto fc = [&](const std::string& in, const std::string& w, const std::string& b) {
    if (cfg.matmul) {
      const std::string m = sw.Add("MatMul", {in, P(w)});
      return b.empty() ? m : sw.Add("Add", {m, P(b)});
    }
    return sw.Add("FC", {in, P(w), P(b.empty() ? "zero" : b)}, "", {IntArg("axis", -1)});
  };
  // x_t W^T + bias: done before the loop with cfg.hoist_input (x_t is the
  // projected row then).
  const bool hoist = cfg.hoist_input && !cfg.matmul;  // as OnnxRecurrentNetworks decides
  auto xproj = [&](const std::string& b) { return hoist ? std::string("x_t") : fc("x_t", "W", b); };
  // x_t's projection plus h_prev R^T, named `out`: with the projection
  // hoisted, one FC whose Sum input adds x_t's row while the matmul's
  // output is in registers (no pass of its own: 17 us of a 200 us step at
  // N = 32, H = 512); else an Add.
  auto gates = [&](const std::string& out) {
    if (hoist) return sw.Add("FC", {"h_prev", P("R"), P("zero"), "x_t"}, out, {IntArg("axis", -1)});
    return sw.Add("Add", {xproj("b"), fc("h_prev", "R", "")}, out);
  };
  auto inputs = [&](std::vector<std::string> names) {
    for (const std::string& n : names) {
      if (hoist && (n == "W" || n == "Wb" || n == "b")) continue;
      step.external_inputs.push_back(P(n));
    }
  };
  if (attrs.cell != RnnCell::kGru) {
    inputs({"W", "R", "b"});
    if (!cfg.matmul) inputs({"zero"});
  }
  if (attrs.cell == RnnCell::kLstm) {
    step.external_inputs.push_back("c_prev");
    // Gates in ONNX order i, o, f, c.
    const std::string gate_values = gates("gates");
    if (cfg.fused) {
      step.ops.push_back(Op("LSTMUnit", "unit", {"h_prev", "c_prev", gate_values, prefix + "seq", "timestep"},
                            {"h_next", "c_next"}, {StringArg("gate_order", "iofg")}));
      return step;
    }
    sw.AddMulti("Split", {gate_values}, {"gi", "go", "gf", "gc"}, {IntArg("axis", -1), IntArg("num_outputs", 4)});
    if (cfg.peepholes) inputs({"Pi", "Po", "Pf"});
    auto peep = [&](const std::string& g, const std::string& p, const std::string& c) {
      return cfg.peepholes ? sw.Add("Add", {g, sw.Add("Mul", {P(p), c})}) : g;
    };
    const std::string i = sw.Act(act[0], sw.Clip(peep("gi", "Pi", "c_prev"), has_clip, clip), "i");
    const std::string f = attrs.input_forget ? sw.Add("Sub", {sw.Const(1.0f), i}, "f")
                                             : sw.Act(act[0], sw.Clip(peep("gf", "Pf", "c_prev"), has_clip, clip), "f");
    const std::string g = sw.Act(act[1], sw.Clip("gc", has_clip, clip), "g");
    const std::string c = sw.Add("Add", {sw.Add("Mul", {f, "c_prev"}), sw.Add("Mul", {i, g})}, state("c", "c_next"));
    const std::string o = sw.Act(act[0], sw.Clip(peep("go", "Po", c), has_clip, clip), "o");
    const std::string h = sw.Add("Mul", {o, sw.Act(act[2], c)}, state("h", "h_next"));
    carry(h, "h_prev", "h_next");
    carry(c, "c_prev", "c_next");
    return step;
  }
  if (attrs.cell == RnnCell::kRnn) {
    const std::string pre = gates("pre");
    carry(sw.Act(act[0], sw.Clip(pre, has_clip, clip), state("h", "h_next")), "h_prev", "h_next");
    return step;
  }
  // GRU: ONNX gates z, r, h.
  inputs({"W", "Wb", "Rzr", "Rbzr", "Rh", "Rbh"});
  sw.AddMulti("Split", {xproj("Wb")}, {"xz", "xr", "xh"}, {IntArg("axis", -1), IntArg("num_outputs", 3)});
  sw.AddMulti("Split", {fc("h_prev", "Rzr", "Rbzr")}, {"hz", "hr"}, {IntArg("axis", -1), IntArg("num_outputs", 2)});
  const std::string z_pre = sw.Add("Add", {"xz", "hz"}, "z_pre"), r_pre = sw.Add("Add", {"xr", "hr"}, "r_pre");
  const std::string r = sw.Act(act[0], sw.Clip(r_pre, has_clip, clip), "r");
  std::string rec;  // the candidate's recurrent term
  if (attrs.linear_before_reset) {
    rec = sw.Add("Mul", {r, fc("h_prev", "Rh", "Rbh")});
  } else {
    rec = fc(sw.Add("Mul", {r, "h_prev"}), "Rh", "Rbh");
  }
  const std::string n_pre = sw.Add("Add", {"xh", rec}, "n_pre");
  if (cfg.fused) {
    // GRUUnit reads z and n (r only fills its slot).
    const std::string gates = sw.Add("Concat", {r_pre, z_pre, n_pre}, "gates", {IntArg("axis", -1)});
    step.ops.push_back(Op("GRUUnit", "unit", {"h_prev", gates, prefix + "seq", "timestep"}, {"h_next"}));
    return step;
  }
  const std::string z = sw.Act(act[0], sw.Clip(z_pre, has_clip, clip), "z");
  const std::string n = sw.Act(act[1], sw.Clip(n_pre, has_clip, clip), "n");
  const std::string h = sw.Add(
      "Add", {sw.Add("Mul", {sw.Add("Sub", {sw.Const(1.0f), z}), n}), sw.Add("Mul", {z, "h_prev"})}, state("h", "h_next"));
  carry(h, "h_prev", "h_next");
  return step;
}

NetSpec OnnxRecurrentNetworks(const RnnAttrs& attrs, const StepConfig& cfg, const std::string& prefix,
                              bool forward_only, StepConsts* consts) {
  const bool lstm = attrs.cell == RnnCell::kLstm;
  const char* kName = lstm ? "LSTM" : attrs.cell == RnnCell::kGru ? "GRU" : "RNN";
  NetSpec net;
  net.name = std::string(kName) + "_expanded";
  const std::string X = prefix + "X", seq = prefix + "seq", M = prefix + "M";
  net.external_inputs = {X, seq};
  if (cfg.mask) net.external_inputs.push_back(M);
  // Blobs of the enclosing workspace the nets read: declared as inputs
  // unless they are constant (cfg.constant_weights), which makes them the
  // nets' constants.
  auto param = [&](const std::string& name) {
    if (!cfg.constant_weights) net.external_inputs.push_back(name);
  };
  const bool hoist = cfg.hoist_input && !cfg.matmul;
  for (int64_t d = 0; d < attrs.num_directions; ++d) {
    const std::string s = std::to_string(d);
    NetSpec step = OnnxStepNet(attrs, cfg, d, prefix, consts);
    // The input projection of every timestep as one FC: XW<d> [T, N, G*H].
    std::string xs = X;
    if (hoist) {
      xs = prefix + "XW" + s;
      const std::string b = prefix + (attrs.cell == RnnCell::kGru ? "Wb" : "b") + s;
      net.ops.push_back(Op("FC", xs, {X, prefix + "W" + s, b}, {xs}, {IntArg("axis", 2)}));
      param(prefix + "W" + s);
      param(b);
    }
    OpSpec rn;
    rn.type = "RecurrentNetwork";
    rn.name = prefix + kName + "_dir" + s;
    rn.inputs = {xs, prefix + "h0_" + s};
    rn.outputs = {prefix + "H" + s};
    std::vector<std::string> states = {prefix + "H" + s}, li = {"h_prev", "h_next", "x_t"},
                             le = {prefix + "H" + s, prefix + "H" + s, xs};
    std::vector<int64_t> ids = {1}, lo = {0, 1, 0};
    if (lstm) {
      rn.inputs.push_back(prefix + "c0_" + s);
      rn.outputs.push_back(prefix + "C" + s);
      states.push_back(prefix + "C" + s);
      ids.push_back(2);
      li.insert(li.end(), {"c_prev", "c_next"});
      le.insert(le.end(), {prefix + "C" + s, prefix + "C" + s});
      lo.insert(lo.end(), {0, 1});
    }
    if (cfg.mask) {  // read like X: row T-1-t when reverse
      li.push_back("m_t");
      le.push_back(M);
      lo.push_back(0);
    }
    const size_t first_param = rn.inputs.size();
    for (const std::string& in : step.external_inputs) {
      if (in != "x_t" && in != "h_prev" && in != "c_prev" && in != "timestep" && in != seq && in != "m_t") {
        rn.inputs.push_back(in);
      }
    }
    for (size_t i = first_param; i < rn.inputs.size(); ++i) {
      // The step net's scalar constants (k<i>) are inputs either way.
      if (rn.inputs[i].rfind(prefix + "c" + s + "_k", 0) == 0) {
        net.external_inputs.push_back(rn.inputs[i]);
      } else {
        param(rn.inputs[i]);
      }
    }
    rn.inputs.push_back(seq);
    if (cfg.mask) rn.inputs.push_back(M);
    const bool reverse = attrs.reverse || d == 1;
    rn.args = {NetArg("step_net", step),
               StringsArg("recurrent_states", states),
               IntsArg("initial_recurrent_state_ids", ids),
               StringsArg("link_internal", li),
               StringsArg("link_external", le),
               IntsArg("link_offset", lo),
               IntsArg("link_window", std::vector<int64_t>(lo.size(), 1)),
               IntArg("reverse", reverse ? 1 : 0),
               IntArg("forward_only", forward_only ? 1 : 0),
               IntArg("rnn_executor", 0)};
    net.external_inputs.push_back(prefix + "h0_" + s);
    if (lstm) net.external_inputs.push_back(prefix + "c0_" + s);
    net.ops.push_back(rn);
  }
  return net;
}

NetSpec OnnxRecurrentGraph(const RnnAttrs& attrs, const std::vector<std::string>& inputs, const std::string& prefix,
                           bool forward_only, std::vector<std::string>* outputs) {
  const bool lstm = attrs.cell == RnnCell::kLstm, gru = attrs.cell == RnnCell::kGru;
  auto has = [&](size_t k) { return k < inputs.size() && !inputs[k].empty(); };
  bool default_acts = true;
  for (size_t i = 0; i < attrs.activations.size(); ++i) {
    default_acts = default_acts && attrs.activations[i].name == (i % attrs.acts_per_dir == 0 ? "Sigmoid" : "Tanh");
  }
  StepConfig cfg;
  cfg.matmul = true;
  cfg.fused = lstm ? default_acts && !attrs.has_clip && !attrs.input_forget && !has(7)
              : gru ? default_acts && !attrs.has_clip
                    : false;
  cfg.peepholes = lstm && has(7) && !cfg.fused;
  cfg.mask = has(4) && !cfg.fused;
  const int64_t D = attrs.num_directions;

  NetSpec net;
  net.name = prefix + "graph";
  StepConsts consts;
  Writer w(&net, &consts, prefix);
  auto p = [&](const std::string& name) { return prefix + name; };
  auto ints = [&](std::vector<int64_t> v) {
    std::string out = w.Add("Constant", {});
    net.ops.back().args = {IntsArg("value_ints", std::move(v))};
    return out;
  };
  const std::string axis0 = ints({0});
  // The op's inputs under names of this graph, so their gradients are
  // named from `prefix` too.
  std::vector<std::string> in(8);
  for (size_t k = 0; k < 8; ++k) {
    if (has(k) && k != 4) in[k] = w.Add("Identity", {inputs[k]}, p("in" + std::to_string(k)));
  }
  const std::string X = p("X");
  if (attrs.batch_major) {
    w.Add("Transpose", {in[0]}, X, {IntsArg("perm", {1, 0, 2})});
  } else {
    w.Add("Identity", {in[0]}, X);
  }
  const std::string like = X;  // the dtype of every float blob made here
  auto zeros = [&](const std::string& shape, const std::string& out) {
    return w.Add("CastLike", {w.Add("ConstantOfShape", {shape}), like}, out);
  };
  auto rows = [&](const std::string& t) { return w.Add("Shape", {t}, "", {IntArg("start", 0), IntArg("end", 1)}); };
  // Per direction: src [D, ...] split on axis 0 into [...] each.
  auto per_direction = [&](const std::string& src, const std::string& name) {
    std::vector<std::string> parts, out;
    for (int64_t d = 0; d < D; ++d) parts.push_back(p(name + "_split" + std::to_string(d)));
    w.AddMulti("Split", {src}, parts, {IntArg("axis", 0), IntArg("num_outputs", D)});
    for (int64_t d = 0; d < D; ++d) out.push_back(w.Add("Squeeze", {parts[d], axis0}, p(name + "_d" + std::to_string(d))));
    return out;
  };
  auto transpose = [&](const std::string& t, const std::string& out) {
    return w.Add("Transpose", {t}, out, {IntsArg("perm", {1, 0})});
  };
  auto split = [&](const std::string& t, int n, std::vector<std::string> out) {
    w.AddMulti("Split", {t}, out, {IntArg("axis", 0), IntArg("num_outputs", n)});
    return out;
  };
  const std::vector<std::string> Wd = per_direction(in[1], "Wd"), Rd = per_direction(in[2], "Rd");
  std::vector<std::string> Bd;
  if (has(3)) Bd = per_direction(in[3], "Bd");
  for (int64_t d = 0; d < D; ++d) {
    const std::string s = std::to_string(d);
    transpose(Wd[d], p("W" + s));
    std::string wb, rb;  // [G*H] each
    if (has(3)) {
      split(Bd[d], 2, {p("wb" + s), p("rb" + s)});
      wb = p("wb" + s);
      rb = p("rb" + s);
    }
    if (!gru) {
      transpose(Rd[d], p("R" + s));
      if (has(3)) {
        w.Add("Add", {wb, rb}, p("b" + s));
      } else {
        zeros(rows(Wd[d]), p("b" + s));
      }
      continue;
    }
    const std::vector<std::string> r = split(Rd[d], 3, {p("rz" + s), p("rr" + s), p("rh" + s)});
    const std::string rzr = w.Add("Concat", {r[0], r[1]}, p("rzr" + s), {IntArg("axis", 0)});
    transpose(rzr, p("Rzr" + s));
    transpose(r[2], p("Rh" + s));
    if (has(3)) {
      w.Add("Identity", {wb}, p("Wb" + s));
      const std::vector<std::string> b = split(rb, 3, {p("rbz" + s), p("rbr" + s), p("Rbh" + s)});
      w.Add("Concat", {b[0], b[1]}, p("Rbzr" + s), {IntArg("axis", 0)});
    } else {
      zeros(rows(Wd[d]), p("Wb" + s));
      zeros(rows(rzr), p("Rbzr" + s));
      zeros(rows(r[2]), p("Rbh" + s));
    }
  }
  if (cfg.peepholes) {
    const std::vector<std::string> Pd = per_direction(in[7], "Pd");
    for (int64_t d = 0; d < D; ++d) {
      const std::string s = std::to_string(d);
      split(Pd[d], 3, {p("Pi" + s), p("Po" + s), p("Pf" + s)});  // ONNX order i, o, f
    }
  }
  // Initial states [N, H] per direction (so the states are [T + 1, N, H]):
  // initial_h/_c [D, N, H] (layout 1: [N, D, H]) split, or zeros.
  std::string state_zeros;
  auto initial = [&](size_t k, const std::string& name) {
    if (has(k)) {
      std::string src = in[k];
      if (attrs.batch_major) src = w.Add("Transpose", {src}, "", {IntsArg("perm", {1, 0, 2})});
      const std::vector<std::string> parts = per_direction(src, name + "d");
      for (int64_t d = 0; d < D; ++d) w.Add("Identity", {parts[d]}, p(name + std::to_string(d)));
      return;
    }
    if (state_zeros.empty()) {
      const std::string n = w.Add("Shape", {X}, "", {IntArg("start", 1), IntArg("end", 2)});
      const std::string h = w.Add("Shape", {in[2]}, "", {IntArg("start", 2), IntArg("end", 3)});
      const std::string shape = w.Add("Concat", {n, h}, "", {IntArg("axis", 0)});
      state_zeros = zeros(shape, p("state_zeros"));
    }
    for (int64_t d = 0; d < D; ++d) w.Add("Identity", {state_zeros}, p(name + std::to_string(d)));
  };
  initial(5, "h0_");
  if (lstm) initial(6, "c0_");
  // seq [N] int32: sequence_lens, or T for every entry; M [T, N, 1]: t < seq.
  const std::string T = rows(X), N = w.Add("Shape", {X}, "", {IntArg("start", 1), IntArg("end", 2)});
  std::string mask_f;  // [T, N, 1] of X's dtype
  if (has(4)) {
    w.Add("Cast", {inputs[4]}, p("seq"), {IntArg("to", 6)});
    const std::string lens = w.Add("Cast", {inputs[4]}, "", {IntArg("to", 7)});
    const std::string zero = w.Add("Constant", {});
    net.ops.back().args = {IntArg("value_int", 0)};
    const std::string one = w.Add("Constant", {});
    net.ops.back().args = {IntArg("value_int", 1)};
    const std::string t = w.Add("Range", {zero, w.Add("Squeeze", {T, axis0}), one});
    const std::string less = w.Add("Less", {w.Add("Unsqueeze", {t, ints({1})}), w.Add("Unsqueeze", {lens, axis0})});
    w.Add("Unsqueeze", {less, ints({2})}, p("M"));
    mask_f = w.Add("CastLike", {p("M"), like});
  } else {
    w.Add("Expand", {w.Add("Cast", {T}, "", {IntArg("to", 6)}), N}, p("seq"));
  }
  // The recurrent networks (their constants first).
  NetSpec rns = OnnxRecurrentNetworks(attrs, cfg, prefix, forward_only, &consts);
  for (const auto& [name, v] : consts) {
    const std::string f = w.Add("Constant", {});  // [1]: RecurrentNetworkGradient accumulates over rows
    ArgSpec value;
    value.name = "value_floats";
    value.kind = ArgSpec::kFloats;
    value.floats = {v};
    net.ops.back().args = {value};
    w.Add("CastLike", {f, like}, name);
  }
  for (OpSpec& op : rns.ops) net.ops.push_back(std::move(op));
  // Y [T, D, N, H] from the states' rows 1..T (reverse: T..1, so that row
  // t of Y is input row t's), zeroed past each entry's end; Y_h, Y_c the
  // last rows (every cell carries the state past the end).
  const int64_t kEnd = std::numeric_limits<int64_t>::max();
  const std::string first = ints({1}), end = ints({kEnd}), last = ints({-1}), zero_row = ints({0}), back = ints({-1});
  std::vector<std::string> ys, hs, cs;
  for (int64_t d = 0; d < D; ++d) {
    const std::string s = std::to_string(d);
    const bool reverse = attrs.reverse || d == 1;
    std::string y = reverse ? w.Add("Slice", {p("H" + s), last, zero_row, axis0, back})
                            : w.Add("Slice", {p("H" + s), first, end, axis0});
    if (!mask_f.empty()) y = w.Add("Mul", {y, mask_f});
    ys.push_back(w.Add("Unsqueeze", {y, ints({1})}));
    hs.push_back(w.Add("Slice", {p("H" + s), last, end, axis0}));
    if (lstm) cs.push_back(w.Add("Slice", {p("C" + s), last, end, axis0}));
  }
  auto gather = [&](const std::vector<std::string>& parts, int64_t axis, std::vector<int64_t> perm, const std::string& out) {
    std::string t = parts.size() == 1 ? parts[0] : w.Add("Concat", parts, "", {IntArg("axis", axis)});
    if (attrs.batch_major) return w.Add("Transpose", {t}, out, {IntsArg("perm", std::move(perm))});
    return w.Add("Identity", {t}, out);
  };
  outputs->clear();
  outputs->push_back(gather(ys, 1, {2, 0, 1, 3}, p("Y")));    // layout 1: [N, T, D, H]
  outputs->push_back(gather(hs, 0, {1, 0, 2}, p("Y_h")));     // layout 1: [N, D, H]
  if (lstm) outputs->push_back(gather(cs, 0, {1, 0, 2}, p("Y_c")));
  net.external_inputs.clear();
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (has(k)) net.external_inputs.push_back(inputs[k]);
  }
  net.external_outputs = *outputs;
  return net;
}

}  // namespace rnn
}  // namespace loom
