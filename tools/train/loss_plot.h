// The loss curve as a PNG, drawn by gnuplot (Debian gnuplot-nox).
#ifndef LOOM_TOOLS_TRAIN_LOSS_PLOT_H_
#define LOOM_TOOLS_TRAIN_LOSS_PLOT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace loom {
namespace train {

// Writes (step, loss) points to `png` as a line plot: the data go to
// `png`.dat next to it, then gnuplot draws them. UNAVAILABLE when gnuplot
// is not installed (scripts/setup.sh installs gnuplot-nox), INTERNAL when
// it fails.
absl::Status PlotLoss(const std::vector<std::pair<int64_t, double>>& curve, const std::string& png);

}  // namespace train
}  // namespace loom

#endif  // LOOM_TOOLS_TRAIN_LOSS_PLOT_H_
