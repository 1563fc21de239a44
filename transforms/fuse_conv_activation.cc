#include "transforms/fuse_conv_activation.h"

#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "core/tensor.h"
#include "ops/semantics/activation.h"
#include "core/registry.h"
#include "transforms/graph_util.h"

namespace loom {
namespace transforms {

int FuseConvActivation(NetDef* net, bool training) {
  std::map<std::string, int> reads;
  CollectReads(*net, &reads);
  const std::set<std::string> acts = {"Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish"};
  std::set<int> removed;
  for (int i = 0; i < net->op_size(); ++i) {
    OperatorDef* conv = net->mutable_op(i);
    const bool nchwc = conv->type() == "NchwcConv";  // after PropagateNchwcLayout: keeps its type
    if ((conv->type() != "Conv" && !nchwc) || conv->output_size() != 1 || conv->output(0).empty() ||
        FindArg(*conv, "activation") != nullptr) {
      continue;
    }
    // FusedConv runs float32 only: a float64 model's convs stay Conv.
    const TensorProto* w = conv->input_size() > 1 ? FindInitializer(*net, conv->input(1)) : nullptr;
    if (!nchwc && (w == nullptr || w->data_type() != static_cast<int>(DataType::kFloat32))) continue;
    const int c = SoleReader(*net, reads, conv->output(0));  // -1: read elsewhere too, or a net output
    if (c <= i || removed.count(c)) continue;
    const OperatorDef& act = net->op(c);
    if (!acts.count(act.type()) || act.output_size() != 1 || act.output(0).empty() || act.input_size() < 1 ||
        act.input(0) != conv->output(0)) {
      continue;
    }
    std::vector<float> params;
    if (!ActivationParams(*net, act, &params)) continue;
    if (params.empty() && act.input_size() != 1) continue;  // a parameterless activation of one input
    if (training) {
      semantics::FusedActivation f;
      std::string error;
      if (!f.Parse(act.type(), params, &error) || !f.HasDerivativeFromOutput()) continue;
    }
    if (!nchwc) {
      conv->set_type("FusedConv");
      conv->set_domain(kLoomDomain);
    }
    conv->set_output(0, act.output(0));
    Argument* a = conv->add_arg();
    a->set_name("activation");
    a->set_s(act.type());
    if (!params.empty()) {
      Argument* p = conv->add_arg();
      p->set_name("activation_params");
      for (float v : params) p->add_floats(v);
    }
    removed.insert(c);
  }
  if (removed.empty()) return 0;
  RemoveOps(net, removed);  // also drops the Clip bounds nothing reads any more
  return static_cast<int>(removed.size());
}

}  // namespace transforms
}  // namespace loom
