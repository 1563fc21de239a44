// The multi-stream executor (Caffe2's CUDA DAG net and CUDA RNN executor),
// device-agnostic: it schedules through the Device interface's streams and
// events and never includes a CUDA header.
//
// One host thread launches every operator in plan order; on a device with
// asynchronous streams (CUDA) kernels on different streams then overlap on
// the device. Cross-stream dependencies become events: an op that a later op
// on another stream needs records an event after it, and that later op's
// stream waits on it before the op is launched. The run ends with every
// stream synchronized, so the result is the same as a single-stream run.
//
// General nets: an op continues the stream of its first producer unless that
// producer's stream was already continued by another of its consumers (a
// branch), in which case it takes the next stream round robin; ops without
// producers take the next stream too. At most max_streams streams.
// Step nets (RecurrentNetwork on a device): timestep t runs on stream
// t mod max_streams; an op waits for the ops of the previous timestep it
// depends on (AnalyzeStepNet) through events, so the layers of a stacked RNN
// overlap across timesteps.
//
// On the host device (CPU) streams are null and events no-ops: the run is
// the sequential one.
#ifndef LOOM_CORE_EXECUTOR_MULTI_STREAM_EXECUTOR_H_
#define LOOM_CORE_EXECUTOR_MULTI_STREAM_EXECUTOR_H_

#include <vector>

#include "absl/status/status.h"
#include "core/device.h"
#include "core/executor/timestep_executor.h"
#include "core/plan.h"

namespace loom {

// Streams and events of one device, created on first use and reused.
class StreamSet {
 public:
  explicit StreamSet(Device* device) : device_(device) {}
  ~StreamSet();
  StreamSet(const StreamSet&) = delete;
  StreamSet& operator=(const StreamSet&) = delete;

  Device* device() const { return device_; }
  absl::StatusOr<StreamHandle> Stream(int i);
  absl::StatusOr<EventHandle> Event(int i);
  // Synchronizes streams [0, n).
  absl::Status SynchronizeFirst(int n);

 private:
  Device* device_;
  std::vector<StreamHandle> streams_;
  std::vector<EventHandle> events_;
};

// Stream assignment of a general net's plan.
struct StreamSchedule {
  std::vector<int> stream;                 // per step
  std::vector<std::vector<int>> waits_on;  // per step: steps on other streams it waits for
  std::vector<bool> records_event;         // per step: a later step on another stream waits for it
  int num_streams = 0;
};

// Producers are found by tensor identity: a step depends on the last earlier
// step that wrote a tensor it reads (its inputs and copy sources), and on the
// earlier readers of a tensor it overwrites.
StreamSchedule ScheduleStreams(const Plan& plan, int max_streams);

// Runs a general net's plan on `streams` (at most max_streams of them).
absl::Status RunMultiStream(Plan& plan, StreamSet* streams, int max_streams);

// Runs plans[0..T) as timesteps of one step net: timestep t on stream
// t mod max_streams. deps as from AnalyzeStepNet. INVALID_ARGUMENT if a plan
// has the wrong op count.
absl::Status RunTimestepsMultiStream(const std::vector<Plan*>& plans, const StepNetDependencies& deps,
                                     StreamSet* streams, int max_streams);

// The non-host device the plan's kernels run on, or nullptr if all run on
// the host (then there is nothing to overlap).
Device* PlanDevice(const Plan& plan, const Registry& registry);

}  // namespace loom

#endif  // LOOM_CORE_EXECUTOR_MULTI_STREAM_EXECUTOR_H_
