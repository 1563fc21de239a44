#include "transforms/int8_channels_last.h"

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "core/registry.h"
#include "transforms/graph_util.h"

namespace loom {
namespace transforms {
namespace {

// Every blob `op` reads, its nested nets' included.
void Reads(const OperatorDef& op, std::vector<std::string>* out) {
  for (const std::string& in : op.input()) {
    if (!in.empty()) out->push_back(in);
  }
  for (const Argument& a : op.arg()) {
    auto nested = [&](const NetDef& n) {
      for (const OperatorDef& o : n.op()) Reads(o, out);
      for (const std::string& o : n.external_output()) out->push_back(o);
    };
    if (a.has_n()) nested(a.n());
    for (const NetDef& n : a.nets()) nested(n);
  }
}

OperatorDef Transpose(const std::string& in, const std::string& out, const std::vector<int64_t>& perm) {
  OperatorDef t;
  t.set_type("Transpose");
  t.set_name(out + "_Transpose");
  t.add_input(in);
  t.add_output(out);
  Argument* a = t.add_arg();
  a->set_name("perm");
  for (int64_t p : perm) a->add_ints(p);
  return t;
}

// A QLinearConv oneDNN's int8 convolution takes channels-last: 2-D, W a
// constant int8 initializer with zero points 0.
bool ConvertibleConv(const NetDef& net, const OperatorDef& op) {
  if (!IsOnnxOp(op, "QLinearConv") || op.input_size() < 8 || op.output_size() != 1) return false;
  const TensorProto* w = ConstantInitializer(net, op.input(3));
  if (w == nullptr || w->data_type() != static_cast<int>(DataType::kInt8) || w->dims_size() != 4) return false;
  if (op.input(5).empty()) return true;
  auto z = ConstantValue(net, op.input(5));
  if (!z || z->dtype() != DataType::kInt8) return false;
  for (int64_t i = 0; i < z->num_elements(); ++i) {
    if (z->data<int8_t>()[i] != 0) return false;
  }
  return true;
}

// Ops that compute each element from the same element of their inputs
// (and scalars): any layout in, the same layout out.
bool Elementwise(const OperatorDef& op) {
  static const std::set<std::string> kOps = {"Relu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Clip",
                                             "LeakyRelu", "Neg", "Abs", "Exp", "Identity", "Add", "Sub",
                                             "Mul", "Div", "Max", "Min", "QuantizeLinear", "DequantizeLinear"};
  return IsOnnxOp(op, op.type()) && kOps.count(op.type()) && op.output_size() == 1;
}

class Rewriter {
 public:
  explicit Rewriter(NetDef* net) : net_(net) {}

