#include "tools/onnx/fold_batchnorm.h"

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/proto_io.h"
#include "core/tensor.h"
#include "tools/onnx/graph_util.h"

namespace loom {
namespace onnx_import {
int ConstantsToInitializers(NetDef* net) {
  std::set<std::string> outputs(net->external_output().begin(), net->external_output().end());
  NetDef out = *net;
  out.clear_op();
  int moved = 0;
  for (const OperatorDef& op : net->op()) {
    const Argument* value = nullptr;
    if (op.type() == "Constant" && op.output_size() == 1 && op.arg_size() == 1 && op.arg(0).name() == "value" &&
        op.arg(0).has_t() && !outputs.count(op.output(0))) {  // a net output stays an op's output
      value = &op.arg(0);
    }
    if (value == nullptr) {
      *out.add_op() = op;
      continue;
    }
    TensorProto* t = out.add_initializer();
    *t = value->t();
    t->set_name(op.output(0));
    ++moved;
  }
  if (moved > 0) *net = std::move(out);
  return moved;
}

int FoldBatchNormIntoConv(NetDef* net) {
  std::map<std::string, int> init_index;
  for (int i = 0; i < net->initializer_size(); ++i) init_index[net->initializer(i).name()] = i;
  std::map<std::string, int> reads;
  CollectReads(*net, &reads);
  auto constant = [&](const std::string& name) -> const TensorProto* {
    auto it = init_index.find(name);
    if (it == init_index.end()) return nullptr;
    const TensorProto& t = net->initializer(it->second);
    return t.data_type() == static_cast<int>(DataType::kFloat32) ? &t : nullptr;
  };
  std::map<std::string, int> producer;
  for (int i = 0; i < net->op_size(); ++i) {
    for (const std::string& out : net->op(i).output()) producer[out] = i;
  }
  std::set<int> removed;
  int folded = 0;
  for (int j = 0; j < net->op_size(); ++j) {
    const OperatorDef& bn = net->op(j);
    if (bn.type() != "BatchNormalization" || bn.input_size() != 5 || HasNonZeroInt(bn, "training_mode")) continue;
    if (bn.output_size() < 1 || (bn.output_size() > 1 && !(bn.output(1).empty() && (bn.output_size() < 3 || bn.output(2).empty())))) continue;
    auto p = producer.find(bn.input(0));
    if (p == producer.end() || removed.count(p->second)) continue;
    OperatorDef* conv = net->mutable_op(p->second);
    if (conv->type() != "Conv" || conv->output_size() != 1 || reads[conv->output(0)] != 1) continue;
    const TensorProto* w = conv->input_size() > 1 ? constant(conv->input(1)) : nullptr;
    const TensorProto* b = conv->input_size() > 2 && !conv->input(2).empty() ? constant(conv->input(2)) : nullptr;
    if (w == nullptr || (conv->input_size() > 2 && !conv->input(2).empty() && b == nullptr)) continue;
    const TensorProto* s[4];
    bool ok = true;
    for (int k = 0; k < 4; ++k) ok &= (s[k] = constant(bn.input(k + 1))) != nullptr;
    if (!ok) continue;
    auto W = TensorFromProto(*w);
    if (!W.ok() || W->dims().empty()) continue;
    const int64_t M = W->dim(0), per = M > 0 ? W->num_elements() / M : 0;
    absl::StatusOr<Tensor> params[4];
    for (int k = 0; k < 4; ++k) {
      params[k] = TensorFromProto(*s[k]);
      ok &= params[k].ok() && params[k]->num_elements() == M;
    }
    absl::StatusOr<Tensor> B = b ? TensorFromProto(*b) : absl::StatusOr<Tensor>(Tensor::Zeros(DataType::kFloat32, {M}));
    if (!ok || !B.ok() || B->num_elements() != M) continue;
    const float eps = FloatArg(bn, "epsilon", 1e-5f);
    Tensor W2 = Tensor::Zeros(DataType::kFloat32, W->dims()), B2 = Tensor::Zeros(DataType::kFloat32, {M});
    for (int64_t o = 0; o < M; ++o) {
      const double f = params[0]->data<float>()[o] / std::sqrt(static_cast<double>(params[3]->data<float>()[o]) + eps);
      for (int64_t i = 0; i < per; ++i) W2.data<float>()[o * per + i] = static_cast<float>(W->data<float>()[o * per + i] * f);
      B2.data<float>()[o] = static_cast<float>((B->data<float>()[o] - params[2]->data<float>()[o]) * f + params[1]->data<float>()[o]);
    }
    const std::string base = conv->name().empty() ? absl::StrCat("conv_", p->second) : conv->name();
    const std::string wn = absl::StrCat(base, "__bn_folded_W"), bname = absl::StrCat(base, "__bn_folded_B");
    *net->add_initializer() = TensorToProto(W2, wn);
    *net->add_initializer() = TensorToProto(B2, bname);
    init_index[wn] = net->initializer_size() - 2;
    init_index[bname] = net->initializer_size() - 1;
    conv->set_input(1, wn);
    if (conv->input_size() > 2) {
      conv->set_input(2, bname);
    } else {
      conv->add_input(bname);
    }
    conv->set_output(0, bn.output(0));
    producer[bn.output(0)] = p->second;
    removed.insert(j);
    ++folded;
  }
  if (folded == 0) return 0;
  NetDef out = *net;
  out.clear_op();
  for (int j = 0; j < net->op_size(); ++j) {
    if (!removed.count(j)) *out.add_op() = net->op(j);
  }
  // Drop initializers that nothing reads any more.
  std::map<std::string, int> still;
  CollectReads(out, &still);
  out.clear_initializer();
  for (const TensorProto& t : net->initializer()) {
    if (still.count(t.name())) *out.add_initializer() = t;
  }
  *net = std::move(out);
  return folded;
}

}  // namespace onnx_import
}  // namespace loom
