// Loading plugins: shared objects that export LoomPluginInit (the C ABI in
// core/api/loom_c_api.h), and linked-in ones registered the same way.
//
// Search order for LoadPlugin(name_or_path, search_path): an explicit path
// (anything with a '/' or an existing file); then each folder of
// `search_path`, in order (empty: the default folder, `loom_plugins/` next
// to the running binary). In a folder, `name`, `lib<name>.so` and
// `libloom_<name>.so` are tried. The core reads no environment: the
// Session's registry set-up (session/registry_setup.h) makes the search path
// of LOOM_PLUGIN_PATH and the default folder.
//
// Registration is transactional: a plugin whose LoomPluginInit fails leaves
// the registry unchanged. Loading the same file twice is a no-op.
#ifndef LOOM_CORE_PLUGIN_LOADER_H_
#define LOOM_CORE_PLUGIN_LOADER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/api/loom_c_api.h"
#include "core/registry.h"

namespace loom {

// Registers a plugin linked into the binary (e.g. the standard op set),
// through the same function table as a loaded one.
absl::Status RegisterBuiltinPlugin(Registry* registry, LoomPluginInitFn init, const std::string& label);

// Loads one plugin. Errors (each names the file): NOT_FOUND (no such file;
// or no LoomPluginInit entry point), INVALID_ARGUMENT (not a shared object),
// FAILED_PRECONDITION (dlopen failed, e.g. a missing dependency, named in the
// message; or an ABI version the core does not provide, with both versions),
// ALREADY_EXISTS (a schema or kernel key owned by another plugin, named), or
// the plugin's own error. On any error the registry is unchanged.
absl::Status LoadPlugin(Registry* registry, const std::string& name_or_path,
                        const std::vector<std::string>& search_path = {});

struct DefaultLoadReport {
  std::vector<std::string> loaded;    // paths
  std::vector<std::string> warnings;  // one per plugin skipped, with the reason
};
// Loads every `*.so` in the folders of `search_path`, in order (empty: the
// default folder). A plugin that fails is skipped with a warning (also logged to
// stderr) and the others still load; one already loaded is skipped silently.
// Files named `skip_basename` (if not empty) are left alone.
DefaultLoadReport LoadDefaultPlugins(Registry* registry, const std::vector<std::string>& search_path = {},
                                     const std::string& skip_basename = "");

// `<folder of the running binary>/loom_plugins`.
std::string DefaultPluginDir();

}  // namespace loom

#endif  // LOOM_CORE_PLUGIN_LOADER_H_
