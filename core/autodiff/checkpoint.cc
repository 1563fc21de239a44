#include "core/autodiff/checkpoint.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "core/proto_io.h"

namespace loom {
namespace fs = std::filesystem;

namespace {

absl::Status FsError(const std::string& what, const fs::path& p, const std::error_code& ec) {
  return absl::InternalError(absl::StrCat("checkpoint: ", what, " '", p.string(), "': ", ec.message()));
}

}  // namespace

absl::Status SaveCheckpoint(const Workspace& ws, const std::vector<std::string>& names, const std::string& dir) {
  const fs::path target(dir);
  const fs::path tmp = absl::StrCat(dir, ".tmp.", getpid());
  const fs::path old = absl::StrCat(dir, ".old");
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (!fs::create_directories(tmp, ec) && ec) return FsError("cannot create", tmp, ec);
  for (const std::string& name : names) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
      return absl::InvalidArgumentError(absl::StrCat("checkpoint: blob name '", name, "' cannot be a file name"));
    }
    const Tensor* t = ws.GetBlob(name);
    if (t == nullptr) return absl::InvalidArgumentError(absl::StrCat("checkpoint: no blob '", name, "' in the workspace"));
    absl::Status s = WriteTensorProto(TensorToProto(*t, name), (tmp / (name + ".pb")).string());
    if (!s.ok()) return s;
  }
  // Swap: the old checkpoint aside, the new one in, the old one gone.
  fs::remove_all(old, ec);
  if (fs::exists(target)) {
    fs::rename(target, old, ec);
    if (ec) return FsError("cannot move aside", target, ec);
  }
  fs::rename(tmp, target, ec);
  if (ec) return FsError("cannot rename into place", tmp, ec);
  fs::remove_all(old, ec);
  return absl::OkStatus();
}

absl::Status LoadCheckpoint(const std::string& dir, Workspace* ws, std::vector<std::string>* names) {
  fs::path from(dir);
  if (!fs::is_directory(from)) from = absl::StrCat(dir, ".old");
  if (!fs::is_directory(from)) {
    return absl::NotFoundError(absl::StrCat("checkpoint: no folder '", dir, "' (nor '", dir, ".old')"));
  }
  std::vector<fs::path> files;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(from, ec)) {
    if (e.path().extension() == ".pb") files.push_back(e.path());
  }
  if (ec) return FsError("cannot list", from, ec);
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    absl::StatusOr<TensorProto> proto = ReadTensorProto(f.string());
    if (!proto.ok()) return proto.status();
    absl::StatusOr<Tensor> t = TensorFromProto(*proto);
    if (!t.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("checkpoint: '", f.string(), "': ", t.status().message()));
    }
    const std::string name = f.stem().string();
    ws->SetBlob(name, *std::move(t));
    if (names != nullptr) names->push_back(name);
  }
  return absl::OkStatus();
}

}  // namespace loom
