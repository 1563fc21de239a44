#include "tools/onnx/fuse_elementwise.h"

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/proto_io.h"
#include "core/tensor.h"
#include "tools/onnx/graph_util.h"

namespace loom {
namespace onnx_import {
namespace {

// Keeps the ops of `net` not in `removed`, in order, and drops initializers
// nothing reads any more.
void Compact(NetDef* net, const std::set<int>& removed) {
  NetDef out = *net;
  out.clear_op();
  for (int j = 0; j < net->op_size(); ++j) {
    if (!removed.count(j)) *out.add_op() = net->op(j);
  }
  std::map<std::string, int> reads;
  CollectReads(out, &reads);
  std::set<std::string> inputs(out.external_input().begin(), out.external_input().end());
  out.clear_initializer();
  for (const TensorProto& t : net->initializer()) {
    if (reads.count(t.name()) || inputs.count(t.name())) *out.add_initializer() = t;
  }
  *net = std::move(out);
}

// The op that reads `name`, when exactly one op reads it once and it is not
// a net output; -1 otherwise.
int SoleReader(const NetDef& net, const std::map<std::string, int>& reads, const std::string& name) {
  auto r = reads.find(name);
  if (r == reads.end() || r->second != 1) return -1;
  for (int j = 0; j < net.op_size(); ++j) {
    for (const std::string& in : net.op(j).input()) {
      if (in == name) return j;
    }
  }
  return -1;
}

const TensorProto* Initializer(const NetDef& net, const std::string& name) {
  for (const TensorProto& t : net.initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

// One fold of Conv -> (Mul|Div|Add|Sub by a scalar); false if none applies.
bool FoldOne(NetDef* net, int* counter) {
  std::map<std::string, int> reads;
  CollectReads(*net, &reads);
  for (int i = 0; i < net->op_size(); ++i) {
    const OperatorDef& conv = net->op(i);
    if (conv.type() != "Conv" || conv.output_size() != 1 || conv.input_size() < 2) continue;
    const TensorProto* w = Initializer(*net, conv.input(1));
    const TensorProto* b = conv.input_size() > 2 && !conv.input(2).empty() ? Initializer(*net, conv.input(2)) : nullptr;
    if (w == nullptr || w->data_type() != static_cast<int>(DataType::kFloat32) ||
        (conv.input_size() > 2 && !conv.input(2).empty() && b == nullptr)) {
      continue;
    }
    const int j = SoleReader(*net, reads, conv.output(0));
    if (j < 0) continue;
    const OperatorDef& op = net->op(j);
    const bool mul = op.type() == "Mul" || op.type() == "Div", add = op.type() == "Add" || op.type() == "Sub";
    if ((!mul && !add) || op.input_size() != 2 || op.output_size() != 1) continue;
    // The constant may be either operand of Mul/Add, only the second of Div/Sub.
    const bool conv_first = op.input(0) == conv.output(0);
    if (!conv_first && (op.type() == "Div" || op.type() == "Sub")) continue;
    std::optional<float> c = ScalarInitializer(*net, op.input(conv_first ? 1 : 0), w->dims_size());
    if (!c || (op.type() == "Div" && *c == 0.0f)) continue;
    auto W = TensorFromProto(*w);
    if (!W.ok() || W->dims().empty()) continue;
    const int64_t M = W->dim(0);
    absl::StatusOr<Tensor> B = b ? TensorFromProto(*b) : absl::StatusOr<Tensor>(Tensor::Zeros(DataType::kFloat32, {M}));
    if (!B.ok() || B->num_elements() != M) continue;
    Tensor W2 = *W->Clone(), B2 = *B->Clone();
    if (mul) {
      const double s = op.type() == "Mul" ? *c : 1.0 / *c;
      for (int64_t k = 0; k < W2.num_elements(); ++k) W2.data<float>()[k] = static_cast<float>(W2.data<float>()[k] * s);
      for (int64_t k = 0; k < M; ++k) B2.data<float>()[k] = static_cast<float>(B2.data<float>()[k] * s);
    } else {
      const double d = op.type() == "Add" ? *c : -*c;
      for (int64_t k = 0; k < M; ++k) B2.data<float>()[k] = static_cast<float>(B2.data<float>()[k] + d);
    }
    const std::string base = absl::StrCat(conv.name().empty() ? absl::StrCat("conv_", i) : conv.name(), "__affine",
                                          (*counter)++);
    *net->add_initializer() = TensorToProto(W2, base + "_W");
    *net->add_initializer() = TensorToProto(B2, base + "_B");
    OperatorDef* cv = net->mutable_op(i);
    cv->set_input(1, base + "_W");
    if (cv->input_size() > 2) {
      cv->set_input(2, base + "_B");
    } else {
      cv->add_input(base + "_B");
    }
    cv->set_output(0, op.output(0));
    Compact(net, {j});
    return true;
  }
  return false;
}

// Clip's bounds: attributes (opset < 11) or constant inputs (11+).
bool ClipBounds(const NetDef& net, const OperatorDef& clip, float* lo, float* hi) {
  *lo = FloatArg(clip, "min", -INFINITY);
  *hi = FloatArg(clip, "max", INFINITY);
  for (int k = 1; k < clip.input_size() && k < 3; ++k) {
    if (clip.input(k).empty()) continue;
    std::optional<float> v = ScalarInitializer(net, clip.input(k), 1);
    if (!v) return false;
    (k == 1 ? *lo : *hi) = *v;
  }
  return true;
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
  if (!replacements.empty()) Compact(net, removed);
  return static_cast<int>(replacements.size());
}

}  // namespace onnx_import
}  // namespace loom
