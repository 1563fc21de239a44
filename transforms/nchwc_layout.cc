#include "transforms/nchwc_layout.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.h"
#include "transforms/graph_util.h"

namespace loom {
namespace transforms {
namespace {

const std::set<std::string>& UnaryElementwise() {
  static const std::set<std::string> ops = {"Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish",
                                            "Elu", "Selu", "Softplus", "Abs", "Neg", "Exp", "Sqrt"};
  return ops;
}

// Every blob the nets nested in `op` read (they may read outer blobs).
void NestedReads(const OperatorDef& op, std::set<std::string>* out) {
  std::map<std::string, int> reads;
  for (const Argument& a : op.arg()) {
    if (a.has_n()) CollectReads(a.n(), &reads);
    for (const NetDef& n : a.nets()) CollectReads(n, &reads);
  }
  for (const auto& [name, count] : reads) out->insert(name);
}

// Which 2-D Conv/FusedConv may run blocked: one with inputs X, W and an
// optional B (ONNX Runtime's FusedConv may carry a fourth input Z), a
// constant float32 W, and either pointwise (1x1, group 1) or grouped
// (depthwise: one input and one output channel per group; or groups of
// whole blocks: oneDNN has no fast blocked kernel for others, such as
// ResNeXt's 4 channels per group) with channel counts that are multiples of
// `block`; or, with `dense` (AVX-512), kDense: a dense conv with a larger
// window, or a pointwise or depthwise one whose channels do not fill whole
// blocks, which runs channels-last (block 0): oneDNN's brgemm kernels want
// that layout and beat its nChw16c kernels there (ResNet-18's 3x3 convs:
// 0.52 ms against 0.65 ms each, ONEDNN_VERBOSE), and PP-OCR's classifier
// (8 to 88 channels) ran 0.54 to 0.39 ms. Without `dense` (AVX2: no brgemm
// convolutions in oneDNN 2.6) such convs stay plain.
// With `winograd` (and `dense`), kWinograd: a dense 3x3 conv, stride and
// dilation 1, with 16 to 256 channels in and out (multiples of 16), runs
// nChw16c with oneDNN's Winograd kernels (NchwcConv algorithm "winograd"):
// ResNet-18's 3x3 convs of 64 to 256 channels took 0.30-0.34 ms against
// brgemm's 0.53-0.58 ms at batch 1, and about half the time at batch 8 (2
// threads, standalone oneDNN program, 2026-12-02). Above 256 channels the
// gain fell to 10-20% while the transformed weights grow (4 times the
// weights for F(4x4, 3x3): 38 MB for one 512-channel conv): ResNet-18 with
// its 512-channel convs too ran 8.4 against 9.5 ms at batch 1 but peaked at
// 221 against 156 MB, and at 403 against 205 MB at batch 8.
// kStem: a dense conv of fewer input channels than a block (an image
// stem: 3 channels) whose output channels fill whole blocks reads its plain
// NCHW input as is and writes nChw<b>c (oneDNN's jit "first convolution"
// kernels; ONNX Runtime's NchwcConv of an NCHW input): MobileNet's 3 to 32
// channels 3x3 at 224 took 70 us against 101 us for the reorder to nhwc and
// brgemm's nhwc conv, PP-OCR's 3 to 16 at 960 0.67 against 1.38 ms, and the
// reorder to the nChw16c of the depthwise conv after it goes (2 threads,
// standalone oneDNN program, 2026-12-02). Only when the input is plain (a
// blocked one is classified as other dense convs are) and the convs its
// output feeds (through pools and activations) run blocked: before a
// channels-last or plain conv, the stem runs as other dense convs do
// instead of adding a reorder.
enum class Blockable { kNo, kPointwise, kGrouped, kDense, kWinograd, kStem };

// Whether every value of `op`'s ints attribute `name` is 1 (absent: yes).
bool AllOnes(const OperatorDef& op, const char* name) {
  const Argument* a = FindArg(op, name);
  if (a == nullptr) return true;
  for (int64_t v : a->ints()) {
    if (v != 1) return false;
  }
  return true;
}

Blockable Classify(const NetDef& net, const OperatorDef& op, int64_t block, bool dense, bool winograd) {
  if ((op.type() != "Conv" && op.type() != "FusedConv") || op.output_size() != 1 || op.input_size() < 2 ||
      op.input_size() > 3) {
    return Blockable::kNo;
  }
  const TensorProto* w = ConstantInitializer(net, op.input(1));  // not a net input: a caller may feed another W
  if (w == nullptr || w->data_type() != static_cast<int>(DataType::kFloat32) || w->dims_size() != 4) return Blockable::kNo;
  const Argument* g = FindArg(op, "group");
  const int64_t group = g != nullptr && g->has_i() ? g->i() : 1;
  const int64_t m = w->dims(0), c = w->dims(1) * group;
  const bool pointwise = group == 1 && w->dims(2) == 1 && w->dims(3) == 1;
  if (dense && winograd && group == 1 && w->dims(2) == 3 && w->dims(3) == 3 && m % 16 == 0 && c % 16 == 0 &&
      m > 0 && c > 0 && m <= 256 && c <= 256 && AllOnes(op, "strides") && AllOnes(op, "dilations")) {
    return Blockable::kWinograd;
  }
  if (group == 1 && !pointwise && c > 0 && c < block && m > 0 && m % block == 0) return Blockable::kStem;
  if (dense && group == 1 && !pointwise && m > 0 && c > 0) return Blockable::kDense;
  const bool depthwise = w->dims(1) == 1 && m == group;
  if (m % block != 0 || c % block != 0) {
    // Channels that do not fill whole blocks (PP-OCR's classifier: 8, 24,
    // 40, 88 channels): channels-last has no blocks to fill. AVX-512 only,
    // as for dense convs, and pointwise or depthwise only (oneDNN's
    // channels-last kernels for other groupings were not measured).
    return dense && m > 0 && c > 0 && (group == 1 || depthwise) ? Blockable::kDense : Blockable::kNo;
  }
  if (group == 1) return pointwise ? Blockable::kPointwise : Blockable::kNo;
  return depthwise || (w->dims(1) % block == 0 && (m / group) % block == 0) ? Blockable::kGrouped : Blockable::kNo;
}

class Rewriter {
 public:
  Rewriter(const NetDef& net, int64_t block, bool winograd)
      : net_(net), block_(block), dense_(block == 16), winograd_(winograd) {}

