#include "tools/onnx/fuse_conv_activation.h"

#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "core/tensor.h"
#include "tools/onnx/graph_util.h"

namespace loom {
namespace onnx_import {

int FuseConvActivation(NetDef* net) {
  std::map<std::string, const TensorProto*> inits;
  for (const TensorProto& t : net->initializer()) inits[t.name()] = &t;
  for (const std::string& in : net->external_input()) inits.erase(in);  // overridable: not a constant
  // The float32 scalar initializer `name`, or false.
  auto scalar = [&](const std::string& name, float* v) {
    auto it = inits.find(name);
    if (it == inits.end() || it->second->data_type() != static_cast<int>(DataType::kFloat32)) return false;
    auto t = TensorFromProto(*it->second);
    if (!t.ok() || t->num_elements() != 1) return false;
    *v = t->data<float>()[0];
    return true;
  };
  std::map<std::string, int> reads;
  CollectReads(*net, &reads);
  std::map<std::string, int> consumer;  // blob -> the last top-level op reading it
  for (int i = 0; i < net->op_size(); ++i) {
    for (const std::string& in : net->op(i).input()) {
      if (!in.empty()) consumer[in] = i;
    }
  }
  const std::set<std::string> acts = {"Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish"};
  std::set<int> removed;
  std::set<std::string> dropped_inputs;  // Clip min/max the removed Clips read
  int fused = 0;
  for (int i = 0; i < net->op_size(); ++i) {
    OperatorDef* conv = net->mutable_op(i);
    if (conv->type() != "Conv" || conv->output_size() != 1 || conv->output(0).empty()) continue;
    if (reads[conv->output(0)] != 1) continue;  // read elsewhere too, or a net output
    auto c = consumer.find(conv->output(0));
    if (c == consumer.end() || c->second <= i || removed.count(c->second)) continue;
    const OperatorDef& act = net->op(c->second);
    if (!acts.count(act.type()) || act.output_size() != 1 || act.output(0).empty() || act.input_size() < 1 ||
        act.input(0) != conv->output(0)) {
      continue;
    }
    std::vector<float> params;
    if (act.type() == "LeakyRelu") {
      params = {FloatArg(act, "alpha", 0.01f)};
    } else if (act.type() == "HardSigmoid") {
      params = {FloatArg(act, "alpha", 0.2f), FloatArg(act, "beta", 0.5f)};
    } else if (act.type() == "Clip") {
      float lo = FloatArg(act, "min", std::numeric_limits<float>::lowest());
      float hi = FloatArg(act, "max", std::numeric_limits<float>::max());
      if (act.input_size() > 3) continue;
      if (act.input_size() > 1 && !act.input(1).empty() && !scalar(act.input(1), &lo)) continue;
      if (act.input_size() > 2 && !act.input(2).empty() && !scalar(act.input(2), &hi)) continue;
      params = {lo, hi};
      for (int k = 1; k < act.input_size(); ++k) {
        if (!act.input(k).empty()) dropped_inputs.insert(act.input(k));
      }
    } else if (act.input_size() != 1) {
      continue;
    }
    conv->set_type("FusedConv");
    conv->set_output(0, act.output(0));
    Argument* a = conv->add_arg();
    a->set_name("activation");
    a->set_s(act.type());
    if (!params.empty()) {
      Argument* p = conv->add_arg();
      p->set_name("activation_params");
      for (float v : params) p->add_floats(v);
    }
    removed.insert(c->second);
    ++fused;
  }
  if (fused == 0) return 0;
  NetDef out = *net;
  out.clear_op();
  for (int j = 0; j < net->op_size(); ++j) {
    if (!removed.count(j)) *out.add_op() = net->op(j);
  }
  // Drop the Clip bounds that nothing reads any more.
  std::map<std::string, int> still;
  CollectReads(out, &still);
  out.clear_initializer();
  for (const TensorProto& t : net->initializer()) {
    if (!dropped_inputs.count(t.name()) || still.count(t.name())) *out.add_initializer() = t;
  }
  *net = std::move(out);
  return fused;
}

}  // namespace onnx_import
}  // namespace loom
