// The symbols a shared object exports (its dynamic symbol table), for
// `loom_inspect --check`: a plugin should export LoomPluginInit alone
// (tools/build_defs/plugin.bzl's version script), since every other
// exported symbol, such as a weak std::vector instantiation, can bind to
// another plugin's copy of the same name.
#ifndef LOOM_TOOLS_ELF_SYMBOLS_H_
#define LOOM_TOOLS_ELF_SYMBOLS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace loom {
namespace tools {

// The defined functions and objects of the 64-bit little-endian ELF file at
// `path` with global or weak binding and default or protected visibility
// (what another object can bind to), as their raw (mangled) names, in table
// order. INVALID_ARGUMENT for a file that is not such an ELF file or whose
// tables lie outside it; NOT_FOUND when it cannot be read.
absl::StatusOr<std::vector<std::string>> ExportedSymbols(const std::string& path);

// `name` demangled (C++), or `name` itself when it is not a C++ name.
std::string Demangle(const std::string& name);

}  // namespace tools
}  // namespace loom

#endif  // LOOM_TOOLS_ELF_SYMBOLS_H_
