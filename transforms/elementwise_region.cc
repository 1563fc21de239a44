#include "transforms/elementwise_region.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/tensor.h"
#include "transforms/graph_util.h"

namespace loom {
namespace transforms {
namespace {

const std::set<std::string>& UnaryOps() {
  static const std::set<std::string> kOps = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid",
                                             "HardSwish", "Clip", "Neg", "Abs", "Exp", "Log", "Sqrt",
                                             "Reciprocal", "Erf", "Identity"};
  return kOps;
}

const std::set<std::string>& BinaryOps() {
  static const std::set<std::string> kOps = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
  return kOps;
}

// The value of `name` when it is a one-element float32 constant of rank 0
// or 1, or the DequantizeLinear (per tensor) of a one-element int8, uint8
// or int32 constant of rank 0 or 1.
std::optional<float> ScalarConstant(const NetDef& net, const std::map<std::string, int>& producer,
                                    const std::string& name) {
  if (auto v = ScalarInitializer(net, name, 1)) return v;
  auto p = producer.find(name);
  if (p == producer.end()) return std::nullopt;
  const OperatorDef& dq = net.op(p->second);
  if (!IsOnnxOp(dq, "DequantizeLinear") || dq.input_size() < 2) return std::nullopt;
  auto q = ConstantValue(net, dq.input(0));
  auto s = ConstantValue(net, dq.input(1));
  if (!q || !s || q->num_elements() != 1 || q->dims().size() > 1 || s->num_elements() != 1 ||
      s->dtype() != DataType::kFloat32) {
    return std::nullopt;
  }
  auto as_int = [](const Tensor& t) -> std::optional<int64_t> {
    switch (t.dtype()) {
      case DataType::kInt8: return t.data<int8_t>()[0];
      case DataType::kUInt8: return t.data<uint8_t>()[0];
      case DataType::kInt32: return t.data<int32_t>()[0];
      default: return std::nullopt;
    }
  };
  auto qv = as_int(*q);
  int64_t z = 0;
  if (dq.input_size() > 2 && !dq.input(2).empty()) {
    auto zt = ConstantValue(net, dq.input(2));
    auto zv = zt && zt->num_elements() == 1 && zt->dtype() == q->dtype() ? as_int(*zt) : std::nullopt;
    if (!zv) return std::nullopt;
    z = *zv;
  }
  if (!qv) return std::nullopt;
  return static_cast<float>(*qv - z) * s->data<float>()[0];
}

}  // namespace

bool ElementwiseRegion::Evaluates(const OperatorDef& op) {
  return IsOnnxOp(op, op.type()) && (UnaryOps().count(op.type()) > 0 || BinaryOps().count(op.type()) > 0);
}

bool ElementwiseRegion::Extends(const NetDef& net, const std::map<std::string, int>& producer,
                                const OperatorDef& reader, const std::string& value) {
  if (!Evaluates(reader)) return false;
  const int operands = BinaryOps().count(reader.type()) ? 2 : 1;  // Clip's bounds are parameters
  for (int i = 0; i < operands && i < reader.input_size(); ++i) {
    if (reader.input(i) != value && !ScalarConstant(net, producer, reader.input(i))) return false;
  }
  return true;
}

std::optional<ElementwiseRegion> ElementwiseRegion::Find(const NetDef& net, const std::map<std::string, int>& reads,
                                                         const std::map<std::string, int>& producer,
                                                         const std::string& output, int max_ops) {
  ElementwiseRegion region;
  std::set<int> ops;
  std::set<std::string> seen;
  std::vector<std::string> stack = {output};
  while (!stack.empty()) {
    const std::string b = stack.back();
    stack.pop_back();
    if (!seen.insert(b).second) continue;
    auto p = producer.find(b);
    if (p == producer.end()) return std::nullopt;  // a net input or initializer other than a scalar
    const OperatorDef& op = net.op(p->second);
    if (IsOnnxOp(op, "DequantizeLinear")) {
      if (region.input_.empty()) region.input_ = b;
      if (region.input_ != b) return std::nullopt;  // a second non-constant input
      continue;
    }
    const bool unary = UnaryOps().count(op.type()) > 0, binary = BinaryOps().count(op.type()) > 0;
    if (!IsOnnxOp(op, op.type()) || (!unary && !binary) || op.output_size() != 1) return std::nullopt;
    if (binary ? op.input_size() != 2 : (op.type() == "Clip" ? op.input_size() < 1 : op.input_size() != 1)) {
      return std::nullopt;
    }
    ops.insert(p->second);
    if (static_cast<int>(ops.size()) > max_ops) return std::nullopt;
    const int operands = binary ? 2 : 1;  // Clip's bounds are read as its parameters
    for (int i = 0; i < operands; ++i) {
      if (!ScalarConstant(net, producer, op.input(i))) stack.push_back(op.input(i));
    }
  }
  if (region.input_.empty()) return std::nullopt;  // constants only
  region.ops_.assign(ops.begin(), ops.end());

  // Slots: 0 the input, k + 1 op k's output. Intermediates read only here.
  std::map<std::string, int> slot = {{region.input_, 0}};
  std::map<std::string, int> inner_reads;
  for (int index : region.ops_) {
    const OperatorDef& op = net.op(index);
    Step step;
    step.type = op.type();
    step.arity = BinaryOps().count(op.type()) ? 2 : 1;
    for (int i = 0; i < step.arity; ++i) {
      const std::string& in = op.input(i);
      ++inner_reads[in];
      auto s = slot.find(in);
      if (s != slot.end()) {
        step.slot[i] = s->second;
      } else {
        auto c = ScalarConstant(net, producer, in);
        if (!c) return std::nullopt;  // written after its reader: not a net in op order
        step.constant[i] = *c;
      }
    }
    std::vector<float> params;
    std::string error;
    if (!ActivationParams(net, op, &params)) return std::nullopt;
    if (step.activation.Parse(op.type(), params, &error)) {
      step.type.clear();  // evaluated by the activation
    }
    slot[op.output(0)] = static_cast<int>(region.steps_.size()) + 1;
    region.steps_.push_back(step);
  }
  for (int index : region.ops_) {
    const std::string& out = net.op(index).output(0);
    if (out == output) continue;
    auto r = reads.find(out);
    if (r == reads.end() || r->second != inner_reads[out]) return std::nullopt;
  }
  if (region.ops_.empty() ? output != region.input_ : net.op(region.ops_.back()).output(0) != output) {
    return std::nullopt;
  }
  return region;
}

float ElementwiseRegion::Eval(float x) const {
  std::vector<float> v(steps_.size() + 1);
  v[0] = x;
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& s = steps_[k];
    const float a = s.slot[0] >= 0 ? v[static_cast<size_t>(s.slot[0])] : s.constant[0];
    const float b = s.arity < 2 ? 0.0f : s.slot[1] >= 0 ? v[static_cast<size_t>(s.slot[1])] : s.constant[1];
    float y = 0;
    if (s.type.empty()) {
      y = s.activation.Apply(a);
    } else if (s.type == "Neg") {
      y = -a;
    } else if (s.type == "Abs") {
      y = std::fabs(a);
    } else if (s.type == "Exp") {
      y = std::exp(a);
    } else if (s.type == "Log") {
      y = std::log(a);
    } else if (s.type == "Sqrt") {
      y = std::sqrt(a);
    } else if (s.type == "Reciprocal") {
      y = 1.0f / a;
    } else if (s.type == "Erf") {
      y = std::erf(a);
    } else if (s.type == "Identity") {
      y = a;
    } else if (s.type == "Add") {
      y = a + b;
    } else if (s.type == "Sub") {
      y = a - b;
    } else if (s.type == "Mul") {
      y = a * b;
    } else if (s.type == "Div") {
      y = a / b;
    } else if (s.type == "Max") {
      y = std::max(a, b);
    } else if (s.type == "Min") {
      y = std::min(a, b);
    }
    v[k + 1] = y;
  }
  return v.back();
}

}  // namespace transforms
}  // namespace loom
