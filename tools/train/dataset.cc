#include "tools/train/dataset.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace loom {
namespace train {

absl::StatusOr<Dataset> ReadCsv(const std::string& path, float scale) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files too
  if (f == nullptr) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::string text;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(n));
  gzclose(f);
  Dataset d;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    std::vector<absl::string_view> cells = absl::StrSplit(line, ',');
    std::vector<double> values;
    bool numeric = true;
    for (absl::string_view c : cells) {
      double v;
      numeric = numeric && absl::SimpleAtod(c, &v);
      values.push_back(numeric ? v : 0);
    }
    if (!numeric) continue;  // a header
    if (values.size() < 2) return absl::InvalidArgumentError(absl::StrCat(path, ":", line_no, ": needs features and a label"));
    const int64_t width = static_cast<int64_t>(values.size()) - 1;
    if (d.features == 0) d.features = width;
    if (width != d.features) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line_no, ": ", width, " features; earlier rows have ",
                                                     d.features));
    }
    const double label = values.back();
    if (label < 0 || label != std::floor(label)) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line_no, ": label ", label, " is not a class index"));
    }
    for (int64_t i = 0; i < width; ++i) d.x.push_back(static_cast<float>(values[i]) * scale);
    d.label.push_back(static_cast<int64_t>(label));
  }
  if (d.label.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": no rows"));
  return d;
}

void Split(const Dataset& all, double test_fraction, uint32_t seed, bool shuffle, Dataset* train, Dataset* test) {
  std::vector<int64_t> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  if (shuffle) {
    std::mt19937 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
  }
  const int64_t n_test = static_cast<int64_t>(std::llround(test_fraction * static_cast<double>(all.size())));
  *train = Dataset{all.features, {}, {}};
  *test = Dataset{all.features, {}, {}};
  for (int64_t k = 0; k < all.size(); ++k) {
    Dataset* to = k >= all.size() - n_test ? test : train;
    const int64_t i = order[k];
    to->x.insert(to->x.end(), all.x.begin() + i * all.features, all.x.begin() + (i + 1) * all.features);
    to->label.push_back(all.label[i]);
  }
}

void Batch(const Dataset& d, int64_t begin, int64_t n, Tensor* x, Tensor* y) {
  *x = Tensor::FromVector<float>({n, d.features}, std::vector<float>(d.x.begin() + begin * d.features,
                                                                       d.x.begin() + (begin + n) * d.features));
  *y = Tensor::FromVector<int64_t>({n}, std::vector<int64_t>(d.label.begin() + begin, d.label.begin() + begin + n));
}

}  // namespace train
}  // namespace loom
