#include "transforms/fuse_qdq.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "ops/semantics/quantization.h"
#include "transforms/elementwise_region.h"
#include "transforms/graph_util.h"

namespace loom {
namespace transforms {
namespace {

// An int8/uint8 tensor's element i.
int32_t IntAt(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kInt8 ? t.data<int8_t>()[i] : t.data<uint8_t>()[i];
}

// The parameters of a DequantizeLinear or QuantizeLinear.
struct QParams {
  const OperatorDef* op = nullptr;
  Tensor scale, zero_point;  // zero_point empty when not given
  bool per_tensor() const { return scale.num_elements() == 1 && (zero_point.num_elements() <= 1); }
};

// The parameters of `op` (DequantizeLinear or QuantizeLinear) when its scale
// is a constant float32 and its zero point, if given, a constant int8 or
// uint8 of the scale's element count.
std::optional<QParams> ReadParams(const NetDef& net, const OperatorDef& op) {
  if (op.input_size() < 2 || op.output_size() != 1) return std::nullopt;
  auto scale = ConstantValue(net, op.input(1));
  if (!scale || scale->dtype() != DataType::kFloat32 || scale->num_elements() < 1) return std::nullopt;
  QParams p;
  p.op = &op;
  p.scale = *scale;
  if (op.input_size() > 2 && !op.input(2).empty()) {
    auto zp = ConstantValue(net, op.input(2));
    if (!zp || (zp->dtype() != DataType::kInt8 && zp->dtype() != DataType::kUInt8) ||
        zp->num_elements() != scale->num_elements()) {
      return std::nullopt;
    }
    p.zero_point = *zp;
  }
  return p;
}

// The lowest and highest values of the zero point's type.
int32_t QMin(const Tensor& zp) { return zp.dtype() == DataType::kInt8 ? -128 : 0; }
int32_t QMax(const Tensor& zp) { return zp.dtype() == DataType::kInt8 ? 127 : 255; }

class Fuser {
 public:
  explicit Fuser(NetDef* net) : net_(net) {
    CollectReads(*net, &reads_);
    for (int i = 0; i < net->op_size(); ++i) {
      for (const std::string& out : net->op(i).output()) {
        if (!out.empty()) producer_[out] = i;
      }
    }
  }

  int Run() {
    int fused = 0;
    for (int i = 0; i < net_->op_size(); ++i) {
      if (removed_.count(i)) continue;
      const OperatorDef& op = net_->op(i);
      if (IsOnnxOp(op, "Conv") || IsOnnxOp(op, "ConvTranspose")) {
        fused += FuseConvLike(i, op.type() == "ConvTranspose");
      } else if (IsOnnxOp(op, "Add")) {
        fused += FuseAdd(i);
      } else if (IsOnnxOp(op, "MaxPool")) {
        fused += FuseMaxPool(i);
      } else if (IsOnnxOp(op, "GlobalAveragePool")) {
        fused += FuseGlobalAveragePool(i);
      } else if (IsOnnxOp(op, "Mul")) {
        fused += FuseFloatMul(i);
      } else if (IsOnnxOp(op, "Concat")) {
        fused += FuseConcat(i);
      } else if (MovesData(op)) {
        fused += FuseDataMovement(i);
      } else if (IsOnnxOp(op, "QuantizeLinear")) {
        fused += FuseLookup(i);
      }
    }
    fused += FuseFloatLookups();
    if (fused == 0) return 0;
    RemoveUnreadDequantize();
    // The ops in order, with those inserted before them, less the removed
    // (moved, not copied: the net's initializers stay where they are).
    google::protobuf::RepeatedPtrField<OperatorDef> ops;
    for (int j = 0; j < net_->op_size(); ++j) {
      for (OperatorDef& op : insert_before_[j]) *ops.Add() = std::move(op);
      if (!removed_.count(j)) ops.Add()->Swap(net_->mutable_op(j));
    }
    net_->mutable_op()->Swap(&ops);
    RemoveOps(net_, {});  // drops the initializers nothing reads now
    return fused;
  }

 private:
  // The per-tensor DequantizeLinear (zero point given) producing `name`.
  std::optional<QParams> Dequantized(const std::string& name) const {
    const OperatorDef* op = Producer(name, "DequantizeLinear");
    if (op == nullptr) return std::nullopt;
    auto p = ReadParams(*net_, *op);
    if (!p || !p->per_tensor() || p->zero_point.num_elements() != 1) return std::nullopt;
    return p;
  }

