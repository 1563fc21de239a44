#include "transforms/fuse_dynamic_quant.h"

#include <map>
#include <optional>
#include <set>
#include <string>

#include "core/registry.h"
#include "core/tensor.h"
#include "transforms/graph_util.h"

namespace loom {
namespace transforms {
namespace {

class Fuser {
 public:
  explicit Fuser(NetDef* net) : net_(net) { CollectReads(*net, &reads_); }

  int Run() {
    int fused = 0;
    for (int i = 0; i < net_->op_size(); ++i) {
      if (IsOnnxOp(net_->op(i), "DynamicQuantizeLinear")) fused += Fuse(i);
    }
    if (fused > 0) RemoveOps(net_, removed_);
    return fused;
  }

 private:
  // The op that alone reads output `k` of op `from` (after it, not yet
  // removed) when it is of `type`; -1 otherwise.
  int Next(int from, int k, const char* type) const {
    const OperatorDef& op = net_->op(from);
    if (k >= op.output_size() || op.output(k).empty()) return -1;
    const int r = SoleReader(*net_, reads_, op.output(k));
    return r > from && !removed_.count(r) && IsOnnxOp(net_->op(r), type) ? r : -1;
  }

  // Op `op` (a binary op) reads `name` as one operand: the other one.
  static std::optional<std::string> Other(const OperatorDef& op, const std::string& name) {
    if (op.input_size() != 2 || op.output_size() != 1) return std::nullopt;
    if (op.input(0) == name) return op.input(1);
    if (op.input(1) == name) return op.input(0);
    return std::nullopt;
  }

  // A constant float32 of one or `n` elements, of rank at most 1; its name.
  bool PerColumnFloat(const std::string& name, int64_t n, bool allow_scalar) const {
    auto v = ConstantValue(*net_, name);
    return v && v->dtype() == DataType::kFloat32 && v->rank() <= 1 &&
           (v->num_elements() == n || (allow_scalar && v->num_elements() == 1));
  }

  // DynamicQuantizeLinear op i and the pattern after it (see the header).
  int Fuse(int i) {
    const OperatorDef& dq = net_->op(i);
    if (dq.input_size() != 1 || dq.output_size() != 3) return 0;
    const int mm = Next(i, 0, "MatMulInteger");
    if (mm < 0 || Next(i, 2, "MatMulInteger") != mm) return 0;
    const OperatorDef& m = net_->op(mm);
    if (m.input_size() < 3 || m.input(0) != dq.output(0) || m.input(2) != dq.output(2)) return 0;
    auto b = ConstantValue(*net_, m.input(1));
    if (!b || b->dtype() != DataType::kInt8 || b->rank() != 2) return 0;
    const int64_t n = b->dims()[1];
    std::string b_zp = m.input_size() > 3 ? m.input(3) : "";
    if (!b_zp.empty()) {
      auto z = ConstantValue(*net_, b_zp);
      if (!z || z->dtype() != DataType::kInt8 || z->rank() > 1 || (z->num_elements() != 1 && z->num_elements() != n)) {
        return 0;
      }
      for (int64_t k = 0; k < z->num_elements(); ++k) {
        if (z->data<int8_t>()[k] != 0) return 0;
      }
    }
    const int cast = Next(mm, 0, "Cast");
    if (cast < 0 || net_->op(cast).output_size() != 1) return 0;
    const Argument* to = FindArg(net_->op(cast), "to");
    if (to == nullptr || to->i() != 1) return 0;  // ONNX's FLOAT
    const int mul = Next(cast, 0, "Mul");
    if (mul < 0) return 0;
    auto scales = Other(net_->op(mul), net_->op(cast).output(0));
    // The scales' product: Mul(a_scale, b_scale), read by the Mul alone.
    const int scale_mul = Next(i, 1, "Mul");
    if (!scales || scale_mul < 0 || scale_mul > mul || net_->op(scale_mul).output(0) != *scales ||
        SoleReader(*net_, reads_, *scales) != mul) {
      return 0;
    }
    auto b_scale = Other(net_->op(scale_mul), dq.output(1));
    if (!b_scale || !PerColumnFloat(*b_scale, n, true)) return 0;
    if (!b_zp.empty() && ConstantValue(*net_, b_zp)->num_elements() != ConstantValue(*net_, *b_scale)->num_elements()) {
      return 0;
    }
    int last = mul;
    std::string bias;
    const int add = Next(mul, 0, "Add");
    if (add >= 0) {
      auto other = Other(net_->op(add), net_->op(mul).output(0));
      if (other && PerColumnFloat(*other, n, false)) {
        bias = *other;
        last = add;
      }
    }
    // The fused op in the last op's place, writing its output.
    OperatorDef fused;
    fused.set_type("DynamicQuantizeMatMul");
    fused.set_domain(kLoomDomain);
    fused.set_name(net_->op(mm).name());
    for (const std::string& in : {dq.input(0), m.input(1), *b_scale, b_zp, bias}) fused.add_input(in);
    fused.add_output(net_->op(last).output(0));
    if (net_->op(last).has_device_option()) *fused.mutable_device_option() = net_->op(last).device_option();
    for (int r : {i, mm, cast, scale_mul, mul}) {
      if (r != last) removed_.insert(r);
    }
    *net_->mutable_op(last) = std::move(fused);
    return 1;
  }

  NetDef* net_;
  std::map<std::string, int> reads_;
  std::set<int> removed_;
};

}  // namespace

int FuseDynamicQuant(NetDef* net) { return Fuser(net).Run(); }

}  // namespace transforms
}  // namespace loom
