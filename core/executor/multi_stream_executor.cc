#include "core/executor/multi_stream_executor.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/executor/sequential_executor.h"

namespace loom {

StreamSet::~StreamSet() {
  for (EventHandle e : events_) device_->DestroyEvent(e);
  for (StreamHandle s : streams_) device_->DestroyStream(s);
}

absl::StatusOr<StreamHandle> StreamSet::Stream(int i) {
  while (static_cast<int>(streams_.size()) <= i) {
    absl::StatusOr<StreamHandle> s = device_->CreateStream();
    if (!s.ok()) return s.status();
    streams_.push_back(*s);
  }
  return streams_[i];
}

absl::StatusOr<EventHandle> StreamSet::Event(int i) {
  while (static_cast<int>(events_.size()) <= i) {
    absl::StatusOr<EventHandle> e = device_->CreateEvent();
    if (!e.ok()) return e.status();
    events_.push_back(*e);
  }
  return events_[i];
}

absl::Status StreamSet::SynchronizeFirst(int n) {
  for (int i = 0; i < n && i < static_cast<int>(streams_.size()); ++i) {
    absl::Status s = device_->SynchronizeStream(streams_[i]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

StreamSchedule ScheduleStreams(const Plan& plan, int max_streams) {
  const std::vector<PlanStep>& steps = plan.steps();
  const int n = static_cast<int>(steps.size());
  max_streams = std::max(1, max_streams);
  StreamSchedule sch;
  sch.stream.assign(n, 0);
  sch.waits_on.assign(n, {});
  sch.records_event.assign(n, false);
  absl::flat_hash_map<const Tensor*, int> writer;
  absl::flat_hash_map<const Tensor*, std::vector<int>> readers;
  std::vector<bool> continued(n, false);
  int next = 0;
  for (int j = 0; j < n; ++j) {
    const PlanStep& s = steps[j];
    std::vector<int> preds;
    auto add = [&](int p) {
      if (std::find(preds.begin(), preds.end(), p) == preds.end()) preds.push_back(p);
    };
    auto read = [&](const Tensor* t) {
      if (t == nullptr) return;
      auto w = writer.find(t);
      if (w != writer.end()) add(w->second);
      readers[t].push_back(j);
    };
    auto write = [&](const Tensor* t) {
      if (t == nullptr) return;
      auto w = writer.find(t);
      if (w != writer.end()) add(w->second);
      for (int r : readers[t]) {
        if (r != j) add(r);
      }
      readers[t].clear();
    };
    for (const DeviceCopy& c : s.copies_before) read(c.src);
    for (const Tensor* t : s.ctx.inputs) read(t);
    for (const DeviceCopy& c : s.copies_before) write(c.dst);
    for (const Tensor* t : s.ctx.outputs) write(t);
    for (const DeviceCopy& c : s.copies_after) write(c.dst);
    int stream = -1;
    for (int p : preds) {
      if (!continued[p]) {
        continued[p] = true;
        stream = sch.stream[p];
        break;
      }
    }
    if (stream < 0) stream = next++ % max_streams;
    sch.stream[j] = stream;
    sch.num_streams = std::max(sch.num_streams, stream + 1);
    for (int p : preds) {
      if (sch.stream[p] != stream) {
        sch.waits_on[j].push_back(p);
        sch.records_event[p] = true;
      }
    }
    for (const Tensor* t : s.ctx.outputs) {
      if (t) writer[t] = j;
    }
    for (const DeviceCopy& c : s.copies_before) writer[c.dst] = j;
    for (const DeviceCopy& c : s.copies_after) writer[c.dst] = j;
  }
  return sch;
}

absl::Status RunMultiStream(Plan& plan, StreamSet* streams, int max_streams) {
  StreamSchedule sch = ScheduleStreams(plan, max_streams);
  std::vector<PlanStep>& steps = plan.steps();
  Device* dev = streams->device();
  for (size_t j = 0; j < steps.size(); ++j) {
    absl::StatusOr<StreamHandle> s = streams->Stream(sch.stream[j]);
    if (!s.ok()) return s.status();
    for (int p : sch.waits_on[j]) {
      absl::StatusOr<EventHandle> e = streams->Event(p);
      if (!e.ok()) return e.status();
      absl::Status w = dev->StreamWaitEvent(*s, *e);
      if (!w.ok()) return w;
    }
    steps[j].ctx.stream = *s;
    absl::Status r = RunPlanStep(steps[j]);
    if (!r.ok()) {
      streams->SynchronizeFirst(sch.num_streams).IgnoreError();  // leave no work in flight
      return r;
    }
    if (sch.records_event[j]) {
      absl::StatusOr<EventHandle> e = streams->Event(static_cast<int>(j));
      if (!e.ok()) return e.status();
      absl::Status rec = dev->RecordEvent(*e, *s);
      if (!rec.ok()) return rec;
    }
  }
  return streams->SynchronizeFirst(sch.num_streams);
}

absl::Status RunTimestepsMultiStream(const std::vector<Plan*>& plans, const StepNetDependencies& deps,
                                     StreamSet* streams, int max_streams) {
  const int J = static_cast<int>(deps.same_step.size());
  const int T = static_cast<int>(plans.size());
  max_streams = std::max(1, std::min(max_streams, std::max(T, 1)));
  for (int t = 0; t < T; ++t) {
    if (static_cast<int>(plans[t]->steps().size()) != J) {
      return absl::InvalidArgumentError(absl::StrCat("timestep ", t, " has ", plans[t]->steps().size(),
                                                     " ops; the step net has ", J));
    }
  }
  // Ops a later timestep waits for record an event; events are indexed by
  // (t mod 2, j): timestep t+1 only waits on timestep t, and a stream's
  // later record of the same event happens after its earlier waits were
  // enqueued (CUDA semantics: a wait binds to the most recent record).
  std::vector<bool> needed(J, false);
  for (int j = 0; j < J; ++j) {
    for (int i : deps.previous_step[j]) needed[i] = true;
  }
  Device* dev = streams->device();
  for (int t = 0; t < T; ++t) {
    const int si = t % max_streams;
    absl::StatusOr<StreamHandle> s = streams->Stream(si);
    if (!s.ok()) return s.status();
    for (int j = 0; j < J; ++j) {
      if (t > 0 && max_streams > 1) {
        for (int i : deps.previous_step[j]) {
          absl::StatusOr<EventHandle> e = streams->Event(((t - 1) % 2) * J + i);
          if (!e.ok()) return e.status();
          absl::Status w = dev->StreamWaitEvent(*s, *e);
          if (!w.ok()) return w;
        }
      }
      PlanStep& step = plans[t]->steps()[j];
      step.ctx.stream = *s;
      absl::Status r = RunPlanStep(step);
      if (!r.ok()) {
        streams->SynchronizeFirst(max_streams).IgnoreError();
        return absl::Status(r.code(), absl::StrCat("timestep ", t, ": ", r.message()));
      }
      if (needed[j] && max_streams > 1) {
        absl::StatusOr<EventHandle> e = streams->Event((t % 2) * J + j);
        if (!e.ok()) return e.status();
        absl::Status rec = dev->RecordEvent(*e, *s);
        if (!rec.ok()) return rec;
      }
    }
  }
  return streams->SynchronizeFirst(max_streams);
}

Device* PlanDevice(const Plan& plan, const Registry& registry) {
  for (const PlanStep& s : plan.steps()) {
    Device* d = registry.FindDevice(s.op->device_type, s.op->device_id);
    if (d != nullptr && !d->is_host()) return d;
  }
  return nullptr;
}

}  // namespace loom
