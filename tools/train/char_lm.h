// A character-level LSTM language model (Caffe2's char_rnn, Karpathy's
// char-rnn): the model as a NetDef (embedding, a stacked LSTM as one
// RecurrentNetwork op, a linear layer, softmax cross-entropy), its text
// data and its batches. loom_train's --text mode (char_lm_trainer.h)
// trains it.
#ifndef LOOM_TOOLS_TRAIN_CHAR_LM_H_
#define LOOM_TOOLS_TRAIN_CHAR_LM_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/proto/loom.pb.h"
#include "core/tensor.h"

namespace loom {
namespace train {

// The characters of a text, numbered in byte order.
struct Vocabulary {
  std::vector<unsigned char> chars;  // id -> byte
  std::array<int, 256> id{};         // byte -> id (-1: not in the text)

  explicit Vocabulary(const std::string& text);
  int size() const { return static_cast<int>(chars.size()); }
  // The text as ids (every byte must be in the vocabulary).
  std::vector<int64_t> Encode(const std::string& text) const;
};

struct CharLmSpec {
  int vocab = 0;
  // Sequences of different lengths in one batch (bucketed lines): an
  // int32 [N] input `lengths` (LSTMUnit carries a state past its line's end)
  // and targets -1 at the padding, which the loss ignores.
  bool with_lengths = false;
  int embed = 100;   // embedding width
  int hidden = 100;  // LSTM width, every layer
  int layers = 1;
  bool threaded = true;  // the threaded timestep executor (else in order)
  int rnn_threads = 2;   // its workers
};

// The model, for T timesteps of N streams (any T and N; the net is planned
// per input signature):
//   inputs  tokens int64 [T, N], targets int64 [T * N] (the next character
//           of each, time-major), h0_<l> and c0_<l> float32 [1, N, hidden]
//           (each layer's initial state);
//   x = Gather(E [vocab, embed], tokens) [T, N, embed];
//   the stacked LSTM (plugins/rnn/builder.h, LSTMUnit cells, gate order
//   i, f, o, g; W_<l> [in, 4H], R_<l> [H, 4H], B_<l> [4H]) ->
//           lstm_all [T, 1, N, H] and the states lstm_h<l>, lstm_c<l>
//           [T + 1, 1, N, H];
//   logits = Gemm(Flatten(lstm_all) [T * N, H], Wo [H, vocab], bo [vocab]);
//   loss = SoftmaxCrossEntropyLoss(logits, targets), the mean over T * N.
// forward_only = true for evaluation and sampling (the LSTM keeps no step
// workspaces), false for training. The parameters are not included: add
// them with AddCharLmParameters or feed them.
absl::StatusOr<NetDef> CharLmNet(const CharLmSpec& spec, bool forward_only);

// The parameters' names, in a fixed order: E, W_0, R_0, B_0, ..., Wo, bo.
std::vector<std::string> CharLmParameterNames(const CharLmSpec& spec);

// Adds the parameters as float32 initializers, drawn from `seed` as
// PyTorch initializes nn.Embedding (N(0, 1)), nn.LSTM (U(-1/sqrt(H),
// 1/sqrt(H)); the one bias B holds b_ih, b_hh = 0) and nn.Linear
// (U(-1/sqrt(H), 1/sqrt(H))).
void AddCharLmParameters(const CharLmSpec& spec, uint32_t seed, NetDef* net);

// Bucketed batches of whole lines (MXNet's BucketingModule, Caffe2's
// bucketed char_rnn): the text's lines (a line's targets end with its
// newline; lines longer than the largest bucket are cut into pieces) go to
// the smallest bucket length that holds them; a batch is N lines of one
// bucket, padded to its length (tokens 0, targets -1), with `lengths` the
// lines' lengths; batches are shuffled from `seed`.
class LineBatches {
 public:
  // `ids` must outlive the batches; `buckets` ascending, each >= 1.
  LineBatches(const std::vector<int64_t>& ids, int64_t newline, const std::vector<int64_t>& buckets, int64_t streams,
              uint32_t seed);
  int64_t Count() const { return static_cast<int64_t>(batches_.size()); }
  // tokens int64 [T, N], targets int64 [T * N], lengths int32 [N] of batch
  // k mod Count() (T its bucket's length).
  void Get(int64_t k, Tensor* tokens, Tensor* targets, Tensor* lengths) const;
  // Lines per bucket (the buckets' lengths in order).
  std::vector<int64_t> LinesPerBucket() const;
  const std::vector<int64_t>& buckets() const { return buckets_; }

 private:
  struct Line {
    int64_t begin, length;
  };
  const std::vector<int64_t>* ids_;
  std::vector<int64_t> buckets_;
  int64_t N_;
  std::vector<std::vector<Line>> lines_;                // per bucket
  std::vector<std::pair<int, std::vector<Line>>> batches_;  // (bucket, N lines)
};

// Batches of N streams over `ids` (PyTorch's word_language_model
// batchify): stream n reads ids [n L, (n + 1) L), L = size / N, and batch k
// is rows [k T, k T + T) of every stream, with the next ids as targets;
// `Get` wraps around after Count() batches.
class CharBatches {
 public:
  CharBatches(const std::vector<int64_t>* ids, int64_t seq_len, int64_t streams);
  // Batches before the streams run out (>= 1 when size >= N (T + 1)).
  int64_t Count() const { return count_; }
  // tokens int64 [T, N] and targets int64 [T * N] of batch k mod Count().
  void Get(int64_t k, Tensor* tokens, Tensor* targets) const;

 private:
  const std::vector<int64_t>* ids_;
  int64_t T_, N_, L_, count_;
};

}  // namespace train
}  // namespace loom

#endif  // LOOM_TOOLS_TRAIN_CHAR_LM_H_
