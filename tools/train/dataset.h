// Datasets for loom_train: CSV files (optionally gzip-compressed, .gz), one
// example per line, the features then the integer class label last (the
// layout of scikit-learn's bundled datasets, e.g. Debian python3-sklearn's
// sklearn/datasets/data/digits.csv.gz). Lines that do not parse as numbers
// (a header) are skipped.
#ifndef LOOM_TOOLS_TRAIN_DATASET_H_
#define LOOM_TOOLS_TRAIN_DATASET_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"

namespace loom {
namespace train {

struct Dataset {
  int64_t features = 0;
  std::vector<float> x;        // [examples, features], row-major, scaled
  std::vector<int64_t> label;  // [examples]
  int64_t size() const { return static_cast<int64_t>(label.size()); }
};

// Reads `path`; every feature is multiplied by `scale`. INVALID_ARGUMENT
// (naming the file and line) for rows of different widths, a label that is
// not a non-negative integer, or no rows; NOT_FOUND when the file is missing.
absl::StatusOr<Dataset> ReadCsv(const std::string& path, float scale);

// Shuffles `all` with `seed` (unless `shuffle` is false: file order) and
// splits off the last `test_fraction` of it.
void Split(const Dataset& all, double test_fraction, uint32_t seed, bool shuffle, Dataset* train, Dataset* test);

// Rows [begin, begin + n) as x [n, features] float32 and y [n] int64.
void Batch(const Dataset& d, int64_t begin, int64_t n, Tensor* x, Tensor* y);

}  // namespace train
}  // namespace loom

#endif  // LOOM_TOOLS_TRAIN_DATASET_H_
