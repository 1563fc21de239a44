// loom::Session: what a program that embeds Loom for inference uses (ONNX
// Runtime's Ort::Session): made once from an ONNX model (file or bytes) or
// a NetDef, then Run with named input tensors, from any number of threads.
//
//   absl::StatusOr<std::unique_ptr<loom::Session>> s = loom::Session::FromOnnxFile("model.onnx");
//   absl::StatusOr<std::vector<loom::Tensor>> y = (*s)->Run({{"x", x}});
//
// The session loads the standard ops, the default plugins and
// SessionOptions::plugins, imports the model, and keeps its weights once, in
// a workspace every run reads. Each concurrent Run takes a runner (a
// workspace over the weights and a net planned in it) from a pool, making a
// new one only when all are busy, so N threads running at once use N
// runners and one copy of the weights. (Kernels that pack weights at plan
// time, oneDNN convolutions, keep their packed form per runner.)
#ifndef LOOM_SESSION_SESSION_H_
#define LOOM_SESSION_SESSION_H_

#include <functional>
#include <set>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/net.h"
#include "core/proto/loom.pb.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "core/workspace.h"

namespace loom {

struct SessionOptions {
  int num_threads = 0;               // threads per kernel; 0: all cores
  // Shared objects loaded after the default plugins (those in
  // LOOM_PLUGIN_PATH and loom_plugins/ next to the running binary).
  std::vector<std::string> plugins;
  // Where the ops run: "" as the model says (the CPU for ONNX), or "CPU",
  // "CUDA", "CUDA:<id>" (loom_run --device): ops with no kernel for that
  // device stay on the CPU, the planner copies tensors across, and large
  // float weights are copied to the device once. Inputs and outputs of Run
  // are host tensors either way. For CUDA the CUDA plugin is loaded
  // (LOOM_PLUGIN_PATH or loom_plugins/ next to the binary) unless one is.
  // Errors: INVALID_ARGUMENT for a malformed name, NOT_FOUND listing the
  // registered device types.
  std::string device;
  // ONNX models: after the import, 1 (default) runs transforms::Optimize
  // (transforms/optimize.h; ONNX Runtime's graph optimizations): folds
  // BatchNormalization and scalar affines into Conv, fuses HardSwish and
  // Conv + activation and, on the CPU only, keeps runs of convolutions in
  // oneDNN's blocked layout; 0 runs the graph's ops as written.
  // INVALID_ARGUMENT for another value.
  int optimization_level = 1;
  // Memory: true plans it (an arena per runner, run-time sizes from a
  // pool); false allocates every output as it is made (less held between
  // runs, more allocations).
  bool plan_memory = true;
  // Limits against hostile models (core/limits.h); <= 0: none.
  int64_t max_tensor_bytes = kDefaultMaxTensorBytes;
  // kBf16: float32 convolutions and matmuls take bfloat16 inputs where the
  // CPU has AVX-512 BF16 or AMX (NetOptions::fpmath_mode,
  // core/fpmath_mode.h); about 3 significant decimal digits on X and W,
  // float32 accumulation. loom_quantize --bf16 prints what it does to a
  // model's outputs.
  FpMathMode fpmath_mode = FpMathMode::kStrict;
  // FromOnnxBytes: the folder the model's external data is read from (the
  // bytes have none of their own). "": a model with external data is
  // refused. FromOnnxFile reads it from the file's folder.
  std::string external_data_dir;
};

// An input or output of the model.
struct TensorInfo {
  std::string name;
  // The type code (core/dtype.h: a tensor dtype, seq(...), optional(...));
  // kUndefined: not declared (a NetDef without the importer's input_dtype /
  // output_dtype arguments).
  DataType dtype = DataType::kUndefined;
  // -1 where the model leaves a dimension open; `dim_names` then holds its
  // symbolic name (ONNX dim_param, "batch") or "".
  std::vector<int64_t> dims;
  std::vector<std::string> dim_names;
  bool shape_known = false;  // the model declares a shape (dims are meaningful)
};

class Session {
 public:
  // From an ONNX model (its graph inputs and outputs give names, dtypes
  // and shapes, symbolic dims included). Tensors with external data are
  // read from the file's folder (FromOnnxFile) or from
  // options.external_data_dir (FromOnnxBytes; refused without one),
  // confined to it (frontend/onnx/external_data.h). Errors: the file cannot
  // be read or the model imported (INVALID_ARGUMENT naming the node, or the
  // tensor and its external location), a plugin fails to load, an op has
  // no kernel (NOT_FOUND naming it).
  static absl::StatusOr<std::unique_ptr<Session>> FromOnnxFile(const std::string& path, const SessionOptions& options = {});
  static absl::StatusOr<std::unique_ptr<Session>> FromOnnxBytes(const std::string& model, const SessionOptions& options = {});
  // From a NetDef: inputs are its external inputs that are not
  // initializers (dtype and shape undeclared), outputs its external outputs.
  static absl::StatusOr<std::unique_ptr<Session>> FromNetDef(NetDef net, const SessionOptions& options = {});

  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }

