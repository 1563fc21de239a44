#include "tools/train/char_lm.h"

#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "plugins/rnn/builder.h"

namespace loom {
namespace train {
namespace {

OperatorDef* AddOp(NetDef* net, const std::string& type, std::vector<std::string> in, std::vector<std::string> out) {
  OperatorDef* op = net->add_op();
  op->set_type(type);
  op->set_name(absl::StrCat(type, "_", net->op_size()));
  for (std::string& s : in) op->add_input(std::move(s));
  for (std::string& s : out) op->add_output(std::move(s));
  return op;
}

template <typename Dist>
void AddInitializer(NetDef* net, const std::string& name, const std::vector<int64_t>& dims, Dist dist, std::mt19937* rng) {
  TensorProto* t = net->add_initializer();
  t->set_name(name);
  t->set_data_type(1);  // float32
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t->add_float_data(static_cast<float>(dist(*rng)));
}

}  // namespace

Vocabulary::Vocabulary(const std::string& text) {
  std::array<bool, 256> seen{};
  for (unsigned char c : text) seen[c] = true;
  id.fill(-1);
  for (int c = 0; c < 256; ++c) {
    if (!seen[c]) continue;
    id[c] = static_cast<int>(chars.size());
    chars.push_back(static_cast<unsigned char>(c));
  }
}

std::vector<int64_t> Vocabulary::Encode(const std::string& text) const {
  std::vector<int64_t> out;
  out.reserve(text.size());
  for (unsigned char c : text) out.push_back(id[c]);
  return out;
}

std::vector<std::string> CharLmParameterNames(const CharLmSpec& spec) {
  std::vector<std::string> names = {"E"};
  for (int l = 0; l < spec.layers; ++l) {
    names.insert(names.end(), {absl::StrCat("W_", l), absl::StrCat("R_", l), absl::StrCat("B_", l)});
  }
  names.insert(names.end(), {"Wo", "bo"});
  return names;
}

absl::StatusOr<NetDef> CharLmNet(const CharLmSpec& spec, bool forward_only) {
  NetDef net;
  net.set_name(forward_only ? "char_lm_eval" : "char_lm");
  net.add_external_input("tokens");
  net.add_external_input("targets");
  std::vector<rnn::LstmWeights> weights;
  std::vector<std::string> h0, c0;
  for (int l = 0; l < spec.layers; ++l) {
    weights.push_back({absl::StrCat("W_", l), absl::StrCat("R_", l), absl::StrCat("B_", l)});
    h0.push_back(absl::StrCat("h0_", l));
    c0.push_back(absl::StrCat("c0_", l));
    net.add_external_input(h0.back());
    net.add_external_input(c0.back());
  }
  AddOp(&net, "Gather", {"E", "tokens"}, {"x"});
  absl::StatusOr<OperatorDef> lstm =
      rnn::BuildStackedLstm("lstm", "x", weights, h0, c0, "lstm", /*reverse=*/false, spec.threaded, spec.rnn_threads,
                            /*max_parallel_timesteps=*/2, /*fused=*/true, forward_only);
  if (!lstm.ok()) return lstm.status();
  *net.add_op() = *lstm;
  Argument* axis = AddOp(&net, "Flatten", {"lstm_all"}, {"flat"})->add_arg();
  axis->set_name("axis");
  axis->set_i(3);
  AddOp(&net, "Gemm", {"flat", "Wo", "bo"}, {"logits"});
  AddOp(&net, "SoftmaxCrossEntropyLoss", {"logits", "targets"}, {"loss"});
  net.add_external_output("loss");
  net.add_external_output("logits");
  for (int l = 0; l < spec.layers; ++l) {
    net.add_external_output(absl::StrCat("lstm_h", l));
    net.add_external_output(absl::StrCat("lstm_c", l));
  }
  return net;
}

void AddCharLmParameters(const CharLmSpec& spec, uint32_t seed, NetDef* net) {
  std::mt19937 rng(seed);
  const double k = 1.0 / std::sqrt(static_cast<double>(spec.hidden));
  std::uniform_real_distribution<double> u(-k, k);
  AddInitializer(net, "E", {spec.vocab, spec.embed}, std::normal_distribution<double>(0.0, 1.0), &rng);
  for (int l = 0; l < spec.layers; ++l) {
    const int64_t in = l == 0 ? spec.embed : spec.hidden;
    AddInitializer(net, absl::StrCat("W_", l), {in, 4 * spec.hidden}, u, &rng);
    AddInitializer(net, absl::StrCat("R_", l), {spec.hidden, 4 * spec.hidden}, u, &rng);
    AddInitializer(net, absl::StrCat("B_", l), {4 * spec.hidden}, u, &rng);
  }
  AddInitializer(net, "Wo", {spec.hidden, spec.vocab}, u, &rng);
  AddInitializer(net, "bo", {spec.vocab}, u, &rng);
}

CharBatches::CharBatches(const std::vector<int64_t>* ids, int64_t seq_len, int64_t streams)
    : ids_(ids), T_(seq_len), N_(streams), L_(static_cast<int64_t>(ids->size()) / streams) {
  count_ = L_ > T_ ? (L_ - 1) / T_ : 0;
}

void CharBatches::Get(int64_t k, Tensor* tokens, Tensor* targets) const {
  *tokens = Tensor::Zeros(DataType::kInt64, {T_, N_});
  *targets = Tensor::Zeros(DataType::kInt64, {T_ * N_});
  const int64_t start = (count_ > 0 ? k % count_ : 0) * T_;
  for (int64_t t = 0; t < T_; ++t) {
    for (int64_t n = 0; n < N_; ++n) {
      const int64_t at = n * L_ + start + t;
      tokens->data<int64_t>()[t * N_ + n] = (*ids_)[at];
      targets->data<int64_t>()[t * N_ + n] = (*ids_)[at + 1];
    }
  }
}

}  // namespace train
}  // namespace loom
