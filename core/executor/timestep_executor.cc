#include "core/executor/timestep_executor.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "core/executor/sequential_executor.h"

namespace loom {

StepNetDependencies AnalyzeStepNet(const NetDef& step_net,
                                   const std::vector<std::pair<std::string, std::string>>& recurrent) {
  const int n = step_net.op_size();
  StepNetDependencies d;
  d.same_step.resize(n);
  d.previous_step.resize(n);
  std::map<std::string, int> last_writer;  // within the step, so far
  std::map<std::string, int> final_writer; // over the whole step
  for (int j = 0; j < n; ++j) {
    for (const std::string& o : step_net.op(j).output()) final_writer[o] = j;
  }
  for (int j = 0; j < n; ++j) {
    std::set<int> same, prev{j};
    for (const std::string& in : step_net.op(j).input()) {
      auto w = last_writer.find(in);
      if (w != last_writer.end()) same.insert(w->second);
      for (const auto& [read, written] : recurrent) {
        if (read != in) continue;
        auto fw = final_writer.find(written);
        if (fw != final_writer.end()) prev.insert(fw->second);
      }
    }
    // An op that overwrites a blob read earlier in the step must also wait
    // for those readers (write-after-read within a timestep).
    for (const std::string& o : step_net.op(j).output()) {
      for (int i = 0; i < j; ++i) {
        for (const std::string& in : step_net.op(i).input()) {
          if (in == o) same.insert(i);
        }
      }
    }
    d.same_step[j].assign(same.begin(), same.end());
    d.previous_step[j].assign(prev.begin(), prev.end());
    for (const std::string& o : step_net.op(j).output()) last_writer[o] = j;
  }
  return d;
}

int NumCores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

int KernelThreadsFor(int executor_threads) { return std::max(1, NumCores() / std::max(1, executor_threads)); }

ThreadedTimestepExecutor::ThreadedTimestepExecutor(TimestepExecutorOptions options) : options_(options) {
  options_.num_threads = std::clamp(options_.num_threads, 1, NumCores());
  options_.max_parallel_timesteps = std::max(1, options_.max_parallel_timesteps);
  for (int i = 0; i < options_.num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadedTimestepExecutor::~ThreadedTimestepExecutor() {
  {
    absl::MutexLock l(&mu_);
    shutdown_ = true;
    work_cv_.SignalAll();
  }
  for (std::thread& t : workers_) t.join();
}

void ThreadedTimestepExecutor::Admit(int t) {
  if (t >= static_cast<int>(plans_->size()) || admitted_[t]) return;
  admitted_[t] = true;
  for (int j = 0; j < ops_per_step_; ++j) {
    if (remaining_[t * ops_per_step_ + j] == 0) ready_.emplace_back(t, j);
  }
  work_cv_.SignalAll();
}

void ThreadedTimestepExecutor::Finish(int t, int j, absl::Status s) {
  --in_flight_;
  if (!s.ok() && error_.ok()) error_ = absl::Status(s.code(), absl::StrCat("timestep ", t, ": ", s.message()));
  if (error_.ok()) {
    const int T = static_cast<int>(plans_->size());
    for (int k : same_dependents_[j]) {
      if (--remaining_[t * ops_per_step_ + k] == 0 && admitted_[t]) ready_.emplace_back(t, k);
    }
    if (t + 1 < T) {
      for (int k : next_dependents_[j]) {
        if (--remaining_[(t + 1) * ops_per_step_ + k] == 0 && admitted_[t + 1]) ready_.emplace_back(t + 1, k);
      }
    }
    if (++done_in_step_[t] == ops_per_step_) {
      ReleaseTimestep(*(*plans_)[t], options_.keep_intermediates);  // before t + max_parallel may reuse the memory
      ++steps_done_;
      Admit(t + options_.max_parallel_timesteps);
    }
    if (!ready_.empty()) work_cv_.SignalAll();
  }
  if (in_flight_ == 0 && (!error_.ok() || steps_done_ == static_cast<int>(plans_->size()) || ready_.empty())) {
    done_cv_.SignalAll();
  }
}

void ThreadedTimestepExecutor::WorkerLoop() {
  absl::MutexLock l(&mu_);
  while (true) {
    while (!shutdown_ && (ready_.empty() || !error_.ok())) work_cv_.Wait(&mu_);
    if (shutdown_) return;
    auto [t, j] = ready_.front();
    ready_.pop_front();
    ++in_flight_;
    PlanStep& step = (*plans_)[t]->steps()[j];
    mu_.Unlock();
    // Outputs sized at run time come from the pool in the step's context
    // (the step net's: its enclosing net's, shared through Net_Create).
    absl::Status s = RunPlanStep(step);
    mu_.Lock();
    Finish(t, j, std::move(s));
  }
}

absl::Status ThreadedTimestepExecutor::Run(const std::vector<Plan*>& plans, const StepNetDependencies& deps) {
  const int J = static_cast<int>(deps.same_step.size());
  const int T = static_cast<int>(plans.size());
  for (int t = 0; t < T; ++t) {
    if (static_cast<int>(plans[t]->steps().size()) != J) {
      return absl::InvalidArgumentError(absl::StrCat("timestep ", t, " has ", plans[t]->steps().size(),
                                                     " ops; the step net has ", J));
    }
  }
  if (T == 0 || J == 0) return absl::OkStatus();
  absl::MutexLock l(&mu_);
  plans_ = &plans;
  deps_ = &deps;
  ops_per_step_ = J;
  same_dependents_.assign(J, {});
  next_dependents_.assign(J, {});
  for (int j = 0; j < J; ++j) {
    for (int i : deps.same_step[j]) same_dependents_[i].push_back(j);
    for (int i : deps.previous_step[j]) next_dependents_[i].push_back(j);
  }
  remaining_.assign(static_cast<size_t>(T) * J, 0);
  for (int t = 0; t < T; ++t) {
    for (int j = 0; j < J; ++j) {
      remaining_[t * J + j] = static_cast<int>(deps.same_step[j].size()) +
                              (t > 0 ? static_cast<int>(deps.previous_step[j].size()) : 0);
    }
  }
  done_in_step_.assign(T, 0);
  admitted_.assign(T, false);
  ready_.clear();
  in_flight_ = 0;
  steps_done_ = 0;
  error_ = absl::OkStatus();
  for (int t = 0; t < std::min(T, options_.max_parallel_timesteps); ++t) Admit(t);
  while (!(in_flight_ == 0 && (!error_.ok() || steps_done_ == T))) {
    if (in_flight_ == 0 && ready_.empty()) {
      error_ = absl::InternalError("timestep executor stalled: the dependencies have a cycle");
      break;
    }
    done_cv_.Wait(&mu_);
  }
  ready_.clear();
  plans_ = nullptr;
  deps_ = nullptr;
  return error_;
}

}  // namespace loom
