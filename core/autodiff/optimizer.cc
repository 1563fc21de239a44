#include "core/autodiff/optimizer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"

namespace loom {

absl::Status AddOptimizer(const BackwardResult& backward, const OptimizerOptions& options, NetDef* net) {
  std::vector<std::string> suffixes;
  if (options.type == "Momentum") suffixes = {"_momentum"};
  else if (options.type == "Adam") suffixes = {"_adam_v", "_adam_h"};
  else if (options.type == "Adagrad") suffixes = {"_adagrad_h"};
  else return absl::InvalidArgumentError(absl::StrCat("AddOptimizer: unknown optimizer '", options.type,
                                                      "'; expected Momentum, Adam or Adagrad"));
  std::map<std::string, const TensorProto*> inits;
  for (const TensorProto& t : net->initializer()) inits[t.name()] = &t;
  std::set<std::string> blobs(net->external_input().begin(), net->external_input().end());
  for (const TensorProto& t : net->initializer()) blobs.insert(t.name());
  for (const OperatorDef& op : net->op()) blobs.insert(op.output().begin(), op.output().end());
  std::vector<std::string> params, grads;
  for (const auto& [param, grad] : backward.gradients) {
    if (!inits.count(param)) {
      return absl::InvalidArgumentError(absl::StrCat("AddOptimizer: parameter '", param,
                                                     "' is not an initializer of the net (its shape sizes the state)"));
    }
    const int dt = inits[param]->data_type();
    if (dt != 1 && dt != 11) {
      return absl::InvalidArgumentError(absl::StrCat("AddOptimizer: parameter '", param,
                                                     "' must be float32 or float64 (ONNX data type 1 or 11); found ", dt));
    }
    for (const std::string& suffix : suffixes) {
      if (blobs.count(param + suffix)) {
        return absl::InvalidArgumentError(absl::StrCat("AddOptimizer: the state name '", param + suffix,
                                                       "' is already a blob of the net"));
      }
    }
    params.push_back(param);
    grads.push_back(grad);
  }
  if (params.empty()) return absl::OkStatus();
  // The states, zeros of the parameters' shapes and dtypes.
  std::vector<std::vector<std::string>> states(suffixes.size());
  for (size_t s = 0; s < suffixes.size(); ++s) {
    for (const std::string& p : params) {
      const TensorProto& like = *inits[p];
      TensorProto* z = net->add_initializer();
      z->set_name(p + suffixes[s]);
      z->set_data_type(like.data_type());
      int64_t n = 1;
      for (int64_t d : like.dims()) {
        z->add_dims(d);
        n *= d;
      }
      if (like.data_type() == 11) {
        for (int64_t i = 0; i < n; ++i) z->add_double_data(0.0);
      } else {
        for (int64_t i = 0; i < n; ++i) z->add_float_data(0.0f);
      }
      states[s].push_back(z->name());
    }
  }
  if (options.max_gradient_norm > 0) {
    const int dt = inits[params[0]]->data_type();
    for (const std::string& p : params) {
      if (inits[p]->data_type() != dt) {
        return absl::InvalidArgumentError(absl::StrCat("AddOptimizer: clipping by global norm needs one dtype; '", p,
                                                       "' differs from '", params[0], "'"));
      }
    }
    auto scalar = [&](const std::string& name, double v) {
      TensorProto* t = net->add_initializer();
      t->set_name(name);
      t->set_data_type(dt);
      if (dt == 11) t->add_double_data(v);
      else t->add_float_data(static_cast<float>(v));
    };
    const std::string pre = "__clip_";
    scalar(pre + "max_norm", options.max_gradient_norm);
    scalar(pre + "eps", 1e-6);
    scalar(pre + "one", 1.0);
    std::vector<std::string> squares;
    auto add = [&](const std::string& type, std::vector<std::string> in, const std::string& out) {
      OperatorDef* o = net->add_op();
      o->set_type(type);
      o->set_name(pre + out);
      for (std::string& i : in) o->add_input(std::move(i));
      o->add_output(out);
      return o;
    };
    for (size_t i = 0; i < grads.size(); ++i) {
      const std::string sq = absl::StrCat(pre, "sq", i);
      Argument* keep = add("ReduceSumSquare", {grads[i]}, sq)->add_arg();
      keep->set_name("keepdims");
      keep->set_i(0);
      squares.push_back(sq);
    }
    add("Sum", squares, pre + "total");
    add("Sqrt", {pre + "total"}, pre + "norm");
    add("Add", {pre + "norm", pre + "eps"}, pre + "denom");
    add("Div", {pre + "max_norm", pre + "denom"}, pre + "ratio");
    add("Min", {pre + "ratio", pre + "one"}, pre + "scale");
    for (std::string& g : grads) {
      const std::string clipped = g + "_clipped";
      add("Mul", {g, pre + "scale"}, clipped);
      g = clipped;
    }
  }
  OperatorDef* op = net->add_op();
  op->set_type(options.type);
  op->set_domain("ai.onnx.preview.training");
  op->set_name(absl::StrCat("__", options.type, "_update"));
  op->add_input(options.learning_rate);
  op->add_input(options.step);
  for (const std::string& p : params) op->add_input(p);
  for (const std::string& g : grads) op->add_input(g);
  for (const auto& group : states) {
    for (const std::string& s : group) op->add_input(s);
  }
  for (const std::string& p : params) op->add_output(p);
  for (const auto& group : states) {
    for (const std::string& s : group) op->add_output(s);
  }
  std::map<std::string, Argument> args;
  if (options.type == "Momentum") {
    auto f = [&](const char* name, float v) {
      Argument a;
      a.set_name(name);
      a.set_f(v);
      args[name] = a;
    };
    f("alpha", 0.9f);
    f("beta", 1.0f);
    f("norm_coefficient", 0.0f);
    Argument mode;
    mode.set_name("mode");
    mode.set_s("standard");
    args["mode"] = mode;
  }
  for (const Argument& a : options.attributes) args[a.name()] = a;
  for (const auto& [name, a] : args) *op->add_arg() = a;
  for (const std::string& in : {options.learning_rate, options.step}) {
    bool listed = false;
    for (const std::string& e : net->external_input()) listed = listed || e == in;
    if (!listed) net->add_external_input(in);
  }
  std::set<std::string> outputs(net->external_output().begin(), net->external_output().end());
  for (const std::string& p : params) {
    if (!outputs.count(p)) net->add_external_output(p);
  }
  return absl::OkStatus();
}

double LearningRateSchedule::At(int64_t step) const {
  switch (kind) {
    case Kind::kStep:
      return base * std::pow(gamma, static_cast<double>(step / std::max<int64_t>(1, step_size)));
    case Kind::kExponential:
      return base * std::pow(gamma, static_cast<double>(step));
    default:
      return base;
  }
}

}  // namespace loom
