// Net: a NetDef made runnable in a workspace.
//
// Create() checks the NetDef against the registry (core/checked_net.h). Run()
// looks up the plan for the current dtypes and shapes of the net's inputs
// (MXNet CachedOp style): the first run with a new signature builds one
// (core/plan.h) and caches it; later runs with the same signature go straight
// to the executor. A plugin loaded after a plan was built (the registry's
// generation changed) invalidates the cache.
#ifndef LOOM_CORE_NET_H_
#define LOOM_CORE_NET_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/buffer_pool.h"
#include "core/checked_net.h"
#include "core/fpmath_mode.h"
#include "core/limits.h"
#include "core/net_scope.h"
#include "core/plan.h"
#include "core/profile.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"
#include "core/workspace.h"

namespace loom {

struct NetOptions {
  // Threads a kernel may use (OpenMP); 0 = the number of cores.
  int num_threads = 0;
  // Collect per-op times on every Run.
  bool enable_profiling = false;
  // Plans kept per net; the cache is cleared when it would grow beyond this.
  int max_cached_plans = 64;
  // Limits against hostile models (core/limits.h; README "Limits"). Nested
  // nets made through the ABI (Net_Create) inherit them.
  // Bytes one tensor may take: checked at plan time against the inferred
  // output shapes (BuildPlan) and at run time before an output is allocated
  // (Ctx_Output, the kernel-context table's ResizeTensor). <= 0: no cap.
  int64_t max_tensor_bytes = kDefaultMaxTensorBytes;  // 16 GiB
  // Nets nested in nets (If/Loop/Scan bodies, step nets); checked when a
  // nested net is created. <= 0: no limit.
  int max_nesting_depth = kDefaultMaxNestingDepth;  // 64
  // Iterations of one Loop op per run (the controlflow plugin reads it
  // through LoomApi::Ctx_Limit). <= 0: no limit.
  int64_t max_loop_iterations = kDefaultMaxLoopIterations;  // 10,000,000

  // Memory planning (core/memory_plan.h): intermediates share one arena per
  // device by liveness, and outputs sized only at run time come from a pool
  // and go back to it after their last reader. Off: every blob keeps memory
  // of its own for the net's life (and stays readable after Run). Nets run
  // by the multi_stream executor are never planned (their ops run
  // concurrently); nets run as timesteps get timestep plans
  // (PlanTimestepMemory). loom_run --plan_memory.
  bool plan_memory = true;
  // Debug: fill memory with 0xFF bytes (NaN in every float type) when the
  // planner lets it go, so a read after reuse shows. Also on for every net
  // of a process that called SetPoisonReleasedMemoryByDefault(true) (the
  // test main and MakeRegistry do, given LOOM_POISON_RELEASED_MEMORY=1,
  // which CI sets for the suite). Nested nets inherit it.
  bool poison_released_memory = false;
  // Fixed input signatures (MXNet CachedOp's static_shape): the net runs
  // only the signatures it planned first, the first Run's or those given to
  // PlanBuckets; a Run with another is FAILED_PRECONDITION. In exchange,
  // initializers that every kernel reading them has packed
  // (Prepare_ReleaseConstant) are freed once planning is done, so the
  // weights are held once. loom_run --static_shape (its default).
  bool static_shape = false;
  // Float32 convolutions and matmuls in bfloat16 (core/fpmath_mode.h;
  // oneDNN's fpmath_mode): kBf16 lets kernels round their inputs and
  // weights to bf16 where the device has bf16 arithmetic (float32
  // accumulation and outputs). Nested nets inherit it. loom_run
  // --fpmath_mode.
  FpMathMode fpmath_mode = FpMathMode::kStrict;
};

class StreamSet;

// Turns NetOptions::poison_released_memory on for every net created from now
// on in this process (a debugging switch; the core reads no environment:
// testing/test_main.cc and MakeRegistry, session/registry_setup.h, map
// LOOM_POISON_RELEASED_MEMORY=1 to it).
void SetPoisonReleasedMemoryByDefault(bool on);

class Net {
 public:
  ~Net();
  // Puts def.initializer tensors into `ws` (unless present), then checks.
  // `ws` and `registry` must outlive the net. `options`: what the user sets;
  // `scope`: what the net shares with the nets around it (core/net_scope.h;
  // empty for a top-level net of its own). Executor type must be empty,
  // "sequential" or "multi_stream" (INVALID_ARGUMENT otherwise). Other
  // errors: see CheckNet.
  static absl::StatusOr<std::unique_ptr<Net>> Create(const NetDef& def, Workspace* ws, const Registry* registry,
                                                     NetOptions options = {}, NetScope scope = {});
  // The same, taking the NetDef's initializers: each one's values are freed
  // as soon as its tensor is in `ws`, so the weights are never held twice
  // (the memory peak of loading a model is one copy of them, not two).
  // `def` is left with its ops and metadata, its initializers without data.
  static absl::StatusOr<std::unique_ptr<Net>> Create(NetDef&& def, Workspace* ws, const Registry* registry,
                                                     NetOptions options = {}, NetScope scope = {});

  // Runs the net on the workspace's current inputs; outputs are left in the
  // workspace. Errors name the failing op. Executor: NetDef type "" or
  // "sequential" runs ops in order; "multi_stream" runs a net whose ops are
  // on a device with streams (CUDA) on up to max_streams streams
  // (core/executor/multi_stream_executor.h) and sequentially otherwise or
  // while profiling (per-op times need synchronous ops).
  absl::Status Run();

