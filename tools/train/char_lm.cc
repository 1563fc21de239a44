#include "tools/train/char_lm.h"

#include <algorithm>
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
  if (spec.with_lengths) net.add_external_input("lengths");
  absl::StatusOr<OperatorDef> lstm =
      rnn::BuildStackedLstm("lstm", "x", weights, h0, c0, "lstm", /*reverse=*/false, spec.threaded, spec.rnn_threads,
                            /*max_parallel_timesteps=*/2, /*fused=*/true, forward_only,
                            spec.with_lengths ? "lengths" : "");
  if (!lstm.ok()) return lstm.status();
  *net.add_op() = *lstm;
  Argument* axis = AddOp(&net, "Flatten", {"lstm_all"}, {"flat"})->add_arg();
  axis->set_name("axis");
  axis->set_i(3);
  AddOp(&net, "Gemm", {"flat", "Wo", "bo"}, {"logits"});
  OperatorDef* loss = AddOp(&net, "SoftmaxCrossEntropyLoss", {"logits", "targets"}, {"loss"});
  if (spec.with_lengths) {  // the padding's targets are -1
    Argument* ignore = loss->add_arg();
    ignore->set_name("ignore_index");
    ignore->set_i(-1);
  }
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

LineBatches::LineBatches(const std::vector<int64_t>& ids, int64_t newline, const std::vector<int64_t>& buckets,
                         int64_t streams, uint32_t seed)
    : ids_(&ids), buckets_(buckets), N_(streams), lines_(buckets.size()) {
  if (buckets_.empty() || N_ <= 0) return;  // no buckets: no batches
  const int64_t longest = buckets_.back();
  const int64_t n = static_cast<int64_t>(ids.size());
  auto add = [&](int64_t begin, int64_t length) {
    size_t b = 0;
    while (b + 1 < buckets_.size() && buckets_[b] < length) ++b;
    lines_[b].push_back({begin, length});
  };
  // A line is the characters before a newline, their targets the next
  // characters, the last one that newline; a line longer than the largest
  // bucket is cut into pieces of that length.
  int64_t begin = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (ids[i] == newline) {
      if (i > begin) add(begin, i - begin);
      begin = i + 1;
    } else if (i + 1 - begin == longest && i + 1 < n) {
      add(begin, longest);
      begin = i + 1;
    }
  }
  std::mt19937 rng(seed);
  for (size_t b = 0; b < lines_.size(); ++b) {
    std::vector<Line> bucket = lines_[b];
    std::shuffle(bucket.begin(), bucket.end(), rng);
    for (size_t k = 0; k + static_cast<size_t>(N_) <= bucket.size(); k += static_cast<size_t>(N_)) {
      batches_.push_back({static_cast<int>(b), {bucket.begin() + k, bucket.begin() + k + N_}});
    }
  }
  std::shuffle(batches_.begin(), batches_.end(), rng);
}

std::vector<int64_t> LineBatches::LinesPerBucket() const {
  std::vector<int64_t> out;
  for (const auto& b : lines_) out.push_back(static_cast<int64_t>(b.size()));
  return out;
}

void LineBatches::Get(int64_t k, Tensor* tokens, Tensor* targets, Tensor* lengths) const {
  const auto& [bucket, lines] = batches_[static_cast<size_t>(k % Count())];
  const int64_t T = buckets_[bucket];
  *tokens = Tensor::Zeros(DataType::kInt64, {T, N_});
  *targets = Tensor::Zeros(DataType::kInt64, {T * N_});
  *lengths = Tensor::Zeros(DataType::kInt32, {N_});
  for (int64_t i = 0; i < T * N_; ++i) targets->data<int64_t>()[i] = -1;
  for (int64_t n = 0; n < N_; ++n) {
    const Line& l = lines[static_cast<size_t>(n)];
    const int64_t len = std::min(l.length, T);
    lengths->data<int32_t>()[n] = static_cast<int32_t>(len);
    for (int64_t t = 0; t < len; ++t) {
      tokens->data<int64_t>()[t * N_ + n] = (*ids_)[l.begin + t];
      targets->data<int64_t>()[t * N_ + n] = (*ids_)[l.begin + t + 1];
    }
  }
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