  int Run() {
    int converted = 0;
    std::map<std::string, int> reads;
    CollectReads(*net_, &reads);
    std::set<int> fused_lookups;  // QLinearLookups a conv before them applies
    for (int index = 0; index < net_->op_size(); ++index) {
      if (fused_lookups.count(index)) continue;
      OperatorDef op = net_->op(index);
      if (ConvertibleConv(*net_, op)) {
        op.set_input(0, ChannelsLast(op.input(0)));
        const int lookup = FusableLookup(reads, index);
        if (lookup >= 0) {
          const OperatorDef& l = net_->op(lookup);
          while (op.input_size() < 9) op.add_input("");
          op.add_input(l.input(1));
          op.set_output(0, l.output(0));
          fused_lookups.insert(lookup);
        }
        Convert(&op, "NhwcQLinearConv");
        ++converted;
      } else if (op.domain() == kLoomDomain && cl_.count(op.input_size() > 0 ? op.input(0) : "") &&
                 ((op.type() == "QLinearConvTranspose" && op.input_size() >= 8 && Rank4Weights(op.input(3))) ||
                  (op.type() == "QLinearGlobalAveragePool" && op.input_size() == 5))) {
        op.set_input(0, cl_[op.input(0)]);  // their channels_last attribute
        Argument* a = op.add_arg();
        a->set_name("channels_last");
        a->set_i(1);
        Convert(&op, nullptr);
        ++converted;
      } else if (IsOnnxOp(op, "GlobalAveragePool") && op.input_size() == 1 && op.output_size() == 1 &&
                 cl_.count(op.input(0))) {
        // A float32 tensor: what the DequantizeLinears and the element-wise
        // ops after them make channels-last (ONNX's pool takes no int8).
        op.set_input(0, cl_[op.input(0)]);
        Convert(&op, "NhwcGlobalAveragePool");
        ++converted;
      } else if (IsOnnxOp(op, "MaxPool") && op.input_size() == 1 && op.output_size() == 1 && cl_.count(op.input(0))) {
        op.set_input(0, cl_[op.input(0)]);
        Convert(&op, "NhwcMaxPool");
        ++converted;
      } else if (op.domain() == kLoomDomain &&
                 ((op.type() == "QLinearAdd" && op.input_size() == 8) ||
                  (op.type() == "QLinearFloatMul" && op.input_size() == 6)) &&
                 cl_.count(op.input(0)) && cl_.count(op.input(3))) {  // operands A (0) and B (3)
        op.set_input(0, cl_[op.input(0)]);
        op.set_input(3, cl_[op.input(3)]);
        Convert(&op, nullptr);
        ++converted;
      } else if (op.type() == "QLinearLookup" && op.domain() == kLoomDomain && op.input_size() == 2 &&
                 cl_.count(op.input(0))) {
        op.set_input(0, cl_[op.input(0)]);  // each element maps alone: any layout
        Convert(&op, nullptr);
        ++converted;
      } else if (ResizeOnChannelsLast(&op)) {
        op.set_input(0, cl_[op.input(0)]);
        Convert(&op, nullptr);
        ++converted;
      } else if (ConcatOnChannelsLast(&op)) {
        for (int i = 0; i < op.input_size(); ++i) op.set_input(i, cl_[op.input(i)]);
        Convert(&op, nullptr);
        ++converted;
      } else if (ElementwiseOnChannelsLast(op)) {
        for (int i = 0; i < op.input_size(); ++i) {
          if (cl_.count(op.input(i))) op.set_input(i, cl_[op.input(i)]);
        }
        Convert(&op, nullptr);
        ++converted;
      } else {
        std::vector<std::string> reads;
        Reads(op, &reads);
        for (const std::string& r : reads) Plain(r);
        // A blob written again (an in-place op of a NetDef) holds a plain
        // value from here on.
        for (const std::string& out : op.output()) {
          cl_.erase(out);
          gone_.erase(out);
        }
      }
      ops_.push_back(std::move(op));
    }
    if (converted == 0) return 0;
    for (const std::string& out : net_->external_output()) Plain(out);
    net_->clear_op();
    for (OperatorDef& op : ops_) *net_->add_op() = std::move(op);
    return converted;
  }

 private:
  // `name` channels-last: a tensor made so, or a Transpose of it, once.
  std::string ChannelsLast(const std::string& name) {
    auto it = cl_.find(name);
    if (it != cl_.end()) return it->second;
    const std::string t = name + "_nhwc";
    ops_.push_back(Transpose(name, t, {0, 2, 3, 1}));
    cl_[name] = t;
    return t;
  }

  // An elementwise op with a channels-last input whose other inputs are
  // channels-last too or scalar initializers (a per-tensor
  // QuantizeLinear's scale and zero point, Clip's bounds, Mul's constant),
  // which broadcast alike in either layout.
  bool ElementwiseOnChannelsLast(const OperatorDef& op) const {
    if (!Elementwise(op)) return false;
    bool any = false;
    for (const std::string& in : op.input()) {
      if (in.empty()) continue;
      if (cl_.count(in)) {
        any = true;
        continue;
      }
      const TensorProto* t = ConstantInitializer(*net_, in);
      int64_t n = 1;
      if (t == nullptr) return false;
      for (int64_t d : t->dims()) n *= d;
      if (n != 1) return false;
    }
    return any;
  }

  // A constant W of rank 4: a 2-D convolution's.
  bool Rank4Weights(const std::string& name) const {
    const TensorProto* w = ConstantInitializer(*net_, name);
    return w != nullptr && w->dims_size() == 4;
  }

