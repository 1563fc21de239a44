#include "core/status_bridge.h"

namespace loom {

LoomStatus* ToLoomStatus(const absl::Status& s) {
  if (s.ok()) return nullptr;
  return new LoomStatus{static_cast<LoomStatusCode>(s.code()), std::string(s.message())};
}

absl::Status FromLoomStatus(LoomStatus* s) {
  if (s == nullptr) return absl::OkStatus();
  absl::Status out(static_cast<absl::StatusCode>(s->code == LOOM_OK ? LOOM_UNKNOWN : s->code), s->message);
  delete s;
  return out;
}

}  // namespace loom
