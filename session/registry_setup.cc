#include "session/registry_setup.h"

#include "core/plugin_loader.h"
#include "ops/std_ops.h"

namespace loom {

absl::StatusOr<std::unique_ptr<Registry>> MakeRegistry(const std::vector<std::string>& extra_plugins,
                                                       std::vector<std::string>* warnings,
                                                       const std::string& skip_basename) {
  auto registry = std::make_unique<Registry>();
  absl::Status s = RegisterBuiltinPlugin(registry.get(), &LoomStdOpsInit, "<built-in>");
  if (!s.ok()) return s;
  DefaultLoadReport report = LoadDefaultPlugins(registry.get(), skip_basename);
  if (warnings) *warnings = report.warnings;
  for (const std::string& p : extra_plugins) {
    s = LoadPlugin(registry.get(), p);
    if (!s.ok()) return s;
  }
  return registry;
}

}  // namespace loom
