// loom_train: trains a model with a loss on a CSV or NumPy dataset.
//
// The model is a NetDef (.pb, .pbtxt) or an ONNX file (imported for
// training: transforms::OptimizeOptions::training) whose forward net reads
// the features (--input, [N, d...] float32: a NumPy dataset's example
// shape, or a CSV row reshaped to the model's declared input shape when
// the sizes agree, e.g. 3072 values as [3, 32, 32]) and labels (--label,
// [N] int64) and writes --loss (a scalar) and --logits ([N, classes], for
// the accuracy). loom_train appends the backward pass (AddBackward) and the
// optimizer (AddOptimizer), shuffles the examples each epoch (from --seed),
// trains on batches of --batch (a last partial batch is dropped), prints the
// loss and examples per second every --log_every steps and the held-out
// loss and accuracy after each epoch, saves a checkpoint every
// --checkpoint_every steps (and at the end) to --checkpoint_dir, resumes
// from it with --resume, and plots the training loss to --plot (PNG, with
// gnuplot). Its last line: "loom_train: test accuracy A% (k of n) ...".
//
//   make_mlp --sizes 64,64,10 --out mlp.pb
//   loom_train --model mlp.pb --data digits.csv.gz --scale 0.0625 --epochs 20 --plot loss.png
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/autodiff/backward.h"
#include "core/autodiff/checkpoint.h"
#include "core/autodiff/data_parallel.h"
#include "core/autodiff/optimizer.h"
#include "core/net.h"
#include "core/proto_io.h"
#include "frontend/onnx/onnx_importer.h"
#include "session/registry_setup.h"
#include "tools/runtime_setup.h"
#include "transforms/optimize.h"
#include "tools/train/char_lm_trainer.h"
#include "tools/train/dataset.h"
#include "tools/train/loss_plot.h"
#include "tools/train/training_nets.h"

ABSL_FLAG(std::string, model, "", "Forward NetDef (.pb/.pbtxt) or ONNX model with a loss.");
ABSL_FLAG(std::string, data, "",
          "CSV (or .csv.gz): features, then the class label; or NumPy: a .npz with arrays x [examples, d...] and y "
          "[examples], or a .npy of features with --labels.");
ABSL_FLAG(std::string, labels, "", "With a .npy --data: the .npy of the labels ([examples], integers).");
ABSL_FLAG(double, scale, 1.0, "Multiplies every feature (e.g. 0.0625 for 0..16 pixels).");
ABSL_FLAG(double, test_fraction, 0.2, "Held out for the accuracy.");
ABSL_FLAG(int, seed, 1, "Seed of the split and the shuffles.");
ABSL_FLAG(std::string, input, "x", "Blob of the features.");
ABSL_FLAG(std::string, label, "y", "Blob of the labels.");
ABSL_FLAG(std::string, loss, "loss", "Blob of the scalar loss.");
ABSL_FLAG(std::string, logits, "logits", "Blob of the class scores (for the accuracy; empty: none).");
ABSL_FLAG(int, batch, 32, "Examples per step.");
ABSL_FLAG(int, epochs, 10, "Passes over the training examples.");
ABSL_FLAG(int64_t, max_steps, 0, "> 0: stop after this many steps (micro-batches), even within an epoch.");
ABSL_FLAG(std::string, optimizer, "Momentum", "Momentum, Adam or Adagrad (ONNX ai.onnx.preview.training).");
ABSL_FLAG(double, lr, 0.1, "Learning rate.");
ABSL_FLAG(double, momentum, 0.9, "Momentum's alpha (PyTorch SGD momentum).");
ABSL_FLAG(double, weight_decay, 0.0, "L2 coefficient (norm_coefficient).");
ABSL_FLAG(double, max_grad_norm, 0.0, "> 0: clip the gradients to this global norm.");
ABSL_FLAG(double, lr_gamma, 1.0, "Step decay: the learning rate times this every --lr_step_size steps.");
ABSL_FLAG(int, lr_step_size, 1000, "Steps between learning-rate decays.");
ABSL_FLAG(int, num_threads, 0, "Threads per kernel (0: all cores).");
ABSL_FLAG(int, accumulate_steps, 1,
          "Micro-batches of --batch examples per update (gradient accumulation, MXNet's grad_req='add'): one update "
          "from K micro-batches equals one from a batch K times as large (without BatchNormalization's batch "
          "statistics). Steps, --log_every and checkpoints count micro-batches.");
