#include "core/plugin_loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/plugin_api/api_table.h"
#include "core/status_bridge.h"

namespace loom {
namespace {

bool IsFile(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string Canonical(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : p;
}

bool HasElfHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {0, 0, 0, 0};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

absl::Status Prefix(const absl::Status& s, const std::string& prefix) {
  if (s.ok()) return s;
  if (absl::StartsWith(s.message(), prefix)) return s;
  return absl::Status(s.code(), absl::StrCat(prefix, ": ", s.message()));
}

// Runs `init` in a transaction and commits it.
absl::Status RunInit(Registry* registry, LoomPluginInitFn init, const std::string& label) {
  RegistrationTransaction txn(registry, label);
  LoomRegistrar reg{&txn};
  absl::Status s = FromLoomStatus(init(GetLoomApi(), &reg));
  if (!s.ok()) return s;
  if (!txn.declared()) {
    return absl::FailedPreconditionError("LoomPluginInit returned without calling DeclarePlugin");
  }
  return registry->Commit(txn);
}

// `search_path`, or the default folder when it is empty.
std::vector<std::string> Folders(const std::vector<std::string>& search_path) {
  return search_path.empty() ? std::vector<std::string>{DefaultPluginDir()} : search_path;
}

absl::StatusOr<std::string> Resolve(const std::string& name_or_path, const std::vector<std::string>& search_path) {
  if (name_or_path.find('/') != std::string::npos || IsFile(name_or_path)) {
    if (!IsFile(name_or_path)) {
      return absl::NotFoundError(absl::StrCat("plugin '", name_or_path, "': no such file"));
    }
    return name_or_path;
  }
  std::vector<std::string> tried;
  const std::vector<std::string> folders = Folders(search_path);
  for (const std::string& dir : folders) {
    for (const std::string& file : {name_or_path, absl::StrCat("lib", name_or_path, ".so"),
                                    absl::StrCat("libloom_", name_or_path, ".so")}) {
      std::string p = absl::StrCat(dir, "/", file);
      if (IsFile(p)) return p;
      tried.push_back(p);
    }
  }
  return absl::NotFoundError(absl::StrCat("plugin '", name_or_path, "': no such file; searched ",
                                          absl::StrJoin(folders, ", "), " (", tried.size(), " candidates)"));
}

}  // namespace

absl::Status RegisterBuiltinPlugin(Registry* registry, LoomPluginInitFn init, const std::string& label) {
  return Prefix(RunInit(registry, init, label), absl::StrCat("plugin ", label));
}

absl::Status LoadPlugin(Registry* registry, const std::string& name_or_path,
                        const std::vector<std::string>& search_path) {
  absl::StatusOr<std::string> resolved = Resolve(name_or_path, search_path);
  if (!resolved.ok()) return resolved.status();
  std::string path = Canonical(*resolved);
  if (registry->IsLoadedPath(path)) return absl::OkStatus();
  std::string prefix = absl::StrCat("plugin '", path, "'");
  if (!HasElfHeader(path)) {
    return absl::InvalidArgumentError(absl::StrCat(prefix, ": not a shared object (no ELF header)"));
  }
  ::dlerror();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = ::dlerror();
    return absl::FailedPreconditionError(absl::StrCat(prefix, ": cannot load: ", e ? e : "dlopen failed"));
  }
  auto init = reinterpret_cast<LoomPluginInitFn>(::dlsym(handle, LOOM_PLUGIN_INIT_SYMBOL));
  if (init == nullptr) {
    ::dlclose(handle);
    return absl::NotFoundError(absl::StrCat(prefix, ": no entry point '", LOOM_PLUGIN_INIT_SYMBOL,
                                            "' (is it a Loom plugin?)"));
  }
  absl::Status s = RunInit(registry, init, path);
  if (!s.ok()) {
    // Nothing of it was registered, so no function pointer into it survives.
    ::dlclose(handle);
    return Prefix(s, prefix);
  }
  return absl::OkStatus();  // Never unloaded: kernels and devices point into it.
}

std::string DefaultPluginDir() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "loom_plugins";
  std::string exe(buf, static_cast<size_t>(n));
  return absl::StrCat(exe.substr(0, exe.rfind('/')), "/loom_plugins");
}

DefaultLoadReport LoadDefaultPlugins(Registry* registry, const std::vector<std::string>& search_path,
                                     const std::string& skip_basename) {
  DefaultLoadReport report;
  for (const std::string& dir : Folders(search_path)) {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) continue;
    std::vector<std::string> files;
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (absl::EndsWith(name, ".so") && name != skip_basename) files.push_back(absl::StrCat(dir, "/", name));
    }
    ::closedir(d);
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) {
      absl::Status s = LoadPlugin(registry, f);
      if (s.ok()) {
        report.loaded.push_back(Canonical(f));
      } else {
        std::string w = absl::StrCat("skipping plugin: ", s.message());
        std::fprintf(stderr, "[loom W] %s\n", w.c_str());
        report.warnings.push_back(std::move(w));
      }
    }
  }
  return report;
}

}  // namespace loom
