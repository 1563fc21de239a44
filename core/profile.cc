#include "core/profile.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace loom {

std::string Profile::ToString() const {
  std::string out;
  double runs_d = runs > 0 ? static_cast<double>(runs) : 1.0;
  absl::StrAppendFormat(&out, "%-48s %12s %8s %12s  %s\n", "op", "ms/run", "share", "out KiB", "kernel");
  for (const OpProfile& p : ops) {
    absl::StrAppendFormat(&out, "%-48s %12.4f %7.1f%% %12.1f  %s\n", p.label, p.total_ms / runs_d,
                          total_ms > 0 ? 100.0 * p.total_ms / total_ms : 0.0, p.output_bytes / 1024.0, p.kernel);
  }
  std::vector<std::pair<std::string, TypeProfile>> types(by_type.begin(), by_type.end());
  std::sort(types.begin(), types.end(), [](const auto& a, const auto& b) { return a.second.total_ms > b.second.total_ms; });
  absl::StrAppendFormat(&out, "\n%-24s %12s %8s %10s\n", "op type", "ms/run", "share", "calls/run");
  for (const auto& [type, t] : types) {
    absl::StrAppendFormat(&out, "%-24s %12.4f %7.1f%% %10.1f\n", type, t.total_ms / runs_d,
                          total_ms > 0 ? 100.0 * t.total_ms / total_ms : 0.0, t.calls / runs_d);
  }
  absl::StrAppendFormat(&out, "%-24s %12.4f  (%lld runs)\n", "total", total_ms / runs_d, static_cast<long long>(runs));
  return out;
}

}  // namespace loom