  int Run(std::vector<OperatorDef>* out) {
    out_ = out;
    for (int index = 0; index < net_.op_size(); ++index) {
      const OperatorDef& original = net_.op(index);
      OperatorDef op = original;
      std::set<std::string> nested;
      NestedReads(op, &nested);
      for (const std::string& name : nested) Plain(name);
      Blockable conv = Classify(net_, op, block_, dense_, winograd_);
      if (conv == Blockable::kStem && (blocked_.count(op.input(0)) || !FeedsBlockedConvs(op.output(0), index))) {
        conv = dense_ ? Blockable::kDense : Blockable::kNo;
      }
      const size_t blocked_operands = IsBinary(op) ? blocked_.count(op.input(0)) + blocked_.count(op.input(1)) : 0;
      // A run starts at a grouped (depthwise) or channels-last conv: a
      // pointwise one (with whole blocks) on a plain input would be an
      // island with reorders on both sides (ResNet's downsampling 1x1 convs
      // between plain 3x3 ones on AVX2). A channels-last conv alone costs
      // what the plain Conv does (it reorders into that layout itself).
      if (conv == Blockable::kGrouped || conv == Blockable::kDense || conv == Blockable::kWinograd ||
          conv == Blockable::kStem || (conv == Blockable::kPointwise && blocked_.count(op.input(0)))) {
        // Dense convs run channels-last; a pointwise one keeps its input's
        // layout (ResNet's downsampling 1x1 convs between channels-last 3x3
        // ones, whose outputs they are added to); grouped ones nChw<b>c.
        const int64_t layout = conv == Blockable::kDense ? 0
                               : conv == Blockable::kPointwise && blocked_.count(op.input(0)) ? blocked_[op.input(0)].block
                                                                                               : block_;
        if (conv == Blockable::kWinograd) {
          Argument* a = op.add_arg();
          a->set_name("algorithm");
          a->set_s("winograd");
        }
        ToNchwcConv(&op, layout, conv == Blockable::kStem);
      } else if (op.type() == "GlobalAveragePool" && op.input_size() == 1 && op.output_size() == 1 &&
                 blocked_.count(op.input(0))) {
        // Squeeze-and-excitation: the pooled channels feed 1x1 convs, blocked.
        const Form in = blocked_[op.input(0)];
        const std::string x = op.input(0);
        op.set_type("NchwcGlobalAveragePool"); op.set_domain(kLoomDomain);
        op.set_input(0, in.name);
        MakeBlockedOutput(&op, in.block);
        SameChannels(x, original.output(0));
        reduced_.insert(original.output(0));
      } else if (op.type() == "MaxPool" && op.input_size() == 1 && op.output_size() == 1 && blocked_.count(op.input(0))) {
        // Pooled in the input's layout (ResNet's stem: no reorders around it).
        const Form in = blocked_[op.input(0)];
        const std::string x = op.input(0);
        op.set_type("NchwcMaxPool"); op.set_domain(kLoomDomain);
        op.set_input(0, in.name);
        for (int i = op.arg_size() - 1; i >= 0; --i) {
          if (op.arg(i).name() == "storage_order") op.mutable_arg()->DeleteSubrange(i, 1);  // Indices only
        }
        MakeBlockedOutput(&op, in.block);
        SameChannels(x, original.output(0));
      } else if (UnaryElementwise().count(op.type()) && op.input_size() >= 1 && op.output_size() == 1 &&
                 blocked_.count(op.input(0))) {
        for (int i = 1; i < op.input_size(); ++i) Plain(op.input(i));  // Clip's scalar bounds
        const Form in = blocked_[op.input(0)];
        const std::string x = op.input(0);
        op.set_input(0, in.name);
        MakeBlockedOutput(&op, in.block);
        SameChannels(x, original.output(0));
      } else if (IsBinary(op) && BlockedOrScalar(op.input(0)) && BlockedOrScalar(op.input(1)) &&
                 (blocked_operands == 1 || (blocked_operands == 2 && (op.type() == "Add" || ChannelsLastMul(op))))) {
        if (!FuseSum(op)) {
          // Both operands in one layout: the blocked one's; when two differ,
          // one that an operand already has a re-blocked copy in, else
          // channels-last (any channel count re-blocks to it, and one
          // channel broadcasts there as in NCHW).
          int64_t b = blocked_.count(op.input(0)) ? blocked_[op.input(0)].block : blocked_[op.input(1)].block;
          if (blocked_operands == 2 && blocked_[op.input(0)].block != blocked_[op.input(1)].block) {
            const int64_t b0 = blocked_[op.input(0)].block, b1 = blocked_[op.input(1)].block;
            b = reblocked_.count({op.input(1), b0}) ? b0 : reblocked_.count({op.input(0), b1}) ? b1 : 0;
          }
          // The output's channels: the operands' when they agree (a scalar
          // has none), else unknown.
          const auto c0 = channels_.find(op.input(0)), c1 = channels_.find(op.input(1));
          int64_t c = -1;
          if (c0 != channels_.end() && (c1 == channels_.end() ? !blocked_.count(op.input(1)) : c1->second == c0->second)) c = c0->second;
          if (c1 != channels_.end() && c0 == channels_.end() && !blocked_.count(op.input(0))) c = c1->second;
          for (int i = 0; i < 2; ++i) {
            if (blocked_.count(op.input(i))) op.set_input(i, Blocked(op.input(i), b));
          }
          const bool reduced = (!blocked_.count(original.input(0)) || reduced_.count(original.input(0))) &&
                               (!blocked_.count(original.input(1)) || reduced_.count(original.input(1)));
          MakeBlockedOutput(&op, b);
          if (c > 0) channels_[original.output(0)] = c;
          if (reduced) reduced_.insert(original.output(0));
        }
      } else if (op.type() == "Resize" && BlockedResize(&op)) {
        // emitted on the blocked tensor
      } else if (op.type() == "Concat" && BlockedConcat(&op)) {
        // emitted on the blocked tensors
      } else {
        for (const std::string& in : op.input()) Plain(in);
        for (const std::string& out : op.output()) Forget(out);  // a name written again: its blocked forms are stale
        out_->push_back(op);
      }
    }
    for (const std::string& name : net_.external_output()) Plain(name);
    return convs_;
  }

