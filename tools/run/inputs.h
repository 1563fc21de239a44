// loom_run's net inputs: tensors read from files, or generated for --random.
#ifndef LOOM_TOOLS_RUN_INPUTS_H_
#define LOOM_TOOLS_RUN_INPUTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/proto/loom.pb.h"
#include "core/tensor.h"

namespace loom {
namespace tools {

// The value in `path` for input `name`, whose declared type is `type`
// (onnx_import::DeclaredInputType; kUndefined when the net declares none):
// for a tensor, a Loom TensorProto or else an ONNX one (an ONNX test's
// input_0.pb); for a sequence or optional type, an ONNX SequenceProto or
// OptionalProto (onnx_import::ImportOnnxValue). Error: INVALID_ARGUMENT
// naming input `name`, the file and why it is none of these.
absl::StatusOr<Tensor> ReadInputTensor(const std::string& name, const std::string& path, DataType type);

// A tensor for external input `name` of `net`, uniform in [-1, 1) (integers
// 0 to 7, bools from the sign), reproducible from `seed`. Its shape is
// the last `input_shapes` entry for `name`, else the NetDef argument
// "input_shape.<name>" (ints); its dtype the declared one
// (onnx_import::DeclaredInputType; float32 where none is declared). Errors:
// INVALID_ARGUMENT when no shape is given or the dtype is not float32/64,
// int32/64 or bool.
absl::StatusOr<Tensor> RandomInput(const NetDef& net, const std::string& name, uint32_t seed,
                                   const std::vector<std::pair<std::string, Shape>>& input_shapes);

}  // namespace tools
}  // namespace loom

#endif  // LOOM_TOOLS_RUN_INPUTS_H_
