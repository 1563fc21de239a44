#include "transforms/fuse_elementwise.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/proto_io.h"
#include "core/tensor.h"
#include "transforms/graph_util.h"

namespace loom {
namespace transforms {
namespace {

// One fold of Conv -> (Mul|Div|Add|Sub by a scalar or per-channel
// constant); false if none applies.
bool FoldOne(NetDef* net, int* counter) {
  std::map<std::string, int> reads;
  CollectReads(*net, &reads);
  for (int i = 0; i < net->op_size(); ++i) {
    const OperatorDef& conv = net->op(i);
    Tensor W, B;
    if (conv.output_size() != 1 || !ConstantConvParams(*net, conv, &W, &B)) continue;
    const int j = SoleReader(*net, reads, conv.output(0));
    if (j < 0) continue;
    const OperatorDef& op = net->op(j);
    const bool mul = op.type() == "Mul" || op.type() == "Div", add = op.type() == "Add" || op.type() == "Sub";
    if ((!mul && !add) || op.input_size() != 2 || op.output_size() != 1) continue;
    // The constant may be either operand of Mul/Add, only the second of Div/Sub.
    const bool conv_first = op.input(0) == conv.output(0);
    if (!conv_first && (op.type() == "Div" || op.type() == "Sub")) continue;
    const int64_t M = ConvOutputChannels(conv, W);
    std::optional<std::vector<float>> c =
        ChannelInitializer(*net, op.input(conv_first ? 1 : 0), static_cast<int>(W.rank()), M);
    if (!c || (op.type() == "Div" && std::find(c->begin(), c->end(), 0.0f) != c->end())) continue;
    std::vector<double> s(M, 1.0), d(M, 0.0);
    for (int64_t o = 0; o < M; ++o) {
      const double v = (*c)[o];
      if (mul) s[o] = op.type() == "Mul" ? v : 1.0 / v;
      if (add) d[o] = op.type() == "Add" ? v : -v;
    }
    const std::string name = absl::StrCat(conv.name().empty() ? absl::StrCat("conv_", i) : conv.name(), "__affine",
                                          (*counter)++);
    FoldAffineIntoConv(net, i, W, B, s, d, op.output(0), name);
    RemoveOps(net, {j});
    return true;
  }
  return false;
}

bool Near(float a, float b) { return std::fabs(a - b) <= 1e-6f * std::fabs(b); }

}  // namespace

int FoldConvScalarAffine(NetDef* net) {
  int folded = 0, counter = 0;
  while (FoldOne(net, &counter)) ++folded;
  return folded;
}

int FuseHardSwish(NetDef* net) {
  std::map<std::string, int> reads;
  CollectReads(*net, &reads);
  std::set<int> removed;
  std::vector<std::pair<int, OperatorDef>> replacements;  // at the Div's position
  for (int a = 0; a < net->op_size(); ++a) {
    const OperatorDef& add = net->op(a);
    if (add.type() != "Add" || add.input_size() != 2 || removed.count(a)) continue;
    int yi = -1;
    for (int k = 0; k < 2 && yi < 0; ++k) {
      std::optional<float> three = ScalarInitializer(*net, add.input(1 - k), 8);
      if (three && Near(*three, 3.0f)) yi = k;
    }
    if (yi < 0) continue;
    const std::string& y = add.input(yi);
    const int c = SoleReader(*net, reads, add.output(0));
    if (c < 0 || net->op(c).type() != "Clip" || net->op(c).input(0) != add.output(0)) continue;
    float lo = 0, hi = 0;
    if (!ClipBounds(*net, net->op(c), &lo, &hi) || lo != 0.0f || !Near(hi, 6.0f)) continue;
    const int m = SoleReader(*net, reads, net->op(c).output(0));
    if (m < 0 || net->op(m).type() != "Mul" || net->op(m).input_size() != 2) continue;
    const OperatorDef& mul = net->op(m);
    if (!((mul.input(0) == y && mul.input(1) == net->op(c).output(0)) ||
          (mul.input(1) == y && mul.input(0) == net->op(c).output(0)))) {
      continue;
    }
    const int d = SoleReader(*net, reads, mul.output(0));
    if (d < 0 || net->op(d).input_size() != 2 || net->op(d).input(0) != mul.output(0)) continue;
    const OperatorDef& last = net->op(d);
    std::optional<float> k = ScalarInitializer(*net, last.input(1), 8);
    if (!k || !((last.type() == "Div" && Near(*k, 6.0f)) || (last.type() == "Mul" && Near(*k, 1.0f / 6.0f)))) continue;
    OperatorDef hs;
    hs.set_type("HardSwish");
    hs.set_name(absl::StrCat(last.name().empty() ? "hardswish" : last.name(), "__hardswish"));
    hs.add_input(y);
    hs.add_output(last.output(0));
    removed.insert({a, c, m});
    replacements.emplace_back(d, hs);
  }
  for (auto& [d, hs] : replacements) *net->mutable_op(d) = hs;
  if (!replacements.empty()) RemoveOps(net, removed);
  return static_cast<int>(replacements.size());
}

}  // namespace transforms
}  // namespace loom
