#include "tools/runtime_setup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace loom {
namespace tools {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string FindDataFile(const std::string& path) {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  std::string exe = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  struct stat st;
  for (const std::string& c : {absl::StrCat(exe, ".runfiles/loom/", path),
                               absl::StrCat(exe.substr(0, exe.rfind('/') + 1), path), path}) {
    if (::stat(c.c_str(), &st) == 0) return c;
  }
  return path;
}

}  // namespace tools
}  // namespace loom
