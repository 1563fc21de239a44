// loom_run's report of a run: the model, each output (leading values, and
// the files of --output_dir), the time per run and the --profile table.
#ifndef LOOM_TOOLS_RUN_REPORT_H_
#define LOOM_TOOLS_RUN_REPORT_H_

#include <ostream>

#include "absl/status/status.h"
#include "tools/run/model_runner.h"
#include "tools/run/run_options.h"

namespace loom {
namespace tools {

// Prints `result` to `out`: a "Model:" line, a line per output (dtype,
// shape, the first options.show values), then the mean, p50 and p90 time
// per run and, with options.profile, the per-op profile. With
// options.output_dir, each output is also written there as <name>.pb (a
// TensorProto; the folder is created if missing) and, with
// options.output_raw, as <name>.bin (raw data), right after its line.
// Errors: the folder or a file cannot be written (the report stops there);
// the message is the whole line loom_run prints after "loom_run: "
// (failure.h).
absl::Status WriteReport(const RunResult& result, const RunOptions& options, std::ostream& out);

}  // namespace tools
}  // namespace loom

#endif  // LOOM_TOOLS_RUN_REPORT_H_
