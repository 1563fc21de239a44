#include "core/external_data.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/limits.h"
#include "core/proto_io.h"

namespace loom {
namespace {

// An open data file, closed when it goes.
struct DataFile {
  int fd = -1;
  int64_t size = 0;
  DataFile() = default;
  DataFile(const DataFile&) = delete;
  DataFile& operator=(const DataFile&) = delete;
  ~DataFile() {
    if (fd >= 0) close(fd);
  }
};

absl::Status Refuse(const std::string& label, const std::string& location, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(label, ": external data location '", location, "' ", why));
}

// Opens `path`, an absolute path with no symlinks in it (realpath made it):
// with openat2's RESOLVE_NO_SYMLINKS, so a folder swapped for a symlink
// since it was resolved cannot lead the open elsewhere; where the kernel
// has no openat2 (before Linux 5.6), O_NOFOLLOW guards the last part only.
int OpenResolved(const std::string& path) {
  constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  struct open_how how;
  std::memset(&how, 0, sizeof how);
  how.flags = kFlags;
  how.resolve = RESOLVE_NO_SYMLINKS;
  const long fd = syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how);
  if (fd >= 0 || errno != ENOSYS) return static_cast<int>(fd);
  return open(path.c_str(), kFlags);
}

// Opens `path` (absolute, already resolved) and checks its kind and links.
absl::Status OpenDataFile(const std::string& label, const std::string& path, const std::string& location,
                          DataFile* file) {
  file->fd = OpenResolved(path);
  if (file->fd < 0) return absl::NotFoundError(absl::StrCat(label, ": opening '", path, "': ", std::strerror(errno)));
  struct stat st;
  if (fstat(file->fd, &st) != 0) return Refuse(label, location, absl::StrCat("cannot be read: ", std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return Refuse(label, location, "is not a regular file (a device, FIFO or folder)");
  if (st.st_nlink > 1) {
    return Refuse(label, location, absl::StrCat("has ", st.st_nlink, " hard links; a file of the model's own has one"));
  }
  file->size = st.st_size;
  return absl::OkStatus();
}

absl::Status CheckRange(const std::string& label, const std::string& location, int64_t size, int64_t offset,
                        int64_t bytes) {
  if (offset < 0 || offset > size || bytes > size - offset) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": external file '", location, "' has ", size,
                                                   " bytes; the tensor needs ", bytes, " at offset ", offset));
  }
  return absl::OkStatus();
}

// A label for a tensor of a NetDef.
std::string Label(const TensorProto& t) { return absl::StrCat("tensor '", t.name(), "'"); }