  const OperatorDef* Producer(const std::string& name, const char* type) const {
    auto it = producer_.find(name);
    if (it == producer_.end() || removed_.count(it->second)) return nullptr;
    const OperatorDef& op = net_->op(it->second);
    return IsOnnxOp(op, type) ? &op : nullptr;
  }

  // The QuantizeLinear that alone reads `out` (op `from`'s output), through
  // a removable Relu or Clip; its index and the activation's (-1: none).
  std::optional<QParams> QuantizedOutput(int from, const std::string& out, int* q_index, int* act_index) {
    *act_index = -1;
    int r = SoleReader(*net_, reads_, out);
    if (r <= from || removed_.count(r)) return std::nullopt;
    const OperatorDef* reader = &net_->op(r);
    if ((IsOnnxOp(*reader, "Relu") || IsOnnxOp(*reader, "Clip")) && reader->output_size() == 1 &&
        reader->input(0) == out) {
      *act_index = r;
      r = SoleReader(*net_, reads_, reader->output(0));
      if (r <= *act_index || removed_.count(r)) return std::nullopt;
    }
    const OperatorDef& q = net_->op(r);
    if (!IsOnnxOp(q, "QuantizeLinear")) return std::nullopt;
    auto p = ReadParams(*net_, q);
    if (!p || !p->per_tensor() || p->zero_point.num_elements() != 1) return std::nullopt;
    if (*act_index >= 0 && !ActivationRemovable(net_->op(*act_index), *p)) return std::nullopt;
    *q_index = r;
    return p;
  }

  // Quantizing with `q` after the activation gives what quantizing without
  // it gives.
  bool ActivationRemovable(const OperatorDef& act, const QParams& q) const {
    const int32_t zp = IntAt(q.zero_point, 0), lo_q = QMin(q.zero_point), hi_q = QMax(q.zero_point);
    if (act.type() == "Relu") return zp == lo_q;
    float lo = 0, hi = 0;
    if (!ClipBounds(*net_, act, &lo, &hi)) return false;
    const double s = q.scale.data<float>()[0];
    return std::nearbyint(lo / s) + zp <= lo_q && std::nearbyint(hi / s) + zp >= hi_q;
  }

  // Rewrites op i in place as `type` (domain `domain`) reading `inputs` and
  // writing the Q's output; removes the Q and the activation.
  void Rewrite(int i, const char* type, const char* domain, const std::vector<std::string>& inputs, int q_index,
               int act_index) {
    OperatorDef* op = net_->mutable_op(i);
    op->set_type(type);
    op->set_domain(domain);
    op->clear_input();
    for (const std::string& in : inputs) op->add_input(in);
    op->set_output(0, net_->op(q_index).output(0));
    removed_.insert(q_index);
    if (act_index >= 0) removed_.insert(act_index);
  }

  // DQ(x), DQ(W), [DQ(B)] -> Conv / ConvTranspose (`transpose`) -> Q:
  // QLinearConv (ONNX) or Loom's QLinearConvTranspose. W per tensor, or per
  // output channel: Conv's W [M, C / group, k...] along axis 0,
  // ConvTranspose's W [C, M / group, k...] along axis 1 with one group.
  int FuseConvLike(int i, bool transpose) {
    const OperatorDef& conv = net_->op(i);
    if (conv.input_size() < 2 || conv.output_size() != 1) return 0;
    auto x = Dequantized(conv.input(0));
    const OperatorDef* w_dq = Producer(conv.input(1), "DequantizeLinear");
    if (!x || w_dq == nullptr) return 0;
    auto w = ReadParams(*net_, *w_dq);
    auto wq = ConstantValue(*net_, w_dq->input(0));
    if (!w || !wq || (wq->dtype() != DataType::kInt8 && wq->dtype() != DataType::kUInt8) || wq->dims().size() < 3) {
      return 0;
    }
    const Argument* group = FindArg(conv, "group");
    const int64_t G = group == nullptr ? 1 : group->i(), channel_axis = transpose ? 1 : 0;
    const int64_t M = transpose ? wq->dims()[1] * G : wq->dims()[0];
    if (w->scale.num_elements() != 1) {  // per output channel
      const Argument* axis = FindArg(*w_dq, "axis");
      const int64_t a = axis == nullptr ? 1 : axis->i(), rank = static_cast<int64_t>(wq->dims().size());
      if ((transpose && G != 1) || w->scale.num_elements() != M || (a != channel_axis && a != channel_axis - rank)) {
        return 0;
      }
    }
    std::string bias;
    if (conv.input_size() > 2 && !conv.input(2).empty()) {
      if (!Int32Bias(conv.input(2), *x, *w, M, &bias)) return 0;
    }
    int q_index = -1, act_index = -1;
    auto y = QuantizedOutput(i, conv.output(0), &q_index, &act_index);
    if (!y) return 0;
    std::string w_zp = w->zero_point.num_elements() > 0 ? w_dq->input(2) : ZeroPoint(w_dq->input(0), *wq);
    std::vector<std::string> in = {x->op->input(0), x->op->input(1), x->op->input(2), w_dq->input(0), w_dq->input(1),
                                   w_zp, y->op->input(1), y->op->input(2)};
    if (!bias.empty()) in.push_back(bias);
    Rewrite(i, transpose ? "QLinearConvTranspose" : "QLinearConv", transpose ? kLoomDomain : "", in, q_index,
            act_index);
    return 1;
  }