  // The initializers Run made (blocked Resize scales), for the net.
  std::vector<TensorProto> TakeInitializers() { return std::move(new_initializers_); }

 private:
  // A blocked form of a tensor: its blob and its block (8, 16; 0:
  // channels-last).
  struct Form {
    std::string name;
    int64_t block = 0;
  };

  // Whether the convs that read `name` (written by op `index`), directly
  // or through MaxPools and unary element-wise ops, all run in a blocked
  // layout (depthwise or grouped, Winograd, pointwise; not channels-last or
  // plain), and there is one.
  bool FeedsBlockedConvs(const std::string& name, int index) const {
    bool found = false;
    for (int i = index + 1; i < net_.op_size(); ++i) {
      const OperatorDef& op = net_.op(i);
      if (std::find(op.input().begin(), op.input().end(), name) == op.input().end()) continue;
      if (op.input(0) != name) return false;  // read as a weight, bias or second operand
      const Blockable kind = Classify(net_, op, block_, dense_, winograd_);
      if (kind == Blockable::kGrouped || kind == Blockable::kWinograd || kind == Blockable::kPointwise) {
        found = true;
      } else if ((op.type() == "MaxPool" || UnaryElementwise().count(op.type())) && op.output_size() == 1) {
        if (!FeedsBlockedConvs(op.output(0), i)) return false;
        found = true;
      } else {
        return false;
      }
      if (std::find(op.output().begin(), op.output().end(), name) != op.output().end()) break;  // written again
    }
    return found;
  }

