// The registry a Session (and each tool, and Python) runs with: Loom's
// built-in standard op set and the plugins found where a deployment puts
// them. The environment is read here, not in the core.
#ifndef LOOM_SESSION_REGISTRY_SETUP_H_
#define LOOM_SESSION_REGISTRY_SETUP_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/registry.h"

namespace loom {

// The folders plugins are looked for in, in order: each of LOOM_PLUGIN_PATH
// (colon-separated), then the default folder, `loom_plugins/` next to the
// running binary (DefaultPluginDir, core/plugin_loader.h).
std::vector<std::string> PluginSearchPath();

// A registry with the built-in standard op set ("loom.std"), every plugin in
// LOOM_PLUGIN_PATH and the default folder (broken ones skipped, reported in
// `warnings`; files named `skip_basename` are not loaded), then each of
// `extra_plugins` (paths, or names looked for in PluginSearchPath(); an
// error if one fails, NOT_FOUND naming the folders searched). With
// LOOM_POISON_RELEASED_MEMORY=1 in the environment it also turns on
// SetPoisonReleasedMemoryByDefault (core/net.h) for the process.
absl::StatusOr<std::unique_ptr<Registry>> MakeRegistry(const std::vector<std::string>& extra_plugins,
                                                       std::vector<std::string>* warnings,
                                                       const std::string& skip_basename = "");

}  // namespace loom

#endif  // LOOM_SESSION_REGISTRY_SETUP_H_
