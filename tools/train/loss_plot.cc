#include "tools/train/loss_plot.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace loom {
namespace train {

absl::Status PlotLoss(const std::vector<std::pair<int64_t, double>>& curve, const std::string& png) {
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) {
    return absl::UnavailableError("gnuplot is not installed (apt-get install gnuplot-nox)");
  }
  const std::string dat = png + ".dat";
  {
    std::ofstream out(dat);
    for (const auto& [step, loss] : curve) out << step << " " << loss << "\n";
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", dat));
  }
  auto quoted = [](const std::string& s) { return absl::StrCat("'", absl::StrReplaceAll(s, {{"'", "''"}}), "'"); };
  const std::string script =
      absl::StrCat("set terminal png size 800,480 noenhanced; set output ", quoted(png),
                   "; set xlabel 'step'; set ylabel 'training loss (batch)'; set grid; set logscale y; "
                   "plot ", quoted(dat), " using 1:2 with lines title 'loom_train'");
  const std::string command = absl::StrCat("gnuplot -e \"", absl::StrReplaceAll(script, {{"\"", "\\\""}}), "\"");
  if (std::system(command.c_str()) != 0) return absl::InternalError(absl::StrCat("gnuplot failed: ", command));
  return absl::OkStatus();
}

}  // namespace train
}  // namespace loom
