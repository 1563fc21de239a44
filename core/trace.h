// A process-wide trace of op executions in Chrome's trace event format
// (chrome://tracing, Perfetto): loom_run --trace. While a TraceRecorder is
// active, every op a plan runs (core/executor: sequential, the threaded
// timestep executor's workers, the multi-stream executor) adds one complete
// event: the op's type and name, start and duration in microseconds, and
// the thread that ran it, so the RNN executor's workers show as tracks of
// their own. Inactive, the cost is one relaxed atomic load per op.
#ifndef LOOM_CORE_TRACE_H_
#define LOOM_CORE_TRACE_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace loom {

class TraceRecorder {
 public:
  TraceRecorder();
  // Stops recording if active.
  ~TraceRecorder();
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  // Makes this the recorder ops report to (one at a time); Stop ends it.
  void Start();
  void Stop();

  // The active recorder, or nullptr.
  static TraceRecorder* Active();

  // One op run: `name` (e.g. "Conv conv1"), from `start` for `duration`,
  // on the calling thread; `args` a JSON object body or "".
  void Record(const std::string& name, std::chrono::steady_clock::time_point start,
              std::chrono::steady_clock::duration duration, const std::string& args = "");

  // The events as a Chrome trace JSON file ({"traceEvents": [...]}), with
  // the threads named "thread <k>" in the order they first ran an op.
  // INTERNAL when the file cannot be written.
  absl::Status WriteJson(const std::string& path) const;
  size_t size() const;

 private:
  struct Event {
    std::string name, args;
    int64_t start_us, duration_us;
    int tid;
  };
  int ThreadIndex() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::chrono::steady_clock::time_point origin_;
  mutable absl::Mutex mu_;
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> threads_ ABSL_GUARDED_BY(mu_);  // hashed std::thread ids, by index
};

}  // namespace loom

#endif  // LOOM_CORE_TRACE_H_
