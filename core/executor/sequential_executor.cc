#include "core/executor/sequential_executor.h"

#include <chrono>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_bridge.h"

namespace loom {

static absl::Status Labeled(LoomStatus* st, const PlanStep& step) {
  absl::Status s = FromLoomStatus(st);
  if (absl::StartsWith(s.message(), step.op->label)) return s;
  return absl::Status(s.code(), absl::StrCat(step.op->label, ": ", s.message()));
}

absl::Status RunPlanStep(PlanStep& step) {
  if (LoomStatus* st = step.kernel->compute(step.state, &step.ctx)) return Labeled(st, step);
  return absl::OkStatus();
}

absl::Status RunSequential(Plan& plan, Profile* profile) {
  std::vector<PlanStep>& steps = plan.steps();
  if (profile == nullptr) {
    for (PlanStep& step : steps) {
      if (LoomStatus* st = step.kernel->compute(step.state, &step.ctx)) return Labeled(st, step);
    }
    return absl::OkStatus();
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    PlanStep& step = steps[i];
    auto start = std::chrono::steady_clock::now();
    LoomStatus* st = step.kernel->compute(step.state, &step.ctx);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (st) return Labeled(st, step);
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
