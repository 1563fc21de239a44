// The sequential executor: runs a plan's kernels in order on the calling thread.
#ifndef LOOM_CORE_EXECUTOR_SEQUENTIAL_EXECUTOR_H_
#define LOOM_CORE_EXECUTOR_SEQUENTIAL_EXECUTOR_H_

#include "absl/status/status.h"
#include "core/plan.h"
#include "core/profile.h"

namespace loom {

// Runs every step of `plan`. The first failing kernel stops the run; its
// error is returned prefixed with the op's label. With `profile` non-null,
// each op's wall time (ms) is added to it (profile->ops must have one entry
// per step).
absl::Status RunSequential(Plan& plan, Profile* profile);

// Runs one step (one op's kernel, its device copies, and the memory
// planner's releases after it); errors are prefixed with the op's label.
absl::Status RunPlanStep(PlanStep& step);

// The memory planner's work after a step: poisons (when the net asks for it,
// LoomKernelContext::poison_released_memory: 0xFF bytes) the placed blobs
// that died at it, and releases run-time allocated ones to the pool.
void ReleaseAfterStep(PlanStep& step);

// A timestep plan's work after the whole timestep (PlanTimestepMemory):
// poisons (as above) and releases memory().release_after_run to its pool.
// Call it only when no op of the plan is running or queued on a stream.
void ReleaseAfterRun(Plan& plan);
// After one timestep: ReleaseAfterRun, or, when the timestep keeps its
// intermediates for a backward pass, only the blobs recomputed on backward
// (MemoryPlan::recomputed_after_run).
void ReleaseTimestep(Plan& plan, bool keep_intermediates);

}  // namespace loom

#endif  // LOOM_CORE_EXECUTOR_SEQUENTIAL_EXECUTOR_H_
