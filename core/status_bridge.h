// Conversions between absl::Status and the ABI's LoomStatus objects.
#ifndef LOOM_CORE_STATUS_BRIDGE_H_
#define LOOM_CORE_STATUS_BRIDGE_H_

#include <string>

#include "absl/status/status.h"
#include "core/api/loom_c_api.h"

struct LoomStatus {
  LoomStatusCode code;
  std::string message;
};

namespace loom {

// A new LoomStatus (nullptr for OK) that the receiver owns.
LoomStatus* ToLoomStatus(const absl::Status& s);
// Takes ownership of `s` (may be nullptr) and converts it.
absl::Status FromLoomStatus(LoomStatus* s);

}  // namespace loom

#endif  // LOOM_CORE_STATUS_BRIDGE_H_