  static bool IsBinary(const OperatorDef& op) {
    return (op.type() == "Add" || op.type() == "Sub" || op.type() == "Mul" || op.type() == "Div") &&
           op.input_size() == 2 && op.output_size() == 1;
  }

  // Mul of two channels-last tensors (a squeeze-excitation gate [N, 1, 1,
  // 1, C] times X [N, 1, H, W, C]): the broadcast runs over rows of C
  // values. In nChw16c its rows are 16 values, slower than the reorders.
  bool ChannelsLastMul(const OperatorDef& op) {
    return op.type() == "Mul" && blocked_.at(op.input(0)).block == 0 && blocked_.at(op.input(1)).block == 0;
  }

  bool BlockedOrScalar(const std::string& name) const {
    return blocked_.count(name) || ScalarInitializer(net_, name, 4).has_value();
  }

  // `name` readable in plain NCHW: a ReorderOutput from its blocked form
  // when it has only that.
  void Plain(const std::string& name) {
    if (name.empty() || !blocked_only_.count(name)) return;
    OperatorDef r;
    r.set_type("ReorderOutput"); r.set_domain(kLoomDomain);
    r.set_name(name + "__reorder_output");
    r.add_input(blocked_[name].name);
    r.add_output(name);
    out_->push_back(r);
    blocked_only_.erase(name);
  }

  // `name` in layout `block`: its blocked form when it has that layout,
  // else one made by a ReorderInput from its plain or (re-blocking) its
  // blocked form.
  std::string Blocked(const std::string& name, int64_t block) {
    auto it = blocked_.find(name);
    if (it != blocked_.end() && it->second.block == block) return it->second.name;
    auto alt = reblocked_.find({name, block});
    if (alt != reblocked_.end()) return alt->second;
    OperatorDef r;
    r.set_type("ReorderInput"); r.set_domain(kLoomDomain);
    const bool primary = it == blocked_.end();
    const std::string out = name + (primary ? "__nchwc" : block == 0 ? "__nchwc_cl" : "__nchwc" + std::to_string(block));
    r.set_name(out + "__reorder_input");
    r.add_input(primary ? name : it->second.name);
    r.add_output(out);
    Argument* b = r.add_arg();
    b->set_name("block");
    b->set_i(block);
    if (primary) {
      producer_[name] = static_cast<int>(out_->size());
      blocked_[name] = {out, block};
    } else {
      reblocked_[{name, block}] = out;
    }
    out_->push_back(r);
    return out;
  }

  // Drops every blocked form of `name` (written again by a plain op).
  void Forget(const std::string& name) {
    blocked_.erase(name);
    blocked_only_.erase(name);
    channels_.erase(name);
    reduced_.erase(name);
    sum_candidates_.erase(name);
    for (auto it = reblocked_.begin(); it != reblocked_.end();) {
      it = it->first.first == name ? reblocked_.erase(it) : std::next(it);
    }
  }

  // Renames op's output to its blocked form (layout `block`) and emits op.
  void MakeBlockedOutput(OperatorDef* op, int64_t block) {
    const std::string plain = op->output(0);
    Forget(plain);
    op->set_output(0, plain + "__nchwc");
    blocked_[plain] = {plain + "__nchwc", block};
    blocked_only_.insert(plain);
    producer_[plain] = static_cast<int>(out_->size());
    out_->push_back(*op);
  }

