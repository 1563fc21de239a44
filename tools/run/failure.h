// How loom_run's parts fail: with a status whose message is the whole line
// that loom_run prints after "loom_run: ".
#ifndef LOOM_TOOLS_RUN_FAILURE_H_
#define LOOM_TOOLS_RUN_FAILURE_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace loom {
namespace tools {

// `cause` (not OK) behind `context`, with its code in the text as well
// ("--device CUDA: cannot load ...: NOT_FOUND: ..."): loom_run has always
// shown the code of an underlying error, and its lines stay as they were.
inline absl::Status Failure(absl::string_view context, const absl::Status& cause) {
  return absl::Status(cause.code(), absl::StrCat(context, cause.ToString()));
}
inline absl::Status Failure(const absl::Status& cause) { return Failure("", cause); }

}  // namespace tools
}  // namespace loom

#endif  // LOOM_TOOLS_RUN_FAILURE_H_
