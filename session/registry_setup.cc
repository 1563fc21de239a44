#include "session/registry_setup.h"

#include <cstdlib>

#include "absl/strings/str_split.h"
#include "core/net.h"
#include "core/plugin_loader.h"
#include "ops/std_ops.h"

namespace loom {

std::vector<std::string> PluginSearchPath() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("LOOM_PLUGIN_PATH")) {
    for (absl::string_view d : absl::StrSplit(env, ':', absl::SkipEmpty())) dirs.emplace_back(d);
  }
  dirs.push_back(DefaultPluginDir());
  return dirs;
}

absl::StatusOr<std::unique_ptr<Registry>> MakeRegistry(const std::vector<std::string>& extra_plugins,
                                                       std::vector<std::string>* warnings,
                                                       const std::string& skip_basename) {
  // A debugging switch CI sets for the suite (NetOptions::poison_released_memory).
  if (const char* poison = std::getenv("LOOM_POISON_RELEASED_MEMORY"); poison != nullptr && poison[0] == '1') {
    SetPoisonReleasedMemoryByDefault(true);
  }
  auto registry = std::make_unique<Registry>();
  absl::Status s = RegisterBuiltinPlugin(registry.get(), &LoomStdOpsInit, "<built-in>");
  if (!s.ok()) return s;
  const std::vector<std::string> search_path = PluginSearchPath();
  DefaultLoadReport report = LoadDefaultPlugins(registry.get(), search_path, skip_basename);
  if (warnings) *warnings = report.warnings;
  for (const std::string& p : extra_plugins) {
    s = LoadPlugin(registry.get(), p, search_path);
    if (!s.ok()) return s;
  }
  return registry;
}

}  // namespace loom
