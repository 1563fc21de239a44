#include "frontend/onnx/external_data.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/dtype.h"
#include "core/limits.h"

namespace loom {
namespace onnx_import {
namespace {

// An open file of the folder, kept for every tensor that reads it.
struct OpenFile {
  int fd = -1;
  int64_t size = 0;
  ~OpenFile() {
    if (fd >= 0) close(fd);
  }
};

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
    if (folder_.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": its data is in the external file '", location, "', and a model given as bytes has no folder; load "
          "the model from its file, or name the folder of its data (SessionOptions::external_data_dir, Python's "
          "external_data_dir)"));
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
    absl::StatusOr<const OpenFile*> file = Open(label, location);
    if (!file.ok()) return file.status();
    if (offset > (*file)->size || *bytes > (*file)->size - offset) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": external file '", location, "' has ", (*file)->size,
                                                     " bytes; the tensor needs ", *bytes, " at offset ", offset));
    }
    std::string data(static_cast<size_t>(*bytes), '\0');
    for (int64_t done = 0; done < *bytes;) {
      const ssize_t n = pread((*file)->fd, data.data() + done, static_cast<size_t>(*bytes - done), offset + done);
      if (n <= 0) {
        return absl::DataLossError(absl::StrCat(label, ": reading '", location, "': ",
                                                n < 0 ? std::strerror(errno) : "unexpected end of file"));
      }
      done += n;
    }
    t->set_raw_data(std::move(data));
    t->clear_external_data();
    t->set_data_location(onnx::TensorProto::DEFAULT);
    return absl::OkStatus();
  }

  // The file at `location`, checked to stay in the folder.
  absl::StatusOr<const OpenFile*> Open(const std::string& label, const std::string& location) {
    auto it = files_.find(location);
    if (it != files_.end()) return it->second.get();
    auto refuse = [&](const std::string& why) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": external data location '", location, "' ", why));
    };
    if (location.empty()) return refuse("is empty");
    if (location[0] == '/') return refuse("is an absolute path; it must be relative to the model's folder");
    int depth = 0;
    for (absl::string_view part : absl::StrSplit(location, '/', absl::SkipEmpty())) {
      if (part == "..") {
        if (--depth < 0) return refuse("leaves the model's folder (..)");
      } else if (part != ".") {
        ++depth;
      }
    }
    char base[PATH_MAX], full[PATH_MAX];
    if (realpath(folder_.c_str(), base) == nullptr) {
      return absl::NotFoundError(absl::StrCat(label, ": the model's folder '", folder_, "': ", std::strerror(errno)));
    }
    const std::string path = absl::StrCat(folder_, "/", location);
    if (realpath(path.c_str(), full) == nullptr) {
      return absl::NotFoundError(absl::StrCat(label, ": external data file '", path, "': ", std::strerror(errno)));
    }
    const std::string root = absl::StrCat(base, "/");
    if (std::string(full).rfind(root, 0) != 0) {
      return refuse(absl::StrCat("resolves to '", full, "', outside the model's folder '", base, "' (a symlink)"));
    }
    auto file = std::make_unique<OpenFile>();
    file->fd = open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (file->fd < 0) return absl::NotFoundError(absl::StrCat(label, ": opening '", full, "': ", std::strerror(errno)));
    struct stat st;
    if (fstat(file->fd, &st) != 0) return refuse(absl::StrCat("cannot be read: ", std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) return refuse("is not a regular file (a device, FIFO or folder)");
    if (st.st_nlink > 1) {
      return refuse(absl::StrCat("has ", st.st_nlink, " hard links; a file of the model's own has one"));
    }
    file->size = st.st_size;
    return (files_[location] = std::move(file)).get();
  }

  std::string folder_;
  std::map<std::string, std::unique_ptr<OpenFile>> files_;
};

}  // namespace

absl::Status LoadExternalData(onnx::ModelProto* model, const std::string& folder) {
  return Loader(folder).Graph(model->mutable_graph());
}

}  // namespace onnx_import
}  // namespace loom
