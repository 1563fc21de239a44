#include "transforms/fold_batchnorm.h"

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/proto_io.h"
#include "core/tensor.h"
#include "transforms/graph_util.h"

namespace loom {
namespace transforms {
int FoldBatchNormIntoConv(NetDef* net) {
  std::map<std::string, int> reads;
  CollectReads(*net, &reads);
  std::map<std::string, int> producer;
  for (int i = 0; i < net->op_size(); ++i) {
    for (const std::string& out : net->op(i).output()) producer[out] = i;
  }
  std::set<int> removed;
  for (int j = 0; j < net->op_size(); ++j) {
    const OperatorDef& bn = net->op(j);
    if (bn.type() != "BatchNormalization" || bn.input_size() != 5 || HasNonZeroInt(bn, "training_mode")) continue;
    if (bn.output_size() < 1 || (bn.output_size() > 1 && !(bn.output(1).empty() && (bn.output_size() < 3 || bn.output(2).empty())))) continue;
    auto p = producer.find(bn.input(0));
    if (p == producer.end() || removed.count(p->second)) continue;
    const OperatorDef& conv = net->op(p->second);
    Tensor W, B;
    if (conv.output_size() != 1 || reads[conv.output(0)] != 1 || !ConstantConvParams(*net, conv, &W, &B)) continue;
    const int64_t M = ConvOutputChannels(conv, W);
    // scale, shift, mean, variance: float32 initializers of M values.
    Tensor params[4];
    bool ok = true;
    for (int k = 0; k < 4 && ok; ++k) {
      const TensorProto* t = FindInitializer(*net, bn.input(k + 1));
      auto v = t && t->data_type() == static_cast<int>(DataType::kFloat32) ? TensorFromProto(*t)
                                                                          : absl::StatusOr<Tensor>(absl::NotFoundError(""));
      ok = v.ok() && v->num_elements() == M;
      if (ok) params[k] = *std::move(v);
    }
    if (!ok) continue;
    const float eps = FloatArg(bn, "epsilon", 1e-5f);
    // y = (conv - mean) * f + shift with f = scale / sqrt(var + eps).
    std::vector<double> f(M), shift(M);
    for (int64_t o = 0; o < M; ++o) {
      f[o] = params[0].data<float>()[o] / std::sqrt(static_cast<double>(params[3].data<float>()[o]) + eps);
      shift[o] = params[1].data<float>()[o] - params[2].data<float>()[o] * f[o];
    }
    const std::string base = conv.name().empty() ? absl::StrCat("conv_", p->second) : conv.name();
    FoldAffineIntoConv(net, p->second, W, B, f, shift, bn.output(0), base + "__bn_folded");
    producer[bn.output(0)] = p->second;
    removed.insert(j);
  }
  if (removed.empty()) return 0;
  RemoveOps(net, removed);
  return static_cast<int>(removed.size());
}

}  // namespace transforms
}  // namespace loom