ABSL_FLAG(std::string, freeze, "",
          "Parameters whose name has a match of this regular expression (ECMAScript, searched) are not trained.");
ABSL_FLAG(int, log_every, 20, "Steps between progress lines.");
ABSL_FLAG(std::string, checkpoint_dir, "", "Folder for checkpoints (empty: none).");
ABSL_FLAG(int, checkpoint_every, 0, "Steps between checkpoints (0: only at the end).");
ABSL_FLAG(bool, resume, false, "Start from --checkpoint_dir.");
ABSL_FLAG(std::string, plot, "", "Write the training-loss curve here (PNG, gnuplot).");
ABSL_FLAG(bool, shuffle, true,
          "Shuffle the examples before the split and each epoch (false: file order throughout, as a side-by-side needs).");
ABSL_FLAG(std::string, loss_log, "", "Write each step's loss here, one per line.");
ABSL_FLAG(bool, profile, false, "Print the training step's per-op profile (ms per run, per op and per op type) at the end.");
ABSL_FLAG(std::string, export_initial, "",
          "Write the model's float32 initializers to this folder as <name>.bin (raw little-endian) before training.");
ABSL_FLAG(std::string, export_final, "",
          "Write the trained state (parameters, BatchNormalization running statistics, optimizer states) to this "
          "folder as <name>.bin (raw little-endian) after training.");

// The character-level LSTM language model (--text; tools/train/char_lm.h).
ABSL_FLAG(std::string, text, "",
          "Train the character-level LSTM language model on this text file instead of --model/--data.");
ABSL_FLAG(int, hidden, 100, "--text: LSTM width.");
ABSL_FLAG(int, layers, 1, "--text: LSTM layers.");
ABSL_FLAG(int, embed, 0, "--text: embedding width (0: --hidden).");
ABSL_FLAG(int, seq_len, 25, "--text: timesteps per batch (backpropagation through time).");
ABSL_FLAG(int64_t, steps, 1000, "--text: training steps.");
ABSL_FLAG(bool, threaded, true, "--text: the threaded timestep executor (else timesteps in order).");
ABSL_FLAG(int, rnn_threads, 2, "--text: workers of the threaded timestep executor.");
ABSL_FLAG(int64_t, eval_chars, 50000, "--text: held-out characters evaluated at the end (0: all).");
ABSL_FLAG(int64_t, sample_chars, 400, "--text: characters sampled from the trained model.");
ABSL_FLAG(double, temperature, 0.8, "--text: softmax temperature of the sampling.");
ABSL_FLAG(std::vector<std::string>, buckets, {},
          "--text: train on whole lines bucketed by these lengths (e.g. 64,128,256) instead of --seq_len streams.");
ABSL_FLAG(std::vector<std::string>, plugin, {},
          "Plugins to load after the default ones (a custom op's, with its gradient maker), as loom_run's --plugin.");
ABSL_FLAG(int, world_size, 1,
          "Data-parallel ranks (processes, on this machine or others); > 1 needs --rank, --rendezvous and "
          "--run_id (tools/train/launch_local.sh sets them for N local processes).");
ABSL_FLAG(int, rank, 0, "This process's rank, in [0, --world_size).");
ABSL_FLAG(std::string, rendezvous, "", "A folder every rank can reach (a shared file system across machines).");
ABSL_FLAG(std::string, run_id, "", "Unique per run: the same on every rank, new for every run.");
ABSL_FLAG(int, comm_timeout_s, 60, "Seconds a rank waits for the others (rendezvous, each allreduce).");
ABSL_FLAG(std::string, hostname, "127.0.0.1", "The address this rank listens on (its machine's, across machines).");
ABSL_FLAG(int, contexts, 1, "In-process data parallelism: each batch split over this many contexts (not --text).");

