// The passes BuildPlan (core/plan.h) runs for each op of a checked net, in
// order. Each is a function of the planner's state and one op, so each can be
// tested on its own (core/plan_passes_test.cc):
//   1. BindTypes      input dtypes against the schema's formal parameters and
//                     type constraints; the op's LoomInferenceContext inputs.
//   2. InferOutputs   output dtypes (fixed type or constraint binding, then
//                     the schema's infer function) and shapes.
//   2b. CheckOutputSizes every output shape inference gave fits the net's
//                     max_tensor_bytes and its byte count does not overflow.
//   3. CreateKernel   kernel selection (device, engine, dtypes, priority) and
//                     kernel creation from the attributes.
//   4. PrepareKernel  the kernel's prepare (ABI 2) with the inferred facts.
//   5. PlaceTensors   the op's input and output tensors in the workspace,
//                     with cross-device copies; records the outputs' dtypes,
//                     shapes and homes for the ops after it.
//   6. FoldConstantOp an op its schema marks foldable (OpSchema::fold), on
//                     the host, whose inputs are all constant (or whose
//                     input shapes are known, for a shape-only fold) runs
//                     once now, and its outputs become
//                     constants for the ops after it (ONNX Runtime's constant
//                     folding; e.g. Unsqueeze of an LSTM's weights in an
//                     exported graph): their kernels can prepack them.
#ifndef LOOM_CORE_PLAN_PASSES_H_
#define LOOM_CORE_PLAN_PASSES_H_

#include <map>
#include <set>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "core/op_instance.h"
#include "core/checked_net.h"
#include "core/plan.h"
#include "core/registry.h"
#include "core/workspace.h"

namespace loom {

// What the planner knows about the net's blobs so far.
struct PlannerState {
  const Registry* registry = nullptr;
  Workspace* ws = nullptr;
  int num_threads = 1;
  const NetLimits* limits = nullptr;  // never null after InitPlannerState
  BufferPool* pool = nullptr;         // the net's run-time pool (BuildPlan's), for the kernel contexts
  FpMathMode fpmath_mode = FpMathMode::kStrict;  // BuildPlan's, for the kernels and their nested nets
  absl::flat_hash_map<std::string, DataType> dtypes;
  absl::node_hash_map<std::string, Shape> shapes;  // node map: contexts point into it
  std::set<std::string> constants;                 // blobs whose value is fixed now (CheckedNet::constants, folded outputs)
  // The constants above that hold for this input signature only: folded
  // from an input's shape (Plan::signature_values).
  std::set<std::string> signature_constants;
  std::set<std::string> external_outputs;
  // Where each blob's current value lives, and its copies on other devices.
  absl::flat_hash_map<std::string, Device*> home;
  absl::flat_hash_map<std::string, std::map<Device*, Tensor*>> replicas;
};

// The state for `net` with its inputs as they are in `ws`. INVALID_ARGUMENT
// when an input is not set in `ws`.
absl::Status InitPlannerState(const CheckedNet& net, const Registry& registry, Workspace* ws, int num_threads,
                              PlannerState* state);

// Pass 1: fills ictx's inputs and `bindings` (type_str -> dtype).
// INVALID_ARGUMENT names the op, the input and the constraint when a dtype
// is outside its constraint or binds a constraint inconsistently.
absl::Status BindTypes(const CheckedOp& op, const PlannerState& state, LoomInferenceContext* ictx,
                       std::map<std::string, DataType>* bindings);

// Pass 2: fills ictx's outputs and binds output-only constraints. An error
// from the schema's inference, or an output whose dtype stays unknown
// (INTERNAL), names the op.
absl::Status InferOutputs(const CheckedOp& op, LoomInferenceContext* ictx, std::map<std::string, DataType>* bindings);

// Pass 2b: every output with an inferred shape fits limits.max_tensor_bytes
// (core/limits.h, CheckTensorSize): RESOURCE_EXHAUSTED naming the op, the
// output, its shape, its bytes and the limit; INVALID_ARGUMENT for a negative
// dim or a count that overflows int64. Before any kernel allocates.
absl::Status CheckOutputSizes(const CheckedOp& op, const LoomInferenceContext& ictx, const NetLimits& limits);

// Pass 3: selects the kernel and creates its state into `step`.
absl::Status CreateKernel(const CheckedOp& op, const Registry& registry,
                          const std::map<std::string, DataType>& bindings, PlanStep* step);

// Pass 4: runs the kernel's prepare, if it has one. Its error names the op.
// `packs`: the net's packed-constant store (Prepare_SharedPack); nullptr:
// a kernel's shared pack is its own. Inputs named in `signature_constants`
// (PlannerState::signature_constants) are packed for the kernel alone and
// never released (LoomPrepareContext::signature_inputs). The kernel sees
// `fpmath_mode` through Prepare_FpMathMode.
absl::Status PrepareKernel(const CheckedOp& op, const LoomInferenceContext& ictx, int num_threads, PackedConstants* packs,
                           PlanStep* step, const std::set<std::string>* signature_constants = nullptr,
                           FpMathMode fpmath_mode = FpMathMode::kStrict);

// Pass 5: resolves the op's tensors and device copies into `step` (see
// BuildPlan for the copy rules) and records its outputs in `state`.
void PlaceTensors(const CheckedOp& op, LoomInferenceContext* ictx, PlannerState* state, PlanStep* step);

// Pass 6: runs the op's placed kernel now, on a host device, when its
// schema says it may (OpSchema::fold, ABI 11's LoomFoldKind; the planner
// knows no op by name) and the plan has what it needs:
// LOOM_FOLD_CONSTANT_INPUTS (ONNX's data-movement ops, Cast, Constant)
// when `inputs_constant` (every input it reads was a constant before
// PlaceTensors); LOOM_FOLD_INPUT_SHAPES (ONNX Shape) when every input's
// shape is known, constant or not, the kernel then reading inputs that have
// dims and no data. Its outputs become constants in `state`. BuildPlan then
// marks the step folded (runs skip it) unless an output is an external
// output (a caller may take or change it) or another op writes it too; such
// a step stays and writes the same values on every run. A kernel error
// names the op. A plan is built for one input signature (core/net.h), so
// a shape it knows holds for every run of it; the Gather / Concat / Reshape
// chains exporters build on Shape then fold or get static shapes. Values
// from a non-constant input's shape, and what folds from them, are
// signature constants (PlannerState::signature_constants), kept per plan.
absl::Status FoldConstantOp(const CheckedOp& op, bool inputs_constant, PlannerState* state, PlanStep* step);

// True when every input `op` reads is in state.constants (vacuously for an
// op without inputs, such as Constant).
bool InputsConstant(const CheckedOp& op, const PlannerState& state);

}  // namespace loom

#endif  // LOOM_CORE_PLAN_PASSES_H_
