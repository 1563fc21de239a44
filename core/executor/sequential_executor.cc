#include "core/executor/sequential_executor.h"

#include <chrono>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/attributes.h"
#include "core/status_bridge.h"
#include "core/trace.h"

namespace loom {

static absl::Status Labeled(LoomStatus* st, const PlanStep& step) {
  return WithOpLabel(step.op->label, step.op->info->op, FromLoomStatus(st));
}

static absl::Status RunCopies(const std::vector<DeviceCopy>& copies, const PlanStep& step) {
  for (const DeviceCopy& c : copies) {
    absl::Status s = CopyTensorAcross(*c.src, c.dst, step.ctx.stream, step.ctx.pool);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(step.op->label, ": copy across devices: ", s.message()));
  }
  return absl::OkStatus();
}

// 0xFF bytes: NaN in every float type, -1 in signed integers.
static void Poison(Tensor* t) {
  const size_t n = t->nbytes();
  if (n == 0 || t->raw_data() == nullptr) return;
  if (t->device()->is_host()) {
    std::memset(t->raw_data(), 0xFF, n);
    return;
  }
  std::vector<unsigned char> ff(n, 0xFF);
  (void)t->device()->Copy(t->raw_data(), ff.data(), n, CopyKind::kHostToDevice, nullptr);
}

// Whether the memory planner left work after this step.
static inline bool HasReleases(const PlanStep& step) {
  return !step.release_after.empty() || (step.ctx.poison_released_memory && !step.dead_after.empty());
}

void ReleaseAfterStep(PlanStep& step) {
  const bool poison = step.ctx.poison_released_memory;
  if (poison) {
    for (Tensor* t : step.dead_after) Poison(t);
  }
  for (Tensor* t : step.release_after) {
    if (poison) Poison(t);
    t->Release();
  }
}

void ReleaseAfterRun(Plan& plan) {
  const std::vector<Tensor*>& release = plan.memory().release_after_run;
  if (release.empty()) return;
  const bool poison = plan.steps().front().ctx.poison_released_memory;
  for (Tensor* t : release) {
    if (poison) Poison(t);
    t->Release();
  }
}

void ReleaseTimestep(Plan& plan, bool keep_intermediates) {
  if (!keep_intermediates) {
    ReleaseAfterRun(plan);
    return;
  }
  const bool poison = !plan.steps().empty() && plan.steps().front().ctx.poison_released_memory;
  for (Tensor* t : plan.memory().recomputed_after_run) {
    if (poison) Poison(t);
    t->Release();
  }
}

absl::Status RunPlanStep(PlanStep& step) {
  if (step.folded) return absl::OkStatus();  // computed at plan time
  if (!step.copies_before.empty()) {
    absl::Status s = RunCopies(step.copies_before, step);
    if (!s.ok()) return s;
  }
  TraceRecorder* trace = TraceRecorder::Active();
  const auto start = trace != nullptr ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  LoomStatus* st = step.kernel->compute(step.state, &step.ctx);
  if (trace != nullptr) {
    const OperatorDef& op = step.op->info->op;
    trace->Record(op.name().empty() ? op.type() : absl::StrCat(op.type(), " ", op.name()), start,
                  std::chrono::steady_clock::now() - start);
  }
  if (!step.ctx.scratch.empty()) step.ctx.scratch.clear();
  if (st != nullptr) return Labeled(st, step);
  if (!step.copies_after.empty()) {
    absl::Status s = RunCopies(step.copies_after, step);
    if (!s.ok()) return s;
  }
  if (HasReleases(step)) ReleaseAfterStep(step);
  return absl::OkStatus();
}

absl::Status RunSequential(Plan& plan, Profile* profile) {
  std::vector<PlanStep>& steps = plan.steps();
  if (profile == nullptr) {
    const bool tracing = TraceRecorder::Active() != nullptr;  // RunPlanStep records
    for (PlanStep& step : steps) {
      if (step.folded) continue;  // computed at plan time
      if (!tracing && step.copies_before.empty() && step.copies_after.empty()) {  // the common case, kept tight
        LoomStatus* st = step.kernel->compute(step.state, &step.ctx);
        if (!step.ctx.scratch.empty()) step.ctx.scratch.clear();
        if (st != nullptr) return Labeled(st, step);
        if (HasReleases(step)) ReleaseAfterStep(step);
        continue;
      }
      absl::Status s = RunPlanStep(step);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    PlanStep& step = steps[i];
    auto start = std::chrono::steady_clock::now();
    absl::Status s = RunPlanStep(step);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!s.ok()) return s;
    OpProfile& p = profile->ops[i];
    p.total_ms += ms;
    p.runs += 1;
    TypeProfile& t = profile->by_type[p.op_type];
    t.total_ms += ms;
    t.calls += 1;
    profile->total_ms += ms;
  }
  profile->runs += 1;
  return absl::OkStatus();
}

}  // namespace loom
