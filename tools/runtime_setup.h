// Registry setup shared by the command-line tools.
#ifndef LOOM_TOOLS_RUNTIME_SETUP_H_
#define LOOM_TOOLS_RUNTIME_SETUP_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/registry.h"

namespace loom {
namespace tools {

// A registry with the built-in standard op set ("loom.std"), every plugin in
// LOOM_PLUGIN_PATH and the default folder (broken ones skipped, reported in
// `warnings`; files named `skip_basename` are not loaded), then each of
// `extra_plugins` (an error if one fails).
absl::StatusOr<std::unique_ptr<Registry>> MakeRegistry(const std::vector<std::string>& extra_plugins,
                                                       std::vector<std::string>* warnings,
                                                       const std::string& skip_basename = "");

// `s` as a JSON string literal, quotes included.
std::string JsonString(const std::string& s);

// A file shipped with the tool: looks in <binary>.runfiles/loom/<path>, then
// next to the binary, then relative to the current folder.
std::string FindDataFile(const std::string& workspace_relative_path);

}  // namespace tools
}  // namespace loom

#endif  // LOOM_TOOLS_RUNTIME_SETUP_H_
