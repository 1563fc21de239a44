// loom_train's --text mode: trains the character-level LSTM language model
// (char_lm.h) on a text file with truncated backpropagation through time
// (each batch's final LSTM states start the next one, PyTorch's
// word_language_model and Caffe2's char_rnn), printing the loss and
// characters per second, then reports the held-out loss and perplexity,
// writes the loss curve (smoothed: an exponential moving average over about
// 1% of the steps) and
// samples text from the trained model.
#ifndef LOOM_TOOLS_TRAIN_CHAR_LM_TRAINER_H_
#define LOOM_TOOLS_TRAIN_CHAR_LM_TRAINER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/autodiff/data_parallel.h"
#include "core/registry.h"
#include "tools/train/char_lm.h"

namespace loom {
namespace train {

struct CharLmOptions {
  std::string text;  // the text file
  CharLmSpec model;  // vocab is set from the text
  int64_t seq_len = 25, batch = 1, steps = 1000;
  // Non-empty: train on whole lines bucketed by length (LineBatches) instead
  // of streams of seq_len characters; the bucket lengths.
  std::vector<int64_t> buckets;
  std::string optimizer = "Momentum";  // Momentum (alpha = momentum), Adam, Adagrad
  double lr = 0.1, momentum = 0.0, max_grad_norm = 5.0;
  double lr_gamma = 1.0;
  int64_t lr_step_size = 1000;
  int num_threads = 0;  // per kernel (0: all cores)
  uint32_t seed = 1;
  double test_fraction = 0.05;  // the end of the text, held out
  int64_t eval_chars = 50000;   // held-out characters evaluated (0: all)
  int64_t sample_chars = 400;
  double temperature = 0.8;  // of the sampling softmax
  int log_every = 100;
  std::string plot, loss_log, export_initial;
  // world_size > 1: this process is one rank of a data-parallel run
  // (core/autodiff/data_parallel.h): it trains on streams
  // [rank n, (rank + 1) n) of every batch of `batch` streams, n = batch /
  // world_size, its gradients averaged with the other ranks' and its
  // parameters broadcast from rank 0 at the start. Streams only (no
  // buckets).
  DataParallelOptions data_parallel;
};

// Errors: the text cannot be read or is too short for one batch, the nets
// fail to build or run (the op named), the plot fails (reported, not fatal).
absl::Status TrainCharLm(const CharLmOptions& options, Registry* registry);

}  // namespace train
}  // namespace loom

#endif  // LOOM_TOOLS_TRAIN_CHAR_LM_TRAINER_H_