  // Runs the model on `feeds` (every input, by name; host tensors) and
  // returns `fetches` (output names; empty: every output, in outputs()
  // order) as host tensors the caller owns. Thread-safe: any number of
  // threads may Run at once. Errors: an unknown or missing input
  // (INVALID_ARGUMENT naming it and the inputs expected), an input of
  // another type than inputs() declares (naming both), an unknown fetch,
  // the run's own errors (naming the op, the input, the expected and found).
  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                                          const std::vector<std::string>& fetches = {}) const;

  // The same, writing into tensors the caller made: (*outputs)[i] gets
  // fetch i's values and must have its dtype and element count (one copy,
  // from the run's own buffers). INVALID_ARGUMENT naming the output
  // otherwise; the other outputs are then unspecified.
  absl::Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds, const std::vector<std::string>& fetches,
                   std::vector<Tensor>* outputs) const;

  // The same, handing fetch i's tensor to `take(i, tensor)` instead of
  // copying it: the tensor is the run's own, valid only during the call
  // (copy what is kept). A status `take` returns ends the run with it. For
  // callers that put the outputs somewhere of their own (the C API, Python).
  absl::Status RunWith(const std::vector<std::pair<std::string, Tensor>>& feeds, const std::vector<std::string>& fetches,
                       const std::function<absl::Status(size_t, const Tensor&)>& take) const;

  // Runners made so far (the most Run calls that overlapped).
  int runners() const;

  // What this session loaded: the standard ops, the default plugins and
  // SessionOptions::plugins (schemas, kernels, plugin records), read-only,
  // for tools that list them (Python's Session.ops() / .plugins()).
  const Registry& registry() const { return *registry_; }

  // Plugins of LOOM_PLUGIN_PATH or the default folder that did not load and
  // were skipped, one line each naming the file and why (MakeRegistry's
  // warnings, session/registry_setup.h); empty when all loaded.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct Runner;
  Session() = default;
  static absl::StatusOr<std::unique_ptr<Session>> Make(NetDef net, std::vector<TensorInfo> inputs,
                                                       std::vector<TensorInfo> outputs, const SessionOptions& options);
  // An ONNX model's bytes, its external data read from `folder` ("": none).
  static absl::StatusOr<std::unique_ptr<Session>> FromOnnx(const std::string& model, const std::string& folder,
                                                           const SessionOptions& options);
  absl::StatusOr<std::unique_ptr<Runner>> NewRunner() const;

  SessionOptions options_;
  std::unique_ptr<Registry> registry_;
  std::vector<std::string> warnings_;  // plugins skipped (MakeRegistry)
  Workspace weights_;  // the initializers, once; every runner's workspace reads them
  // Packed copies of them (core/packed_constants.h), shared by the runners'
  // kernels as the initializers are.
  std::shared_ptr<PackedConstants> packs_ = std::make_shared<PackedConstants>();
  NetDef net_;         // initializers without their data (held in weights_)
  std::vector<TensorInfo> inputs_, outputs_;
  std::set<std::string> written_inputs_;  // inputs an op writes in place: fed as copies
  mutable absl::Mutex mu_;
  mutable std::vector<std::unique_ptr<Runner>> idle_ ABSL_GUARDED_BY(mu_);
  mutable int runners_ ABSL_GUARDED_BY(mu_) = 0;
};

// Copies a run's output `src` into the caller's host tensor `dst`, which must
// have its dtype and element count (it keeps its own dims): Run's and the C
// API's caller-owned outputs. INVALID_ARGUMENT naming output `name`, the
// expected and the found otherwise.
absl::Status CopyOutputInto(const std::string& name, const Tensor& src, Tensor* dst);

}  // namespace loom

#endif  // LOOM_SESSION_SESSION_H_
