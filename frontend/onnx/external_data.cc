#include "frontend/onnx/external_data.h"

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/external_data.h"
#include "core/limits.h"

namespace loom {
namespace onnx_import {
namespace {

class Loader {
 public:
  explicit Loader(std::string folder) : folder_(std::move(folder)) {}

  absl::Status Graph(onnx::GraphProto* g) {
    for (onnx::TensorProto& t : *g->mutable_initializer()) {
      if (absl::Status s = Tensor(&t); !s.ok()) return s;
    }
    for (onnx::NodeProto& node : *g->mutable_node()) {
      for (onnx::AttributeProto& a : *node.mutable_attribute()) {
        if (a.has_t()) {
          if (absl::Status s = Tensor(a.mutable_t()); !s.ok()) return s;
        }
        for (onnx::TensorProto& t : *a.mutable_tensors()) {
          if (absl::Status s = Tensor(&t); !s.ok()) return s;
        }
        if (a.has_g()) {
          if (absl::Status s = Graph(a.mutable_g()); !s.ok()) return s;
        }
        for (onnx::GraphProto& sub : *a.mutable_graphs()) {
          if (absl::Status s = Graph(&sub); !s.ok()) return s;
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Tensor(onnx::TensorProto* t) {
    if (t->data_location() != onnx::TensorProto::EXTERNAL) return absl::OkStatus();
    const std::string label = absl::StrCat("tensor '", t->name(), "'");
    std::string location;
    int64_t offset = 0, length = -1;
    for (const onnx::StringStringEntryProto& e : t->external_data()) {
      if (e.key() == "location") location = e.value();
      if ((e.key() == "offset" && !absl::SimpleAtoi(e.value(), &offset)) ||
          (e.key() == "length" && !absl::SimpleAtoi(e.value(), &length)) || offset < 0) {
        return absl::InvalidArgumentError(absl::StrCat(label, ": external data ", e.key(), " '", e.value(),
                                                       "' is not a non-negative integer"));
      }
    }
    // The tensor's byte size, from its dtype and dims.
    if (!IsSupportedDataType(t->data_type()) || t->data_type() == onnx::TensorProto::STRING) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": external data of data_type ", t->data_type(),
                                                     " is not supported"));
    }
    std::vector<int64_t> dims(t->dims().begin(), t->dims().end());
    absl::StatusOr<int64_t> bytes = CheckedNumBytes(static_cast<DataType>(t->data_type()), dims);
    if (!bytes.ok()) return absl::InvalidArgumentError(absl::StrCat(label, ": dims: ", bytes.status().message()));
    if (length >= 0 && length != *bytes) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": external data length ", length, " bytes; its dtype and ",
                                                     "dims need ", *bytes));
    }
    absl::StatusOr<std::string> path = ResolveDataLocation(label, folder_, location);
    if (!path.ok()) return path.status();
    absl::StatusOr<int64_t> size = CheckDataFile(label, *path, location, offset, *bytes);
    if (!size.ok()) return size.status();
    // Checked: the import carries the resolved place on (ConvertTensor), and
    // the tensor is mapped or read when the net is made (TensorFromProto).
    t->clear_external_data();
    auto entry = [&](const char* key, std::string value) {
      onnx::StringStringEntryProto* e = t->add_external_data();
      e->set_key(key);
      e->set_value(std::move(value));
    };
    entry("location", *path);
    entry("offset", absl::StrCat(offset));
    entry("length", absl::StrCat(*bytes));
    return absl::OkStatus();
  }

  std::string folder_;
};

}  // namespace

absl::Status LoadExternalData(onnx::ModelProto* model, const std::string& folder) {
  return Loader(folder).Graph(model->mutable_graph());
}

}  // namespace onnx_import
}  // namespace loom
