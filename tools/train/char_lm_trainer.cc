#include "tools/train/char_lm_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include <sys/resource.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/autodiff/backward.h"
#include "core/autodiff/optimizer.h"
#include "core/buffer_pool.h"
#include "core/net.h"
#include "core/proto_io.h"
#include "tools/train/loss_plot.h"

namespace loom {
namespace train {
namespace {

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(absl::StrCat("cannot open text '", path, "'"));
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Zero initial states [1, N, H] for every layer.
void ZeroStates(const CharLmSpec& spec, int64_t n, Workspace* ws) {
  for (int l = 0; l < spec.layers; ++l) {
    ws->SetBlob(absl::StrCat("h0_", l), Tensor::Zeros(DataType::kFloat32, {1, n, spec.hidden}));
    ws->SetBlob(absl::StrCat("c0_", l), Tensor::Zeros(DataType::kFloat32, {1, n, spec.hidden}));
  }
}

// The next batch starts from this one's final states (row T of each state),
// their values only (truncated backpropagation through time).
void CarryStates(const CharLmSpec& spec, int64_t T, Workspace* ws) {
  for (int l = 0; l < spec.layers; ++l) {
    for (const char* s : {"h", "c"}) {
      const Tensor* all = ws->GetBlob(absl::StrCat("lstm_", s, l));
      Tensor* init = ws->GetBlob(absl::StrCat(s, "0_", l));
      const int64_t row = init->num_elements();
      std::memcpy(init->data<float>(), all->data<float>() + T * row, static_cast<size_t>(row) * sizeof(float));
    }
  }
}

// Mean loss of the model over `ids` in batches of [T, N], states carried.
absl::StatusOr<double> Evaluate(Net* eval, Workspace* ws, const CharLmSpec& spec, const std::vector<int64_t>& ids,
                                int64_t T, int64_t N) {
  CharBatches batches(&ids, T, N);
  if (batches.Count() == 0) return absl::InvalidArgumentError("the held-out text is shorter than one batch");
  ZeroStates(spec, N, ws);
  double sum = 0;
  for (int64_t k = 0; k < batches.Count(); ++k) {
    Tensor tokens, targets;
    batches.Get(k, &tokens, &targets);
    ws->SetBlob("tokens", std::move(tokens));
    ws->SetBlob("targets", std::move(targets));
    if (absl::Status s = eval->Run(); !s.ok()) return s;
    sum += ws->GetBlob("loss")->ElementAsDouble(0);
    CarryStates(spec, T, ws);
  }
  return sum / static_cast<double>(batches.Count());
}

// Mean loss per character over bucketed lines (states zero per batch).
absl::StatusOr<double> EvaluateLines(Net* eval, Workspace* ws, const CharLmSpec& spec, const LineBatches& batches,
                                     int64_t N) {
  if (batches.Count() == 0) return absl::InvalidArgumentError("the held-out text has fewer lines than one batch");
  double sum = 0, chars = 0;
  for (int64_t k = 0; k < batches.Count(); ++k) {
    Tensor tokens, targets, lengths;
    batches.Get(k, &tokens, &targets, &lengths);
    double n = 0;
    for (int64_t i = 0; i < lengths.num_elements(); ++i) n += lengths.data<int32_t>()[i];
    ws->SetBlob("tokens", std::move(tokens));
    ws->SetBlob("targets", std::move(targets));
    ws->SetBlob("lengths", std::move(lengths));
    ZeroStates(spec, N, ws);
    if (absl::Status s = eval->Run(); !s.ok()) return s;
    sum += ws->GetBlob("loss")->ElementAsDouble(0) * n;
    chars += n;
  }
  return sum / chars;
}

// Peak resident memory of the process so far, in MiB.
double PeakRssMiB() {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// `n` characters drawn one at a time from the model's softmax at
// `temperature`, starting after `prime`.
absl::StatusOr<std::string> Sample(Net* eval, Workspace* ws, const CharLmSpec& spec, const Vocabulary& vocab,
                                   const std::string& prime, int64_t n, double temperature, uint32_t seed) {
  ZeroStates(spec, 1, ws);
  std::mt19937 rng(seed);
  std::string out;
  int64_t next = vocab.id[static_cast<unsigned char>(prime.empty() ? '\n' : prime[0])];
  auto step = [&](int64_t token) -> absl::Status {
    if (spec.with_lengths) ws->SetBlob("lengths", Tensor::FromVector<int32_t>({1}, {1}));
    ws->SetBlob("tokens", Tensor::FromVector<int64_t>({1, 1}, {token}));
    ws->SetBlob("targets", Tensor::FromVector<int64_t>({1}, {0}));
    if (absl::Status s = eval->Run(); !s.ok()) return s;
    CarryStates(spec, 1, ws);
    return absl::OkStatus();
  };
  for (size_t i = 0; i + 1 < prime.size(); ++i) {
    if (absl::Status s = step(vocab.id[static_cast<unsigned char>(prime[i])]); !s.ok()) return s;
    next = vocab.id[static_cast<unsigned char>(prime[i + 1])];
  }
  for (int64_t i = 0; i < n; ++i) {
    if (absl::Status s = step(next); !s.ok()) return s;
    const Tensor* logits = ws->GetBlob("logits");
    std::vector<double> p(static_cast<size_t>(vocab.size()));
    double top = -1e300, sum = 0;
    for (int c = 0; c < vocab.size(); ++c) top = std::max(top, logits->ElementAsDouble(c) / temperature);
    for (int c = 0; c < vocab.size(); ++c) sum += p[c] = std::exp(logits->ElementAsDouble(c) / temperature - top);
    std::discrete_distribution<int> pick(p.begin(), p.end());
    next = pick(rng);
    out.push_back(static_cast<char>(vocab.chars[next]));
  }
  return out;
}

}  // namespace

absl::Status TrainCharLm(const CharLmOptions& o, Registry* registry) {
  absl::StatusOr<std::string> text = ReadText(o.text);
  if (!text.ok()) return text.status();
  const Vocabulary vocab(*text);
  const std::vector<int64_t> ids = vocab.Encode(*text);
  const int64_t held = static_cast<int64_t>(static_cast<double>(ids.size()) * o.test_fraction);
  const std::vector<int64_t> train(ids.begin(), ids.end() - held);
  std::vector<int64_t> test(ids.end() - held, ids.end());
  if (o.eval_chars > 0 && static_cast<int64_t>(test.size()) > o.eval_chars) test.resize(static_cast<size_t>(o.eval_chars));
  CharLmSpec spec = o.model;
  spec.vocab = vocab.size();
  const bool lines = !o.buckets.empty();
  spec.with_lengths = lines;
  const DataParallelOptions& dp = o.data_parallel;
  if (dp.world_size > 1 && (!o.buckets.empty() || o.batch % dp.world_size != 0)) {
    return absl::InvalidArgumentError(absl::StrCat("data-parallel training takes streams (no --buckets) and a batch that ",
                                                   "the world size divides; found batch ", o.batch, ", world size ",
                                                   dp.world_size, o.buckets.empty() ? "" : ", buckets"));
  }
  const int64_t local = o.batch / std::max(1, dp.world_size);  // this rank's streams
  const CharBatches batches(&train, o.seq_len, o.batch);
  if (batches.Count() == 0) return absl::InvalidArgumentError("the training text is shorter than one batch");
  std::vector<int64_t> buckets = o.buckets;
  std::sort(buckets.begin(), buckets.end());
  const int64_t newline = vocab.id['\n'];
  const LineBatches train_lines(train, newline, buckets, o.batch, o.seed), test_lines(test, newline, buckets, o.batch,
                                                                                       o.seed + 1);
  if (lines && train_lines.Count() == 0) return absl::InvalidArgumentError("the training text has fewer lines than one batch");
  // The held-out text must make one batch too: checked before training.
  const CharBatches test_batches(&test, o.seq_len, o.batch);
  if (lines ? test_lines.Count() == 0 : test_batches.Count() == 0) {
    return absl::InvalidArgumentError("the held-out text is shorter than one batch (raise --test_fraction or --eval_chars)");
  }

  // The training net (forward, backward, update) and the evaluation net
  // (forward only, the parameters fed by name).
  absl::StatusOr<NetDef> forward = CharLmNet(spec, /*forward_only=*/false);
  if (!forward.ok()) return forward.status();
  AddCharLmParameters(spec, o.seed, &*forward);
  NetDef training = *forward;
  absl::StatusOr<BackwardResult> backward = AddBackward(*registry, {"loss"}, {}, &training);
  if (!backward.ok()) return backward.status();
  if (dp.world_size > 1) {
    backward = AddAllreduce(*backward, dp, &training);
    if (!backward.ok()) return backward.status();
  }
  OptimizerOptions opt;
  opt.type = o.optimizer;
  opt.max_gradient_norm = o.max_grad_norm;
  if (opt.type == "Momentum") {
    Argument a;
    a.set_name("alpha");
    a.set_f(static_cast<float>(o.momentum));
    opt.attributes.push_back(a);
    Argument b;
    b.set_name("norm_coefficient");
    b.set_f(0.0f);
    opt.attributes.push_back(b);
  }
  if (absl::Status s = AddOptimizer(*backward, opt, &training); !s.ok()) return s;
  absl::StatusOr<NetDef> eval_def = CharLmNet(spec, /*forward_only=*/true);
  if (!eval_def.ok()) return eval_def.status();
  for (const std::string& p : CharLmParameterNames(spec)) eval_def->add_external_input(p);

  if (!o.export_initial.empty()) {
    std::filesystem::create_directories(o.export_initial);
    for (const TensorProto& t : forward->initializer()) {
      absl::StatusOr<Tensor> v = TensorFromProto(t);
      if (!v.ok()) return v.status();
      std::ofstream f(o.export_initial + "/" + t.name() + ".bin", std::ios::binary);
      f.write(static_cast<const char*>(v->raw_data()), static_cast<std::streamsize>(v->nbytes()));
      if (!f) return absl::InternalError(absl::StrCat("cannot write ", o.export_initial, "/", t.name(), ".bin"));
    }
  }

  Workspace ws;
  NetOptions options;
  options.num_threads = o.num_threads;
  absl::StatusOr<std::unique_ptr<Net>> net = Net::Create(training, &ws, registry, options);
  if (!net.ok()) return net.status();
  // Its own child workspace: the parameters come from the training
  // workspace, its activations and states stay apart.
  Workspace eval_ws(&ws);
  absl::StatusOr<std::unique_ptr<Net>> eval = Net::Create(*eval_def, &eval_ws, registry, options);
  if (!eval.ok()) return eval.status();
  if (dp.world_size > 1) {  // every rank starts from rank 0's parameters
    absl::StatusOr<std::unique_ptr<Net>> bcast = Net::Create(BroadcastNet(CharLmParameterNames(spec), dp), &ws, registry, options);
    if (!bcast.ok()) return bcast.status();
    if (absl::Status s = (*bcast)->Run(); !s.ok()) return s;
    std::cout << "loom_train: rank " << dp.rank << " of " << dp.world_size << ", " << local << " of every " << o.batch
              << " streams\n";
  }

  LearningRateSchedule schedule;
  schedule.kind = LearningRateSchedule::Kind::kStep;
  schedule.base = o.lr;
  schedule.gamma = o.lr_gamma;
  schedule.step_size = o.lr_step_size;
  std::cout << absl::StrFormat("loom_train: %d characters (%d held out), vocabulary %d; LSTM %d x %d, embedding %d; %d steps of ",
                               ids.size(), held, vocab.size(), spec.layers, spec.hidden, spec.embed, o.steps)
            << (lines ? absl::StrFormat("%d lines", o.batch) : absl::StrFormat("%d x %d characters", o.seq_len, o.batch))
            << ", " << o.optimizer << "\n";
  std::vector<std::pair<int64_t, double>> curve;
  ZeroStates(spec, local, &ws);
  // The next training batch into the workspace; its characters.
  auto next_batch = [&](int64_t step) -> int64_t {
    Tensor tokens, targets, lengths;
    int64_t chars = o.seq_len * o.batch;
    if (lines) {
      train_lines.Get(step, &tokens, &targets, &lengths);
      chars = 0;
      for (int64_t i = 0; i < lengths.num_elements(); ++i) chars += lengths.data<int32_t>()[i];
      ws.SetBlob("lengths", std::move(lengths));
      ZeroStates(spec, o.batch, &ws);  // lines are independent
    } else {
      if (step % batches.Count() == 0) ZeroStates(spec, local, &ws);  // a new pass over the text
      batches.Get(step, &tokens, &targets);
      if (local != o.batch) {  // this rank's streams: columns [rank n, (rank + 1) n) of [T, N]
        Tensor t = Tensor::Zeros(DataType::kInt64, {o.seq_len, local}), y = Tensor::Zeros(DataType::kInt64, {o.seq_len * local});
        for (int64_t r = 0; r < o.seq_len; ++r) {
          for (int64_t n = 0; n < local; ++n) {
            const int64_t from = r * o.batch + dp.rank * local + n;
            t.data<int64_t>()[r * local + n] = tokens.data<int64_t>()[from];
            y.data<int64_t>()[r * local + n] = targets.data<int64_t>()[from];
          }
        }
        tokens = std::move(t);
        targets = std::move(y);
      }
    }
    ws.SetBlob("tokens", std::move(tokens));
    ws.SetBlob("targets", std::move(targets));
    return chars;
  };
  if (lines) {
    // MXNet's BucketingModule: every bucket's plan made up front, largest
    // first, so one arena (at the largest size) serves them all.
    next_batch(0);
    ws.SetBlob(opt.learning_rate, Tensor::FromVector<float>({}, {static_cast<float>(o.lr)}));
    ws.SetBlob(opt.step, Tensor::FromVector<int64_t>({}, {0}));
    std::vector<std::vector<std::pair<std::string, Shape>>> signatures;
    for (int64_t T : buckets) {
      std::vector<std::pair<std::string, Shape>> sig = {
          {"tokens", {T, o.batch}}, {"targets", {T * o.batch}}, {"lengths", {o.batch}}};
      signatures.push_back(sig);
    }
    if (absl::Status s = (*net)->PlanBuckets(signatures); !s.ok()) return s;
    const std::vector<int64_t> per = train_lines.LinesPerBucket();
    std::cout << "loom_train: " << train_lines.Count() << " batches of " << o.batch << " lines in buckets";
    for (size_t b = 0; b < buckets.size(); ++b) std::cout << " " << buckets[b] << " (" << per[b] << " lines)";
    std::cout << "\n";
  }
  const auto start = std::chrono::steady_clock::now();
  auto window = start, first = start;
  int64_t window_steps = 0, window_chars = 0, chars_after_first = 0;
  double window_loss = 0;
  for (int64_t step = 0; step < o.steps; ++step) {
    const int64_t chars = next_batch(step);
    ws.SetBlob(opt.learning_rate, Tensor::FromVector<float>({}, {static_cast<float>(schedule.At(step))}));
    // ONNX's T: Momentum's first step (T = 0) takes the gradient as it is
    // (as PyTorch's SGD); Adam bias-corrects only when T > 0, so it counts
    // this update too (PyTorch's Adam corrects its first step).
    ws.SetBlob(opt.step, Tensor::FromVector<int64_t>({}, {o.optimizer == "Adam" ? step + 1 : step}));
    if (absl::Status s = (*net)->Run(); !s.ok()) return absl::Status(s.code(), absl::StrCat("step ", step, ": ", s.message()));
    const double loss = ws.GetBlob("loss")->ElementAsDouble(0);
    curve.emplace_back(step, loss);
    if (!lines) CarryStates(spec, o.seq_len, &ws);
    if (step == 0) first = std::chrono::steady_clock::now();  // planned and warm from here on
    else chars_after_first += chars;
    window_loss += loss;
    window_chars += chars;
    ++window_steps;
    if ((step + 1) % o.log_every == 0 || step + 1 == o.steps) {
      const auto now = std::chrono::steady_clock::now();
      const double s = std::chrono::duration<double>(now - window).count();
      std::cout << absl::StrFormat("step %d/%d loss %.4f  %.0f characters/s\n", step + 1, o.steps,
                                   window_loss / static_cast<double>(window_steps),
                                   s > 0 ? static_cast<double>(window_chars) / s : 0.0);
      window = now;
      window_steps = 0;
      window_chars = 0;
      window_loss = 0;
    }
  }
  const auto end = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(end - start).count();
  // The rate after the first step (which plans the nets), as the PyTorch
  // side of tools/bench/char_lm_vs_pytorch.sh times it.
  const double warm = std::chrono::duration<double>(end - first).count();
  const double train_peak = PeakRssMiB();
  absl::StatusOr<double> test_loss = lines ? EvaluateLines(eval->get(), &eval_ws, spec, test_lines, o.batch)
                                           : Evaluate(eval->get(), &eval_ws, spec, test, o.seq_len, o.batch);
  if (!test_loss.ok()) return test_loss.status();
  std::cout << absl::StrFormat(
      "loom_train: held-out loss %.4f (perplexity %.3f) on %d characters after %d steps, %.1f s (%.0f characters/s "
      "after the first step)\n",
      *test_loss, std::exp(*test_loss), test.size(), o.steps, seconds,
      warm > 0 ? static_cast<double>(chars_after_first) / warm : 0.0);
  std::cout << absl::StrFormat("loom_train: peak RSS %.1f MiB while training\n", train_peak);
  const BufferPool& pool = (*net)->pool();
  std::cout << absl::StrFormat(
      "loom_train: training net's memory: arena %.1f MiB; buffer pool %.1f MiB in use, %.1f MiB high water, %.1f MiB "
      "free, %d device allocations\n",
      (*net)->arena_bytes() / 1048576.0, pool.in_use_bytes() / 1048576.0, pool.high_water_bytes() / 1048576.0,
      pool.free_bytes() / 1048576.0, pool.device_allocations());
  if (!o.loss_log.empty()) {
    std::ofstream f(o.loss_log);
    f.precision(9);
    for (const auto& [s, loss] : curve) f << loss << "\n";
  }
  if (!o.plot.empty()) {
    // The training loss smoothed (an exponential moving average, as
    // char-rnn's smooth_loss: one batch of one stream is noisy) over about
    // 1% of the run, so a short run's curve does not lag.
    const double keep = std::max(0.0, 1.0 - 100.0 / static_cast<double>(std::max<int64_t>(1, o.steps)));
    std::vector<std::pair<int64_t, double>> smooth;
    double avg = curve.empty() ? 0.0 : curve.front().second;
    for (const auto& [s, loss] : curve) {
      avg = keep * avg + (1.0 - keep) * loss;
      smooth.emplace_back(s, avg);
    }
    absl::Status s = PlotLoss(smooth, o.plot);
    if (!s.ok()) std::cerr << "loom_train: plot: " << s << "\n";
    else std::cout << "loom_train: wrote " << o.plot << "\n";
  }
  if (o.sample_chars > 0) {
    // Primed with the held-out text's first 200 characters: the model
    // learned from carried states, rarely from zeros.
    std::string prime;
    for (size_t i = 0; i < test.size() && i < 200; ++i) prime.push_back(static_cast<char>(vocab.chars[test[i]]));
    absl::StatusOr<std::string> sample =
        Sample(eval->get(), &eval_ws, spec, vocab, prime, o.sample_chars, o.temperature, o.seed);
    if (!sample.ok()) return sample.status();
    std::cout << "loom_train: sample (temperature " << o.temperature << ", after the held-out text's first "
              << prime.size() << " characters):\n" << *sample << "\n";
  }
  return absl::OkStatus();
}

}  // namespace train
}  // namespace loom