  // B from a DequantizeLinear of a constant int32 [M] at scale x * w, zero
  // point 0: the int32 initializer's name into *bias.
  bool Int32Bias(const std::string& name, const QParams& x, const QParams& w, int64_t M, std::string* bias) const {
    const OperatorDef* dq = Producer(name, "DequantizeLinear");
    if (dq == nullptr || dq->input_size() < 2) return false;
    auto b = ConstantValue(*net_, dq->input(0));
    auto scale = ConstantValue(*net_, dq->input(1));
    if (!b || b->dtype() != DataType::kInt32 || b->num_elements() != M || !scale ||
        scale->dtype() != DataType::kFloat32 || (scale->num_elements() != 1 && scale->num_elements() != M)) {
      return false;
    }
    if (dq->input_size() > 2 && !dq->input(2).empty()) {
      auto zp = ConstantValue(*net_, dq->input(2));
      if (!zp || zp->dtype() != DataType::kInt32) return false;
      for (int64_t k = 0; k < zp->num_elements(); ++k) {
        if (zp->data<int32_t>()[k] != 0) return false;
      }
    }
    const double xs = x.scale.data<float>()[0];
    for (int64_t m = 0; m < M; ++m) {
      const double want = xs * w.scale.data<float>()[w.scale.num_elements() == 1 ? 0 : m];
      const double got = scale->data<float>()[scale->num_elements() == 1 ? 0 : m];
      if (std::fabs(got - want) > 1e-4 * std::fabs(want)) return false;
    }
    *bias = dq->input(0);
    return true;
  }

  // A zero zero point of W's type (QLinearConv needs one), added once.
  std::string ZeroPoint(const std::string& w_name, const Tensor& w) {
    const std::string name = w_name + "_zero_point";
    if (FindInitializer(*net_, name) == nullptr) {
      *net_->add_initializer() = TensorToProto(Tensor::Zeros(w.dtype(), {}), name);
    }
    return name;
  }

  int FuseAdd(int i) {
    const OperatorDef& add = net_->op(i);
    if (add.input_size() != 2 || add.output_size() != 1) return 0;
    auto a = Dequantized(add.input(0));
    auto b = Dequantized(add.input(1));
    if (!a || !b) return 0;
    int q_index = -1, act_index = -1;
    auto y = QuantizedOutput(i, add.output(0), &q_index, &act_index);
    // One type for A, B and C (QLinearAdd's T).
    if (!y || a->zero_point.dtype() != y->zero_point.dtype() || b->zero_point.dtype() != y->zero_point.dtype()) {
      return 0;
    }
    Rewrite(i, "QLinearAdd", kLoomDomain,
            {a->op->input(0), a->op->input(1), a->op->input(2), b->op->input(0), b->op->input(1), b->op->input(2),
             y->op->input(1), y->op->input(2)},
            q_index, act_index);
    return 1;
  }

  // Op i's input 0 from a per-tensor DQ (*x) and its one output read by a Q
  // alone (*y, its index *q_index; no activation between); false otherwise.
  bool DequantizedInOut(int i, std::optional<QParams>* x, std::optional<QParams>* y, int* q_index) {
    const OperatorDef& op = net_->op(i);
    if (op.input_size() < 1 || op.output_size() != 1) return false;
    *x = Dequantized(op.input(0));
    if (!*x) return false;
    int act_index = -1;
    *y = QuantizedOutput(i, op.output(0), q_index, &act_index);
    return *y && act_index < 0;
  }

