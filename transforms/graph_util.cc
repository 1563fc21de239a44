#include "transforms/graph_util.h"

#include <limits>

namespace loom {
namespace transforms {

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

const TensorProto* FindInitializer(const NetDef& net, const std::string& name) {
  for (const TensorProto& t : net.initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

const TensorProto* ConstantInitializer(const NetDef& net, const std::string& name) {
  for (const std::string& in : net.external_input()) {
    if (in == name) return nullptr;
  }
  return FindInitializer(net, name);
}

std::optional<Tensor> ConstantValue(const NetDef& net, const std::string& name) {
  const TensorProto* t = name.empty() ? nullptr : ConstantInitializer(net, name);
  if (t == nullptr) return std::nullopt;
  auto v = TensorFromProto(*t);
  if (!v.ok()) return std::nullopt;
  return *std::move(v);
}

void RemoveOps(NetDef* net, const std::set<int>& removed) {
  // Ops and initializers move (Swap), never copy: a model's weights are
  // held once, however large (a copy here doubled a 2 GB model's peak).
  google::protobuf::RepeatedPtrField<OperatorDef> ops;
  ops.Swap(net->mutable_op());
  for (int j = 0; j < ops.size(); ++j) {
    if (!removed.count(j)) net->add_op()->Swap(ops.Mutable(j));
  }
  std::map<std::string, int> reads;
  CollectReads(*net, &reads);
  std::set<std::string> inputs(net->external_input().begin(), net->external_input().end());
  google::protobuf::RepeatedPtrField<TensorProto> inits;
  inits.Swap(net->mutable_initializer());
  for (int j = 0; j < inits.size(); ++j) {
    const std::string& name = inits.Get(j).name();
    if (reads.count(name) || inputs.count(name)) net->add_initializer()->Swap(inits.Mutable(j));
  }
}

bool ClipBounds(const NetDef& net, const OperatorDef& clip, float* lo, float* hi) {
  *lo = FloatArg(clip, "min", std::numeric_limits<float>::lowest());
  *hi = FloatArg(clip, "max", std::numeric_limits<float>::max());
  if (clip.input_size() > 3) return false;
  for (int k = 1; k < clip.input_size(); ++k) {
    if (clip.input(k).empty()) continue;
    std::optional<float> v = ScalarInitializer(net, clip.input(k), 8);
    if (!v) return false;
    (k == 1 ? *lo : *hi) = *v;
  }
  return true;
}

bool ActivationParams(const NetDef& net, const OperatorDef& act, std::vector<float>* params) {
  params->clear();
  if (act.type() == "LeakyRelu") {
    *params = {FloatArg(act, "alpha", 0.01f)};
  } else if (act.type() == "HardSigmoid") {
    *params = {FloatArg(act, "alpha", 0.2f), FloatArg(act, "beta", 0.5f)};
  } else if (act.type() == "Clip") {
    float lo = 0, hi = 0;
    if (!ClipBounds(net, act, &lo, &hi)) return false;
    *params = {lo, hi};
  }
  return true;
}

std::optional<std::vector<float>> ChannelInitializer(const NetDef& net, const std::string& name, int rank,
                                                     int64_t channels) {
  if (std::optional<float> v = ScalarInitializer(net, name, rank)) return std::vector<float>(channels, *v);
  const TensorProto* t = ConstantInitializer(net, name);
  if (t == nullptr || t->data_type() != static_cast<int>(DataType::kFloat32) || t->dims_size() > rank ||
      t->dims_size() < rank - 1 || rank < 2) {
    return std::nullopt;
  }
  const int channel_axis = 1 - (rank - t->dims_size());  // the tensor's axis 1, in t's dims
  for (int k = 0; k < t->dims_size(); ++k) {
    if (t->dims(k) != (k == channel_axis ? channels : 1)) return std::nullopt;
  }
  auto v = TensorFromProto(*t);
  if (!v.ok() || v->num_elements() != channels) return std::nullopt;
  return std::vector<float>(v->data<float>(), v->data<float>() + channels);
}

// ConvTranspose's W is [C, M / group, k...]: its output channel is axis 1
// (group 1 only here).
bool IsConvTranspose(const OperatorDef& conv) { return conv.type() == "ConvTranspose"; }

int64_t ConvOutputChannels(const OperatorDef& conv, const Tensor& w) {
  return IsConvTranspose(conv) ? (w.rank() > 1 ? w.dim(1) : 0) : w.dim(0);
}

bool ConstantConvParams(const NetDef& net, const OperatorDef& conv, Tensor* w, Tensor* b) {
  if ((conv.type() != "Conv" && !IsConvTranspose(conv)) || conv.input_size() < 2) return false;
  if (IsConvTranspose(conv)) {
    const Argument* g = FindArg(conv, "group");
    if (g != nullptr && g->i() != 1) return false;
  }
  const TensorProto* wp = FindInitializer(net, conv.input(1));
  const bool has_b = conv.input_size() > 2 && !conv.input(2).empty();
  const TensorProto* bp = has_b ? FindInitializer(net, conv.input(2)) : nullptr;
  const int f32 = static_cast<int>(DataType::kFloat32);
  if (wp == nullptr || wp->data_type() != f32 || (has_b && (bp == nullptr || bp->data_type() != f32))) return false;
  auto W = TensorFromProto(*wp);
  if (!W.ok() || W->dims().empty() || (IsConvTranspose(conv) && W->rank() < 2)) return false;
  const int64_t M = ConvOutputChannels(conv, *W);
  absl::StatusOr<Tensor> B = has_b ? TensorFromProto(*bp) : absl::StatusOr<Tensor>(Tensor::Zeros(DataType::kFloat32, {M}));
  if (!B.ok() || B->num_elements() != M) return false;
  *w = *std::move(W);
  *b = *std::move(B);
  return true;
}

void FoldAffineIntoConv(NetDef* net, int conv_index, const Tensor& w, const Tensor& b, const std::vector<double>& scale,
                        const std::vector<double>& shift, const std::string& output, const std::string& name) {
  const OperatorDef& op = net->op(conv_index);
  const int64_t M = ConvOutputChannels(op, w);
  // W as [outer, M, inner]: Conv's [M, ...] (outer 1), ConvTranspose's [C, M, ...].
  const int64_t outer = IsConvTranspose(op) ? w.dim(0) : 1;
  const int64_t inner = M > 0 && outer > 0 ? w.num_elements() / (M * outer) : 0;
  Tensor W2 = Tensor::Zeros(DataType::kFloat32, w.dims()), B2 = Tensor::Zeros(DataType::kFloat32, {M});
  for (int64_t c = 0; c < outer; ++c) {
    for (int64_t o = 0; o < M; ++o) {
      const int64_t at = (c * M + o) * inner;
      for (int64_t i = 0; i < inner; ++i) W2.data<float>()[at + i] = static_cast<float>(w.data<float>()[at + i] * scale[o]);
    }
  }
  for (int64_t o = 0; o < M; ++o) B2.data<float>()[o] = static_cast<float>(b.data<float>()[o] * scale[o] + shift[o]);
  *net->add_initializer() = TensorToProto(W2, name + "_W");
  *net->add_initializer() = TensorToProto(B2, name + "_B");
  OperatorDef* conv = net->mutable_op(conv_index);
  conv->set_input(1, name + "_W");
  if (conv->input_size() > 2) {
    conv->set_input(2, name + "_B");
  } else {
    conv->add_input(name + "_B");
  }
  conv->set_output(0, output);
}

}  // namespace transforms
}  // namespace loom