  // With `plain_x`, X stays the plain tensor it is (a stem).
  void ToNchwcConv(OperatorDef* op, int64_t block, bool plain_x) {
    const bool fused = op->type() == "FusedConv";
    const std::string plain = op->output(0), x = op->input(0);
    const int64_t m = FindInitializer(net_, op->input(1))->dims(0);  // Classify checked W
    op->set_type("NchwcConv"); op->set_domain(kLoomDomain);
    if (!plain_x) op->set_input(0, Blocked(op->input(0), block));
    for (int i = 1; i < op->input_size(); ++i) Plain(op->input(i));
    Argument* b = op->add_arg();
    b->set_name("block");
    b->set_i(block);
    ++convs_;
    MakeBlockedOutput(op, block);
    if (!fused) sum_candidates_.insert(plain);
    channels_[plain] = m;
    if (reduced_.count(x)) reduced_.insert(plain);  // a conv of a pooled 1 x 1 tensor (padding aside)
  }

  // `out` has the channels of `in` (when known), and its spatial extent:
  // reduced to 1 x 1 by a global pool when `in`'s is.
  void SameChannels(const std::string& in, const std::string& out) {
    auto it = channels_.find(in);
    if (it != channels_.end()) channels_[out] = it->second;
    if (reduced_.count(in)) reduced_.insert(out);
  }

  // Resize (opset 11+: X, roi, scales) of a blocked tensor by constant
  // scales [1, 1, sh, sw] (float32, not a net input; no sizes, no
  // tf_crop_and_resize, no antialias or axes) becomes the same Resize of the
  // blocked tensor [N, C / b, H, W, b] with scales [1, 1, sh, sw, 1]: the
  // kernel resizes axis by axis, so the untouched channel axes give the same
  // values (PP-OCR's FPN upsamples between channels-last convs).
  bool BlockedResize(OperatorDef* op) {
    if (op->input_size() < 3 || op->input_size() > 4 || op->output_size() != 1 || !blocked_.count(op->input(0)) ||
        (op->input_size() == 4 && !op->input(3).empty()) || FindArg(*op, "axes") != nullptr ||
        HasNonZeroInt(*op, "antialias")) {
      return false;
    }
    const Argument* ct = FindArg(*op, "coordinate_transformation_mode");
    if (ct != nullptr && ct->s() == "tf_crop_and_resize") return false;
    const TensorProto* scales = ConstantInitializer(net_, op->input(2));  // not a net input: a caller may feed others
    if (scales == nullptr || scales->data_type() != static_cast<int>(DataType::kFloat32)) return false;
    auto s = TensorFromProto(*scales);
    if (!s.ok() || s->rank() != 1 || s->num_elements() != 4 || s->data<float>()[0] != 1.0f ||
        s->data<float>()[1] != 1.0f) {
      return false;
    }
    const std::string blocked_scales = op->input(2) + "__nchwc";
    if (std::none_of(new_initializers_.begin(), new_initializers_.end(),
                     [&](const TensorProto& t) { return t.name() == blocked_scales; })) {
      const float* v = s->data<float>();
      new_initializers_.push_back(
          TensorToProto(Tensor::FromVector<float>({5}, {1.0f, 1.0f, v[2], v[3], 1.0f}), blocked_scales));
    }
    const Form in = blocked_[op->input(0)];
    const std::string x = op->input(0), plain = op->output(0);
    op->set_input(0, in.name);
    op->set_input(2, blocked_scales);
    if (!op->input(1).empty()) Plain(op->input(1));
    MakeBlockedOutput(op, in.block);
    SameChannels(x, plain);
    return true;
  }

  // Concat on channels (axis 1 or -3) of blocked tensors in one layout:
  // channels-last ones concatenate along their last axis, nChw<b>c ones
  // along their block axis when every input's channels are known multiples
  // of b.
  bool BlockedConcat(OperatorDef* op) {
    const Argument* a = FindArg(*op, "axis");
    if (op->input_size() < 1 || op->output_size() != 1 || a == nullptr || (a->i() != 1 && a->i() != -3)) return false;
    if (!blocked_.count(op->input(0))) return false;
    const int64_t block = blocked_[op->input(0)].block;
    int64_t channels = 0;
    bool known = true;
    for (const std::string& in : op->input()) {
      if (!blocked_.count(in) || blocked_[in].block != block) return false;
      auto c = channels_.find(in);
      if (c == channels_.end()) {
        known = false;
      } else {
        channels += c->second;
        if (block > 0 && c->second % block != 0) return false;
      }
    }
    if (block > 0 && !known) return false;
    const std::string plain = op->output(0);
    for (int i = 0; i < op->input_size(); ++i) op->set_input(i, blocked_[op->input(i)].name);
    for (Argument& arg : *op->mutable_arg()) {
      if (arg.name() == "axis") arg.set_i(block == 0 ? 4 : 1);
    }
    MakeBlockedOutput(op, block);
    if (known) channels_[plain] = channels;
    return true;
  }

