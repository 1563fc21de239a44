// Helpers shared by the command-line tools (the registry they run with is
// the Session's: session/registry_setup.h).
#ifndef LOOM_TOOLS_RUNTIME_SETUP_H_
#define LOOM_TOOLS_RUNTIME_SETUP_H_

#include <string>

namespace loom {
namespace tools {

// `s` as a JSON string literal, quotes included.
std::string JsonString(const std::string& s);

// A file shipped with the tool: looks in <binary>.runfiles/loom/<path>, then
// next to the binary, then relative to the current folder.
std::string FindDataFile(const std::string& workspace_relative_path);

}  // namespace tools
}  // namespace loom

#endif  // LOOM_TOOLS_RUNTIME_SETUP_H_