namespace {

using loom::Net;
using loom::NetDef;
using loom::Tensor;
using loom::Workspace;

loom::DataParallelOptions DataParallelFromFlags() {
  loom::DataParallelOptions dp;
  dp.world_size = absl::GetFlag(FLAGS_world_size);
  dp.rank = absl::GetFlag(FLAGS_rank);
  dp.rendezvous = absl::GetFlag(FLAGS_rendezvous);
  dp.run_id = absl::GetFlag(FLAGS_run_id);
  dp.timeout_ms = absl::GetFlag(FLAGS_comm_timeout_s) * 1000;
  dp.hostname = absl::GetFlag(FLAGS_hostname);
  return dp;
}

int Fail(const std::string& what, const absl::Status& s) {
  std::cerr << "loom_train: " << what << ": " << s << "\n";
  return 1;
}

// A CSV dataset's rows are flat: when the model declares the input's shape
// ("input_shape.<name>", as the ONNX importer records it) and one example
// of it has as many values as a row, the examples take that shape.
void FitExampleShape(const NetDef& model, const std::string& input, loom::train::Dataset* d) {
  if (d->example_shape.size() != 1) return;  // NumPy data keeps its own shape
  for (const loom::Argument& a : model.arg()) {
    if (a.name() != "input_shape." + input || a.ints_size() < 3) continue;
    std::vector<int64_t> example(a.ints().begin() + 1, a.ints().end());
    int64_t n = 1;
    for (int64_t v : example) n *= v;
    if (n == d->features) d->example_shape = example;
  }
}

// Writes `t`'s bytes to <dir>/<name>.bin (the folder is made if missing).
absl::Status ExportTensor(const std::string& dir, const std::string& name, const Tensor& t) {
  std::filesystem::create_directories(dir);
  std::ofstream f(dir + "/" + name + ".bin", std::ios::binary);
  f.write(static_cast<const char*>(t.raw_data()), static_cast<std::streamsize>(t.nbytes()));
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", dir, "/", name, ".bin"));
  return absl::OkStatus();
}

// Runs the forward net on `d` and returns the mean loss and the accuracy.
absl::Status Evaluate(Net* eval, Workspace* ws, const loom::train::Dataset& d, double* loss, int64_t* correct) {
  Tensor x, y;
  loom::train::Batch(d, 0, d.size(), &x, &y);
  ws->SetBlob(absl::GetFlag(FLAGS_input), std::move(x));
  ws->SetBlob(absl::GetFlag(FLAGS_label), std::move(y));
  if (absl::Status s = eval->Run(); !s.ok()) return s;
  *loss = ws->GetBlob(absl::GetFlag(FLAGS_loss))->ElementAsDouble(0);
  *correct = 0;
  const std::string logits_name = absl::GetFlag(FLAGS_logits);
  if (logits_name.empty()) return absl::OkStatus();
  const Tensor* logits = ws->GetBlob(logits_name);
  const int64_t classes = logits->num_elements() / std::max<int64_t>(1, d.size());
  for (int64_t i = 0; i < d.size(); ++i) {
    int64_t best = 0;
    for (int64_t c = 1; c < classes; ++c) {
      if (logits->ElementAsDouble(i * classes + c) > logits->ElementAsDouble(i * classes + best)) best = c;
    }
    *correct += best == d.label[i];
  }
  return absl::OkStatus();
}

// --text: the character-level LSTM language model.
int TrainCharLm() {
  std::vector<std::string> warnings;
  auto registry = loom::MakeRegistry(absl::GetFlag(FLAGS_plugin), &warnings);
  if (!registry.ok()) return Fail("plugins", registry.status());
  loom::train::CharLmOptions o;
  o.text = absl::GetFlag(FLAGS_text);
  o.model.hidden = absl::GetFlag(FLAGS_hidden);
  o.model.layers = absl::GetFlag(FLAGS_layers);
  o.model.embed = absl::GetFlag(FLAGS_embed) > 0 ? absl::GetFlag(FLAGS_embed) : o.model.hidden;
  o.model.threaded = absl::GetFlag(FLAGS_threaded);
  o.model.rnn_threads = absl::GetFlag(FLAGS_rnn_threads);
  o.seq_len = absl::GetFlag(FLAGS_seq_len);
  for (const std::string& b : absl::GetFlag(FLAGS_buckets)) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(b, &v) || v < 1) {
      return Fail("--buckets", absl::InvalidArgumentError("bucket lengths must be positive integers; found '" + b + "'"));
    }
    o.buckets.push_back(v);
  }
  o.batch = absl::GetFlag(FLAGS_batch);
  o.steps = absl::GetFlag(FLAGS_steps);
  o.optimizer = absl::GetFlag(FLAGS_optimizer);
  o.lr = absl::GetFlag(FLAGS_lr);
  o.momentum = absl::GetFlag(FLAGS_momentum);
  o.max_grad_norm = absl::GetFlag(FLAGS_max_grad_norm);
  o.lr_gamma = absl::GetFlag(FLAGS_lr_gamma);
  o.lr_step_size = absl::GetFlag(FLAGS_lr_step_size);
  o.num_threads = absl::GetFlag(FLAGS_num_threads);
  o.seed = static_cast<uint32_t>(absl::GetFlag(FLAGS_seed));
  o.test_fraction = absl::GetFlag(FLAGS_test_fraction);
  o.eval_chars = absl::GetFlag(FLAGS_eval_chars);
  o.sample_chars = absl::GetFlag(FLAGS_sample_chars);
  o.temperature = absl::GetFlag(FLAGS_temperature);
  o.log_every = absl::GetFlag(FLAGS_log_every);
  o.plot = absl::GetFlag(FLAGS_plot);
  o.loss_log = absl::GetFlag(FLAGS_loss_log);
  o.export_initial = absl::GetFlag(FLAGS_export_initial);
  o.data_parallel = DataParallelFromFlags();
  absl::Status s = loom::train::TrainCharLm(o, registry->get());
  return s.ok() ? 0 : Fail(o.text, s);
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (!absl::GetFlag(FLAGS_text).empty()) return TrainCharLm();
  const std::string model = absl::GetFlag(FLAGS_model), data = absl::GetFlag(FLAGS_data);
  if (model.empty() || data.empty()) {
    std::cerr << "loom_train: --model and --data are required (see --help)\n";
    return 2;
  }
  // One model serves inference and training: optimized for training,
  // only the rewrites that have gradients apply (transforms/optimize.h).
  const bool is_onnx = absl::EndsWith(model, ".onnx");
  absl::StatusOr<NetDef> forward = is_onnx ? loom::onnx_import::ImportOnnxFile(model) : loom::ReadNetDef(model);
  if (forward.ok() && is_onnx) {
    loom::transforms::OptimizeOptions optimize;
    optimize.training = true;
    loom::transforms::Optimize(&*forward, optimize);
  }
  if (!forward.ok()) return Fail(model, forward.status());
  std::vector<std::string> warnings;
  auto registry = loom::MakeRegistry(absl::GetFlag(FLAGS_plugin), &warnings);
  if (!registry.ok()) return Fail("plugins", registry.status());
  absl::StatusOr<loom::train::Dataset> all = loom::train::ReadDataset(
      data, absl::GetFlag(FLAGS_labels), static_cast<float>(absl::GetFlag(FLAGS_scale)));
  if (!all.ok()) return Fail("data", all.status());
  FitExampleShape(*forward, absl::GetFlag(FLAGS_input), &*all);
  loom::train::Dataset train, test;
  loom::train::Split(*all, absl::GetFlag(FLAGS_test_fraction), static_cast<uint32_t>(absl::GetFlag(FLAGS_seed)),
                     absl::GetFlag(FLAGS_shuffle), &train, &test);
  *all = loom::train::Dataset();  // the split holds the examples now
  const int64_t batch = absl::GetFlag(FLAGS_batch);
  const int64_t per_epoch = train.size() / std::max<int64_t>(1, batch);
  if (per_epoch == 0) return Fail("data", absl::InvalidArgumentError("fewer training examples than one batch"));
  const loom::DataParallelOptions dp = DataParallelFromFlags();
  const int contexts = absl::GetFlag(FLAGS_contexts);
  if (batch % (dp.world_size * contexts) != 0) {
    return Fail("data parallel", absl::InvalidArgumentError(absl::StrCat("--batch ", batch, " must divide into --world_size ",
                                                                         dp.world_size, " x --contexts ", contexts)));
  }
  const int64_t local = batch / dp.world_size;  // this rank's examples of every batch

  if (const std::string out = absl::GetFlag(FLAGS_export_initial); !out.empty()) {
    for (const loom::TensorProto& t : forward->initializer()) {
      absl::StatusOr<Tensor> v = loom::TensorFromProto(t);
      if (!v.ok()) return Fail(absl::StrCat("export ", t.name()), v.status());
      if (absl::Status s = ExportTensor(out, t.name(), *v); !s.ok()) return Fail("export", s);
    }
  }
  std::vector<std::string> params;  // the model's initializers
  for (const loom::TensorProto& t : forward->initializer()) params.push_back(t.name());

  // The nets: the training step (forward over --contexts shards, backward
  // averaged over the ranks, update) and the evaluation net. The model's
  // weights move into the step net, and from it into the workspace: held
  // once.
  NetDef training_forward = std::move(*forward);
  if (contexts > 1) {
    auto split = loom::SplitAcrossContexts(training_forward, {absl::GetFlag(FLAGS_input), absl::GetFlag(FLAGS_label)},
                                           absl::GetFlag(FLAGS_loss), contexts);
    if (!split.ok()) return Fail("contexts", split.status());
    training_forward = *std::move(split);
  }
  loom::train::TrainingNetOptions topt;
  topt.loss = absl::GetFlag(FLAGS_loss);
  topt.freeze = absl::GetFlag(FLAGS_freeze);
  topt.accumulate_steps = absl::GetFlag(FLAGS_accumulate_steps);
  loom::OptimizerOptions& opt = topt.optimizer;
  opt.type = absl::GetFlag(FLAGS_optimizer);
  opt.max_gradient_norm = absl::GetFlag(FLAGS_max_grad_norm);
  auto arg = [&](const char* name, double v) {
    loom::Argument a;
    a.set_name(name);
    a.set_f(static_cast<float>(v));
    opt.attributes.push_back(a);
  };
  if (opt.type == "Momentum") arg("alpha", absl::GetFlag(FLAGS_momentum));
  arg("norm_coefficient", absl::GetFlag(FLAGS_weight_decay));
  if (dp.world_size > 1) {
    topt.finish_gradients = [&](const loom::BackwardResult& b, NetDef* net) { return loom::AddAllreduce(b, dp, net); };
  }
  absl::StatusOr<loom::train::TrainingNets> nets =
      loom::train::BuildTrainingNets(**registry, std::move(training_forward), topt);
  if (!nets.ok()) return Fail("training nets", nets.status());
  if (!nets->frozen.empty()) {
    std::cout << "loom_train: " << nets->frozen.size() << " frozen parameters (" << absl::StrJoin(nets->frozen, ", ")
              << ")\n";
  }
  const int accumulate = topt.accumulate_steps;

  Workspace ws;
  loom::NetOptions options;
  options.num_threads = absl::GetFlag(FLAGS_num_threads);
  if (absl::Status s = loom::train::SetUpWorkspace(&*nets, &ws); !s.ok()) return Fail("parameters", s);
  auto net = Net::Create(std::move(nets->step), &ws, registry->get(), options);
  if (!net.ok()) return Fail("training net", net.status());
  std::unique_ptr<Net> update;
  if (accumulate > 1) {
    auto u = Net::Create(nets->update, &ws, registry->get(), options);
    if (!u.ok()) return Fail("update net", u.status());
    update = *std::move(u);
  }
  (*net)->set_profiling(absl::GetFlag(FLAGS_profile));
  auto eval = Net::Create(nets->eval, &ws, registry->get(), options);
  if (!eval.ok()) return Fail("evaluation net", eval.status());
  const std::vector<std::string>& state = nets->state;  // what a checkpoint holds
  if (dp.world_size > 1) {  // every rank starts from rank 0's parameters
    auto bcast = Net::Create(loom::BroadcastNet(params, dp), &ws, registry->get(), options);
    if (!bcast.ok()) return Fail("broadcast", bcast.status());
    if (absl::Status s = (*bcast)->Run(); !s.ok()) return Fail("broadcast", s);
    std::cout << "loom_train: rank " << dp.rank << " of " << dp.world_size << ", " << local << " of every " << batch
              << " examples\n";
  }

  const std::string dir = absl::GetFlag(FLAGS_checkpoint_dir);
  int64_t step = 0;
  if (absl::GetFlag(FLAGS_resume)) {
    if (absl::Status s = loom::LoadCheckpoint(dir, &ws); !s.ok()) return Fail("resume", s);
    const Tensor* saved = ws.GetBlob("__step");
    if (saved != nullptr) step = static_cast<int64_t>(saved->ElementAsDouble(0));
    std::cout << "loom_train: resumed from " << dir << " at step " << step << "\n";
  }
  auto save = [&]() -> absl::Status {
    if (dir.empty() || dp.rank != 0) return absl::OkStatus();  // the ranks hold the same parameters
    ws.SetBlob("__step", Tensor::FromVector<int64_t>({}, {step}));
    std::vector<std::string> names = state;
    names.push_back("__step");
    return loom::SaveCheckpoint(ws, names, dir);
  };

  loom::LearningRateSchedule schedule;
  schedule.kind = loom::LearningRateSchedule::Kind::kStep;
  schedule.base = absl::GetFlag(FLAGS_lr);
  schedule.gamma = absl::GetFlag(FLAGS_lr_gamma);
  schedule.step_size = absl::GetFlag(FLAGS_lr_step_size);
  int64_t total = per_epoch * absl::GetFlag(FLAGS_epochs);
  if (absl::GetFlag(FLAGS_max_steps) > 0) total = std::min(total, absl::GetFlag(FLAGS_max_steps));
  std::vector<std::pair<int64_t, double>> curve;
  auto start = std::chrono::steady_clock::now();
  auto after_first = start;  // the first step builds plans and primitives: steady state starts after it
  int64_t first_step = -1;
  auto window = start;
  int64_t window_examples = 0;
  std::cout << absl::StrFormat("loom_train: %d training and %d test examples of %d features; %d steps of %d\n",
                               train.size(), test.size(), train.features, total, batch);
  std::vector<int64_t> order;  // this epoch's order of the training examples
  int64_t shuffled_epoch = -1;
  for (; step < total; ++step) {
    const int64_t epoch = step / per_epoch, k = step % per_epoch;
    if (epoch != shuffled_epoch) {  // from the seed: a resumed run sees the same batches
      order = loom::train::Order(train.size(), static_cast<uint32_t>(absl::GetFlag(FLAGS_seed)) + 1000 +
                                                   static_cast<uint32_t>(epoch),
                                 absl::GetFlag(FLAGS_shuffle));
      shuffled_epoch = epoch;
    }
    Tensor x, y;
    loom::train::Batch(train, order, k * batch + dp.rank * local, local, &x, &y);
    ws.SetBlob(absl::GetFlag(FLAGS_input), std::move(x));
    ws.SetBlob(absl::GetFlag(FLAGS_label), std::move(y));
    // Updates count from 0 (the optimizer's step input; the schedule's).
    const int64_t update_step = step / accumulate;
    ws.SetBlob(opt.learning_rate, Tensor::FromVector<float>({}, {static_cast<float>(schedule.At(update_step))}));
    ws.SetBlob(opt.step, Tensor::FromVector<int64_t>({}, {update_step}));
    if (accumulate > 1 && step % accumulate == 0) {
      for (const std::string& a : nets->accumulators) ws.SetBlob(a, Tensor());  // Accumulate starts them at zero
    }
    if (absl::Status s = (*net)->Run(); !s.ok()) return Fail(absl::StrCat("step ", step), s);
    if (accumulate > 1 && (step + 1) % accumulate == 0) {
      if (absl::Status s = update->Run(); !s.ok()) return Fail(absl::StrCat("update after step ", step), s);
    }
    const double loss = ws.GetBlob(absl::GetFlag(FLAGS_loss))->ElementAsDouble(0);
    curve.emplace_back(step, loss);
    if (first_step < 0) {
      first_step = step;
      after_first = std::chrono::steady_clock::now();
    }
    window_examples += batch;
    if ((step + 1) % absl::GetFlag(FLAGS_log_every) == 0) {
      const auto now = std::chrono::steady_clock::now();
      const double s = std::chrono::duration<double>(now - window).count();
      std::cout << absl::StrFormat("step %d/%d epoch %d loss %.4f  %.0f examples/s\n", step + 1, total, epoch + 1, loss,
                                   s > 0 ? window_examples / s : 0.0);
      window = now;
      window_examples = 0;
    }
    if (k + 1 == per_epoch && !test.label.empty()) {
      double test_loss = 0;
      int64_t correct = 0;
      if (absl::Status s = Evaluate(eval->get(), &ws, test, &test_loss, &correct); !s.ok()) return Fail("evaluation", s);
      std::cout << absl::StrFormat("epoch %d: test loss %.4f, accuracy %.2f%%\n", epoch + 1, test_loss,
                                   100.0 * correct / test.size());
    }
    const int every = absl::GetFlag(FLAGS_checkpoint_every);
    if (every > 0 && (step + 1) % every == 0) {
      ++step;  // the checkpoint resumes at the next step
      absl::Status s = save();
      --step;
      if (!s.ok()) return Fail("checkpoint", s);
    }
  }
  const auto end = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(end - start).count();
  const double steady = std::chrono::duration<double>(end - after_first).count();
  if (absl::Status s = save(); !s.ok()) return Fail("checkpoint", s);
  if (absl::GetFlag(FLAGS_profile)) std::cout << (*net)->profile().ToString();
  if (const std::string out = absl::GetFlag(FLAGS_export_final); !out.empty()) {
    for (const std::string& name : state) {
      const Tensor* t = ws.GetBlob(name);
      if (t == nullptr) continue;
      if (absl::Status s = ExportTensor(out, name, *t); !s.ok()) return Fail("export", s);
    }
  }
  if (const std::string log = absl::GetFlag(FLAGS_loss_log); !log.empty()) {
    std::ofstream f(log);
    f.precision(9);
    for (const auto& [s, loss] : curve) f << loss << "\n";
  }
  if (!absl::GetFlag(FLAGS_plot).empty()) {
    absl::Status s = loom::train::PlotLoss(curve, absl::GetFlag(FLAGS_plot));
    if (!s.ok()) std::cerr << "loom_train: plot: " << s << "\n";
    else std::cout << "loom_train: wrote " << absl::GetFlag(FLAGS_plot) << "\n";
  }
  double test_loss = 0;
  int64_t correct = 0;
  if (!test.label.empty()) {
    if (absl::Status s = Evaluate(eval->get(), &ws, test, &test_loss, &correct); !s.ok()) return Fail("evaluation", s);
  }
  const int64_t ran = static_cast<int64_t>(curve.size());
  if (ran > 1 && steady > 0) {
    std::cout << absl::StrFormat("loom_train: steady state %.1f examples/s (the %d steps after the first)\n",
                                 static_cast<double>((ran - 1) * batch) / steady, ran - 1);
  }
  std::cout << absl::StrFormat(
      "loom_train: test accuracy %.2f%% (%d of %d), test loss %.4f, after %d steps, %.3f s (%.0f steps/s)\n",
      test.label.empty() ? 0.0 : 100.0 * correct / test.size(), correct, test.size(), test_loss, total, seconds,
      seconds > 0 ? ran / seconds : 0.0);
  return 0;
}