  // Add(conv, other) into conv's Sum input, when the conv's output is read
  // only by this Add and `other`'s blocked form, in the conv's layout, is
  // written before the conv.
  bool FuseSum(const OperatorDef& add) {
    if (add.type() != "Add" || !blocked_.count(add.input(0)) || !blocked_.count(add.input(1))) return false;
    if (reads_.empty()) CollectReads(net_, &reads_);
    for (int i = 0; i < 2; ++i) {
      const std::string& conv_out = add.input(i);
      const std::string& other = add.input(1 - i);
      // The conv must come after the op writing `other` (a shortcut conv
      // may come later in the net than the branch's last conv).
      if (!sum_candidates_.count(conv_out) || reads_[conv_out] != 1 || conv_out == other ||
          !producer_.count(other) || producer_[other] >= producer_[conv_out] ||
          blocked_[other].block != blocked_[conv_out].block || !channels_.count(other) ||
          channels_[other] != channels_[conv_out] || (reduced_.count(conv_out) && !reduced_.count(other))) {
        // Sum must be Y's shape or broadcast to it: the same, known channels,
        // and not a full tensor added to a globally pooled one.
        continue;
      }
      const int64_t block = blocked_[conv_out].block, channels = channels_[conv_out];
      const bool reduced = reduced_.count(conv_out) > 0;
      OperatorDef& conv = (*out_)[producer_[conv_out]];
      while (conv.input_size() < 3) conv.add_input("");  // B absent
      conv.add_input(blocked_[other].name);
      conv.set_output(0, add.output(0) + "__nchwc");
      Forget(conv_out);
      sum_candidates_.erase(conv_out);
      Forget(add.output(0));
      blocked_[add.output(0)] = {add.output(0) + "__nchwc", block};
      blocked_only_.insert(add.output(0));
      producer_[add.output(0)] = producer_[conv_out];
      channels_[add.output(0)] = channels;
      if (reduced) reduced_.insert(add.output(0));
      return true;
    }
    return false;
  }

  const NetDef& net_;
  const int64_t block_;
  const bool dense_;  // dense convs run channels-last (AVX-512)
  const bool winograd_;  // with dense_: 3x3 stride-1 convs run nChw16c, Winograd
  std::vector<OperatorDef>* out_ = nullptr;
  std::map<std::string, Form> blocked_;                            // plain name -> its blocked form
  std::map<std::pair<std::string, int64_t>, std::string> reblocked_;  // (plain name, block) -> a re-blocked copy
  std::set<std::string> blocked_only_;                             // blocked, with no plain form yet
  std::map<std::string, int> producer_;  // plain name -> index in out_ of the op writing its blocked form
  std::set<std::string> sum_candidates_;  // NchwcConv outputs without Sum or activation
  std::map<std::string, int> reads_;
  std::map<std::string, int64_t> channels_;  // plain name -> its channel count, where known
  std::set<std::string> reduced_;            // plain names of globally pooled (1 x 1) tensors and what follows them
  int convs_ = 0;
  std::vector<TensorProto> new_initializers_;  // blocked Resize scales
};

}  // namespace

int64_t NchwcBlockForThisCpu() {
#if defined(__x86_64__)
  // oneDNN's own cap on its ISA (ONEDNN_MAX_CPU_ISA=AVX2, ...) counts too.
  const char* cap = std::getenv("ONEDNN_MAX_CPU_ISA");
  const bool capped = cap != nullptr && std::string(cap).find("AVX512") == std::string::npos &&
                      std::string(cap).find("ALL") == std::string::npos && std::string(cap) != "DEFAULT";
  return __builtin_cpu_supports("avx512f") && !capped ? 16 : 8;
#else
  return 8;
#endif
}

int PropagateNchwcLayout(NetDef* net, int64_t block, bool winograd) {
  if (block != 8 && block != 16) return 0;
  std::vector<OperatorDef> ops;
  Rewriter rewriter(*net, block, winograd);
  const int convs = rewriter.Run(&ops);
  if (convs == 0) return 0;
  net->clear_op();
  for (OperatorDef& op : ops) *net->add_op() = std::move(op);
  for (TensorProto& t : rewriter.TakeInitializers()) *net->add_initializer() = std::move(t);
  return convs;
}

}  // namespace transforms
}  // namespace loom
