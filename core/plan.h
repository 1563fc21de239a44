// Second pass: a checked net plus the dtypes and shapes of its inputs give a
// Plan: inferred dtypes (and shapes where schemas say), one selected and
// created kernel per op, and every op's input and output tensors resolved in
// the workspace, so running is a loop over prepared kernels.
#ifndef LOOM_CORE_PLAN_H_
#define LOOM_CORE_PLAN_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/op_instance.h"
#include "core/checked_net.h"
#include "core/fpmath_mode.h"
#include "core/limits.h"
#include "core/packed_constants.h"
#include "core/memory_plan.h"
#include "core/registry.h"
#include "core/workspace.h"

namespace loom {

// A copy of a tensor to another device, inserted by the planner.
struct DeviceCopy {
  const Tensor* src = nullptr;
  Tensor* dst = nullptr;  // sized like src on its own device, then filled
};

struct PlanStep {
  const CheckedOp* op = nullptr;
  // Cross-device copies: of inputs that live on another device than the op
  // (before the kernel) and of external outputs the op makes off the host
  // (after it). See BuildPlan.
  std::vector<DeviceCopy> copies_before, copies_after;
  const KernelDef* kernel = nullptr;
  void* state = nullptr;  // from kernel->create
  // Computed at plan time (FoldConstantOp) into outputs that nothing else
  // writes and the caller does not take (not external outputs): runs skip
  // the step, its outputs holding the same values from one run to the next.
  bool folded = false;
  LoomKernelContext ctx;
  std::vector<std::optional<Shape>> inferred_shapes;  // per output
  // From the memory planner (core/memory_plan.h), done after the kernel:
  // blobs allocated at run time whose last reader this op is, released to
  // the net's pool; placed blobs whose arena place is free after this op
  // (only poisoned, when the net asks for it).
  std::vector<Tensor*> release_after;
  std::vector<Tensor*> dead_after;
  // Constant inputs (indices) the kernel let go of in prepare, having
  // packed them (Prepare_ReleaseConstant; Net frees them under
  // static_shape).
  std::vector<size_t> released_constants;
};

class Plan {
 public:
  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan();
  std::vector<PlanStep>& steps() { return steps_; }
  const std::vector<PlanStep>& steps() const { return steps_; }
  // Blobs whose value is fixed while the plan lives: the net's constants and
  // the outputs of ops folded at plan time (FoldConstantOp), less anything an
  // op writes otherwise and less the signature values below. Nets nested in
  // this plan's ops inherit them.
  const std::set<std::string>& constants() const { return constants_; }
  // Values folded from the shapes of this plan's inputs (ONNX Shape, and
  // what folds from it: the Gather / Concat chains exporters build on it).
  // They hold for this plan's input signature only, while a net's plans
  // share their blobs, so the net writes them back when it runs this plan
  // after another (RestoreSignatureValues). Nested nets do not see them as
  // constants: a nested plan lives across the outer net's plan switches.
  struct SignatureValue {
    Tensor* blob = nullptr;  // in the workspace; its folded step is skipped
    Tensor value;            // this plan's value of it (a copy)
  };
  const std::vector<SignatureValue>& signature_values() const { return signature_values_; }
  // Where the intermediates live (core/memory_plan.h).
  MemoryPlan& memory() { return memory_; }
  const MemoryPlan& memory() const { return memory_; }

 private:
  friend absl::StatusOr<std::unique_ptr<Plan>> BuildPlan(const CheckedNet&, const Registry&, Workspace*, int,
                                                         const NetLimits*, std::shared_ptr<PackedConstants>, BufferPool*,
                                                         FpMathMode);
  std::vector<PlanStep> steps_;
  std::set<std::string> constants_;
  std::vector<SignatureValue> signature_values_;
  MemoryPlan memory_;
};

// Writes `plan`'s signature values (Plan::signature_values) back into their
// blobs; a net calls it when it runs `plan` after another of its plans.
// Errors: a blob that cannot be resized (out of memory).
absl::Status RestoreSignatureValues(const Plan& plan);

// Builds a plan for the current dtypes and shapes of `net.inputs` in `ws`.
//
// Devices: each op runs on its DeviceOption's device. Where an op reads a
// tensor that lives on another device (an external input fed on the host to
// a CUDA op, a CUDA op's output read by a CPU op), the plan copies it before
// the op into the blob "<name>@<device>:<id>" on the op's device, once per
// run and device (later readers on that device share the copy; a blob
// written again invalidates it). An op on a non-host device that produces an
// external output writes "<name>@<device>:<id>" and the plan copies it to the
// host blob "<name>" after the op, so callers always find net outputs on the
// host; other intermediates stay on the device that made them.
// Errors name the op and say what is wrong: an input dtype outside its type
// constraint ("T allows float32, float64; found int64"), inconsistent
// bindings of one constraint, inference that fails or leaves an output
// dtype unset, no kernel for the dtypes (listing the kernels that exist), a
// kernel whose creation fails (its message), an inferred output shape whose
// bytes exceed limits->max_tensor_bytes or overflow (RESOURCE_EXHAUSTED /
// INVALID_ARGUMENT, CheckOutputSizes). `limits` (nullptr: the defaults) must
// outlive the plan: kernels check their outputs against it at run time.
// `packs`: the store kernels share packed constants through
// (Prepare_SharedPack), handed on to nested nets; nullptr: each kernel packs
// its own. `pool`: where the kernels' run-time sized outputs and scratch
// come from (the net's BufferPool; nullptr: straight from the device); it
// must outlive the plan. `fpmath_mode`: what the kernels may do with float32
// convolutions and matmuls (core/fpmath_mode.h), handed to their prepare and
// to the nets nested in them.
absl::StatusOr<std::unique_ptr<Plan>> BuildPlan(const CheckedNet& net, const Registry& registry, Workspace* ws,
                                                int num_threads, const NetLimits* limits = nullptr,
                                                std::shared_ptr<PackedConstants> packs = nullptr,
                                                BufferPool* pool = nullptr,
                                                FpMathMode fpmath_mode = FpMathMode::kStrict);

// Bytes of `step`'s output k by its shape inferred at plan time; 0 when the
// shape was not inferred (sized only at run time).
size_t InferredOutputBytes(const PlanStep& step, size_t k);

// A formal parameter typed "any" takes any dtype, unchecked and unbound (a
// heterogeneous variadic, like ONNX's is_homogeneous = false); its schema's
// inference must set such outputs' dtypes.
inline constexpr char kAnyType[] = "any";

// Parses "tensor(int64)" into kInt64; nullopt for a constraint name like "T".
std::optional<DataType> FixedTypeOf(const std::string& type_str);

}  // namespace loom

#endif  // LOOM_CORE_PLAN_H_