  const NetDef& def() const { return checked_->def; }
  // Blobs the net reads before writing (external inputs, initializers).
  const std::vector<std::string>& inputs() const { return checked_->inputs; }

  void set_profiling(bool on) { options_.enable_profiling = on; }
  const Profile& profile() const { return profile_; }
  void ResetProfile();

  // Planning passes so far (cache misses) and plans in the cache.
  int64_t plans_built() const { return plans_built_; }
  size_t cached_plans() const { return plans_.size(); }
  // The plan for the workspace's current inputs, built or found in the
  // cache (what Run executes). Executors that schedule ops themselves (the
  // RNN timestep executor) use it.
  absl::StatusOr<Plan*> Prepare();
  // The same for a net run as timesteps of a recurrent network (the
  // timestep executors run its ops concurrently): from the first call on,
  // its plans share no memory between ops (PlanTimestepMemory, no arena);
  // their intermediates go back to the pool when the caller runs
  // ReleaseTimestep after the timestep.
  absl::StatusOr<Plan*> PrepareTimestep();
  // Blobs of this timestep net that a backward pass recomputes instead of
  // reading them kept (Caffe2's recompute_blobs_on_backward): released after
  // each timestep even when the executor keeps the intermediates
  // (MemoryPlan::recomputed_after_run). Plans already made are replanned.
  void SetRecomputedOnBackward(std::set<std::string> names);

  // Buckets (MXNet's BucketingModule): builds the plans for these input
  // signatures up front, largest first (by the sum of the inputs' element
  // counts), so the arena is allocated once, at the largest size, and every
  // bucket's plan draws from it. Each bucket names inputs and their shapes;
  // an input keeps the dtype it has in the workspace (it must be set), and
  // inputs a bucket does not name keep their current value. The workspace's
  // inputs are restored afterwards. Errors: an input not set
  // (INVALID_ARGUMENT naming it), or planning a bucket failing (its error,
  // prefixed "bucket <i>"). Without it, the arena grows to the largest
  // signature seen.
  absl::Status PlanBuckets(const std::vector<std::vector<std::pair<std::string, Shape>>>& buckets);

  // Memory: the arenas' bytes (all devices), how many times an arena was
  // allocated (a plan larger than the arena grows it), and the pool of
  // run-time allocations (core/buffer_pool.h).
  size_t arena_bytes() const;
  // Initializers freed after their kernels packed them (static_shape): how
  // many, and their bytes.
  int64_t released_constants() const { return released_constants_; }
  size_t released_constant_bytes() const { return released_constant_bytes_; }
  int64_t arena_allocations() const { return arena_allocations_; }
  const BufferPool& pool() const { return *pool_; }
  const NetOptions& options() const { return options_; }
  // The scope it was created with, with a packed-constant store of its own
  // when none was given; outer_constants are emptied once checked (they are
  // among the checked net's constants).
  const NetScope& scope() const { return scope_; }

  // The plan used by the last Run (nullptr before the first).
  const Plan* last_plan() const { return last_plan_; }
  const Registry* registry() const { return registry_; }
  // The limits this net runs under (from its NetOptions).
  const NetLimits& limits() const { return limits_; }

 private:
  Net(std::unique_ptr<CheckedNet> checked, Workspace* ws, const Registry* registry, NetOptions options, NetScope scope);

  std::unique_ptr<CheckedNet> checked_;
  Workspace* ws_;
  const Registry* registry_;
  NetOptions options_;
  NetScope scope_;
  NetLimits limits_;  // from options_ and scope_; plans' kernel contexts point here
  absl::flat_hash_map<std::string, std::unique_ptr<Plan>> plans_;
  uint64_t plans_generation_ = 0;
  int64_t plans_built_ = 0;
  Plan* last_plan_ = nullptr;
  // The plan whose signature values (Plan::signature_values) the blobs hold
  // now; another plan writes its own back before it runs (UseSignatureValues).
  const Plan* values_plan_ = nullptr;
  Profile profile_;
  std::string signature_;  // scratch, reused to avoid allocating per run
  std::vector<std::string> signature_inputs_;  // the inputs whose dtype and dims make the signature
  // The multi_stream executor (NetDef type "multi_stream"; streams from the
  // NetDef argument "max_streams", default 4), read once at creation.
  bool multi_stream_ = false;
  int max_streams_ = 4;
  bool timestep_ = false;  // PrepareTimestep was called
  std::set<std::string> recomputed_;  // SetRecomputedOnBackward
  std::unique_ptr<StreamSet> streams_;  // made on first use
  // Memory plans' arenas (one per device, shared by every cached plan and
  // grown to the largest) and the pool for run-time sizes.
  absl::StatusOr<Plan*> PrepareCached();
  absl::Status UseSignatureValues(const Plan& plan);
  absl::Status BindMemory(Plan* plan);
  void UnplanMemory(Plan* plan);
  // static_shape: frees the initializers every kernel of every cached plan
  // packed (PlanStep::released_constants).
  void ReleasePackedConstants();
  bool planning_buckets_ = false;
  absl::flat_hash_set<const Tensor*> released_;
  int64_t released_constants_ = 0;
  size_t released_constant_bytes_ = 0;
  std::map<Device*, std::shared_ptr<Buffer>> arenas_;
  int64_t arena_allocations_ = 0;
  std::shared_ptr<BufferPool> pool_;  // scope_.pool, or one of its own
};

}  // namespace loom

#endif  // LOOM_CORE_NET_H_
