// The memory planner: once per plan (per input signature), after kernel
// selection and prepare, decides where each intermediate tensor lives.
//
// Liveness: a blob is born at the step that writes it and dies after its
// last reader. Intermediates whose size inference knew at plan time get a
// place in one arena per device, shared with other intermediates whose lives
// do not overlap (MXNet's plan_memory: storage ids, best fit within a size
// range, a storage grows to its largest user; ONNX Runtime's static memory
// pattern). Where the op's schema declares an input/output pair in-place and
// the input dies at that op, the output takes the input's place. Outputs
// whose size is known only at run time are allocated while the net runs,
// from the net's BufferPool (core/buffer_pool.h), and released to it after
// their last reader.
//
// A NetDef without external outputs is not planned: any of its blobs may be
// what the caller reads after Run (Caffe2's convention).
//
// Never placed or released (they keep memory of their own, as before):
// the net's inputs (external inputs, initializers, anything read before it
// is written), constants and folded outputs, external outputs, blobs written
// by more than one op, blobs that are aliases when the plan is built
// (RecurrentNetwork links), cross-device copies, and every blob an op with a
// nested net (If/Loop/Scan bodies, step nets) reads or writes or names in
// its nested nets, since those reach blobs by name (a kernel that owns such
// blobs in a workspace of its own hands them back with the ABI's
// Tensor_Release when it needs them no more). The multi_stream
// executor runs ops of one net concurrently, so its nets are not planned;
// nets run as timesteps get timestep plans (PlanTimestepMemory).
#ifndef LOOM_CORE_MEMORY_PLAN_H_
#define LOOM_CORE_MEMORY_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "core/tensor.h"

namespace loom {

struct CheckedNet;
class Plan;
class Workspace;

// An intermediate placed in its device's arena.
struct PlannedBlob {
  Tensor* tensor = nullptr;
  Device* device = nullptr;
  size_t offset = 0;    // bytes into the arena, a multiple of kTensorAlignment
  size_t capacity = 0;  // bytes reserved (the storage's size)
  size_t bytes = 0;     // bytes of dtype x dims
  DataType dtype = DataType::kFloat32;
  Shape dims;
  int first_step = 0, last_step = 0;  // written by first_step, last read by last_step
  bool in_place = false;              // took the place of an input of first_step
};

struct MemoryPlan {
  bool enabled = false;
  std::vector<PlannedBlob> blobs;
  std::map<Device*, size_t> arena_bytes;  // per device: the arena this plan needs
  size_t no_reuse_bytes = 0;              // what the placed blobs would take without sharing
  int64_t dynamic_blobs = 0;              // released to the pool after their last reader
  int64_t pinned_blobs = 0;               // outputs kept as before (see above)
  int64_t in_place = 0;                   // outputs placed on their input
  // A timestep plan (PlanTimestepMemory): nothing placed; these blobs go
  // back to the pool once the whole run of the plan (one timestep) is done.
  bool timestep = false;
  std::vector<Tensor*> release_after_run;
  // Of those, the blobs named as recomputed on backward
  // (Net::SetRecomputedOnBackward): released after the timestep even when
  // it keeps its intermediates for a backward pass.
  std::vector<Tensor*> recomputed_after_run;
};

struct MemoryPlanOptions {
  // Best-fit match range (MXNet's MXNET_EXEC_MATCH_RANGE): a free storage
  // between size / match_range and size * match_range may serve a request.
  size_t match_range = 16;
};

// Plans `plan`'s memory (fills plan->memory() and each step's release and
// dead lists). `ws` is the net's workspace, `net` the checked net the plan
// was built from.
void PlanMemory(const CheckedNet& net, const Workspace& ws, const MemoryPlanOptions& options, Plan* plan);

// Plans a net that runs as one timestep of a recurrent network, whose ops
// may run concurrently with each other and with other timesteps' ops (the
// threaded and multi-stream timestep executors), so liveness inside the
// step says nothing: no arena; every intermediate the planner would place
// or pool (the same exclusions, and the step's links, which are aliases of
// outer tensors) is listed in memory().release_after_run and goes back to
// the pool once the timestep is done (ReleaseAfterRun). With T timesteps
// and P in flight, the intermediates of about P timesteps are alive at
// once, not T (Caffe2 recycled forward-only step workspaces for the same
// reason). Forward only: a backward pass needs them kept, except those
// named in `recomputed` (Caffe2's recompute_blobs_on_backward), listed in
// memory().recomputed_after_run too.
void PlanTimestepMemory(const CheckedNet& net, const Workspace& ws, Plan* plan,
                        const std::set<std::string>& recomputed = {});

// Every blob name that an op with a nested net (If/Loop/Scan bodies, step
// nets) reads, writes or names in its nested nets, at any depth: nested
// nets reach blobs by name, so these are never reused or freed.
void NestedNetNames(const CheckedNet& net, std::set<std::string>* names);

// Leaves `plan` unplanned: plan->memory() empty, nothing released or dead
// after any step. (Tensors already placed stay where they are.)
void ClearMemoryPlan(Plan* plan);

}  // namespace loom

#endif  // LOOM_CORE_MEMORY_PLAN_H_