  int FuseMaxPool(int i) {
    std::optional<QParams> x, y;
    int q_index = -1;
    if (net_->op(i).input_size() != 1 || !DequantizedInOut(i, &x, &y, &q_index) || !SameParams(*x, *y)) return 0;
    Rewrite(i, "MaxPool", "", {x->op->input(0)}, q_index, -1);
    return 1;
  }

  int FuseGlobalAveragePool(int i) {
    std::optional<QParams> x, y;
    int q_index = -1;
    if (net_->op(i).input_size() != 1 || !DequantizedInOut(i, &x, &y, &q_index) ||
        y->zero_point.dtype() != x->zero_point.dtype()) {
      return 0;
    }
    Rewrite(i, "QLinearGlobalAveragePool", kLoomDomain,
            {x->op->input(0), x->op->input(1), x->op->input(2), y->op->input(1), y->op->input(2)}, q_index, -1);
    return 1;
  }

  // DQ(a) * b -> Q, b a float tensor that is no DequantizeLinear's output
  // (both dequantized is a QLinearMul, not this).
  int FuseFloatMul(int i) {
    const OperatorDef& mul = net_->op(i);
    if (mul.input_size() != 2 || mul.output_size() != 1) return 0;
    int side = 0;
    auto a = Dequantized(mul.input(0));
    if (!a) {
      side = 1;
      a = Dequantized(mul.input(1));
    }
    const std::string& b = mul.input(1 - side);
    if (!a || Producer(b, "DequantizeLinear") != nullptr) return 0;
    int q_index = -1, act_index = -1;
    auto y = QuantizedOutput(i, mul.output(0), &q_index, &act_index);
    if (!y || act_index >= 0 || y->zero_point.dtype() != a->zero_point.dtype()) return 0;
    Rewrite(i, "QLinearFloatMul", kLoomDomain,
            {a->op->input(0), a->op->input(1), a->op->input(2), b, y->op->input(1), y->op->input(2)}, q_index,
            act_index);
    return 1;
  }

  // Ops that only move or copy elements (Resize nearest): on the int8
  // tensor they give exactly the values DQ -> op -> Q gives, requantized.
  static bool MovesData(const OperatorDef& op) {
    if (IsOnnxOp(op, "Resize")) {
      const Argument* mode = FindArg(op, "mode");
      const Argument* ctm = FindArg(op, "coordinate_transformation_mode");
      return (mode == nullptr || mode->s() == "nearest") && (ctm == nullptr || ctm->s() != "tf_crop_and_resize");
    }
    return IsOnnxOp(op, "Transpose") || IsOnnxOp(op, "Reshape") || IsOnnxOp(op, "Flatten") ||
           IsOnnxOp(op, "Squeeze") || IsOnnxOp(op, "Unsqueeze");
  }

  // Whether two per-tensor parameter sets are the same (type, scale, zero point).
  static bool SameParams(const QParams& a, const QParams& b) {
    return a.zero_point.dtype() == b.zero_point.dtype() && IntAt(a.zero_point, 0) == IntAt(b.zero_point, 0) &&
           a.scale.data<float>()[0] == b.scale.data<float>()[0];
  }

  // The table of Q(f(DQ(v))) for each value v of x's type (f the identity
  // without a region; without y, a float32 table of f(DQ(v))), as an
  // initializer named `name`; false for a scale that is not positive (the
  // float ops' error stays theirs).
  bool AddTable(const QParams& x, const QParams* y, const ElementwiseRegion* region, const std::string& name) {
    const float xs = x.scale.data<float>()[0], ys = y != nullptr ? y->scale.data<float>()[0] : 1.0f;
    const int32_t xz = IntAt(x.zero_point, 0), yz = y != nullptr ? IntAt(y->zero_point, 0) : 0;
    if (!(xs > 0) || !(ys > 0)) return false;
    Tensor table = Tensor::Zeros(y != nullptr ? y->zero_point.dtype() : DataType::kFloat32, {256});
    for (int32_t v = QMin(x.zero_point); v <= QMax(x.zero_point); ++v) {
      float out = static_cast<float>(v - xz) * xs;
      if (region != nullptr) out = region->Eval(out);
      const int64_t k = v - QMin(x.zero_point);
      if (table.dtype() == DataType::kFloat32) {
        table.data<float>()[k] = out;
      } else if (table.dtype() == DataType::kInt8) {
        table.data<int8_t>()[k] = semantics::QuantizeValue<int8_t>(out, ys, yz);
      } else {
        table.data<uint8_t>()[k] = semantics::QuantizeValue<uint8_t>(out, ys, yz);
      }
    }
    *net_->add_initializer() = TensorToProto(table, name);
    return true;
  }

