#include "tools/run/inputs.h"

#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "core/proto_io.h"
#include "frontend/onnx/onnx_importer.h"

namespace loom {
namespace tools {

absl::StatusOr<Tensor> ReadInputTensor(const std::string& name, const std::string& path, DataType type) {
  if (IsValueType(type)) {
    absl::StatusOr<Tensor> v = onnx_import::ReadOnnxValue(path, type);
    if (v.ok()) return v;
    return absl::Status(v.status().code(),
                        absl::StrCat("input '", name, "' (", DataTypeName(type), "): ", v.status().message()));
  }
  auto proto = ReadTensorProto(path);
  absl::StatusOr<Tensor> t = proto.ok() ? TensorFromProto(*proto) : absl::StatusOr<Tensor>(proto.status());
  if (t.ok()) return t;
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto onnx_proto = onnx_import::ImportOnnxTensor(bytes);
  auto onnx_tensor = onnx_proto.ok() ? TensorFromProto(*onnx_proto) : absl::StatusOr<Tensor>(onnx_proto.status());
  if (onnx_tensor.ok()) return onnx_tensor;
  return absl::InvalidArgumentError(absl::StrCat("input '", name, "': ", path, " is neither a Loom TensorProto (",
                                                 t.status().ToString(), ") nor an ONNX TensorProto (",
                                                 onnx_tensor.status().ToString(), ")"));
}

absl::StatusOr<Tensor> RandomInput(const NetDef& net, const std::string& name, uint32_t seed,
                                   const std::vector<std::pair<std::string, Shape>>& input_shapes) {
  Shape shape;
  bool have = false;
  for (const auto& [n, dims] : input_shapes) {
    if (n == name) {
      shape = dims;
      have = true;
    }
  }
  for (const Argument& a : net.arg()) {
    if (!have && a.name() == "input_shape." + name) {
      shape.assign(a.ints().begin(), a.ints().end());
      have = true;
    }
  }
  DataType dtype = onnx_import::DeclaredInputType(net, name);
  if (dtype == DataType::kUndefined) dtype = DataType::kFloat32;
  if (!have) {
    return absl::InvalidArgumentError(absl::StrCat("input '", name, "': no shape for --random; pass --input_shape ", name,
                                                   "=d0xd1x... or add a NetDef arg 'input_shape.", name, "'"));
  }
  auto t = Tensor::Create(dtype, shape);
  if (!t.ok()) return t.status();
  // A fixed LCG, so that a seed gives the same input on every machine.
  uint32_t state = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    state = state * 1664525u + 1013904223u;
    double u = (state >> 8) * (1.0 / 16777216.0) * 2.0 - 1.0;  // [-1, 1)
    switch (dtype) {
      case DataType::kFloat32: t->data<float>()[i] = static_cast<float>(u); break;
      case DataType::kFloat64: t->data<double>()[i] = u; break;
      case DataType::kInt64: t->data<int64_t>()[i] = static_cast<int64_t>((u + 1) * 4); break;
      case DataType::kInt32: t->data<int32_t>()[i] = static_cast<int32_t>((u + 1) * 4); break;
      case DataType::kBool: t->data<bool>()[i] = u > 0; break;
      default:
        return absl::InvalidArgumentError(absl::StrCat("input '", name, "': --random does not generate ", DataTypeName(dtype)));
    }
  }
  return t;
}

}  // namespace tools
}  // namespace loom