// Calls `f` on every TensorProto of `net` (initializers, tensor arguments),
// nested nets included; stops at the first error.
template <typename F>
absl::Status ForEachTensor(NetDef* net, const F& f) {
  for (TensorProto& t : *net->mutable_initializer()) {
    if (absl::Status s = f(&t); !s.ok()) return s;
  }
  auto args = [&](google::protobuf::RepeatedPtrField<Argument>* list) -> absl::Status {
    for (Argument& a : *list) {
      if (a.has_t()) {
        if (absl::Status s = f(a.mutable_t()); !s.ok()) return s;
      }
      if (a.has_n()) {
        if (absl::Status s = ForEachTensor(a.mutable_n(), f); !s.ok()) return s;
      }
      for (NetDef& n : *a.mutable_nets()) {
        if (absl::Status s = ForEachTensor(&n, f); !s.ok()) return s;
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status s = args(net->mutable_arg()); !s.ok()) return s;
  for (OperatorDef& op : *net->mutable_op()) {
    if (absl::Status s = args(op.mutable_arg()); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ResolveDataLocation(const std::string& label, const std::string& folder,
                                                const std::string& location) {
  if (folder.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        label, ": its data is in the external file '", location, "', and a model given as bytes has no folder; load "
        "the model from its file, or name the folder of its data (SessionOptions::external_data_dir, Python's "
        "external_data_dir)"));
  }
  if (location.empty()) return Refuse(label, location, "is empty");
  if (location[0] == '/') return Refuse(label, location, "is an absolute path; it must be relative to the model's folder");
  int depth = 0;
  for (absl::string_view part : absl::StrSplit(location, '/', absl::SkipEmpty())) {
    if (part == "..") {
      if (--depth < 0) return Refuse(label, location, "leaves the model's folder (..)");
    } else if (part != ".") {
      ++depth;
    }
  }
  char base[PATH_MAX], full[PATH_MAX];
  if (realpath(folder.c_str(), base) == nullptr) {
    return absl::NotFoundError(absl::StrCat(label, ": the model's folder '", folder, "': ", std::strerror(errno)));
  }
  const std::string path = absl::StrCat(folder, "/", location);
  if (realpath(path.c_str(), full) == nullptr) {
    return absl::NotFoundError(absl::StrCat(label, ": external data file '", path, "': ", std::strerror(errno)));
  }
  const std::string root = std::string(base) == "/" ? "/" : absl::StrCat(base, "/");
  if (std::string(full).rfind(root, 0) != 0) {
    return Refuse(label, location, absl::StrCat("resolves to '", full, "', outside the model's folder '", base, "' (a symlink)"));
  }
  return std::string(full);
}

absl::StatusOr<int64_t> CheckDataFile(const std::string& label, const std::string& path, const std::string& location,
                                      int64_t offset, int64_t bytes) {
  DataFile file;
  if (absl::Status s = OpenDataFile(label, path, location, &file); !s.ok()) return s;
  if (absl::Status s = CheckRange(label, location, file.size, offset, bytes); !s.ok()) return s;
  return file.size;
}

absl::StatusOr<Tensor> LoadExternalTensor(const std::string& label, DataType dtype, Shape dims,
                                          const std::string& path, int64_t offset) {
  absl::StatusOr<int64_t> bytes = CheckedNumBytes(dtype, dims);
  if (!bytes.ok()) return absl::InvalidArgumentError(absl::StrCat(label, ": dims: ", bytes.status().message()));
  if (path.empty() || path[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat(
        label, ": external data location '", path, "' was not resolved against a folder (read the NetDef with "
        "ReadNetDef, or call ResolveExternalData)"));
  }
  DataFile file;
  if (absl::Status s = OpenDataFile(label, path, path, &file); !s.ok()) return s;
  if (absl::Status s = CheckRange(label, path, file.size, offset, *bytes); !s.ok()) return s;
  if (*bytes >= kMapExternalDataMinBytes && offset % static_cast<int64_t>(DataTypeSize(dtype)) == 0) {
    // The mapping starts at the page holding `offset`. Private and writable:
    // an in-place update (training) copies the page and never reaches the file.
    const int64_t page = sysconf(_SC_PAGESIZE);
    const int64_t start = offset - offset % page;
    const size_t length = static_cast<size_t>(offset - start + *bytes);
    void* base = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, file.fd, start);
    if (base != MAP_FAILED) {
      std::shared_ptr<void> owner(base, [length](void* p) { munmap(p, length); });
      return Tensor::Borrow(dtype, std::move(dims), static_cast<char*>(base) + (offset - start), std::move(owner));
    }
    // Out of address space or mappings: read instead.
  }
  absl::StatusOr<Tensor> t = Tensor::Create(dtype, std::move(dims));
  if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat(label, ": ", t.status().message()));
  char* data = static_cast<char*>(t->raw_data());
  for (int64_t done = 0; done < *bytes;) {
    const ssize_t n = pread(file.fd, data + done, static_cast<size_t>(*bytes - done), offset + done);
    if (n <= 0) {
      return absl::DataLossError(absl::StrCat(label, ": reading '", path, "': ",
                                              n < 0 ? std::strerror(errno) : "unexpected end of file"));
    }
    done += n;
  }
  return t;
}

absl::Status ResolveExternalData(NetDef* net, const std::string& folder) {
  return ForEachTensor(net, [&](TensorProto* t) -> absl::Status {
    if (!t->has_external_data()) return absl::OkStatus();
    const std::string label = Label(*t);
    ExternalData* e = t->mutable_external_data();
    absl::StatusOr<std::string> path = ResolveDataLocation(label, folder, e->location());
    if (!path.ok()) return path.status();
    e->set_location(*path);
    return absl::OkStatus();
  });
}

absl::Status InlineExternalData(NetDef* net) {
  return ForEachTensor(net, [](TensorProto* p) -> absl::Status {
    if (!p->has_external_data()) return absl::OkStatus();
    absl::StatusOr<Tensor> t = TensorFromProto(*p);
    if (!t.ok()) return t.status();
    *p = TensorToProto(*t, p->name());
    return absl::OkStatus();
  });
}

absl::Status WriteNetDefWithExternalData(NetDef net, const std::string& path, const std::string& data_file,
                                         int64_t min_bytes) {
  if (data_file.empty() || data_file.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("external data file '", data_file, "': give a file name, written beside '", path, "'"));
  }
  const std::string data_path = FolderOf(path) + "/" + data_file;
  // Truncating a file the net's tensors come from would pull the bytes from
  // under their mappings.
  char existing[PATH_MAX];
  if (realpath(data_path.c_str(), existing) != nullptr) {
    absl::Status source = ForEachTensor(&net, [&](TensorProto* p) -> absl::Status {
      if (p->has_external_data() && p->external_data().location() == existing) {
        return absl::InvalidArgumentError(absl::StrCat("external data file '", data_path, "' holds the data of ",
                                                       Label(*p), " already; write to another file"));
      }
      return absl::OkStatus();
    });
    if (!source.ok()) return source;
  }
  std::ofstream out(data_path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write '", data_path, "'"));
  int64_t offset = 0;
  absl::Status moved = ForEachTensor(&net, [&](TensorProto* p) -> absl::Status {
    if (p->data_type() == static_cast<int32_t>(DataType::kString) || !IsSupportedDataType(p->data_type())) {
      return absl::OkStatus();
    }
    absl::StatusOr<int64_t> bytes =
        CheckedNumBytes(static_cast<DataType>(p->data_type()), Shape(p->dims().begin(), p->dims().end()));
    if (!bytes.ok() || *bytes < min_bytes) return absl::OkStatus();
    absl::StatusOr<Tensor> t = TensorFromProto(*p);  // maps an external one rather than reading it
    if (!t.ok()) return t.status();
    const int64_t aligned = (offset + 63) / 64 * 64;
    const std::string pad(static_cast<size_t>(aligned - offset), '\0');
    out.write(pad.data(), static_cast<std::streamsize>(pad.size()));
    out.write(static_cast<const char*>(t->raw_data()), static_cast<std::streamsize>(t->nbytes()));
    if (!out) return absl::DataLossError(absl::StrCat("short write to '", data_path, "'"));
    TensorProto meta;
    meta.set_name(p->name());
    meta.set_data_type(p->data_type());
    *meta.mutable_dims() = p->dims();
    ExternalData* e = meta.mutable_external_data();
    e->set_location(data_file);
    e->set_offset(aligned);
    e->set_length(*bytes);
    p->Swap(&meta);
    offset = aligned + *bytes;
    return absl::OkStatus();
  });
  if (!moved.ok()) return moved;
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("short write to '", data_path, "'"));
  return WriteNetDef(net, path);
}

}  // namespace loom