  // `op` becomes QLinearLookup(x, table), its output unchanged.
  static void MakeLookup(OperatorDef* op, const std::string& x, const std::string& table) {
    op->set_type("QLinearLookup");
    op->set_domain(kLoomDomain);
    op->clear_input();
    op->add_input(x);
    op->add_input(table);
    op->clear_arg();
  }

  // DQ(x) -> op (MovesData) -> Q: the op on x's int8 tensor, writing the
  // Q's output when the parameters agree, else a tensor the Q's place
  // requantizes by a table.
  int FuseDataMovement(int i) {
    std::optional<QParams> x, y;
    int q_index = -1;
    if (!DequantizedInOut(i, &x, &y, &q_index)) return 0;
    const std::string y_name = net_->op(q_index).output(0);
    if (!SameParams(*x, *y)) {
      const std::string moved = y_name + "_moved", table = y_name + "_table";
      if (!AddTable(*x, &*y, nullptr, table)) return 0;
      MakeLookup(net_->mutable_op(q_index), moved, table);
      OperatorDef* m = net_->mutable_op(i);
      m->set_input(0, x->op->input(0));
      m->set_output(0, moved);
      return 1;
    }
    OperatorDef* m = net_->mutable_op(i);
    m->set_input(0, x->op->input(0));
    m->set_output(0, y_name);
    removed_.insert(q_index);
    return 1;
  }

  // DQ(x_1), ..., DQ(x_n) -> Concat -> Q (one type): Concat of the int8
  // inputs, each requantized to the Q's parameters by a table (inserted
  // before the Concat) where its own differ. An input may also come from a
  // DQ through an op that moves data (MovesData; read by the Concat alone,
  // as a feature pyramid's upsampled levels are): that op then runs on
  // the int8 tensor.
  int FuseConcat(int i) {
    const OperatorDef& concat = net_->op(i);
    if (concat.input_size() < 1 || concat.output_size() != 1) return 0;
    std::vector<QParams> xs;
    std::vector<int> moves;  // per input: the data-moving op between DQ and Concat, or -1
    for (const std::string& in : concat.input()) {
      auto x = Dequantized(in);
      int move = -1;
      if (!x) {
        auto p = producer_.find(in);
        if (p == producer_.end() || removed_.count(p->second) || SoleReader(*net_, reads_, in) != i) return 0;
        const OperatorDef& m = net_->op(p->second);
        if (!MovesData(m) || m.input_size() < 1 || m.output_size() != 1) return 0;
        x = Dequantized(m.input(0));
        if (!x) return 0;
        move = p->second;
      }
      xs.push_back(*x);
      moves.push_back(move);
    }
    int q_index = -1, act_index = -1;
    auto y = QuantizedOutput(i, concat.output(0), &q_index, &act_index);
    if (!y || act_index >= 0) return 0;
    // Checked before any rewrite: AddTable below then cannot fail.
    for (const QParams& x : xs) {
      if (x.zero_point.dtype() != y->zero_point.dtype() || !(x.scale.data<float>()[0] > 0)) return 0;
    }
    if (!(y->scale.data<float>()[0] > 0)) return 0;
    const std::string y_name = net_->op(q_index).output(0);
    std::vector<std::string> inputs;
    std::vector<OperatorDef> lookups;
    for (size_t k = 0; k < xs.size(); ++k) {
      std::string xq = xs[k].op->input(0);
      if (moves[k] >= 0) {
        OperatorDef* m = net_->mutable_op(moves[k]);
        m->set_input(0, xq);
        xq = m->output(0) + "_moved";
        m->set_output(0, xq);
      }
      if (SameParams(xs[k], *y)) {
        inputs.push_back(xq);
        continue;
      }
      const std::string name = y_name + "_input" + std::to_string(k);
      AddTable(xs[k], &*y, nullptr, name + "_table");
      OperatorDef lookup;
      MakeLookup(&lookup, xq, name + "_table");
      lookup.set_name(name + "_QLinearLookup");
      lookup.add_output(name);
      lookups.push_back(std::move(lookup));
      inputs.push_back(name);
    }
    OperatorDef* op = net_->mutable_op(i);
    for (size_t k = 0; k < inputs.size(); ++k) op->set_input(static_cast<int>(k), inputs[k]);
    op->set_output(0, y_name);
    removed_.insert(q_index);
    for (OperatorDef& l : lookups) insert_before_[i].push_back(std::move(l));
    return 1;
  }

