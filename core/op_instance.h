// Op-instance state: the structs behind the plugin ABI's opaque handles
// (LoomKernelInfo, LoomKernelContext, LoomInferenceContext,
// LoomPrepareContext, LoomWorkspace, LoomRegistrar, LoomGradientContext),
// which the checker, planner and executors fill and the ABI's adapters
// (core/plugin_api/, api_table.h) read for plugins.
#ifndef LOOM_CORE_OP_INSTANCE_H_
#define LOOM_CORE_OP_INSTANCE_H_

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "core/api/loom_c_api.h"
#include "core/limits.h"
#include "core/packed_constants.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "core/workspace.h"

// One plugin's registration transaction, as seen by the plugin.
struct LoomRegistrar {
  loom::RegistrationTransaction* txn;
};

// An operator (attributes with defaults applied) for kernel creation and
// inference. Owns decoded tensor and net attributes, so pointers handed to
// kernels stay valid as long as this object.
struct LoomKernelInfo {
  // `schema` (may be null: no schema to name in errors) and `model_args`,
  // how many of op's arguments the model gave: CheckAttributes appends the
  // schema's defaults after them. Both serve the errors of a kernel reading
  // an attribute as another type, which say whose value it is.
  LoomKernelInfo(const loom::OperatorDef& op, std::string label, const loom::OpSchema* schema = nullptr,
                 int model_args = -1);
  loom::OperatorDef op;
  std::string label;  // "op #3 'x' (Conv)"
  const loom::OpSchema* schema = nullptr;
  int model_args = -1;  // -1: all of them
  absl::flat_hash_map<std::string, const loom::Argument*> args;
  mutable absl::node_hash_map<std::string, loom::Tensor> tensors;
  mutable absl::node_hash_map<std::string, std::string> nets;
};

// A workspace handle; owns the workspace only for children made through the ABI.
struct LoomWorkspace {
  loom::Workspace* ws = nullptr;
  std::unique_ptr<loom::Workspace> owned;
};

struct LoomKernelContext {
  std::vector<const loom::Tensor*> inputs;   // nullptr: absent optional input
  std::vector<loom::Tensor*> outputs;        // nullptr: absent output
  std::vector<loom::DataType> output_dtypes; // inferred; kUndefined when unknown
  int num_threads = 1;
  void* stream = nullptr;
  const std::string* label = nullptr;
  loom::Workspace* workspace = nullptr;           // where the op runs
  LoomWorkspace workspace_handle;                 // non-owning handle to it
  const loom::Registry* registry = nullptr;       // for nested nets
  const std::set<std::string>* net_constants = nullptr;  // the plan's constants (Plan::constants), inherited by nested nets
  std::shared_ptr<loom::PackedConstants> packs;   // the net's packed-constant store, inherited by nested nets
  const loom::OperatorDef* op = nullptr;          // the op (for its output names in errors); may be null
  const loom::NetLimits* limits = nullptr;        // the net's limits (nullptr: the defaults), inherited by nested nets
  loom::BufferPool* pool = nullptr;               // the net's run-time pool (nullptr: the device), inherited by nested nets
  bool poison_released_memory = false;            // NetOptions::poison_released_memory: the executor's, and nested nets inherit it
  int fpmath_mode = LOOM_FPMATH_MODE_STRICT;      // NetOptions::fpmath_mode (a LoomFpMathMode), inherited by nested nets
  loom::Device* device = nullptr;                 // the op's device (for Ctx_Scratch)
  // Ctx_Scratch memory of the compute call under way; the executor drops it
  // when compute returns.
  std::vector<std::shared_ptr<loom::Buffer>> scratch;
};

// A hold on a per-op resource (ABI 11's OpResource_*): the resource lives
// while some hold does.
struct LoomOpResource {
  std::shared_ptr<void> resource;
};

struct LoomInferenceContext {
  const LoomKernelInfo* info = nullptr;
  std::vector<loom::DataType> input_dtypes;
  std::vector<const loom::Shape*> input_shapes;     // nullptr: unknown
  std::vector<const loom::Tensor*> input_constants; // nullptr: not constant
  std::vector<loom::DataType> output_dtypes;
  std::vector<std::optional<loom::Shape>> output_shapes;
};

// One op's plan-time facts for its kernel's prepare (ABI 2): what inference
// saw and produced, the threads compute will get and the op's device.
struct LoomPrepareContext {
  const LoomInferenceContext* inference = nullptr;
  loom::PackedConstants* packs = nullptr;  // the net tree's store (Prepare_SharedPack); null: no sharing
  int num_threads = 1;
  int fpmath_mode = LOOM_FPMATH_MODE_STRICT;  // the net's (Prepare_FpMathMode)
  const std::string* device = nullptr;  // "CPU", "CUDA"
  // Constant inputs the kernel let go of (Prepare_ReleaseConstant).
  std::vector<size_t>* released_constants = nullptr;
  // Constant inputs whose value holds for this plan's input signature only
  // (Plan::signature_values): another plan of the net writes another value
  // at the same address, so their packs are the kernel's alone and they are
  // never released.
  std::vector<size_t> signature_inputs;
};

// A kernel's hold on a packed constant (Prepare_SharedPack).
struct LoomSharedPack {
  std::shared_ptr<loom::PackedConstant> pack;
};

// One op's gradient being made (core/autodiff/gradient.h): what the maker
// reads and the ops it appends.
struct LoomGradientContext {
  const LoomKernelInfo* info = nullptr;
  std::vector<std::string> output_grads;  // GO(i); "" when none flows
  std::vector<std::string> input_grads;   // GI(i); "" when not needed
  std::vector<bool> no_gradient;          // Grad_NoGradient(i) was called
  std::string temp_prefix;
  std::vector<loom::OperatorDef> ops;
  // Since 6 (Grad_NetBackward): the backward builder for nested nets, set by
  // core/autodiff (the registry of the net being differentiated), and its
  // last result, which the maker reads until it returns.
  std::function<absl::Status(const loom::NetDef& net, const std::vector<std::string>& outputs,
                             const std::vector<std::string>& output_grads, const std::vector<std::string>& wrt,
                             loom::NetDef* backward, std::vector<std::string>* wrt_grads)>
      net_backward;
  std::string backward_bytes;
  std::vector<std::string> wrt_grads;
  std::vector<const char*> wrt_grad_ptrs;
};

#endif  // LOOM_CORE_OP_INSTANCE_H_