  // The QLinearLookup that alone reads conv `index`'s output (no net
  // output), with an int8/uint8 table of the conv's output type: the conv
  // applies it (NhwcQLinearConv's output_table); -1 if none.
  int FusableLookup(const std::map<std::string, int>& reads, int index) const {
    const OperatorDef& conv = net_->op(index);
    const int r = SoleReader(*net_, reads, conv.output(0));
    if (r <= index) return -1;
    const OperatorDef& l = net_->op(r);
    if (l.type() != "QLinearLookup" || l.domain() != kLoomDomain || l.input_size() != 2 || l.output_size() != 1 ||
        l.input(0) != conv.output(0)) {
      return -1;
    }
    const TensorProto* table = ConstantInitializer(*net_, l.input(1));
    const TensorProto* y_zp = ConstantInitializer(*net_, conv.input(7));
    return table != nullptr && y_zp != nullptr && table->data_type() == y_zp->data_type() ? r : -1;
  }

  // A Resize (not tf_crop_and_resize) of a channels-last X whose scales or
  // sizes are a constant of 4 values: their channels-last order in a new
  // initializer "<name>_nhwc" (once), set as the op's input.
  bool ResizeOnChannelsLast(OperatorDef* op) {
    if (!IsOnnxOp(*op, "Resize") || op->input_size() < 2 || op->output_size() != 1 || !cl_.count(op->input(0))) {
      return false;
    }
    const Argument* ctm = FindArg(*op, "coordinate_transformation_mode");
    if (ctm != nullptr && ctm->s() == "tf_crop_and_resize") return false;
    // Resize-10: (X, scales); 11+: (X, roi, scales, sizes), one of the last two given.
    int given = -1;
    for (int i = op->input_size() == 2 ? 1 : 2; i < op->input_size(); ++i) {
      auto t = ConstantValue(*net_, op->input(i));
      if (t && t->num_elements() == 4) given = i;
      if (!op->input(i).empty() && !t) return false;
    }
    if (given < 0) return false;
    const std::string name = op->input(given) + "_nhwc";
    if (FindInitializer(*net_, name) == nullptr) {
      Tensor t = *ConstantValue(*net_, op->input(given));
      Tensor p = Tensor::Zeros(t.dtype(), {4});
      const size_t bytes = t.nbytes() / 4;
      const int from[] = {0, 2, 3, 1};
      for (int k = 0; k < 4; ++k) {
        std::memcpy(static_cast<char*>(p.raw_data()) + k * bytes,
                    static_cast<const char*>(t.raw_data()) + from[k] * bytes, bytes);
      }
      *net_->add_initializer() = TensorToProto(p, name);
    }
    op->set_input(given, name);
    return true;
  }

  // A Concat of channels-last inputs only: its axis in channels-last order.
  bool ConcatOnChannelsLast(OperatorDef* op) const {
    if (!IsOnnxOp(*op, "Concat") || op->input_size() < 1 || op->output_size() != 1) return false;
    for (const std::string& in : op->input()) {
      if (!cl_.count(in)) return false;
    }
    Argument* axis = nullptr;
    for (Argument& a : *op->mutable_arg()) {
      if (a.name() == "axis") axis = &a;
    }
    if (axis == nullptr || axis->i() < -4 || axis->i() > 3) return false;
    const int64_t plain = (axis->i() + 4) % 4;
    const int64_t to[] = {0, 3, 1, 2};  // NCHW axis -> NHWC axis
    axis->set_i(to[plain]);
    return true;
  }

  // The op writes its output channels-last, as `type` (Loom's domain)
  // unless null (the op as it is).
  void Convert(OperatorDef* op, const char* type) {
    if (type != nullptr) {
      op->set_type(type);
      op->set_domain(kLoomDomain);
    }
    const std::string y = op->output(0), t = y + "_nhwc";
    op->set_output(0, t);
    cl_[y] = t;
    gone_.insert(y);
  }

  // `name` in its plain layout for a reader: a Transpose back before the
  // first reader of a tensor only written channels-last.
  void Plain(const std::string& name) {
    if (!gone_.count(name)) return;
    ops_.push_back(Transpose(cl_[name], name, {0, 3, 1, 2}));
    gone_.erase(name);
  }

  NetDef* net_;
  std::vector<OperatorDef> ops_;
  std::map<std::string, std::string> cl_;  // plain name -> channels-last name
  std::set<std::string> gone_;             // plain names no op writes any more
};

}  // namespace

int Int8ChannelsLast(NetDef* net) { return Rewriter(net).Run(); }

}  // namespace transforms
}  // namespace loom