  // DQ -> element-wise float ops -> Q (op i): a table of the Q's output for
  // each of the 256 input values, computed with the float ops themselves.
  int FuseLookup(int i) {
    const OperatorDef& q = net_->op(i);
    auto y = ReadParams(*net_, q);
    if (!y || !y->per_tensor() || y->zero_point.num_elements() != 1) return 0;
    auto region = ElementwiseRegion::Find(*net_, reads_, producer_, q.input(0));
    // The region's ops go: its output must be the Q's alone.
    if (!region || (!region->ops().empty() && SoleReader(*net_, reads_, q.input(0)) != i)) return 0;
    for (int op : region->ops()) {
      if (removed_.count(op)) return 0;
    }
    auto x = Dequantized(region->input());
    if (!x) return 0;
    const std::string name = q.output(0) + "_table";
    if (!AddTable(*x, &*y, &*region, name)) return 0;
    MakeLookup(net_->mutable_op(i), x->op->input(0), name);
    for (int r : region->ops()) removed_.insert(r);
    return 1;
  }

  // DQ -> element-wise float ops whose result float ops read (no Q takes
  // it over): a float32 table of the result for each of the 256 values,
  // one op in place of the DQ and the region. Last ops first, so that a
  // chain is taken whole.
  int FuseFloatLookups() {
    std::map<std::string, std::vector<int>> readers;
    for (int j = 0; j < net_->op_size(); ++j) {
      for (const std::string& in : net_->op(j).input()) {
        if (!in.empty()) readers[in].push_back(j);
      }
    }
    const std::set<std::string> outputs(net_->external_output().begin(), net_->external_output().end());
    int fused = 0;
    for (int j = net_->op_size() - 1; j >= 0; --j) {
      const OperatorDef& op = net_->op(j);
      if (removed_.count(j) || !ElementwiseRegion::Evaluates(op) || op.output_size() != 1) continue;
      const std::string& b = op.output(0);
      bool ends_here = outputs.count(b) > 0;
      for (int r : readers[b]) {
        ends_here = ends_here || removed_.count(r) || !ElementwiseRegion::Extends(*net_, producer_, net_->op(r), b);
      }
      if (!ends_here) continue;  // a later op of the chain ends it
      auto region = ElementwiseRegion::Find(*net_, reads_, producer_, b);
      if (!region || region->ops().empty()) continue;
      bool free = true, computes = false;  // a region of Identity ops only is no gain over the DQ
      for (int r : region->ops()) {
        free = free && !removed_.count(r);
        computes = computes || net_->op(r).type() != "Identity";
      }
      auto x = Dequantized(region->input());
      const std::string name = b + "_table";
      if (!free || !computes || !x || !AddTable(*x, nullptr, &*region, name)) continue;
      MakeLookup(net_->mutable_op(j), x->op->input(0), name);
      for (int r : region->ops()) {
        if (r != j) removed_.insert(r);
      }
      ++fused;
    }
    return fused;
  }

  // DequantizeLinear ops whose outputs nothing reads any more.
  void RemoveUnreadDequantize() {
    std::map<std::string, int> reads;
    CollectReads(*net_, &reads);
    for (int i : removed_) {
      for (const std::string& in : net_->op(i).input()) {
        if (!in.empty()) --reads[in];
      }
    }
    for (int i = 0; i < net_->op_size(); ++i) {
      const OperatorDef& op = net_->op(i);
      if (removed_.count(i) || !IsOnnxOp(op, "DequantizeLinear") || op.output_size() != 1) continue;
      auto r = reads.find(op.output(0));
      if (r == reads.end() || r->second <= 0) removed_.insert(i);
    }
  }

  NetDef* net_;
  std::map<std::string, int> reads_;
  std::map<std::string, int> producer_;
  std::set<int> removed_;
  std::map<int, std::vector<OperatorDef>> insert_before_;  // new ops, by the op they go before
};

}  // namespace

int FuseQdq(NetDef* net) { return Fuser(net).Run(); }

}  // namespace transforms
}  // namespace loom
