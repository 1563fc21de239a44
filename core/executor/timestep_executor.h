// The threaded RNN timestep executor (Caffe2's
// ThreadedRecurrentNetworkExecutor, rebuilt on Loom plans).
//
// A recurrent network runs the same step net once per timestep, each
// timestep in its own workspace with its own prepared plan. Operator j of
// timestep t may start as soon as (a) the ops of timestep t that produce its
// inputs are done and (b) the ops of the previous timestep it depends on are
// done: the producers of the recurrent blobs it reads, and op j itself (so
// the instances of one op run in timestep order). The layers of a stacked
// RNN then run as a wavefront across timesteps on a thread pool.
//
// Thread policy: the executor runs `num_threads` workers (at most the number
// of cores) and kernels inside it get KernelThreadsFor(num_threads) OpenMP
// threads, so workers x kernel threads <= cores.
#ifndef LOOM_CORE_EXECUTOR_TIMESTEP_EXECUTOR_H_
#define LOOM_CORE_EXECUTOR_TIMESTEP_EXECUTOR_H_

#include <deque>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "core/plan.h"
#include "core/proto/loom.pb.h"

namespace loom {

// Per op j of a step net: the ops it waits for.
struct StepNetDependencies {
  std::vector<std::vector<int>> same_step;      // ops i < j of the same timestep
  std::vector<std::vector<int>> previous_step;  // ops of the previous timestep
};

// Dependencies of `step_net`'s ops. `recurrent` lists (read, written) blob
// pairs: the step net reads `read` (e.g. "h_prev", row t of a state) that
// the previous timestep wrote as `written` (e.g. "h", row t+1).
StepNetDependencies AnalyzeStepNet(const NetDef& step_net,
                                   const std::vector<std::pair<std::string, std::string>>& recurrent);

// The number of cores (std::thread::hardware_concurrency, at least 1).
int NumCores();
// OpenMP threads a kernel gets when `executor_threads` workers run kernels
// concurrently: max(1, NumCores() / executor_threads).
int KernelThreadsFor(int executor_threads);

struct TimestepExecutorOptions {
  int num_threads = 2;             // workers; clamped to [1, NumCores()]
  int max_parallel_timesteps = 2;  // timesteps in flight; >= 1
  // Timesteps keep their intermediates (no ReleaseAfterRun): a backward
  // pass in the same step workspaces reads them.
  bool keep_intermediates = false;
};

class ThreadedTimestepExecutor {
 public:
  explicit ThreadedTimestepExecutor(TimestepExecutorOptions options);
  ~ThreadedTimestepExecutor();
  ThreadedTimestepExecutor(const ThreadedTimestepExecutor&) = delete;
  ThreadedTimestepExecutor& operator=(const ThreadedTimestepExecutor&) = delete;

  // Runs plans[0], plans[1], ... as consecutive timesteps (for a reverse
  // direction, pass them in reverse). Every plan must have one step per op of
  // the analyzed step net. Timestep t starts only after timestep
  // t - max_parallel_timesteps has finished, so workspaces may be reused
  // modulo that number. The first failing op stops the run: ops in flight
  // finish, no new ones start, and its error is returned; the executor can
  // run again afterwards. INVALID_ARGUMENT if a plan has the wrong op count.
  absl::Status Run(const std::vector<Plan*>& plans, const StepNetDependencies& deps);

  int num_threads() const { return static_cast<int>(workers_.size()); }
  int kernel_threads() const { return KernelThreadsFor(num_threads()); }

 private:
  void WorkerLoop();
  void Finish(int t, int j, absl::Status s);  // requires mu_
  void Admit(int t);                          // requires mu_

  TimestepExecutorOptions options_;
  std::vector<std::thread> workers_;
  absl::Mutex mu_;
  absl::CondVar work_cv_, done_cv_;
  bool shutdown_ = false;
  // State of the current run (guarded by mu_).
  const std::vector<Plan*>* plans_ = nullptr;
  const StepNetDependencies* deps_ = nullptr;
  std::vector<std::vector<int>> same_dependents_, next_dependents_;
  std::vector<int> remaining_;    // per (t, j): unfinished dependencies
  std::vector<int> done_in_step_; // per t
  std::vector<bool> admitted_;
  std::deque<std::pair<int, int>> ready_;
  int in_flight_ = 0;
  int steps_done_ = 0;
  int ops_per_step_ = 0;
  absl::Status error_;
};

}  // namespace loom

#endif  // LOOM_CORE_EXECUTOR_TIMESTEP_EXECUTOR_H_
